//===- PipelineStages.h - Stages of pipelined per-core programs -*- C++ -*-===//
//
// In pipeline mode every core runs one iteration (inference) per pass of its
// program, and transfers are rendezvous. Data a core receives in the middle
// of its iteration makes its producer wait for the core's earlier work, and
// such waits chain cores into recurrences over many iterations. So the
// programs are cut into stages: the strongly connected components of the
// core graph (an edge per transfer between two cores), numbered by level
// (the longest path to them). Data crossing to a later stage goes at the
// iteration boundary: received before the consumer's first instruction and
// sent after the producer's last, each side in one global order (sender's
// stage, then transfer), which keeps the boundary deadlock-free. A stage
// holds one iteration at a time, so data skipping levels would hold its
// producer until the consumer's stage takes it: it is relayed through one
// stage of every level in between, so that every path between two stages
// holds as many iterations as the longest one.
//
// The lowering (raptor-lower-to-pim) and the queue model (programOf) both
// build their programs from this, so the prediction follows the emission.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_PIPELINESTAGES_H
#define RAPTOR_PASSES_SPATIAL_PIPELINESTAGES_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace raptor::spatial {

class PipelineStages {
public:
  PipelineStages() = default;
  /// The stages of cores 0..cores-1 joined by `edges` (from core, to core);
  /// a core on no edge forms a stage of its own.
  PipelineStages(int64_t cores, const std::vector<std::pair<int64_t, int64_t>> &edges);

  bool empty() const { return stageOfCore.empty(); }
  /// Its stage's number (topological: every edge runs to a larger one);
  /// -1 for a core outside the graph.
  int64_t stageOf(int64_t core) const;
  /// The level of its stage (the longest path of stages to it); -1 for a
  /// core outside the graph.
  int64_t levelOf(int64_t core) const;
  /// Whether data from core `from` to core `to` crosses an iteration boundary.
  bool crosses(int64_t from, int64_t to) const;
  /// The cores data from `from` to `to` visits in order, ending at `to`:
  /// one relay core of every level strictly between their stages. The
  /// stages of a level take turns, so successive calls spread the relays.
  std::vector<int64_t> route(int64_t from, int64_t to);
  int64_t stages() const { return int64_t(stageLevel.size()); }

private:
  std::vector<int64_t> stageOfCore;          // per core
  std::vector<int64_t> firstCore;            // per stage: the core that relays
  std::vector<int64_t> stageLevel;           // per stage
  std::vector<std::vector<int64_t>> levels;  // per level: its stages
  std::map<int64_t, std::size_t> turn;            // per level: the next relay
};

/// The levels of a skewed pipeline (Crossing::Skewed): in pass f a task of
/// level l works on inference f - l, so data may go to any core as long as
/// it goes to a later level, where it is read a pass or more after it was
/// computed. An operator's tasks share one level (a copy reading rows its
/// dependencies do not name reads other copies of the same producers): the
/// largest over the dependencies into its tasks of the producer operator's
/// level, plus one when the dependency crosses cores. `operatorOf` gives
/// each task's operator (operators numbered topologically: a dependency
/// never runs to a smaller one), `core` its core; `deps` are (from task,
/// to task). Returns the level of every operator 0..max(operatorOf).
std::vector<int64_t> skewedLevels(const std::vector<unsigned> &operatorOf, const std::vector<unsigned> &core,
                                  const std::vector<std::pair<unsigned, unsigned>> &deps);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_PIPELINESTAGES_H
