//===- Simulator.cpp - Functional simulation of PIM programs ----*- C++ -*-===//
#include "simulator/Simulator.h"

#include "algebra/LayoutAlgebra.h"
#include "simulator/DeadlockReport.h"
#include "simulator/ProgramCursor.h"
#include "simulator/VectorMath.h"
#include "simulator/FixedPoint.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>

namespace raptor::pim {

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// a += b - c, field by field.
void addDelta(CoreCounters &a, const CoreCounters &b, const CoreCounters &c) {
  a.instructions += b.instructions - c.instructions, a.mvmuls += b.mvmuls - c.mvmuls, a.macs += b.macs - c.macs;
  a.vectorOps += b.vectorOps - c.vectorOps, a.localReadBytes += b.localReadBytes - c.localReadBytes;
  a.localWriteBytes += b.localWriteBytes - c.localWriteBytes;
  a.globalReadBytes += b.globalReadBytes - c.globalReadBytes;
  a.globalWriteBytes += b.globalWriteBytes - c.globalWriteBytes;
  a.sentBytes += b.sentBytes - c.sentBytes, a.receivedBytes += b.receivedBytes - c.receivedBytes;
}

enum class State { Running, Send, Recv, Wait, Done };

struct Core {
  explicit Core(const CoreProgram &program) : program(&program), cursor(program) {}
  const CoreProgram *program;
  ProgramCursor cursor;
  int64_t events[32] = {};
  /// Passes still to run after the current one (Program::frames; memory,
  /// registers and event registers carry over, as on the hardware).
  int64_t passesLeft = 0;
  int32_t ibiw = 32, obiw = 32;
  /// Local memory as two segments grown on demand: [0, memory.size()) and
  /// the top [localMemory - high.size(), localMemory), where the lowering
  /// keeps a pipelined iteration's received data (LocalMemory::
  /// reserveUntouched), so a core touching both ends costs what it uses.
  std::vector<uint8_t> memory, high;
  State state = State::Running;
  CoreCounters counters;
};

/// A fault inside an instruction: the run stops with this message.
struct Fault {
  std::string message;
};

class Machine {
public:
  Machine(const Program &program, std::vector<uint8_t> &global, SimulationLimits limits)
      : program(program), global(global), limits(limits), operators(program.operators.size()) {
    cores.reserve(program.programs.size());
    for (const CoreProgram &p : program.programs) {
      cores.emplace_back(p);
      cores.back().passesLeft = program.frames - 1;
      if (cores.back().cursor.done())
        cores.back().state = State::Done;
    }
  }

