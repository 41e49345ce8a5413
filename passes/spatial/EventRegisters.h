//===- EventRegisters.h - Mailbox event registers, reused safely -*- C++ -*-===//
//
// In latency mode through global memory a producer stores its output and
// `sync`s the reading cores that need it (below); a reader `wait`s on the
// event register the sender signals. A register counts tokens and cannot tell senders apart,
// so one sender signals it at a time (its tokens arrive in its program's
// order: the k-th says its k-th buffer is stored). A core has 32 of them;
// a reader hearing from more cores than that once received from the rest
// by rendezvous, the send placed where its sender's program happened to be
// (U-Net int8 has readers of 146 senders).
//
// This class hands a register over to another sender when that is provably
// safe: the register's tokens have all been taken, and the reader's last
// wait on it happens before the new sender's first signal (a vector clock
// per core over the lowering's global order: signals carry the sender's
// clock to the wait that takes them, a rendezvous joins both sides'). A
// token of the new sender then cannot arrive while the reader still waits
// for the old sender's, so no wait is ever satisfied by the wrong sender.
// Deadlock freedom is unchanged: a wait still waits for signals emitted
// earlier in the global order.
//
// A producer stores its output right after its work (a store event in its
// clock); a reader decides when it reads: a reader whose clock already
// knows that event (a message the producer sent after the store reached it
// through other cores) loads at once and takes no register; otherwise the
// signal goes back into the producer's program right after the store,
// signalled with the producer's clock there (so a handed-over register is
// checked against what the producer knew at that point), and only when it
// follows the producer's earlier signals on that register (they arrive in
// program order). A register is then booked from that read's emission to
// its wait, not from the production to a read that may come much later (a
// skip connection's). The reader waits for a point of the producer's
// program emitted earlier, so no wait cycle can form.
//
// The lowering (Lowering::mail) and the queue model (programOf) both call
// it with the events they emit, in the same global order, so that the
// estimate hands out registers as the programs do.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_EVENTREGISTERS_H
#define RAPTOR_PASSES_SPATIAL_EVENTREGISTERS_H

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace raptor::spatial {

class EventRegisters {
public:
  EventRegisters(unsigned cores, int64_t registers);

  using Clock = std::vector<int64_t>; // per core: the events known to have happened

  /// The register of `reader` that `sender` signals now: the one it holds,
  /// else one handed over safely (free, and its last wait known to the
  /// sender), else one never used; none when every register is busy.
  /// `known`: the sender's clock at the point of its program the signal
  /// goes to (default: now); `peek`: nothing changes hands.
  std::optional<int64_t> registerFor(unsigned reader, unsigned sender, const Clock *known = nullptr,
                                     bool peek = false);
  /// `sender` signals register `event` of `reader` now (after
  /// registerFor), or at the earlier point whose clock is `when`; returns
  /// the signal's number on that register (1, 2, ...).
  int64_t signal(unsigned sender, unsigned reader, int64_t event, const Clock *when = nullptr);
  /// `core` completes a store now: its clock after that event.
  Clock stored(unsigned core) {
    tick(core);
    return clocks[core];
  }
  /// Whether `reader` knows of `core`'s event `clock[core]`.
  bool knows(unsigned reader, unsigned core, const Clock &clock) const { return clocks[reader][core] >= clock[core]; }
  /// `reader` waits now until signal `number` of its register `event` is
  /// taken; returns how many tokens to wait for (0: taken already).
  int64_t waitFor(unsigned reader, int64_t event, int64_t number);
  /// The tokens of `reader`'s register `event` never waited for.
  int64_t outstanding(unsigned reader, int64_t event) const;
  /// A blocking send and receive between `a` and `b` emitted now.
  void rendezvous(unsigned a, unsigned b);

  int64_t registers() const { return count; }
  /// How many times a register changed hands (a report figure).
  int64_t handOvers() const { return handedOver; }

private:
  struct Register {
    int64_t holder = -1;       // the sender signalling it, -1 never used
    int64_t sent = 0, taken = 0;
    std::deque<Clock> pending; // the senders' clocks of tokens not yet taken
    int64_t freedAt = 0;       // the reader's event that took its last token
  };
  /// Advances core `c` by one event.
  void tick(unsigned c) { ++clocks[c][c]; }
  Register &at(unsigned reader, int64_t event) { return table[reader][size_t(event)]; }

  int64_t count;
  std::vector<Clock> clocks;
  std::vector<std::vector<Register>> table; // per reader, per register
  int64_t handedOver = 0;
};

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_EVENTREGISTERS_H
