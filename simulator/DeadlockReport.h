//===- DeadlockReport.h - Who waits on what, in one message ----*- C++ -*-===//
//
// Both simulators end a run in which every unfinished core is blocked with
// the same message: each blocked core, what its instruction waits for and
// where it is (the first 16 cores).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_DEADLOCKREPORT_H
#define RAPTOR_SIMULATOR_DEADLOCKREPORT_H

#include "simulator/Isa.h"

#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace raptor::pim {

class DeadlockReport {
public:
  /// Core `core` is blocked in `in` (compact record `record`); for a wait,
  /// `eventValue` is what its event register holds.
  void blocked(size_t core, const Instruction &in, size_t record, int64_t eventValue) {
    if (++listed > 16) {
      if (listed == 17)
        text += " ...";
      return;
    }
    if (in.opcode == Opcode::Send)
      text += llvm::formatv(" core {0} waits to send {1} bytes to core {2} (record {3}, tag {4});", core, in.size,
                            in.core, record, in.tag);
    else if (in.opcode == Opcode::Recv)
      text += llvm::formatv(" core {0} waits to receive {1} bytes from core {2} (record {3}, tag {4});", core,
                            in.size, in.core, record, in.tag);
    else if (in.opcode == Opcode::Wait)
      text += llvm::formatv(" core {0} waits for event register {1} to reach {2} (it holds {3});", core, in.event,
                            in.waitValue, eventValue);
  }

  std::string str() const { return text; }

private:
  std::string text = "deadlock: no core can proceed;";
  int listed = 0;
};

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_DEADLOCKREPORT_H