  SimulationResult run() {
    SimulationResult result;
    auto start = std::chrono::steady_clock::now();
    std::optional<Fault> fault;
    std::mt19937_64 random(limits.interleavingSeed);
    std::vector<size_t> visit(cores.size());
    std::iota(visit.begin(), visit.end(), size_t(0));
    // Instructions a core runs per turn: until it blocks, or 1-64 drawn.
    auto quantum = [&] { return limits.interleavingSeed ? 1 + int(random() % 64) : 1 << 16; };
    while (true) {
      bool progress = false, pending = false;
      if (limits.interleavingSeed) {
        std::shuffle(visit.begin(), visit.end(), random);
        for (size_t c : visit)
          if (!fault && cores[c].state != State::Done && random() % 2)
            fault = step(c, progress, quantum());
        if (fault)
          break;
        if (progress)
          continue;
        // Nothing ran: every core gets its turn before this is a deadlock.
      }
      for (size_t c = 0; c < cores.size() && !fault; ++c) {
        Core &core = cores[c];
        if (core.state == State::Done)
          continue;
        pending = true;
        fault = step(c, progress, quantum());
      }
      if (fault || !pending)
        break;
      if (!progress) {
        fault = Fault{deadlockReport()};
        break;
      }
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (Core &core : cores) {
      result.cores.push_back(core.counters);
      CoreCounters &t = result.total, &k = core.counters;
      t.instructions += k.instructions, t.mvmuls += k.mvmuls, t.macs += k.macs;
      t.vectorOps += k.vectorOps, t.localReadBytes += k.localReadBytes;
      t.localWriteBytes += k.localWriteBytes, t.globalReadBytes += k.globalReadBytes;
      t.globalWriteBytes += k.globalWriteBytes, t.sentBytes += k.sentBytes;
      t.receivedBytes += k.receivedBytes;
    }
    result.operators = operators;
    result.ok = !fault;
    if (fault)
      result.error = fault->message;
    return result;
  }

private:
  const Program &program;
  std::vector<uint8_t> &global;
  SimulationLimits limits;
  std::vector<Core> cores;
  std::vector<float> scratch;
  int64_t executed = 0, memoryInUse = 0;
  std::vector<CoreCounters> operators;

  /// The operator counters of the instruction core `c` is at (null: unknown).
  CoreCounters *operatorOf(size_t c) {
    int32_t origin = current(cores[c]).origin;
    return origin >= 0 && size_t(origin) < operators.size() ? &operators[size_t(origin)] : nullptr;
  }

  /// Executes one instruction and charges what it counted to its operator
  /// (a rendezvous charges both sides itself).
  void executeCounted(size_t c) {
    CoreCounters *op = operatorOf(c);
    Opcode code = current(cores[c]).opcode;
    if (!op || code == Opcode::Send || code == Opcode::Recv) {
      execute(c);
      return;
    }
    CoreCounters before = cores[c].counters;
    execute(c);
    addDelta(*op, cores[c].counters, before);
  }

  const Instruction &current(const Core &core) const { return core.cursor.current(); }

  std::string where(size_t c) const {
    const Core &core = cores[c];
    const Instruction &in = current(core);
    const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
    return llvm::formatv("core {0}, record {1} ({2})", c, core.cursor.record(), info ? info->name : "loop")
        .str();
  }

  std::string deadlockReport() const {
    DeadlockReport report;
    for (size_t c = 0; c < cores.size(); ++c) {
      const Core &core = cores[c];
      if (core.state != State::Done && core.state != State::Running)
        report.blocked(c, current(core), core.cursor.record(), core.events[current(core).event]);
    }
    return report.str();
  }

  /// The local bytes [address, address + bytes) of core `c`, or a fault.
  uint8_t *local(size_t c, int32_t address, int64_t bytes) {
    Core &core = cores[c];
    int64_t a = address;
    if (a < 0 || bytes < 0 || bytes > program.localMemory || a > program.localMemory - bytes)
      throwFault(llvm::formatv("{0}: local access [{1}, {2}) outside the core's {3} bytes", where(c), a,
                               a + std::min(bytes, int64_t(1) << 40), program.localMemory).str());
    int64_t end = a + bytes, low = int64_t(core.memory.size());
    int64_t highStart = program.localMemory - int64_t(core.high.size());
    if (end <= low)
      return core.memory.data() + a;
    if (a >= highStart)
      return core.high.data() + (a - highStart);
    // Local memories grow as programs touch them, within a budget (each
    // instruction's accesses are reserved before it runs): the top segment
    // downwards for an access in the upper half, else the bottom one
    // upwards; segments that would meet become one.
    bool top = a >= program.localMemory / 2;
    int64_t grow = top ? highStart - a : end - low;
    bool meet = top ? a <= low : end >= highStart;
    if (meet)
      grow = highStart - low;
    if (memoryInUse + grow > limits.maxMemoryBytes)
      throwFault(llvm::formatv("{0}: the cores' local memories would exceed the simulator's {1}-byte budget",
                               where(c), limits.maxMemoryBytes).str());
    memoryInUse += grow;
    if (meet) {
      core.memory.resize(size_t(program.localMemory), 0);
      std::copy(core.high.begin(), core.high.end(), core.memory.begin() + highStart);
      core.high.clear();
      core.high.shrink_to_fit();
      return core.memory.data() + a;
    }
    if (!top) {
      core.memory.resize(size_t(end), 0);
      return core.memory.data() + a;
    }
    core.high.insert(core.high.begin(), size_t(grow), 0);
    return core.high.data();
  }

  /// Checks and grows local memory for every access of `in` before it
  /// executes: growing in the middle would move the bytes that pointers
  /// taken for its earlier operands point at.
  void reserve(size_t c, const Instruction &in) {
    const Core &core = cores[c];
    AccessContext context{program.xbarRows, program.xbarCols, program.cellBits, 0, core.ibiw, core.obiw};
    if (in.opcode == Opcode::Mvmul && in.group >= 0 && size_t(in.group) < core.program->groups.size())
      context.groupCrossbars = core.program->groups[size_t(in.group)].crossbars;
    for (const LocalAccess &a : localAccesses(in, context))
      if (a.bytes > 0)
        local(c, core.cursor.regs[a.reg], a.bytes);
  }

  [[noreturn]] void throwFault(std::string message) { throw Fault{std::move(message)}; }

  /// Runs core `c` until it blocks, finishes or has executed `quantum`
  /// instructions.
  std::optional<Fault> step(size_t c, bool &progress, int quantum) {
    Core &core = cores[c];
    try {
      if (core.state == State::Wait) {
        const Instruction &in = current(core);
        if (core.events[in.event] < in.waitValue)
          return std::nullopt;
        core.events[in.event] -= in.waitValue;
        core.state = State::Running;
        advance(core);
        progress = true;
      }
      if (core.state == State::Send || core.state == State::Recv) {
        if (!tryRendezvous(c))
          return std::nullopt;
        progress = true;
      }
      for (int done = 0; done < quantum && core.state == State::Running; ++done) {
        executeCounted(c);
        progress = true;
      }
    } catch (Fault &f) {
      return f;
    }
    return std::nullopt;
  }

  void advance(Core &core) {
    core.cursor.advance();
    if (core.cursor.done() && core.passesLeft > 0) {
      --core.passesLeft;
      core.cursor.restart();
    }
    if (core.cursor.done())
      core.state = State::Done;
  }

  /// Completes a send/receive pair if both sides have reached it.
  bool tryRendezvous(size_t c) {
    Core &self = cores[c];
    const Instruction &in = current(self);
    size_t peer = size_t(in.core);
    if (in.core < 0 || peer >= cores.size())
      throwFault(llvm::formatv("{0}: no core {1}", where(c), in.core).str());
    Core &other = cores[peer];
    bool sending = self.state == State::Send;
    State wanted = sending ? State::Recv : State::Send;
    if (other.state != wanted || size_t(current(other).core) != c)
      return false;
    size_t sender = sending ? c : peer, receiver = sending ? peer : c;
    const Instruction &s = current(cores[sender]), &r = current(cores[receiver]);
    if (s.size != r.size)
      throwFault(llvm::formatv("core {0} sends {1} bytes (record {2}) to core {3}, which receives {4} (record {5})",
                               sender, s.size, cores[sender].cursor.record(), receiver, r.size, cores[receiver].cursor.record()).str());
    if (s.tag != r.tag)
      throwFault(llvm::formatv("core {0} sends tag {1} (record {2}) to core {3}, which receives tag {4} (record {5})",
                               sender, s.tag, cores[sender].cursor.record(), receiver, r.tag, cores[receiver].cursor.record()).str());
    uint8_t *from = local(sender, cores[sender].cursor.regs[s.rd], s.size);
    uint8_t *to = local(receiver, cores[receiver].cursor.regs[r.rd], r.size);
    std::memmove(to, from, size_t(s.size));
    if (CoreCounters *op = operatorOf(sender))
      op->sentBytes += s.size, op->localReadBytes += s.size, op->instructions++;
    if (CoreCounters *op = operatorOf(receiver))
      op->receivedBytes += r.size, op->localWriteBytes += r.size, op->instructions++;
    cores[sender].counters.sentBytes += s.size;
    cores[sender].counters.localReadBytes += s.size;
    cores[receiver].counters.receivedBytes += r.size;
    cores[receiver].counters.localWriteBytes += r.size;
    for (size_t k : {sender, receiver}) {
      cores[k].state = State::Running;
      cores[k].counters.instructions++;
      advance(cores[k]);
    }
    return true;
  }

  uint8_t *globalBytes(size_t c, uint64_t address, int64_t bytes) {
    if (bytes < 0 || address > global.size() || uint64_t(bytes) > global.size() - address)
      throwFault(llvm::formatv("{0}: global access [{1}, {2}) outside the {3}-byte global memory", where(c),
                               address, address + bytes, global.size()).str());
    return global.data() + address;
  }

  uint64_t globalAddress(const Core &core, uint8_t reg) const {
    return (uint64_t(uint32_t(core.cursor.regs[reg])) << 32) | uint32_t(core.cursor.regs[reg + 1]);
  }

  template <typename T> T *localAs(size_t c, int32_t address, int64_t elements) {
    if (elements < 0 || elements > program.localMemory)
      throwFault(llvm::formatv("{0}: {1} elements exceed the core's {2} bytes", where(c), elements,
                               program.localMemory).str());
    return reinterpret_cast<T *>(local(c, address, elements * int64_t(sizeof(T))));
  }

  void execute(size_t c) {
    Core &core = cores[c];
    const Instruction &in = current(core);
    int32_t *r = core.cursor.regs;
    CoreCounters &k = core.counters;
    ++k.instructions;
    if (++executed > limits.maxInstructions)
      throwFault(llvm::formatv("{0}: the cores executed {1} instructions without finishing, the "
                               "simulator's budget (raise it with --max-instructions if the program is meant "
                               "to be this long)", where(c), limits.maxInstructions).str());
    if (executeScalar(in, r)) {
      advance(core);
      return;
    }
    reserve(c, in);
    switch (in.opcode) {
    case Opcode::Sld:
      std::memcpy(&r[in.rd], local(c, r[in.rs1], 4), 4);
      break;
    case Opcode::Setbw:
      core.ibiw = in.ibiw;
      core.obiw = in.obiw;
      break;
    case Opcode::Mvmul:
      mvmul(c, in);
      break;
    case Opcode::Ld: {
      uint8_t *to = local(c, r[in.rd], in.size);
      std::memcpy(to, globalBytes(c, globalAddress(core, in.rs1), in.size), size_t(in.size));
      k.globalReadBytes += in.size, k.localWriteBytes += in.size;
      break;
    }
    case Opcode::St: {
      uint8_t *from = local(c, r[in.rs1], in.size);
      std::memcpy(globalBytes(c, globalAddress(core, in.rd), in.size), from, size_t(in.size));
      k.globalWriteBytes += in.size, k.localReadBytes += in.size;
      break;
    }
    case Opcode::Lldi:
      std::memset(local(c, r[in.rd], in.len), in.imm & 0xff, size_t(in.len));
      k.localWriteBytes += in.len;
      break;
    case Opcode::Lmv: {
      uint8_t *to = local(c, r[in.rd], in.len);
      std::memmove(to, local(c, r[in.rs1], in.len), size_t(in.len));
      k.localReadBytes += in.len, k.localWriteBytes += in.len;
      break;
    }
    case Opcode::Send:
    case Opcode::Recv:
      --k.instructions; // counted when the pair completes
      core.state = in.opcode == Opcode::Send ? State::Send : State::Recv;
      tryRendezvous(c);
      return;
    case Opcode::Sync: {
      if (in.core < 0 || size_t(in.core) >= cores.size())
        throwFault(llvm::formatv("{0}: no core {1}", where(c), in.core).str());
      cores[size_t(in.core)].events[in.event] += 1;
      break;
    }
    case Opcode::Wait:
      if (core.events[in.event] < in.waitValue) {
        core.state = State::Wait;
        return;
      }
      core.events[in.event] -= in.waitValue;
      break;
    default:
      vector(c, in);
    }
    advance(core);
  }

  void mvmul(size_t c, const Instruction &in) {
    Core &core = cores[c];
    const CoreProgram &p = *core.program;
    if (in.group < 0 || size_t(in.group) >= p.groups.size())
      throwFault(llvm::formatv("{0}: group {1} does not exist", where(c), in.group).str());
    bool integer = core.ibiw == 8 && core.obiw == 32;
    if (!integer && (core.ibiw != 32 || core.obiw != 32))
      throwFault(llvm::formatv("{0}: element widths ibiw {1}, obiw {2} are not simulated (32/32: fp32, 8/32: "
                               "int8 inputs with int32 sums)", where(c), core.ibiw, core.obiw).str());
    if (in.mbiw <= 0 || (program.xbarCols * program.cellBits) % in.mbiw)
      throwFault(llvm::formatv("{0}: mbiw {1} does not divide a crossbar's cells", where(c), in.mbiw).str());
    const CrossbarGroup &g = p.groups[size_t(in.group)];
    int64_t perCrossbar = program.xbarCols * program.cellBits / in.mbiw;
    size_t outputs = size_t(g.crossbars * perCrossbar);
    if (integer)
      mvmulInteger(c, g, perCrossbar, in.relu);
    else
      mvmulFloat(c, g, perCrossbar, in.relu);
    core.counters.mvmuls++;
    core.counters.localReadBytes += program.xbarRows * core.ibiw / 8;
    core.counters.localWriteBytes += int64_t(outputs) * core.obiw / 8;
  }

  void mvmulFloat(size_t c, const CrossbarGroup &g, int64_t perCrossbar, bool relu) {
    Core &core = cores[c];
    const Instruction &in = current(core);
    const float *x = localAs<float>(c, core.cursor.regs[in.rs1], program.xbarRows);
    scratch.assign(size_t(g.crossbars * perCrossbar), 0.0f);
    const float *w = g.values.data();
    for (int64_t j = 0; j < g.crossbars; ++j) {
      int64_t cols = g.columnsOf(j, program.xbarCols);
      float *out = scratch.data() + j * perCrossbar;
      for (int64_t row = 0; row < g.rows; ++row) {
        float v = x[row];
        const float *line = w + row * cols;
        for (int64_t col = 0; col < cols; ++col)
          out[col] += v * line[col];
      }
      w += g.rows * cols;
      core.counters.macs += g.rows * cols;
    }
    if (relu)
      for (float &v : scratch)
        v = v > 0 ? v : 0;
    float *y = localAs<float>(c, core.cursor.regs[in.rd], int64_t(scratch.size()));
    std::memcpy(y, scratch.data(), scratch.size() * 4);
  }

  /// int8 inputs times integer cells, summed exactly and written as int32
  /// (wrapping, as a 32-bit accumulator does).
  void mvmulInteger(size_t c, const CrossbarGroup &g, int64_t perCrossbar, bool relu) {
    Core &core = cores[c];
    const Instruction &in = current(core);
    const int8_t *x = localAs<int8_t>(c, core.cursor.regs[in.rs1], program.xbarRows);
    std::vector<int64_t> sums(size_t(g.crossbars * perCrossbar), 0);
    const float *w = g.values.data();
    for (int64_t j = 0; j < g.crossbars; ++j) {
      int64_t cols = g.columnsOf(j, program.xbarCols);
      int64_t *out = sums.data() + j * perCrossbar;
      for (int64_t row = 0; row < g.rows; ++row) {
        int64_t v = x[row];
        const float *line = w + row * cols;
        for (int64_t col = 0; col < cols; ++col)
          out[col] += v * int64_t(line[col]);
      }
      w += g.rows * cols;
      core.counters.macs += g.rows * cols;
    }
    int32_t *y = localAs<int32_t>(c, core.cursor.regs[in.rd], int64_t(sums.size()));
    for (size_t i = 0; i < sums.size(); ++i) {
      int32_t v = int32_t(uint32_t(uint64_t(sums[i])));
      y[i] = relu && v < 0 ? 0 : v;
    }
  }

  /// Element i of integer type `type` at `p`, widened.
  static int64_t loadInt(const uint8_t *p, ElementType type, int64_t i) {
    switch (type) {
    case ElementType::I8:
      return reinterpret_cast<const int8_t *>(p)[i];
    case ElementType::I16:
      return reinterpret_cast<const int16_t *>(p)[i];
    default:
      return reinterpret_cast<const int32_t *>(p)[i];
    }
  }
  /// Stores `v` wrapped to the width of `type`, as integer units do.
  static void storeInt(uint8_t *p, ElementType type, int64_t i, int64_t v) {
    switch (type) {
    case ElementType::I8:
      reinterpret_cast<int8_t *>(p)[i] = int8_t(uint8_t(uint64_t(v)));
      return;
    case ElementType::I16:
      reinterpret_cast<int16_t *>(p)[i] = int16_t(uint16_t(uint64_t(v)));
      return;
    default:
      reinterpret_cast<int32_t *>(p)[i] = int32_t(uint32_t(uint64_t(v)));
    }
  }

  /// Integer vector instructions: element-wise arithmetic, maxima, shifts
  /// and moves in the element type's width.
  void integerVector(size_t c, const Instruction &in, const OpcodeInfo &info) {
    Core &core = cores[c];
    int32_t *r = core.cursor.regs;
    int64_t n = in.len, eb = bytesOf(in.type);
    core.counters.vectorOps++;
    auto bytes = [&](uint8_t reg, int64_t count) { return local(c, r[reg], count * eb); };
    std::vector<int64_t> out(static_cast<size_t>(n));
    using S = VectorShape;
    if (info.shape == S::Binary || info.shape == S::ScalarShift) {
      const uint8_t *a = bytes(in.rs1, n), *b = bytes(in.rs2, info.shape == S::ScalarShift ? 1 : n);
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = loadInt(a, in.type, i), y = loadInt(b, in.type, info.shape == S::ScalarShift ? 0 : i);
        int64_t shift = std::clamp<int64_t>(y, 0, 63);
        switch (in.opcode) {
        case Opcode::Vvadd: out[size_t(i)] = x + y; break;
        case Opcode::Vvsub: out[size_t(i)] = x - y; break;
        case Opcode::Vvmul: out[size_t(i)] = x * y; break;
        case Opcode::Vvmax: out[size_t(i)] = std::max(x, y); break;
        case Opcode::Vvsll:
        case Opcode::Vrsl: out[size_t(i)] = int64_t(uint64_t(x) << shift); break;
        case Opcode::Vvsra: out[size_t(i)] = x >> shift; break;
        case Opcode::Vrsu:
          out[size_t(i)] = int64_t((uint64_t(x) & (eb == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * eb)) - 1)) >> shift);
          break;
        default:
          throwFault(llvm::formatv("{0}: {1} on {2} elements is not simulated", where(c), info.name,
                                   nameOf(in.type)).str());
        }
      }
      core.counters.localReadBytes += 2 * n * eb;
    } else if (info.shape == S::Unary) {
      ElementType from = in.from.value_or(in.type); // a vmv may convert
      const uint8_t *a = local(c, r[in.rs1], n * bytesOf(from));
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = loadInt(a, from, i);
        switch (in.opcode) {
        case Opcode::Vmv: out[size_t(i)] = x; break;
        case Opcode::Vrelu: out[size_t(i)] = std::max<int64_t>(x, 0); break;
        // Integer programs' activations: Q15 in and out (simulator/FixedPoint.h).
        case Opcode::Vsigm:
        case Opcode::Vtanh:
          if (in.type != ElementType::I32)
            throwFault(llvm::formatv("{0}: {1} on {2} elements is not simulated (int32 Q15 only)", where(c),
                                     info.name, nameOf(in.type)).str());
          out[size_t(i)] = in.opcode == Opcode::Vsigm ? fixedSigmoid(int32_t(x)) : fixedTanh(int32_t(x));
          break;
        default:
          throwFault(llvm::formatv("{0}: {1} on {2} elements is not simulated", where(c), info.name,
                                   nameOf(in.type)).str());
        }
      }
      core.counters.localReadBytes += n * bytesOf(from);
    } else {
      throwFault(llvm::formatv("{0}: {1} on {2} elements is not simulated", where(c), info.name,
                               nameOf(in.type)).str());
    }
    uint8_t *d = bytes(in.rd, n);
    for (int64_t i = 0; i < n; ++i)
      storeInt(d, in.type, i, out[size_t(i)]);
    core.counters.localWriteBytes += n * eb;
  }

  /// ext.vquant (f32 to integers: scaled, rounded half to even, saturated
  /// to the symmetric range) and ext.vdequant (integers to scaled f32).
  void convert(size_t c, const Instruction &in) {
    Core &core = cores[c];
    int32_t *r = core.cursor.regs;
    int64_t n = in.len, eb = bytesOf(in.type);
    if (in.type == ElementType::F32)
      throwFault(llvm::formatv("{0}: a conversion needs an integer element type", where(c)).str());
    core.counters.vectorOps++;
    if (in.opcode == Opcode::ExtVquant) {
      float multiplier = *localAs<float>(c, r[in.rs2], 1);
      const float *x = localAs<float>(c, r[in.rs1], n);
      int64_t hi = (int64_t(1) << (8 * eb - 1)) - 1;
      std::vector<int64_t> q(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        float v = std::nearbyint(x[i] * multiplier); // the default rounding: half to even
        q[size_t(i)] = std::isnan(v) ? 0 : int64_t(std::clamp<float>(v, float(-hi), float(hi)));
      }
      uint8_t *d = local(c, r[in.rd], n * eb);
      for (int64_t i = 0; i < n; ++i)
        storeInt(d, in.type, i, q[size_t(i)]);
      core.counters.localReadBytes += 4 * n + 4, core.counters.localWriteBytes += n * eb;
      return;
    }
    const float *scale = localAs<float>(c, r[in.rs2], n);
    const uint8_t *a = local(c, r[in.rs1], n * eb);
    scratch.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i)
      scratch[size_t(i)] = float(loadInt(a, in.type, i)) * scale[i];
    std::memcpy(localAs<float>(c, r[in.rd], n), scratch.data(), size_t(n) * 4);
    core.counters.localReadBytes += n * eb + 4 * n, core.counters.localWriteBytes += 4 * n;
  }

  void vector(size_t c, const Instruction &in) {
    Core &core = cores[c];
    const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
    if (!info)
      throwFault(llvm::formatv("{0}: unknown opcode {1}", where(c), unsigned(in.opcode)).str());
    if (info->shape == VectorShape::Convert)
      return convert(c, in);
    if (in.type != ElementType::F32)
      return integerVector(c, in, *info);
    int64_t n = in.len;
    int32_t *r = core.cursor.regs;
    core.counters.vectorOps++;
    auto read = [&](uint8_t reg, int64_t count) { return localAs<float>(c, r[reg], count); };
    // Results go through a scratch buffer: operands may overlap the result.
    using S = VectorShape;
    switch (info->shape) {
    case S::Binary: {
      const float *a = read(in.rs1, n), *b = read(in.rs2, n);
      scratch.resize(size_t(n));
      float *o = scratch.data();
      switch (in.opcode) {
      case Opcode::Vvadd:
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
        break;
      case Opcode::Vvsub:
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] - b[i];
        break;
      case Opcode::Vvmul:
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] * b[i];
        break;
      case Opcode::Vvmax:
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] > b[i] ? a[i] : b[i];
        break;
      case Opcode::ExtVvdiv:
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] / b[i];
        break;
      default:
        throwFault(llvm::formatv("{0}: {1} needs integer elements", where(c), info->name).str());
      }
      std::memcpy(read(in.rd, n), o, size_t(n) * 4);
      core.counters.localReadBytes += 8 * n, core.counters.localWriteBytes += 4 * n;
      return;
    }
    case S::Unary: {
      const float *a = read(in.rs1, n);
      scratch.resize(size_t(n));
      float *o = scratch.data();
      switch (in.opcode) {
      case Opcode::Vrelu:
        for (int64_t i = 0; i < n; ++i) o[i] = a[i] > 0 ? a[i] : 0;
        break;
      case Opcode::Vtanh:
        for (int64_t i = 0; i < n; ++i) o[i] = vector_math::tanh(a[i]);
        break;
      case Opcode::Vsigm:
        for (int64_t i = 0; i < n; ++i) o[i] = vector_math::sigmoid(a[i]);
        break;
      case Opcode::Vmv:
        std::memcpy(o, a, size_t(n) * 4);
        break;
      case Opcode::ExtVexp:
        for (int64_t i = 0; i < n; ++i) o[i] = vector_math::exp(a[i]);
        break;
      case Opcode::ExtVrsqrt:
        for (int64_t i = 0; i < n; ++i) o[i] = vector_math::rsqrt(a[i]);
        break;
      case Opcode::ExtVerf:
        for (int64_t i = 0; i < n; ++i) o[i] = vector_math::erf(a[i]);
        break;
      case Opcode::ExtVlog1p:
        for (int64_t i = 0; i < n; ++i) o[i] = vector_math::log1p(a[i]);
        break;
      default:
        throwFault(llvm::formatv("{0}: {1} is not simulated", where(c), info->name).str());
      }
      std::memcpy(read(in.rd, n), o, size_t(n) * 4);
      core.counters.localReadBytes += 4 * n, core.counters.localWriteBytes += 4 * n;
      return;
    }
    case S::Reduce: {
      const float *a = read(in.rs1, n);
      float v = 0;
      if (in.opcode == Opcode::Vavg) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += a[i];
        v = n ? float(sum / double(n)) : 0.0f;
      } else {
        v = -INFINITY;
        for (int64_t i = 0; i < n; ++i) v = a[i] > v ? a[i] : v;
      }
      *read(in.rd, 1) = v;
      core.counters.localReadBytes += 4 * n, core.counters.localWriteBytes += 4;
      return;
    }
    case S::DotProduct: {
      const float *a = read(in.rs1, n), *b = read(in.rs2, n);
      float sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
      *read(in.rd, 1) = sum;
      core.counters.localReadBytes += 8 * n, core.counters.localWriteBytes += 4;
      return;
    }
    case S::Broadcast: {
      float v = *read(in.rs1, 1);
      float *o = read(in.rd, n);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
      core.counters.localReadBytes += 4, core.counters.localWriteBytes += 4 * n;
      return;
    }
    case S::MatVec: {
      const float *m = read(in.rs1, in.rows * n), *x = read(in.rs2, n);
      scratch.assign(size_t(in.rows), 0.0f);
      for (int64_t j = 0; j < in.rows; ++j) {
        float sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += m[j * n + i] * x[i];
        scratch[size_t(j)] = sum;
      }
      std::memcpy(read(in.rd, in.rows), scratch.data(), size_t(in.rows) * 4);
      core.counters.localReadBytes += 4 * (in.rows * n + n), core.counters.localWriteBytes += 4 * in.rows;
      return;
    }
    case S::VecMat: {
      const float *m = read(in.rs1, in.rows * n), *x = read(in.rs2, in.rows);
      scratch.assign(size_t(n), 0.0f);
      for (int64_t j = 0; j < in.rows; ++j) {
        float v = x[j];
        for (int64_t i = 0; i < n; ++i) scratch[size_t(i)] += v * m[j * n + i];
      }
      std::memcpy(read(in.rd, n), scratch.data(), size_t(n) * 4);
      core.counters.localReadBytes += 4 * (in.rows * n + in.rows), core.counters.localWriteBytes += 4 * n;
      return;
    }
    case S::ScalarShift:
    case S::Convert:
    case S::None:
      throwFault(llvm::formatv("{0}: {1} needs integer elements", where(c), info->name).str());
    }
  }
};

