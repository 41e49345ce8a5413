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
  std::vector<std::vector<unsigned>> predEdges; // edge indices, per task
  std::vector<unsigned> topo; // a topological order
};

Adjacency adjacency(const TaskGraph &g) {
  Adjacency a;
  a.succ.resize(g.numTasks);
  a.pred.resize(g.numTasks);
  a.predEdges.resize(g.numTasks);
  std::vector<unsigned> indegree(g.numTasks, 0);
  for (unsigned i = 0; i < g.edges.size(); ++i) {
    const TaskGraph::Edge &e = g.edges[i];
    a.succ[e.from].push_back({e.to, e.communication});
    a.pred[e.to].push_back({e.from, e.communication});
    a.predEdges[e.to].push_back(i);
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
  std::vector<int64_t> used(g.numProcessors, 0);
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
    int64_t tiles = t < g.tiles.size() ? g.tiles[t] : 0;
    std::vector<std::pair<double, double>> incoming; // (producer finish, transfer) from other processors
    int fixed = t < g.fixedProcessor.size() ? g.fixedProcessor[t] : -1;
    if (t < g.sameProcessorAs.size() && g.sameProcessorAs[t] >= 0)
      fixed = int(s.processor[unsigned(g.sameProcessorAs[t])]);
    for (unsigned p = 0; p < g.numProcessors; ++p) {
      if (fixed >= 0 && p != unsigned(fixed))
        continue;
      if (g.capacity > 0 && tiles > 0 && used[p] + tiles > g.capacity)
        continue; // no room for this task's resident weights
      double readyTime = 0;
      incoming.clear();
      for (unsigned e : a.predEdges[t]) {
        unsigned q = g.edges[e].from;
        double transfer = g.transfer(e, s.processor[q], p);
        if (g.serialReceives && transfer > 0)
          incoming.push_back({s.finish[q], transfer});
        else
          readyTime = std::max(readyTime, s.finish[q] + transfer);
      }
      if (!incoming.empty()) {
        std::sort(incoming.begin(), incoming.end());
        double received = 0;
        for (auto [finish, transfer] : incoming)
          received = std::max(received, finish) + transfer;
        readyTime = std::max(readyTime, received);
      }
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
    if (bestScore == std::numeric_limits<double>::infinity()) {
      s.feasible = false;
      s.failedTask = t;
      return s;
    }
    occupy(busy[s.processor[t]], s.start[t], s.finish[t]);
    used[s.processor[t]] += tiles;
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

Schedule scheduleWithCapacity(const TaskGraph &graph, bool peft) {
  auto run = [&](const TaskGraph &g) { return peft ? schedulePEFT(g) : scheduleHEFT(g); };
  Schedule first = run(graph);
  if (first.feasible || graph.capacity <= 0) {
    first.strategy = "load- and communication-aware";
    return first;
  }
  // Retry once: weight-holding tasks placed largest first, each on the
  // processor whose remaining room fits it most tightly (best fit).
  std::vector<unsigned> heavy;
  for (unsigned t = 0; t < graph.numTasks; ++t)
    if (t < graph.tiles.size() && graph.tiles[t] > 0)
      heavy.push_back(t);
  std::stable_sort(heavy.begin(), heavy.end(),
                   [&](unsigned x, unsigned y) { return graph.tiles[x] > graph.tiles[y]; });
  std::vector<int64_t> room(graph.numProcessors, graph.capacity);
  TaskGraph fixed = graph;
  fixed.fixedProcessor.assign(graph.numTasks, -1);
  for (unsigned t : heavy) {
    int best = -1;
    for (unsigned p = 0; p < graph.numProcessors; ++p)
      if (room[p] >= graph.tiles[t] && (best < 0 || room[p] < room[best]))
        best = int(p);
    if (best < 0) {
      first.strategy = "largest-weight-first best fit";
      first.failedTask = t;
      return first; // infeasible: the weights do not fit the processors
    }
    room[best] -= graph.tiles[t];
    fixed.fixedProcessor[t] = best;
  }
  Schedule second = run(fixed);
  second.strategy = "largest-weight-first best fit";
  return second;
}

} // namespace raptor::spatial
