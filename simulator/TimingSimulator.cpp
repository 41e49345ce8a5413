//===- TimingSimulator.cpp - Event-driven timing of PIM programs -*- C++ -*-===//
//
// Each core computes the times of its instructions on its own clock and
// stops at every instruction that meets another agent (global memory, a
// peer, an event register). Those are handled in global time order through
// one event queue, so that global memory serves requests in arrival order
// and a wait sees exactly the syncs delivered before it. Purely local
// instructions never wait for the queue: their times follow from the
// core's own state.
//
//===----------------------------------------------------------------------===//
#include "simulator/TimingSimulator.h"

#include "simulator/DeadlockReport.h"
#include "simulator/ProgramCursor.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <map>
#include <queue>

namespace raptor::pim {

namespace {

enum class Block { None, Send, Recv, Wait, Global, Done };

/// A non-scalar instruction in the reorder buffer: when it retires, and
/// the local bytes it touches (for hazards when several are in flight).
struct Slot {
  double endNs = 0, retireNs = 0;
  llvm::SmallVector<std::pair<int64_t, int64_t>, 3> reads, writes;
};

struct Core {
  explicit Core(const CoreProgram &program, int64_t robSize)
      : program(&program), cursor(program), rob(size_t(robSize)), groupFree(program.groups.size(), 0) {}
  const CoreProgram *program;
  ProgramCursor cursor;
  double decodeNs = 0; // when the next instruction leaves decode
  std::vector<Slot> rob;
  size_t robHead = 0;
  double lastRetireNs = 0;
  double vectorFree = 0, transferFree = 0, fifoFree = 0;
  std::vector<std::pair<double, double>> portBusy; // local-memory port, sorted
  std::vector<double> groupFree;
  int32_t ibiw = 32, obiw = 32;
  int64_t events[32] = {};
  Block block = Block::None;
  double blockedAt = 0; // the start of the instruction it is blocked in
  int64_t generation = 0;
  std::vector<double> passEndNs;
  CoreTiming stats;
};

/// What the event queue holds: resume a core at its next instruction,
/// a global-memory request arriving, a sync token arriving.
enum class EventKind { Resume, GlobalArrival, SyncDelivery };
struct Event {
  double timeNs;
  uint64_t sequence; // ties: first scheduled, first handled
  EventKind kind;
  size_t core;
  int64_t event = 0; // SyncDelivery: the event register
  bool operator>(const Event &o) const {
    return timeNs != o.timeNs ? timeNs > o.timeNs : sequence > o.sequence;
  }
};

struct Channel {
  std::deque<double> permissions; // receives posted, with their permission's arrival at the sender
  std::deque<double> sends;       // sends waiting for permission, with their start
};

struct Budget {};

class Machine {
public:
  Machine(const Program &program, const TimingConfig &config, const TimingOptions &options)
      : program(program), t(config), options(options) {
    cores.reserve(program.programs.size());
    for (const CoreProgram &p : program.programs)
      cores.emplace_back(p, std::max<int64_t>(config.robSize, 1));
    for (auto &last : lastSpan)
      last.assign(cores.size(), -1);
    lastTask.assign(cores.size(), nullptr);
  }

