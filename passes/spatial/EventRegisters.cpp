//===- EventRegisters.cpp - Mailbox event registers, reused safely --------===//

#include "passes/spatial/EventRegisters.h"

#include <algorithm>

namespace raptor::spatial {

EventRegisters::EventRegisters(unsigned cores, int64_t registers)
    : count(registers), clocks(cores, Clock(cores, 0)), table(cores, std::vector<Register>(size_t(registers))) {}

std::optional<int64_t> EventRegisters::registerFor(unsigned reader, unsigned sender, const Clock *known, bool peek) {
  std::vector<Register> &regs = table[reader];
  for (int64_t e = 0; e < count; ++e)
    if (regs[size_t(e)].holder == int64_t(sender))
      return e;
  // A register whose tokens are all taken passes to this sender if it
  // knows of the reader's wait that took the last one (the earliest freed
  // first); else a register never used.
  const Clock &knows = known ? *known : clocks[sender];
  std::optional<int64_t> best, fresh;
  for (int64_t e = 0; e < count; ++e) {
    const Register &r = regs[size_t(e)];
    if (r.holder < 0) {
      if (!fresh)
        fresh = e;
    } else if (r.pending.empty() && knows[reader] >= r.freedAt &&
               (!best || r.freedAt < regs[size_t(*best)].freedAt)) {
      best = e;
    }
  }
  std::optional<int64_t> e = best ? best : fresh;
  if (!e || peek)
    return e;
  if (best)
    ++handedOver;
  regs[size_t(*e)].holder = int64_t(sender);
  return e;
}

int64_t EventRegisters::signal(unsigned sender, unsigned reader, int64_t event, const Clock *when) {
  Register &r = at(reader, event);
  if (when) {
    r.pending.push_back(*when);
  } else {
    tick(sender);
    r.pending.push_back(clocks[sender]);
  }
  return ++r.sent;
}

int64_t EventRegisters::waitFor(unsigned reader, int64_t event, int64_t number) {
  Register &r = at(reader, event);
  if (number <= r.taken)
    return 0;
  int64_t tokens = number - r.taken;
  tick(reader);
  Clock &mine = clocks[reader];
  for (; r.taken < number; ++r.taken) {
    const Clock &theirs = r.pending.front();
    for (size_t c = 0; c < mine.size(); ++c)
      mine[c] = std::max(mine[c], theirs[c]);
    r.pending.pop_front();
  }
  r.freedAt = mine[reader];
  return tokens;
}

int64_t EventRegisters::outstanding(unsigned reader, int64_t event) const {
  const Register &r = table[reader][size_t(event)];
  return r.sent - r.taken;
}

void EventRegisters::rendezvous(unsigned a, unsigned b) {
  tick(a);
  tick(b);
  for (size_t c = 0; c < clocks[a].size(); ++c)
    clocks[a][c] = clocks[b][c] = std::max(clocks[a][c], clocks[b][c]);
}

} // namespace raptor::spatial
