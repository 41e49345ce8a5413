//===- PimVerifier.cpp - Whole-program checks of pim cores ------*- C++ -*-===//
//
// Checks that need the program order of a core (register values, widths,
// the last instruction) or of the whole chip (send/receive pairing). Each
// runs in one pass over the instructions; loops are not unrolled: register
// values are tracked as intervals, a strided register covering its stride
// times the iterations.
//
//===----------------------------------------------------------------------===//
#include "dialects/pim/PimDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace raptor::pim;

namespace {

/// The values a register may hold (unknown after `sld`).
struct Interval {
  bool known = false;
  int64_t lo = 0, hi = 0;
  static Interval of(int64_t v) { return {true, v, v}; }
};

// Interval arithmetic that gives up (unknown: checked at run time) rather
// than overflow.
Interval add(Interval a, Interval b) {
  Interval r{true, 0, 0};
  if (!a.known || !b.known || __builtin_add_overflow(a.lo, b.lo, &r.lo) || __builtin_add_overflow(a.hi, b.hi, &r.hi))
    return {};
  return r;
}

Interval mul(Interval a, Interval b) {
  if (!a.known || !b.known)
    return {};
  int64_t c[4];
  if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
      __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3]))
    return {};
  return {true, *std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

class CoreChecker {
public:
  CoreChecker(CoreOp core, ChipOp chip) : core(core), chip(chip) {
    for (GroupOp g : core.getBody().getOps<GroupOp>())
      groups[g.getId()] = g.getCrossbars();
  }

  LogicalResult run() {
    if (failed(walk(core.getBody().front())))
      return failure();
    return checkLast();
  }

private:
  CoreOp core;
  ChipOp chip;
  llvm::DenseMap<int64_t, int64_t> groups; // id -> crossbars
  Interval regs[kNumRegisters];
  std::optional<std::pair<int32_t, int32_t>> widths; // (ibiw, obiw) of the last setbw

  LogicalResult walk(Block &block) {
    for (Operation &op : block) {
      if (isa<GroupOp>(op))
        continue;
      if (auto repeat = dyn_cast<RepeatOp>(op)) {
        if (failed(walkRepeat(repeat)))
          return failure();
        continue;
      }
      if (failed(check(&op)))
        return failure();
      update(&op);
    }
    return success();
  }

  LogicalResult walkRepeat(RepeatOp repeat) {
    if (repeat.getBody().front().empty())
      return repeat.emitOpError("has an empty body");
    Interval saved[kNumRegisters];
    std::copy(regs, regs + kNumRegisters, saved);
    int64_t span = repeat.getCount() - 1;
    for (auto [r, stride] : llvm::zip(repeat.getRegs(), repeat.getStrides())) {
      Interval &v = regs[r];
      if (v.known) {
        int64_t reach = int64_t(stride) * span; // |stride| < 2^31, span < 2^31
        v = add(v, Interval{true, std::min<int64_t>(0, reach), std::max<int64_t>(0, reach)});
      }
    }
    // A register the body writes may carry a value from the previous
    // iteration into its first reads: unknown until written.
    repeat.getBody().walk([&](Operation *op) {
      if (std::optional<unsigned> rd = writtenRegister(op))
        regs[*rd] = Interval();
    });
    if (failed(walk(repeat.getBody().front())))
      return failure();
    for (int32_t r : repeat.getRegs())
      regs[r] = saved[r];
    return success();
  }

  void update(Operation *op) {
    llvm::TypeSwitch<Operation *>(op)
        .Case<SldiOp>([&](SldiOp o) { regs[o.getRd()] = Interval::of(o.getImm()); })
        .Case<SldOp>([&](SldOp o) { regs[o.getRd()] = Interval(); })
        .Case<SaddOp>([&](SaddOp o) { regs[o.getRd()] = add(regs[o.getRs1()], regs[o.getRs2()]); })
        .Case<SsubOp>([&](SsubOp o) {
          Interval b = regs[o.getRs2()];
          regs[o.getRd()] = add(regs[o.getRs1()], b.known ? Interval{true, -b.hi, -b.lo} : b);
        })
        .Case<SmulOp>([&](SmulOp o) { regs[o.getRd()] = mul(regs[o.getRs1()], regs[o.getRs2()]); })
        .Case<SaddiOp>([&](SaddiOp o) {
          regs[o.getRd()] = add(regs[o.getRs1()], Interval::of(o.getImm()));
        })
        .Case<SmuliOp>([&](SmuliOp o) {
          regs[o.getRd()] = mul(regs[o.getRs1()], Interval::of(o.getImm()));
        })
        .Case<SetbwOp>([&](SetbwOp o) { widths = {o.getIbiw(), o.getObiw()}; });
  }

  /// The local accesses of `op` (Isa's table), or failure with a diagnostic
  /// when the op names a group, a width or a core the chip does not have.
  FailureOr<SmallVector<LocalAccess, 3>> accesses(Operation *op) {
    std::optional<Instruction> in = toInstruction(op);
    if (!in)
      return SmallVector<LocalAccess, 3>{};
    AccessContext context{chip.getXbarRows(), chip.getXbarCols(), chip.getCellBits()};
    if (widths)
      std::tie(context.ibiw, context.obiw) = *widths;
    if (in->opcode == Opcode::Mvmul) {
      auto g = groups.find(in->group);
      if (g == groups.end())
        return op->emitOpError() << "uses group " << in->group << ", which core " << core.getId()
                                 << " does not have";
      if (!widths)
        return op->emitOpError("needs a pim.setbw earlier in the program (element widths)");
      if (in->mbiw < chip.getCellBits() || in->mbiw % chip.getCellBits())
        return op->emitOpError() << "mbiw " << in->mbiw << " is not a multiple of the "
                                 << chip.getCellBits() << "-bit cells";
      context.groupCrossbars = g->second;
    }
    if (in->opcode == Opcode::Send || in->opcode == Opcode::Recv || in->opcode == Opcode::Sync) {
      if (in->opcode != Opcode::Sync && in->core == core.getId())
        return op->emitOpError() << "names its own core " << in->core;
      if (in->core < 0 || in->core >= chip.getCores())
        return op->emitOpError() << "names core " << in->core << " outside 0.." << chip.getCores() - 1;
    }
    return localAccesses(*in, context);
  }

  LogicalResult check(Operation *op) {
    FailureOr<SmallVector<LocalAccess, 3>> list = accesses(op);
    if (failed(list))
      return failure();
    for (const LocalAccess &a : *list) {
      if (a.bytes < 0 || a.bytes > INT32_MAX)
        return op->emitOpError() << "accesses " << a.bytes << " bytes, outside 0..2^31-1";
      const Interval &v = regs[a.reg];
      if (!v.known || a.bytes == 0)
        continue; // checked when the simulator runs
      if (v.lo < 0 || v.hi + a.bytes > chip.getMemory())
        return op->emitOpError() << "accesses local bytes [" << v.lo << ", " << v.hi + a.bytes
                                 << ") through r" << unsigned(a.reg) << ", outside the core's "
                                 << chip.getMemory() << " bytes";
    }
    return success();
  }

  LogicalResult checkLast() {
    Operation *last = nullptr;
    Block *block = &core.getBody().front();
    while (block) {
      last = nullptr;
      for (Operation &op : llvm::reverse(*block))
        if (!isa<GroupOp>(op)) {
          last = &op;
          break;
        }
      auto repeat = dyn_cast_or_null<RepeatOp>(last);
      block = repeat ? &repeat.getBody().front() : nullptr;
    }
    if (last && last->hasTrait<ScalarUnit>())
      return last->emitOpError() << "ends the program of core " << core.getId()
                                 << ": a program must end with a matrix, vector or transfer "
                                    "instruction (pimsim-nn never finishes one ending in a "
                                    "scalar instruction)";
    return success();
  }
};

/// A send or receive with its multiplicity (product of enclosing counts).
struct Message {
  Operation *op;
  int64_t tag, size;
};

/// Appends the messages of `block` in program order, expanding loops; at
/// most `limit` per channel (the program is then too large to pair here).
void collect(Block &block, int64_t core, std::map<std::pair<int64_t, int64_t>, std::vector<Message>> &sends,
             std::map<std::pair<int64_t, int64_t>, std::vector<Message>> &recvs, size_t limit) {
  for (Operation &op : block) {
    if (auto repeat = dyn_cast<RepeatOp>(op)) {
      bool has = false;
      repeat.getBody().walk([&](Operation *o) { has |= isa<SendOp, RecvOp>(o); });
      for (int64_t i = 0; has && i < repeat.getCount(); ++i)
        collect(repeat.getBody().front(), core, sends, recvs, limit);
    } else if (auto send = dyn_cast<SendOp>(op)) {
      auto &list = sends[{core, send.getCore()}];
      if (list.size() < limit)
        list.push_back({send, send.getTag(), send.getSize()});
    } else if (auto recv = dyn_cast<RecvOp>(op)) {
      auto &list = recvs[{recv.getCore(), core}];
      if (list.size() < limit)
        list.push_back({recv, recv.getTag(), recv.getSize()});
    }
  }
}

} // namespace