  TimingResult run() {
    auto wall = std::chrono::steady_clock::now();
    if (int64_t(cores.size()) > t.cores) {
      result.error = llvm::formatv("the program has {0} cores but chip.json describes {1}", cores.size(), t.cores);
      return result;
    }
    for (size_t c = 0; c < cores.size(); ++c)
      schedule(0, EventKind::Resume, c);
    try {
      while (!queue.empty() && !converged) {
        Event e = queue.top();
        queue.pop();
        handle(e);
      }
    } catch (Budget &) {
      result.error = llvm::formatv("the cores executed {0} instructions without finishing, the timing "
                                   "simulator's budget", options.maxInstructions);
    } catch (std::string &message) {
      result.error = message;
    }
    if (result.error.empty() && !converged)
      for (const Core &core : cores)
        if (core.block != Block::Done) {
          result.error = deadlockReport();
          break;
        }
    result.ok = result.error.empty();
    for (Core &core : cores) {
      core.stats.finishNs = core.passEndNs.empty() ? core.lastRetireNs : core.passEndNs.front();
      result.cores.push_back(core.stats);
      result.latencyNs = std::max(result.latencyNs, core.stats.finishNs);
    }
    // A skewed pipeline's first inference leaves after `frames` passes.
    if (frames() > 1)
      result.latencyNs = int64_t(generationEnds.size()) >= frames() ? generationEnds[size_t(frames() - 1)] : 0;
    result.generationEndNs = generationEnds;
    result.converged = converged;
    result.intervalNs = interval;
    result.globalRequests = globalRequests;
    result.globalBusyNs = globalBusy;
    for (const auto &[name, count] : approximated)
      result.approximated.push_back({name, count});
    for (const auto &[key, task] : tasks)
      result.tasks.push_back(task);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    return result;
  }

private:
  const Program &program;
  const TimingConfig &t;
  const TimingOptions &options;
  std::vector<Core> cores;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue;
  uint64_t sequence = 0;
  std::map<std::pair<size_t, size_t>, Channel> channels; // (sender, receiver)
  double globalFree = 0, globalFifoFree = 0, globalBusy = 0;
  int64_t globalRequests = 0, executed = 0;
  std::vector<double> generationEnds;
  bool converged = false;
  double interval = 0;
  std::map<std::string, int64_t> approximated;
  TimingResult result;
  /// Per span kind and core: the index of its last span in the timeline.
  std::array<std::vector<int64_t>, 5> lastSpan;
  /// The first pass per (operator, core): a task's instructions run on its
  /// core, and the sends of its inputs on their producers' cores.
  std::map<std::pair<int64_t, int64_t>, TaskTiming> tasks;

  /// Per core, the task of its last instruction: consecutive instructions
  /// mostly share one, so the map is searched once per change of task.
  std::vector<TaskTiming *> lastTask;

  TaskTiming *taskOf(size_t c, const Instruction &in) {
    if (!cores[c].passEndNs.empty() || in.origin < 0 || size_t(in.origin) >= program.operators.size())
      return nullptr;
    if (lastTask[c] && lastTask[c]->origin == in.origin)
      return lastTask[c];
    auto [it, added] = tasks.try_emplace({in.origin, int64_t(c)}); // (map nodes never move)
    if (added) {
      it->second.origin = in.origin, it->second.core = int64_t(c);
      it->second.startNs = INFINITY;
    }
    return lastTask[c] = &it->second;
  }

  double period() const { return t.periodNs; }

  void schedule(double time, EventKind kind, size_t core, int64_t event = 0) {
    queue.push({time, sequence++, kind, core, event});
  }

  void handle(const Event &e) {
    Core &core = cores[e.core];
    switch (e.kind) {
    case EventKind::Resume:
      if (core.block == Block::None)
        advanceCore(e.core, e.timeNs);
      return;
    case EventKind::GlobalArrival:
      serveGlobal(e.core, e.timeNs);
      return;
    case EventKind::SyncDelivery:
      core.events[e.event] += 1;
      if (core.block == Block::Wait) {
        const Instruction &in = core.cursor.current();
        if (in.event == e.event && core.events[in.event] >= in.waitValue) {
          core.events[in.event] -= in.waitValue;
          waited(e.core, core.blockedAt, e.timeNs);
          core.block = Block::None;
          finish(e.core, core.blockedAt, e.timeNs, Unit::Transfer);
          advanceCore(e.core, e.timeNs);
        }
      }
      return;
    }
  }

  // --- the pipeline of one core --------------------------------------------

  /// The reorder-buffer slot the next instruction takes: free when the
  /// instruction `rob_size` places earlier retires.
  double slotFree(const Core &core) const { return core.rob[core.robHead].retireNs; }

  /// When a non-scalar instruction leaves issue.
  double issueOf(const Core &core) const { return std::max(core.decodeNs, slotFree(core)); }

