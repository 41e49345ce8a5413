//===- Simulator.h - Functional simulation of PIM programs ------*- C++ -*-===//
//
// Executes every core's program of a compiled model and computes the data:
// crossbar MVMs, vector and scalar instructions, local and global memory,
// blocking send/receive rendezvous and counting event registers (pimsim-nn
// only times instructions; this is what proves a program computes the
// model). Deadlocks (which cores wait on what) and out-of-bounds accesses
// are errors.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_SIMULATOR_H
#define RAPTOR_SIMULATOR_SIMULATOR_H

#include "simulator/Program.h"

#include <map>

namespace raptor::pim {

/// What the run did, per core and in total.
struct CoreCounters {
  int64_t instructions = 0, mvmuls = 0, macs = 0, vectorOps = 0;
  int64_t localReadBytes = 0, localWriteBytes = 0;
  int64_t globalReadBytes = 0, globalWriteBytes = 0, sentBytes = 0, receivedBytes = 0;
};

struct SimulationResult {
  bool ok = false;
  std::string error; // deadlock or fault, with the cores and instructions
  std::vector<CoreCounters> cores;
  /// Per entry of Program::operators (instructions of unknown origin are
  /// counted in the cores and the total only).
  std::vector<CoreCounters> operators;
  CoreCounters total;
  double seconds = 0;
};

/// Bounds that keep a hostile or broken program from running forever or
/// exhausting the host's memory (each is a fault naming the limit).
struct SimulationLimits {
  int64_t maxInstructions = 4'000'000'000;  // executed, loops counted
  int64_t maxMemoryBytes = int64_t(8) << 30; // local memory of all cores together
  /// 0: the cores run in turn, each until it blocks (a quantum of 65,536
  /// instructions). Otherwise a seed: each round visits the cores in a
  /// random order, skips each with probability 1/2 and runs the others for
  /// 1-64 instructions, so that cores run ahead of or behind each other as
  /// on hardware of other speeds. A race-free program computes the same
  /// outputs under every seed; one whose waits can take another sender's
  /// signal does not.
  uint64_t interleavingSeed = 0;
};

class FunctionalSimulator {
public:
  explicit FunctionalSimulator(const Program &program, SimulationLimits limits = {});

  /// Writes a model input given in row-major (torch) order; the error
  /// names the input or the size mismatch.
  llvm::Error setInput(llvm::StringRef name, llvm::ArrayRef<float> values);
  SimulationResult run();
  /// A model output in row-major (torch) order.
  llvm::Expected<std::vector<float>> output(llvm::StringRef name) const;

private:
  const Program &program;
  SimulationLimits limits;
  std::vector<uint8_t> global;
};

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_SIMULATOR_H
