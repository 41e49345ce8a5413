//===- PeriodicAnalysis.cpp - The steady state of looping programs -*- C++ -*-===//
//
// Each core's program becomes a chain of events: its entry, one event per
// transfer it takes part in, its exit. The local work between two events is
// the chain edge's weight (instructions priced alone, TimingConfig); a
// transfer is one event shared by its sender's and its receiver's chains
// (the rendezvous), after which the receiver pays the transfer and the
// sender its read; the exit leads to the entry one iteration later. A
// sync's token reaches the wait that takes it (PeriodicGraphBuilder::wait).
//
//===----------------------------------------------------------------------===//
#include "passes/pim/PeriodicAnalysis.h"

#include "simulator/ProgramCursor.h"

#include "llvm/Support/FormatVariadic.h"

namespace raptor::pim {

PeriodicReport analyzePeriodic(const Program &program, const TimingConfig &t) {
  spatial::PeriodicGraphBuilder graph("instructions");
  for (const CoreProgram &p : program.programs) {
    if (p.code.empty())
      continue;
    int64_t c = p.id;
    graph.beginCore(c);
    int32_t ibiw = 32, obiw = 32;
    for (ProgramCursor cursor(p); !cursor.done(); cursor.advance()) {
      const Instruction &in = cursor.current();
      graph.work(double(cursor.takeImplicitScalars()) * t.decodeNs(Opcode::Saddi), 0);
      if (in.opcode == Opcode::Setbw)
        ibiw = in.ibiw, obiw = in.obiw;
      // A token is a one-byte message through the core's queue.
      if (in.opcode == Opcode::Sync) {
        graph.signal(in.core, in.event, t.messageNs(1, c, in.core));
        continue;
      }
      if (in.opcode == Opcode::Wait) {
        graph.wait(in.event, in.waitValue);
        continue;
      }
      if (in.opcode != Opcode::Send && in.opcode != Opcode::Recv) {
        AccessContext context{program.xbarRows, program.xbarCols, program.cellBits, 0, ibiw, obiw};
        if (in.opcode == Opcode::Mvmul && in.group >= 0 && size_t(in.group) < p.groups.size())
          context.groupCrossbars = p.groups[size_t(in.group)].crossbars;
        graph.work(t.instructionNs(in, context, c));
        if (in.opcode == Opcode::Ld || in.opcode == Opcode::St)
          graph.global(t.globalNs(in.size, in.opcode == Opcode::St));
        continue;
      }
      bool sending = in.opcode == Opcode::Send;
      int64_t from = sending ? c : in.core, to = sending ? in.core : c;
      graph.work(0); // the transfer instruction itself
      // After the rendezvous the sender reads its data, the receiver waits
      // for the payload and writes it.
      graph.transfer(
          sending, in.core,
          [&](int64_t k) {
            return llvm::formatv("transfer {0} of core {1} to core {2} (tag {3}, {4} bytes)", k, from, to, in.tag,
                                 in.size)
                .str();
          },
          sending ? t.serialNs(t.localNs(in.size, false)) : t.transferPairNs(in.size, from, to));
    }
    graph.endCore();
  }
  return graph.finish();
}

} // namespace raptor::pim
