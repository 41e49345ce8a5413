//===- ListScheduler.cpp - HEFT and PEFT list scheduling --------*- C++ -*-===//
#include "passes/spatial/ListScheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <sstream>

namespace raptor::spatial {

namespace {
struct Adjacency {
  std::vector<std::vector<std::pair<unsigned, double>>> succ, pred;
  std::vector<unsigned> topo; // a topological order
};

Adjacency adjacency(const TaskGraph &g) {
  Adjacency a;
  a.succ.resize(g.numTasks);
  a.pred.resize(g.numTasks);
  std::vector<unsigned> indegree(g.numTasks, 0);
  for (const TaskGraph::Edge &e : g.edges) {
    a.succ[e.from].push_back({e.to, e.communication});
    a.pred[e.to].push_back({e.from, e.communication});
    ++indegree[e.to];
  }
  std::vector<unsigned> ready;
  for (unsigned t = 0; t < g.numTasks; ++t)
    if (indegree[t] == 0)
      ready.push_back(t);
  while (!ready.empty()) {
    unsigned t = ready.back();
    ready.pop_back();
    a.topo.push_back(t);
    for (auto [s, c] : a.succ[t])
      if (--indegree[s] == 0)
        ready.push_back(s);
  }
  return a;
}

/// Orders by decreasing rank; ranks within 1e-9 (relative) are ties, broken
/// by the lower task index, so float rounding does not reorder equal ranks.
bool lowerPriority(const std::vector<double> &rank, unsigned x, unsigned y) {
  double scale = std::max({1.0, std::abs(rank[x]), std::abs(rank[y])});
  if (std::abs(rank[x] - rank[y]) > 1e-9 * scale)
    return rank[x] < rank[y];
  return x > y;
}

/// Busy intervals of one processor, sorted by start.
using Timeline = std::vector<std::pair<double, double>>;

/// Earliest start >= ready at which `duration` fits into an idle gap.
double insertionStart(const Timeline &busy, double ready, double duration) {
  double candidate = ready;
  for (auto [start, finish] : busy) {
    if (candidate + duration <= start)
      return candidate;
    candidate = std::max(candidate, finish);
  }
  return candidate;
}

void occupy(Timeline &busy, double start, double finish) {
  busy.insert(std::upper_bound(busy.begin(), busy.end(), std::make_pair(start, finish)),
              {start, finish});
}

/// Insertion-based list scheduling in the given priority discipline.
template <typename Pick, typename Score>
Schedule listSchedule(const TaskGraph &g, const Adjacency &a, Pick pick, Score score) {
  Schedule s;
  s.processor.assign(g.numTasks, 0);
  s.start.assign(g.numTasks, 0);
  s.finish.assign(g.numTasks, 0);
  std::vector<Timeline> busy(g.numProcessors);
  std::vector<unsigned> waiting(g.numTasks);
  std::vector<unsigned> ready;
  for (unsigned t = 0; t < g.numTasks; ++t) {
    waiting[t] = a.pred[t].size();
    if (waiting[t] == 0)
      ready.push_back(t);
  }
  while (!ready.empty()) {
    auto it = pick(ready);
    unsigned t = *it;
    ready.erase(it);
    double bestScore = std::numeric_limits<double>::infinity();
    for (unsigned p = 0; p < g.numProcessors; ++p) {
      double readyTime = 0;
      for (auto [q, c] : a.pred[t])
        readyTime = std::max(readyTime, s.finish[q] + (s.processor[q] == p ? 0.0 : c));
      double duration = g.execution(t, p);
      double start = insertionStart(busy[p], readyTime, duration);
      double value = score(t, p, start + duration);
      if (value < bestScore) { // ties: the lowest processor index
        bestScore = value;
        s.processor[t] = p;
        s.start[t] = start;
        s.finish[t] = start + duration;
      }
    }
    occupy(busy[s.processor[t]], s.start[t], s.finish[t]);
    s.order.push_back(t);
    s.makespan = std::max(s.makespan, s.finish[t]);
    for (auto [succ, c] : a.succ[t])
      if (--waiting[succ] == 0)
        ready.push_back(succ);
  }
  return s;
}
} // namespace

std::string TaskGraph::validate() const {
  std::ostringstream os;
  if (numProcessors == 0)
    return "the task graph needs at least one processor";
  if (cost.size() != size_t(numTasks) * numProcessors)
    return "the cost matrix must have one row of " + std::to_string(numProcessors) +
           " costs per task";
  for (double c : cost)
    if (!(c >= 0) || !std::isfinite(c))
      return "execution costs must be finite and non-negative";
  for (const Edge &e : edges) {
    if (e.from >= numTasks || e.to >= numTasks) {
      os << "edge " << e.from << " -> " << e.to << " names a task outside 0.." << numTasks - 1;
      return os.str();
    }
    if (!(e.communication >= 0) || !std::isfinite(e.communication))
      return "communication costs must be finite and non-negative";
  }
  if (adjacency(*this).topo.size() != numTasks)
    return "the task graph has a cycle";
  return "";
}

std::vector<double> upwardRanks(const TaskGraph &g) {
  Adjacency a = adjacency(g);
  std::vector<double> rank(g.numTasks, 0);
  for (auto it = a.topo.rbegin(); it != a.topo.rend(); ++it) {
    unsigned t = *it;
    double mean = 0;
    for (unsigned p = 0; p < g.numProcessors; ++p)
      mean += g.execution(t, p);
    mean /= g.numProcessors;
    double tail = 0;
    for (auto [s, c] : a.succ[t])
      tail = std::max(tail, c + rank[s]);
    rank[t] = mean + tail;
  }
  return rank;
}

std::vector<double> optimisticCostTable(const TaskGraph &g) {
  Adjacency a = adjacency(g);
  unsigned P = g.numProcessors;
  std::vector<double> oct(size_t(g.numTasks) * P, 0);
  for (auto it = a.topo.rbegin(); it != a.topo.rend(); ++it) {
    unsigned t = *it;
    for (unsigned p = 0; p < P; ++p) {
      double worst = 0;
      for (auto [s, c] : a.succ[t]) {
        double best = std::numeric_limits<double>::infinity();
        for (unsigned w = 0; w < P; ++w)
          best = std::min(best, oct[size_t(s) * P + w] + g.execution(s, w) + (w == p ? 0.0 : c));
        worst = std::max(worst, best);
      }
      oct[size_t(t) * P + p] = worst;
    }
  }
  return oct;
}

Schedule scheduleHEFT(const TaskGraph &g) {
  Adjacency a = adjacency(g);
  std::vector<double> rank = upwardRanks(g);
  // Decreasing upward rank is a topological order; picking from the ready
  // list by rank gives the same sequence.
  auto pick = [&](std::vector<unsigned> &ready) {
    return std::max_element(ready.begin(), ready.end(), [&](unsigned x, unsigned y) {
      return lowerPriority(rank, x, y);
    });
  };
  auto score = [](unsigned, unsigned, double eft) { return eft; };
  return listSchedule(g, a, pick, score);
}

Schedule schedulePEFT(const TaskGraph &g) {
  Adjacency a = adjacency(g);
  std::vector<double> oct = optimisticCostTable(g);
  unsigned P = g.numProcessors;
  std::vector<double> rank(g.numTasks, 0);
  for (unsigned t = 0; t < g.numTasks; ++t)
    for (unsigned p = 0; p < P; ++p)
      rank[t] += oct[size_t(t) * P + p] / P;
  auto pick = [&](std::vector<unsigned> &ready) {
    return std::max_element(ready.begin(), ready.end(), [&](unsigned x, unsigned y) {
      return lowerPriority(rank, x, y);
    });
  };
  auto score = [&](unsigned t, unsigned p, double eft) { return eft + oct[size_t(t) * P + p]; };
  return listSchedule(g, a, pick, score);
}

} // namespace raptor::spatial
