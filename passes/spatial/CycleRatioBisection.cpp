//===- CycleRatioBisection.cpp - The seed's bounded bisection ---*- C++ -*-===//
//
// An independent cross-check of maxCycleRatio (shared seed 002): bisection
// over integer initiation intervals II with one probe per step, "does some
// cycle have w(C) - II * d(C) > 0?", i.e. ratio > II.
//
// A probe computes longest paths from labels 0 under w - II * d in rounds:
// sweep the distance-0 DAG in topological order, then relax every
// positive-distance edge once from the labels the sweep left (Jacobi). A
// simple path uses at most K = min(R, V - 1) positive-distance edges (R of
// them in the graph), so without a positive cycle round K + 1's relaxation
// changes nothing; a change there proves a positive cycle. A cycle in the
// parent edges also proves one and ends an infeasible probe early.
//
// Bounds: every cycle ratio lies in (lo, hi] = (-V * maxNeg - 1, V * maxPos]
// (a simple cycle has at most V edges and distance >= 1), a range below
// 2^61, so the first probe (at lo: is there a cycle at all?) and the
// bisection take at most 62 probes. |II| <= 2^60 + 1, so |w - II * d| < 2^81,
// and a label is a walk of at most V edges per round, at most V^2 <= 2^40
// edges in all: below 2^121 in magnitude.
//
//===----------------------------------------------------------------------===//
#include "passes/spatial/CycleRatio.h"
#include "passes/spatial/PositiveCycle.h"

#include <algorithm>
#include <cassert>

namespace raptor::spatial {

namespace {
constexpr unsigned kNone = ~0u;

/// Probes the edges' endpoints only (renumbered), so isolated nodes cost
/// nothing even though the bracket counts them.
class Prober {
public:
  Prober(int64_t nodes, llvm::ArrayRef<RatioEdge> edges, llvm::ArrayRef<unsigned> order) {
    std::vector<unsigned> local(nodes, kNone);
    for (const RatioEdge &e : edges)
      local[e.from] = local[e.to] = 0;
    for (unsigned v : order) // numbered in topological order of the distance-0 edges
      if (local[v] != kNone)
        local[v] = active++;
    for (const RatioEdge &e : edges)
      this->edges.push_back({local[e.from], local[e.to], e.weight, e.distance});
    zero = buildOutEdges(active, this->edges,
                         [&](unsigned e) { return this->edges[e].distance == 0; });
    for (unsigned e = 0; e < this->edges.size(); ++e)
      if (this->edges[e].distance > 0)
        recurrent.push_back(e);
    rounds = std::min<int64_t>(recurrent.size(), std::max<int64_t>(active - 1, 0)) + 1;
  }

  /// Whether some cycle has w - ii * d > 0 in total.
  bool positiveCycleAbove(int64_t ii) {
    auto weight = [&](unsigned e) {
      return Int128(edges[e].weight) - Int128(ii) * edges[e].distance;
    };
    std::vector<Int128> label(active, 0), candidate(recurrent.size());
    std::vector<unsigned> parent(active, kNone);
    auto relax = [&](unsigned e, Int128 value) {
      if (value <= label[edges[e].to])
        return false;
      label[edges[e].to] = value;
      parent[edges[e].to] = e;
      return true;
    };
    for (int64_t round = 0; round < rounds; ++round) {
      // Nodes are numbered in topological order: one sweep settles the DAG.
      for (unsigned u = 0; u < active; ++u)
        for (unsigned k = zero.begin[u]; k < zero.begin[u + 1]; ++k)
          relax(zero.id[k], label[u] + weight(zero.id[k]));
      for (size_t i = 0; i < recurrent.size(); ++i)
        candidate[i] = label[edges[recurrent[i]].from] + weight(recurrent[i]);
      bool changed = false;
      for (size_t i = 0; i < recurrent.size(); ++i)
        changed |= relax(recurrent[i], candidate[i]);
      if (!changed)
        return false;
      if (parentsHaveCycle(parent))
        return true;
    }
    return true;
  }

private:
  bool parentsHaveCycle(llvm::ArrayRef<unsigned> parent) {
    walk.assign(active, kNone);
    for (unsigned s = 0; s < active; ++s) {
      unsigned x = s;
      while (x != kNone && walk[x] == kNone) {
        walk[x] = s;
        x = parent[x] == kNone ? kNone : unsigned(edges[parent[x]].from);
      }
      if (x != kNone && walk[x] == s)
        return true;
    }
    return false;
  }

  unsigned active = 0;
  std::vector<RatioEdge> edges; // renumbered
  OutEdges zero;
  std::vector<unsigned> recurrent;
  int64_t rounds;
  std::vector<unsigned> walk;
};
} // namespace

RatioBracket bisectCycleRatio(int64_t nodes, llvm::ArrayRef<RatioEdge> edges) {
  assert(validateRatioGraph(nodes, edges).empty() && "bisectCycleRatio needs a valid graph");
  RatioBracket bracket;
  std::vector<unsigned> order;
  if (!findZeroDistanceCycle(nodes, edges, &order).empty()) {
    bracket.status = CycleRatioStatus::Deadlock;
    return bracket;
  }
  int64_t maxPos = 0, maxNeg = 0;
  for (const RatioEdge &e : edges) {
    maxPos = std::max(maxPos, e.weight);
    maxNeg = std::max(maxNeg, -e.weight);
  }
  int64_t lo = -nodes * maxNeg - 1, hi = nodes * maxPos;
  Prober prober(nodes, edges, order);
  ++bracket.probes;
  if (!prober.positiveCycleAbove(lo)) {
    bracket.status = CycleRatioStatus::Acyclic; // every cycle would be above lo
    return bracket;
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    ++bracket.probes;
    (prober.positiveCycleAbove(mid) ? lo : hi) = mid;
  }
  bracket.status = CycleRatioStatus::Ok;
  bracket.lo = lo;
  bracket.hi = hi;
  return bracket;
}

} // namespace raptor::spatial
