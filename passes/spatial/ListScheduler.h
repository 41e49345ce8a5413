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

  double execution(unsigned task, unsigned processor) const {
    return cost[size_t(task) * numProcessors + processor];
  }
  /// Empty when valid, else a one-line description of the problem (sizes,
  /// negative costs, bad edge endpoints, a cycle).
  std::string validate() const;
};

struct Schedule {
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

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_LISTSCHEDULER_H