  double &unitFree(Core &core, const Instruction &in, Unit unit) {
    if (unit == Unit::Matrix)
      return core.groupFree[size_t(in.group)];
    return unit == Unit::Vector ? core.vectorFree : core.transferFree;
  }

  /// The accesses of `in` as byte ranges (registers hold the addresses).
  void rangesOf(const Core &core, const Instruction &in, Slot &slot) const {
    AccessContext context{program.xbarRows, program.xbarCols, program.cellBits, 0, core.ibiw, core.obiw};
    if (in.opcode == Opcode::Mvmul)
      context.groupCrossbars = core.program->groups[size_t(in.group)].crossbars;
    for (const LocalAccess &a : localAccesses(in, context)) {
      std::pair<int64_t, int64_t> range{int64_t(core.cursor.regs[a.reg]), int64_t(core.cursor.regs[a.reg]) + a.bytes};
      (a.write ? slot.writes : slot.reads).push_back(range);
    }
  }

  /// The earliest start that respects the local-memory hazards with the
  /// instructions still in flight (only with a reorder buffer above one).
  double hazardFree(const Core &core, const Slot &mine, double start) const {
    if (core.rob.size() == 1)
      return start;
    auto overlap = [](const std::pair<int64_t, int64_t> &a, const std::pair<int64_t, int64_t> &b) {
      return a.first < b.second && b.first < a.second;
    };
    for (const Slot &other : core.rob) {
      if (other.endNs <= start)
        continue;
      bool conflict = false;
      for (const auto &w : other.writes)
        for (const auto &r : mine.reads)
          conflict |= overlap(w, r);
      for (const auto &w : mine.writes) {
        for (const auto &r : other.reads)
          conflict |= overlap(w, r);
        for (const auto &x : other.writes)
          conflict |= overlap(w, x);
      }
      if (conflict)
        start = std::max(start, other.endNs);
    }
    return start;
  }

  /// One access through the core's single local-memory port, in the
  /// first idle gap from `at` (instructions in flight together interleave
  /// their accesses); returns its end.
  double port(Core &core, double at, int64_t bytes, bool write) {
    if (bytes <= 0)
      return at;
    double length = t.localNs(bytes, write);
    std::vector<std::pair<double, double>> &busy = core.portBusy;
    // Intervals that end before the front end cannot delay later accesses.
    size_t stale = 0;
    while (stale < busy.size() && busy[stale].second <= core.decodeNs)
      ++stale;
    busy.erase(busy.begin(), busy.begin() + long(stale));
    double start = at;
    size_t i = 0;
    for (; i < busy.size(); ++i) {
      if (busy[i].second <= start)
        continue;
      if (busy[i].first >= start + length)
        break;
      start = busy[i].second;
    }
    busy.insert(busy.begin() + long(i), {start, start + length});
    return start + length;
  }

  /// The write of a payload the network delivered, from `at`: at least
  /// TimingConfig::deliveredWriteCycles however short its port access.
  double deliveredWrite(Core &core, double at, int64_t bytes) {
    return std::max(port(core, at, bytes, true), at + double(t.deliveredWriteCycles) * period());
  }

