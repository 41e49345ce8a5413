//===- ListScheduler.h - HEFT and PEFT list scheduling ----------*- C++ -*-===//
//
// The target-neutral core of latency-mode spatial scheduling (shared seed
// 002): a task graph with per-processor execution costs and per-edge
// communication costs (paid only when the two tasks run on different
// processors), scheduled by insertion-based list scheduling:
//  - HEFT (Topcuoglu et al. 2002): upward rank, processor of minimum EFT;
//  - PEFT (Arabnejad and Barbosa 2014): Optimistic Cost Table priorities
//    (rank_oct), processor of minimum EFT + OCT.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_LISTSCHEDULER_H
#define RAPTOR_PASSES_SPATIAL_LISTSCHEDULER_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace raptor::spatial {

struct TaskGraph {
  unsigned numTasks = 0, numProcessors = 0;
  std::vector<double> cost; // numTasks x numProcessors, row-major
  struct Edge {
    unsigned from, to;
    double communication;
  };
  std::vector<Edge> edges;

  /// Capacity (optional): tasks hold `tiles` resident units on their
  /// processor, at most `capacity` per processor (0: unlimited).
  std::vector<int64_t> tiles;
  int64_t capacity = 0;
  /// Link cost (optional) of edge `edge` (its index in `edges`: copies of
  /// the graph, as the capacity retry makes, keep the meaning) between two
  /// processors; by default the edge's `communication` across processors
  /// and 0 on one processor. The priorities (ranks, OCT) use
  /// `communication` as the mean link cost.
  std::function<double(size_t edge, unsigned from, unsigned to)> link;
  /// Whether a task receives its inputs from other processors one after
  /// the other (a PIM core has one transfer unit; rendezvous transfers do
  /// not overlap), in the order its producers finish. By default they
  /// arrive in parallel, as in HEFT and PEFT.
  bool serialReceives = false;
  /// Processors fixed in advance (-1: free), e.g. by a capacity fallback.
  std::vector<int> fixedProcessor;
  /// Tasks that run on another task's processor (-1: free): the other task
  /// is one of its predecessors (a row block on its first block's
  /// crossbars).
  std::vector<int> sameProcessorAs;

  double execution(unsigned task, unsigned processor) const {
    return cost[size_t(task) * numProcessors + processor];
  }
  double transfer(size_t edge, unsigned from, unsigned to) const {
    return link ? link(edge, from, to) : (from == to ? 0.0 : edges[edge].communication);
  }
  /// Empty when valid, else a one-line description of the problem (sizes,
  /// negative costs, bad edge endpoints, a cycle).
  std::string validate() const;
};

struct Schedule {
  bool feasible = true;
  unsigned failedTask = 0;  // when infeasible: the task no processor could hold
  std::string strategy;     // how capacity was met (see scheduleWithCapacity)
  std::vector<unsigned> processor;
  std::vector<double> start, finish;
  std::vector<unsigned> order; // the order tasks were scheduled in
  double makespan = 0;
};

/// OCT(t, p) of PEFT, numTasks x numProcessors row-major.
std::vector<double> optimisticCostTable(const TaskGraph &graph);
/// HEFT's upward ranks.
std::vector<double> upwardRanks(const TaskGraph &graph);

Schedule scheduleHEFT(const TaskGraph &graph);
Schedule schedulePEFT(const TaskGraph &graph);

/// PEFT or HEFT under capacity: first load- and communication-aware
/// placement (processors without room are skipped); if a task finds no
/// processor, a bounded retry places the weight-holding tasks largest first
/// by best fit and schedules the rest around them. Infeasible when even
/// that fails (reported with the task).
Schedule scheduleWithCapacity(const TaskGraph &graph, bool peft);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_LISTSCHEDULER_H
