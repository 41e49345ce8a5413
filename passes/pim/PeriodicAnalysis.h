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

#include "simulator/Program.h"
#include "simulator/TimingConfig.h"
#include "passes/spatial/EventGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace raptor::pim {

using spatial::PeriodicEdge;
using spatial::PeriodicReport;

/// The diagnostic of the programs (spatial::PeriodicGraphBuilder over each
/// core's instructions).
PeriodicReport analyzePeriodic(const Program &program, const TimingConfig &config);

} // namespace raptor::pim

#endif // RAPTOR_PASSES_PIM_PERIODICANALYSIS_H