  /// Retires the current instruction (executed from `start` to `end`) and
  /// moves the core past it.
  void finish(size_t c, double start, double end, Unit unit) {
    Core &core = cores[c];
    const Instruction &in = core.cursor.current();
    double issue = issueOf(core);
    Slot &slot = core.rob[core.robHead];
    // Nothing executes in no time (pimsim-nn's lmv of length 0 takes a cycle).
    end = std::max(end, start + double(t.minimumExecuteCycles) * period());
    slot.reads.clear();
    slot.writes.clear();
    if (core.rob.size() > 1)
      rangesOf(core, in, slot);
    slot.endNs = end;
    slot.retireNs = std::max(end + double(t.retireCycles) * period(), core.lastRetireNs);
    core.lastRetireNs = slot.retireNs;
    core.robHead = (core.robHead + 1) % core.rob.size();
    core.decodeNs = issue + period();
    unitFree(core, in, unit) = end;
    double busy = end - start;
    if (TaskTiming *task = taskOf(c, in)) {
      ++task->instructions;
      task->startNs = std::min(task->startNs, start);
      task->endNs = std::max(task->endNs, end);
      task->busyNs += busy;
    }
    if (options.timeline && core.passEndNs.empty())
      span(c, unit == Unit::Matrix   ? TimelineSpan::Matrix
              : unit == Unit::Vector ? TimelineSpan::Vector
              : in.opcode == Opcode::Send || in.opcode == Opcode::Recv || in.opcode == Opcode::Sync ||
                      in.opcode == Opcode::Wait
                  ? TimelineSpan::Transfer
                  : TimelineSpan::Memory,
           start, end);
    if (counting(core))
      core.stats.pipelineNs += t.pipelineNs();
    if (!counting(core))
      ;
    else if (unit == Unit::Matrix)
      core.stats.matrixNs += busy;
    else if (unit == Unit::Vector)
      core.stats.vectorNs += busy;
    else if (in.opcode == Opcode::Send || in.opcode == Opcode::Recv || in.opcode == Opcode::Sync ||
             in.opcode == Opcode::Wait)
      core.stats.communicationNs += busy;
    else
      core.stats.memoryNs += busy;
    count(core);
    core.cursor.advance();
  }

  /// Records a span of the first pass, joining it to the core's last span
  /// of the same kind when at most a few cycles (instruction issue) lie
  /// between them: a picture's resolution, not a timing's.
  void span(size_t c, TimelineSpan::Kind kind, double start, double end) {
    if (!(end > start))
      return;
    int64_t &last = lastSpan[size_t(kind)][c];
    if (last >= 0 && result.timeline[size_t(last)].endNs >= start - 16 * period()) {
      result.timeline[size_t(last)].endNs = std::max(result.timeline[size_t(last)].endNs, end);
      return;
    }
    last = int64_t(result.timeline.size());
    result.timeline.push_back({int64_t(c), kind, start, end});
  }

  /// A wait of core `c` from `from` to `to` (recorded in the first pass).
  void waited(size_t c, double from, double to) {
    if (counting(cores[c]))
      cores[c].stats.blockedNs += to - from;
    if (TaskTiming *task = taskOf(c, cores[c].cursor.current()))
      task->blockedNs += to - from;
    if (options.timeline && cores[c].passEndNs.empty())
      span(c, TimelineSpan::Wait, from, to);
  }

  /// Whether a core's units are accounted now: every pass in throughput
  /// mode, the first in latency mode (a skewed pipeline's first inference
  /// takes several passes of one program: the accounts are of one).
  int64_t frames() const { return std::max<int64_t>(1, program.frames); }
  bool counting(const Core &core) const { return options.throughput || core.passEndNs.empty(); }

  void count(Core &core) {
    if (counting(core))
      ++core.stats.instructions;
    if (++executed > options.maxInstructions)
      throw Budget{};
  }