LogicalResult raptor::pim::verifyCoreProgram(CoreOp core, ChipOp chip) {
  return CoreChecker(core, chip).run();
}

LogicalResult raptor::pim::verifyTransfers(ChipOp chip) {
  std::map<std::pair<int64_t, int64_t>, std::vector<Message>> sends, recvs;
  constexpr size_t limit = size_t(1) << 22;
  for (CoreOp core : chip.getBody().getOps<CoreOp>())
    collect(core.getBody().front(), core.getId(), sends, recvs, limit);
  for (auto &[channel, list] : sends) {
    std::vector<Message> &other = recvs[channel];
    for (size_t i = 0; i < list.size(); ++i) {
      if (i >= other.size())
        return list[i].op->emitOpError() << "(tag " << list[i].tag << ") has no matching pim.recv on core "
                                         << channel.second;
      if (other[i].tag != list[i].tag || other[i].size != list[i].size)
        return list[i].op->emitOpError()
               << "(tag " << list[i].tag << ", " << list[i].size << " bytes) meets pim.recv (tag "
               << other[i].tag << ", " << other[i].size << " bytes) on core " << channel.second
               << ": sends and receives of a channel must pair in order with equal tags and sizes";
    }
  }
  for (auto &[channel, list] : recvs) {
    size_t sent = sends.count(channel) ? sends[channel].size() : 0;
    if (list.size() > sent)
      return list[sent].op->emitOpError() << "(tag " << list[sent].tag
                                          << ") has no matching pim.send on core " << channel.first;
  }
  return success();
}
