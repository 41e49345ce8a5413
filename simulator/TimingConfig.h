//===- TimingConfig.h - pimsim-nn's timing parameters ---------*- C++ -*-===//
//
// The parameters of the timing model in ../shared/docs/pim-target.md, read
// from the chip.json and network.json of a program directory (pimsim-nn's
// own configuration files, which Raptor writes from its target), plus the
// few constants of pimsim-nn's core pipeline that its configuration does not
// expose, fitted once to the measurements of that document
// (docs/timing.md says which measurement fixes which constant).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_TIMINGCONFIG_H
#define RAPTOR_SIMULATOR_TIMINGCONFIG_H

#include "simulator/Isa.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace raptor::pim {

/// The largest reorder buffer chip.json may ask for (the timing simulator
/// allocates one of rob_size entries per core; pimsim-nn's chips use 1).
inline constexpr int64_t kMaxRobSize = 1 << 16;

struct TimingConfig {
  int64_t cores = 0;
  double periodNs = 1;
  int64_t robSize = 1;
  // Vector unit: ceil(len / width) * latency nanoseconds (pimsim-nn passes
  // vector_latency_cycle to a nanosecond wait, unscaled by the period).
  int64_t vectorWidth = 16;
  double vectorLatencyNs = 4;
  // Matrix unit (matrix_config).
  int64_t xbarRows = 128, xbarCols = 128, cellPrecision = 8;
  double xbarLatencyNs = 30;
  int64_t dacResolution = 1, dacLatency = 1, dacCount = 128, sampleHoldLatency = 1;
  int64_t adcLatency = 10, adcCount = 2, shiftAdderLatency = 1;
  int64_t inputBufferLatency = 1, outputBufferLatency = 1;
  // Local and global memory: ceil(bytes / data_width) * latency * period.
  int64_t localDataWidth = 64, localReadLatency = 1, localWriteLatency = 1;
  double localPeriodNs = 1;
  int64_t globalDataWidth = 16, globalReadLatency = 1, globalWriteLatency = 1;
  double globalPeriodNs = 1;
  // Network: ceil(bytes / bus_width) flits at latency[src][dst] ns each;
  // node `cores` stands for global memory (pimsim-nn's switch -10).
  int64_t busWidth = 32;
  std::vector<double> flitNs; // (cores + 1) x (cores + 1)

  // pimsim-nn's core pipeline, in cycles (not in its configuration),
  // fitted to pim-target.md's measurements (docs/timing.md says which row
  // fixes which).
  /// Decode cycles of `setbw` (a matrix-unit instruction that holds decode)
  /// and of the scalar unit's instructions, which execute at decode without
  /// holding it (the ld rows, two sldi longer, take no longer).
  int64_t setbwCycles = 1;
  int64_t scalarCycles = 0;
  /// From leaving decode (or a freed reorder-buffer slot) to execution.
  int64_t dispatchCycles = 4;
  /// From the end of execution to retirement.
  int64_t retireCycles = 3;
  /// An instruction executes for at least this long (an lmv of length 0).
  int64_t minimumExecuteCycles = 1;
  /// Added to every network message (its injection into the switch).
  int64_t messageCycles = 1;
  /// A receive's handling of a delivered payload before its write.
  int64_t receiveCycles = 8;
  /// A payload delivered by the network (a recv's, an ld's) is written in
  /// at least this long, however few bytes it holds.
  int64_t deliveredWriteCycles = 2;
  /// Global memory acknowledges a st this long after writing it.
  int64_t storeAckCycles = 1;
  /// mvmul: the matrix formula's back stage (ADC conversions pipelined with
  /// shift-add and output buffer) runs once per input pass at this fraction
  /// of its cycles; the front stages and a fixed overhead add once.
  double mvmulBackScale = 0.78125;
  double mvmulOverheadCycles = 16.5;

  int64_t globalNode() const { return cores; }
  double flit(int64_t from, int64_t to) const { return flitNs[size_t(from * (cores + 1) + to)]; }

  /// Reads DIR/chip.json and DIR/network.json; the error names the file
  /// and the field.
  static llvm::Expected<TimingConfig> load(llvm::StringRef directory);
  static llvm::Expected<TimingConfig> parse(const llvm::json::Value &chip, const llvm::json::Value &network,
                                            llvm::StringRef chipName, llvm::StringRef networkName);

  /// One mvmul on a group (the crossbars of a group run in parallel),
  /// without its local-memory accesses: the stages of pim-target.md's
  /// matrix formula, timed as pimsim-nn measures them (the formula itself
  /// reads about 1.27x slow on the measured chip).
  double mvmulNs(int64_t inputBits) const;
  /// What decoding `opcode` holds the front end (setbw or a scalar).
  double decodeNs(Opcode opcode) const {
    return double(opcode == Opcode::Setbw ? setbwCycles : scalarCycles) * periodNs;
  }
  /// The write of `bytes` delivered by the network.
  double deliveredWriteNs(int64_t bytes) const {
    return std::max(localNs(bytes, true), double(deliveredWriteCycles) * periodNs);
  }
  /// Local-memory time of one access of `bytes`.
  double localNs(int64_t bytes, bool write) const;
  double globalNs(int64_t bytes, bool write) const;
  /// A message of `bytes` from node `from` to node `to` (cores 0..cores-1,
  /// globalNode() for global memory).
  double messageNs(int64_t bytes, int64_t from, int64_t to) const;
  double vectorNs(int64_t elements) const;

  // What one instruction costs when nothing overlaps it (rob_size 1, an
  // idle port): the cost model of the scheduler, which the timing
  // simulator reproduces on single instructions (tested).

  /// Dispatch and retirement around an instruction's execution.
  double pipelineNs() const { return double(dispatchCycles + retireCycles) * periodNs; }
  /// From leaving issue to retirement, around `execNs` of execution.
  double serialNs(double execNs) const {
    return std::max(execNs, double(minimumExecuteCycles) * periodNs) + pipelineNs();
  }
  /// An mvmul on a group of `crossbars` crossbars.
  double mvmulInstructionNs(int64_t crossbars, int64_t inputBits, int64_t outputBits, int64_t mbiw) const;
  /// A vector instruction reading `operands` vectors of `elements` elements
  /// of `elementBytes` and writing one.
  double vectorInstructionNs(int64_t elements, int64_t operands, int64_t elementBytes = 4) const;
  /// An lmv of `bytes`.
  double copyInstructionNs(int64_t bytes) const;
  /// Any instruction of core `core` alone: scalar ones and setbw their
  /// decode (decodeNs);
  /// mvmul, vector and local-memory instructions as above; ld and st with
  /// their global-memory round trip; send, recv, sync and wait 0 (their
  /// time depends on the peer: transferPairNs).
  double instructionNs(const Instruction &in, const AccessContext &context, int64_t core) const;
  /// A send/recv pair of `bytes` from core `from` to core `to` when both
  /// sides are ready: permission, read, payload, handling, write; until the
  /// receive retires.
  double transferPairNs(int64_t bytes, int64_t from, int64_t to) const;
};

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_TIMINGCONFIG_H