  /// Runs core `c` from global time `now` until it blocks, meets another
  /// agent later than `now` (then it resumes from the queue) or finishes.
  void advanceCore(size_t c, double now) {
    Core &core = cores[c];
    while (true) {
      if (core.cursor.done()) {
        if (!endPass(c))
          return;
        continue;
      }
      // The unrolled form's stride updates decode like any scalar.
      if (int64_t implicit = core.cursor.takeImplicitScalars()) {
        core.decodeNs += double(implicit) * t.decodeNs(Opcode::Saddi);
        if (counting(core))
          core.stats.instructions += implicit;
        executed += implicit;
        if (TaskTiming *task = taskOf(c, core.cursor.current())) // (the loop's, counted with its next step)
          task->instructions += implicit;
      }
      const Instruction &in = core.cursor.current();
      const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
      if (!info)
        throw where(c) + ": unknown opcode";
      if (info->unit == Unit::Scalar || in.opcode == Opcode::Setbw) {
        // Executes at decode without a reorder-buffer slot (setbw holds
        // decode a cycle, the scalar unit's instructions do not).
        if (in.opcode == Opcode::Setbw)
          core.ibiw = in.ibiw, core.obiw = in.obiw;
        else if (!executeScalar(in, core.cursor.regs) && in.opcode == Opcode::Sld)
          core.cursor.regs[in.rd] = 0; // a loaded address: unknown to a timing model
        if (TaskTiming *task = taskOf(c, in)) { // (no unit time: it holds the front end only)
          ++task->instructions;
          task->startNs = std::min(task->startNs, core.decodeNs);
          task->endNs = std::max(task->endNs, core.decodeNs);
        }
        core.decodeNs += t.decodeNs(in.opcode);
        count(core);
        core.cursor.advance();
        continue;
      }
      Unit unit = info->unit;
      if (unit == Unit::Matrix && (in.group < 0 || size_t(in.group) >= core.groupFree.size()))
        throw where(c) + llvm::formatv(": group {0} does not exist", in.group).str();
      double dispatch = issueOf(core) + double(t.dispatchCycles) * period();
      double start = std::max(dispatch, unitFree(core, in, unit));
      if (core.rob.size() > 1) {
        Slot mine;
        rangesOf(core, in, mine);
        start = hazardFree(core, mine, start);
      }
      switch (in.opcode) {
      case Opcode::Ld:
      case Opcode::St:
      case Opcode::Send:
      case Opcode::Recv:
      case Opcode::Sync:
      case Opcode::Wait:
        if (start > now) {
          schedule(start, EventKind::Resume, c);
          return;
        }
        if (!interact(c, in, start))
          return;
        continue;
      default:
        break;
      }
      finish(c, start, local(c, in, start), unit);
    }
  }

  /// The end of a purely local instruction started at `start`.
  double local(size_t c, const Instruction &in, double start) {
    Core &core = cores[c];
    const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
    if (in.opcode == Opcode::Mvmul) {
      int64_t crossbars = core.program->groups[size_t(in.group)].crossbars;
      int64_t outputs = crossbars * program.xbarCols * program.cellBits / (in.mbiw ? in.mbiw : 1);
      double read = port(core, start, program.xbarRows * core.ibiw / 8, false);
      double computed = read + t.mvmulNs(core.ibiw);
      return port(core, computed, outputs * core.obiw / 8, true);
    }
    if (info->unit == Unit::Vector) {
      AccessContext context{program.xbarRows, program.xbarCols, program.cellBits, 0, core.ibiw, core.obiw};
      double at = start;
      llvm::SmallVector<LocalAccess, 3> accesses = localAccesses(in, context);
      for (const LocalAccess &a : accesses)
        if (!a.write)
          at = port(core, at, a.bytes, false);
      int64_t elements = in.len;
      if (info->shape == VectorShape::MatVec || info->shape == VectorShape::VecMat)
        elements = in.rows * in.len;
      if (info->extension)
        ++approximated[info->name];
      at += t.vectorNs(elements);
      for (const LocalAccess &a : accesses)
        if (a.write)
          at = port(core, at, a.bytes, true);
      return at;
    }
    if (in.opcode == Opcode::Lmv)
      return port(core, port(core, start, in.len, false), in.len, true);
    if (in.opcode == Opcode::Lldi)
      return port(core, start, in.len, true);
    return start; // nop-like transfer records
  }

  /// A message enqueued at `at` on the FIFO of node `from` (a core, or
  /// global memory): delivered when the earlier ones and its transit are.
  double message(double &fifoFree, double at, int64_t bytes, int64_t from, int64_t to) {
    double dispatch = std::max(at, fifoFree);
    fifoFree = dispatch + t.messageNs(bytes, from, to);
    return fifoFree;
  }