const IoBuffer *find(const std::vector<IoBuffer> &list, llvm::StringRef name) {
  for (const IoBuffer &io : list)
    if (io.name == name)
      return &io;
  return nullptr;
}

int64_t elementsOf(const IoBuffer &io) {
  int64_t n = 1;
  for (int64_t d : io.shape)
    n *= d;
  return n;
}

/// x * 2^bits rounded half to even, saturated to int32 (NaN: 0).
int32_t toFixedPoint(float x, int64_t bits) {
  double v = std::nearbyint(std::ldexp(double(x), int(bits)));
  if (std::isnan(v))
    return 0;
  return int32_t(std::clamp(v, double(INT32_MIN), double(INT32_MAX)));
}

std::string shapeText(const IoBuffer &io) {
  std::string s = "(";
  for (size_t i = 0; i < io.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(io.shape[i]);
  return s + (io.shape.size() == 1 ? ",)" : ")");
}

} // namespace

FunctionalSimulator::FunctionalSimulator(const Program &program, SimulationLimits limits)
    : program(program), limits(limits), global(program.globalMemory) {}

llvm::Error FunctionalSimulator::setInput(llvm::StringRef name, llvm::ArrayRef<float> values) {
  const IoBuffer *io = find(program.inputs, name);
  if (!io) {
    std::string names;
    for (const IoBuffer &i : program.inputs)
      names += (names.empty() ? "" : ", ") + i.name;
    return failure("the model has no input '" + name + "' (inputs: " + names + ")");
  }
  if (int64_t(values.size()) != elementsOf(*io))
    return failure("input '" + name + "' needs " + llvm::Twine(elementsOf(*io)) + " elements of shape " +
                   shapeText(*io) + ", got " + llvm::Twine(values.size()));
  layout::Layout l = layout::parseLayout(io->layout).layout;
  // Token ids address rows of a table in global memory: one outside it
  // would read other data, so the host refuses it (as torch's embedding does).
  // (Ids arrive as floats, exact up to the vocabulary's 2^24 bound.)
  if (io->vocabulary)
    for (size_t i = 0; i < values.size(); ++i)
      if (!(values[i] >= 0 && values[i] < float(io->vocabulary)) || values[i] != std::floor(values[i])) {
        char shown[32];
        std::snprintf(shown, sizeof shown, "%g", double(values[i]));
        return failure(llvm::formatv("input '{0}' element {1} is {2}: token ids must be integers in 0..{3}", name,
                                     i, shown, io->vocabulary - 1)
                           .str());
      }
  if (io->dtype == "int32") { // the host's conversion to fixed point
    int32_t *base = reinterpret_cast<int32_t *>(global.data() + io->address);
    for (size_t i = 0; i < values.size(); ++i)
      base[l(int64_t(i))] = toFixedPoint(values[i], io->fixedPointBits);
    return llvm::Error::success();
  }
  float *base = reinterpret_cast<float *>(global.data() + io->address);
  for (size_t i = 0; i < values.size(); ++i)
    base[l(int64_t(i))] = values[i];
  return llvm::Error::success();
}

SimulationResult FunctionalSimulator::run() { return Machine(program, global, limits).run(); }

llvm::Expected<std::vector<float>> FunctionalSimulator::output(llvm::StringRef name) const {
  const IoBuffer *io = find(program.outputs, name);
  if (!io)
    return failure("the model has no output '" + name + "'");
  layout::Layout l = layout::parseLayout(io->layout).layout;
  std::vector<float> values(size_t(elementsOf(*io)));
  if (io->dtype == "int32") {
    const int32_t *base = reinterpret_cast<const int32_t *>(global.data() + io->address);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = float(std::ldexp(double(base[l(int64_t(i))]), -int(io->fixedPointBits)));
    return values;
  }
  const float *base = reinterpret_cast<const float *>(global.data() + io->address);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = base[l(int64_t(i))];
  return values;
}

} // namespace raptor::pim
