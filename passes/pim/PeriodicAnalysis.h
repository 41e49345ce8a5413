//===- PeriodicAnalysis.h - The steady state of looping programs -*- C++ -*-===//
//
// The periodic dependency diagnostic of shared seed 002, on emitted
// programs: when every core runs its program as a loop body (pimsim-nn's
// throughput mode), iteration k of a core can start only after iteration
// k - 1 ended, and a transfer only when both of its sides reached it. The
// event graph of those constraints (edges t(v, k) >= t(u, k - d) + w) has a
// maximum cycle ratio: the interval the recurrence allows, with the
// critical cycle as its witness. The estimate is the largest of that, the
// busiest core's work and global memory's serialized service. Read-only: it
// changes no program.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_PIM_PERIODICANALYSIS_H
#define RAPTOR_PASSES_PIM_PERIODICANALYSIS_H

#include "dialects/pim/Program.h"
#include "dialects/pim/TimingConfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace raptor::pim {

struct PeriodicEdge {
  int64_t from, to, weightNs, distance;
  std::string what; // e.g. "core 3: 120 instructions" or "core 3: next iteration"
};

struct PeriodicReport {
  /// ok, deadlock (a zero-distance cycle: the programs block each other
  /// within one iteration), acyclic (no core loops) or unavailable.
  std::string status;
  std::string reason; // why unavailable
  std::vector<std::string> nodes;
  std::vector<PeriodicEdge> edges;
  /// ok: the maximum cycle ratio, exact (ratioNum / ratioDen ns).
  int64_t ratioNum = 0, ratioDen = 1;
  /// The witness: a critical cycle (ok) or a zero-distance one (deadlock),
  /// as edge indices in order, with its totals and the cores it crosses.
  std::vector<int64_t> cycle;
  int64_t cycleWeightNs = 0, cycleDistance = 0;
  std::vector<int64_t> cycleCores;
  /// The other two terms of the estimate.
  double busiestCoreWorkNs = 0;
  int64_t busiestCore = -1;
  double globalServiceNs = 0;
  /// max(recurrence, busiest core, global service) and which of them.
  double intervalNs = 0;
  std::string bound;
};

PeriodicReport analyzePeriodic(const Program &program, const TimingConfig &config);

} // namespace raptor::pim

#endif // RAPTOR_PASSES_PIM_PERIODICANALYSIS_H