  /// Handles an instruction that meets another agent, at global time
  /// `start`; false when the core blocks.
  bool interact(size_t c, const Instruction &in, double start) {
    Core &core = cores[c];
    int64_t G = t.globalNode();
    switch (in.opcode) {
    case Opcode::Ld: {
      // The request is one byte; global memory answers without payload
      // bytes (pimsim-nn's behaviour) and the core writes the data.
      double arrival = message(core.fifoFree, start, 1, int64_t(c), G);
      return blockOnGlobal(c, start, arrival);
    }
    case Opcode::St: {
      double read = port(core, start, in.size, false);
      double arrival = message(core.fifoFree, read, in.size, int64_t(c), G);
      return blockOnGlobal(c, start, arrival);
    }
    case Opcode::Sync: {
      size_t to = peer(c, in, /*allowSelf=*/true);
      double delivered = message(core.fifoFree, start, 1, int64_t(c), int64_t(to));
      schedule(delivered, EventKind::SyncDelivery, to, in.event);
      finish(c, start, start, Unit::Transfer);
      return true;
    }
    case Opcode::Wait:
      if (core.events[in.event] >= in.waitValue) {
        core.events[in.event] -= in.waitValue;
        finish(c, start, start, Unit::Transfer);
        return true;
      }
      core.block = Block::Wait;
      core.blockedAt = start;
      return false;
    case Opcode::Recv: {
      size_t from = peer(c, in);
      // The receiver grants permission with a one-byte message.
      double permission = message(core.fifoFree, start, 1, int64_t(c), int64_t(from));
      Channel &channel = channels[{from, c}];
      core.block = Block::Recv;
      core.blockedAt = start;
      if (channel.sends.empty()) {
        channel.permissions.push_back(permission);
        return false;
      }
      double sendStart = channel.sends.front();
      channel.sends.pop_front();
      rendezvous(from, c, sendStart, permission, start, c);
      return core.block == Block::None;
    }
    case Opcode::Send: {
      size_t to = peer(c, in);
      Channel &channel = channels[{c, to}];
      core.block = Block::Send;
      core.blockedAt = start;
      if (channel.permissions.empty()) {
        channel.sends.push_back(start);
        return false;
      }
      double permission = channel.permissions.front();
      channel.permissions.pop_front();
      rendezvous(c, to, start, permission, start, c);
      return core.block == Block::None;
    }
    default:
      return true;
    }
  }

  size_t peer(size_t c, const Instruction &in, bool allowSelf = false) const {
    if (in.core < 0 || size_t(in.core) >= cores.size() || (size_t(in.core) == c && !allowSelf))
      throw where(c) + llvm::formatv(": core {0} is not another core of the chip", in.core).str();
    return size_t(in.core);
  }

  bool blockOnGlobal(size_t c, double start, double arrival) {
    Core &core = cores[c];
    core.block = Block::Global;
    core.blockedAt = start;
    schedule(arrival, EventKind::GlobalArrival, c);
    return false;
  }

  /// Global memory serves the request of core `c` (blocked in its ld or
  /// st) that arrives at `now`, in arrival order, and answers it.
  void serveGlobal(size_t c, double now) {
    Core &core = cores[c];
    const Instruction &in = core.cursor.current();
    bool write = in.opcode == Opcode::St;
    double service = t.globalNs(in.size, write);
    double begin = std::max(now, globalFree);
    globalFree = begin + service;
    globalBusy += service;
    ++globalRequests;
    double acknowledged = globalFree + (write ? double(t.storeAckCycles) * period() : 0);
    double answered = message(globalFifoFree, acknowledged, 0, t.globalNode(), int64_t(c));
    double end = write ? answered : deliveredWrite(core, answered, in.size);
    core.block = Block::None;
    finish(c, core.blockedAt, end, Unit::Transfer);
    advanceCore(c, now);
  }

