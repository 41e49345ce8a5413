//===- PipelineScheduler.h - Throughput (pipeline) scheduling ---*- C++ -*-===//
//
// Pipeline mode of shared seed 002: the operations (groups of lanes, in
// topological order) are cut into at most `depth` contiguous stages, each
// with its own contiguous range of cores, so that inferences stream through
// the stages. The search is bounded and deterministic:
//  1. an initial partition by a prefix DP over (groups, stages, spare core
//     units): every stage reserves one core and the spare cores are handed
//     out in at most 16 units; a stage's cost is its work per core bound
//     max(work / cores, longest lane) and it must hold its crossbars; when
//     no grid state is feasible, one stage over all cores (the
//     minimum-resource fallback);
//  2. constructive packing of each stage's lanes onto its cores: ordered
//     first (each core a contiguous run of the stage's lanes, so a chain of
//     operators stays on one core and only run boundaries transfer; the
//     least bottleneck of work and receive time by bisection), else longest
//     first onto the least loaded core with room, else largest weights
//     first by best fit;
//  3. refinement with a beam of two schedules over moves that shift an
//     operation across an adjacent boundary, remove a boundary, insert one,
//     or transfer a power of two of cores between stages, ranked by the
//     cheap bound before any packing; at most `maxEvaluations` queue costs
//     (QueueModel) and `maxPackings` packings;
//     Beside the staged partitions, with followers given: a balanced
//     placement of chains without stages, refined by moves off the queue
//     model's busiest core (BalancedPlacement::refine);
//  4. the final 2.1% near-equivalence rule: the initial schedule stays
//     unless the best candidate is clearly better (clearlyBetter).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_PIPELINESCHEDULER_H
#define RAPTOR_PASSES_SPATIAL_PIPELINESCHEDULER_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace raptor::spatial {

/// A schedule's queue estimates under the two tie orders.
struct QueueCost {
  bool available = false;
  std::string reason; // when unavailable: why (deadlock, unconverged)
  double intervalNs = 0, alternativeTieIntervalNs = 0, latencyNs = 0;
  /// The busiest core and its work per inference (computation, transfers,
  /// global memory): the interval's per-core bound.
  unsigned busiestCore = 0;
  double busiestNs = 0;
  /// Every core's work per inference, as busiestNs (by core index; the
  /// balanced placement's refinement moves work off the busiest).
  std::vector<double> coreBusyNs;
  /// The latency run's start of each task's computation (the first
  /// inference), by graph task index.
  std::vector<double> taskStartNs;
  /// Comparisons (larger(), smaller(): the search's ranking, the 2.1%
  /// rule) weigh the intervals by it: above 1 for a schedule whose first
  /// inference is dearer than its interval says (a skewed pipeline's).
  double handicap = 1.0;
  double larger() const { return handicap * std::max(intervalNs, alternativeTieIntervalNs); }
  double smaller() const { return handicap * std::min(intervalNs, alternativeTieIntervalNs); }
};

/// The 2.1% rule: `candidate` replaces `reference` only when its range
/// [min/1.021, max/0.979] of tie estimates lies wholly below the
/// reference's.
bool clearlyBetter(const QueueCost &candidate, const QueueCost &reference);

struct PipelineProblem {
  unsigned cores = 0;
  int64_t capacity = 0; // crossbars per core
  unsigned depth = 1;
  std::vector<unsigned> group; // per task; non-decreasing (topological groups)
  std::vector<double> work;    // per task, ns
  std::vector<int64_t> tiles;  // per task
  /// Dependencies with the time of their transfer between two cores.
  struct Edge {
    unsigned from, to;
    double ns;
  };
  std::vector<Edge> edges;
  /// Optional, per task: its position in a topological order that keeps a
  /// task's followers (copies of the operators after it over the same
  /// rows) right after it, which the ordered packing follows so that a
  /// core's run holds a copy with its followers (their data never leaves
  /// the core); empty: graph order.
  std::vector<unsigned> rank;
  /// Optional, per task: copies of one lane share their crossbars on a
  /// core (they merge into one task there); -1: a lane of its own.
  std::vector<int64_t> lane;
  /// Optional, per task: the task it follows (a copy of an operator after
  /// it over the same rows, kept on its core), or -1. With it, the search
  /// also evaluates a balanced placement: no stages, the chains of
  /// followers placed longest first onto the least loaded core with room,
  /// which only a form that takes any placement (a skewed pipeline) lowers
  /// well; then up to six rounds of moves and swaps of chains off the
  /// queue model's busiest core, each kept while its queue cost falls.
  std::vector<int> follows;
  unsigned maxEvaluations = 32, maxPackings = 128;
  /// The queue cost of a placement (task -> core).
  std::function<QueueCost(const std::vector<unsigned> &core)> evaluate;
  /// Empty when valid, else a one-line reason.
  std::string validate() const;
};

struct PipelineCandidate {
  std::vector<unsigned> starts;  // first group of each stage
  std::vector<unsigned> budgets; // cores of each stage
  std::vector<unsigned> core;    // per task
  double bound = 0;              // the cheap bound (max stage work per core)
  QueueCost cost;
  int parent = -1;               // the candidate it was derived from
  std::string move;              // how ("initial", "shift 3 +1", "balanced", ...)
};

struct PipelineResult {
  bool feasible = false;
  std::string error;
  std::vector<PipelineCandidate> candidates; // evaluated, in evaluation order
  unsigned selected = 0;
  bool fallback = false; // the initial partition is the one-stage fallback
  unsigned packings = 0, evaluations = 0;
  std::string termination;
  double dpSeconds = 0, packingSeconds = 0, queueSeconds = 0, rankingSeconds = 0;
};

PipelineResult schedulePipeline(const PipelineProblem &problem);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_PIPELINESCHEDULER_H