  /// Both sides of a transfer have arrived: the sender reads once it holds
  /// the permission, the payload travels, the receiver writes it.
  void rendezvous(size_t sender, size_t receiver, double sendStart, double permission, double now, size_t caller) {
    Core &s = cores[sender], &r = cores[receiver];
    const Instruction &out = s.cursor.current(), &in = r.cursor.current();
    if (out.size != in.size || out.tag != in.tag)
      throw llvm::formatv("core {0} sends {1} bytes with tag {2} (record {3}) to core {4}, which receives {5} "
                          "bytes with tag {6} (record {7})",
                          sender, out.size, out.tag, s.cursor.record(), receiver, in.size, in.tag,
                          r.cursor.record())
          .str();
    double readStart = std::max(sendStart, permission);
    double read = port(s, readStart, out.size, false);
    double delivered = message(s.fifoFree, read, out.size, int64_t(sender), int64_t(receiver));
    double written = deliveredWrite(r, delivered + double(t.receiveCycles) * period(), in.size);
    waited(sender, sendStart, readStart);
    waited(receiver, r.blockedAt, delivered);
    double recvStart = r.blockedAt;
    s.block = r.block = Block::None;
    finish(sender, sendStart, read, Unit::Transfer);
    finish(receiver, recvStart, written, Unit::Transfer);
    // The caller goes on; the other side continues from the queue.
    schedule(now, EventKind::Resume, caller == sender ? receiver : sender);
  }

  /// A core finished its program: in throughput mode it starts the next
  /// pass (false when the core stops).
  bool endPass(size_t c) {
    Core &core = cores[c];
    // Restores after a final loop: decoded after the last retirement that
    // ends the pass, so they only count.
    int64_t restores = core.cursor.takeImplicitScalars();
    if (counting(core))
      core.stats.instructions += restores;
    core.passEndNs.push_back(core.lastRetireNs);
    ++core.generation;
    noteGeneration();
    if ((!options.throughput && core.generation >= frames()) ||
        core.generation >= options.maxGenerations + frames() - 1 || converged || core.program->code.empty()) {
      core.block = Block::Done;
      return false;
    }
    core.cursor.restart();
    return true;
  }

  /// Records chip-wide pass completions and applies the convergence rule:
  /// two adjacent two-generation windows within 1%.
  void noteGeneration() {
    // Cores without a program take no part in the passes.
    size_t complete = SIZE_MAX;
    for (const Core &core : cores)
      if (!core.program->code.empty())
        complete = std::min(complete, core.passEndNs.size());
    if (complete == SIZE_MAX)
      return;
    while (generationEnds.size() < complete) {
      size_t g = generationEnds.size();
      double end = 0;
      for (const Core &core : cores)
        if (!core.program->code.empty())
          end = std::max(end, core.passEndNs[g]);
      generationEnds.push_back(end);
      // Windows (E[g] - E[g-2]) / 2 and (E[g-2] - E[g-4]) / 2; the first
      // pass (bootstrap) is left out.
      if (options.throughput && g >= size_t(frames()) + 4 && (g - size_t(frames())) % 2 == 0) {
        double current = (generationEnds[g] - generationEnds[g - 2]) / 2;
        double previous = (generationEnds[g - 2] - generationEnds[g - 4]) / 2;
        interval = (current + previous) / 2;
        if (std::abs(current - previous) <= 0.01 * std::max(current, previous))
          converged = true;
      }
    }
  }

  std::string where(size_t c) const {
    const Core &core = cores[c];
    if (core.cursor.done())
      return llvm::formatv("core {0}", c).str();
    const OpcodeInfo *info = lookupOpcode(uint8_t(core.cursor.current().opcode));
    return llvm::formatv("core {0}, record {1} ({2})", c, core.cursor.record(), info ? info->name : "?").str();
  }

  std::string deadlockReport() const {
    DeadlockReport report;
    for (size_t c = 0; c < cores.size(); ++c) {
      const Core &core = cores[c];
      if (core.block != Block::Done && core.block != Block::None)
        report.blocked(c, core.cursor.current(), core.cursor.record(), core.events[core.cursor.current().event]);
    }
    return report.str();
  }
};

} // namespace

TimingResult simulateTiming(const Program &program, const TimingConfig &config, const TimingOptions &options) {
  return Machine(program, config, options).run();
}

} // namespace raptor::pim
