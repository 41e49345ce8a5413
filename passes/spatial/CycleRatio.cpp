//===- CycleRatio.cpp - Exact maximum cycle ratio of an event graph -*- C++ -*-===//
//
// Arithmetic bounds (V <= 2^20, |w| < 2^40, 0 <= d < 2^20). A simple cycle
// has at most V edges, so its totals satisfy |W| < 2^60 and D < 2^40: the
// reduced ratio num / den fits in int64. The certification weights
// w * den - num * d are below 2^81 in magnitude, so Howard's exact potentials
// and every label of the positive-cycle search (an initial potential plus a
// simple path, PositiveCycle.h) stay below 2^102: __int128 does not overflow.
//
//===----------------------------------------------------------------------===//
#include "passes/spatial/CycleRatio.h"
#include "passes/spatial/PositiveCycle.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <string>

namespace raptor::spatial {

const char *toString(CycleRatioStatus status) {
  switch (status) {
  case CycleRatioStatus::Ok:
    return "ok";
  case CycleRatioStatus::Deadlock:
    return "deadlock";
  case CycleRatioStatus::Acyclic:
    return "acyclic";
  }
  return "?";
}

std::string validateRatioGraph(int64_t nodes, llvm::ArrayRef<RatioEdge> edges) {
  if (nodes < 0 || nodes > kMaxRatioNodes)
    return "the node count must be between 0 and 2^20 = " + std::to_string(kMaxRatioNodes) +
           " (got " + std::to_string(nodes) + ")";
  if (int64_t(edges.size()) > kMaxRatioEdges)
    return "at most 2^31 - 1 edges are supported (got " + std::to_string(edges.size()) + ")";
  for (size_t i = 0; i < edges.size(); ++i) {
    const RatioEdge &e = edges[i];
    auto where = [&] {
      return "edge " + std::to_string(i) + " (" + std::to_string(e.from) + " -> " +
             std::to_string(e.to) + "): ";
    };
    for (int64_t node : {e.from, e.to})
      if (node < 0 || node >= nodes)
        return where() + (nodes == 0 ? std::string("the graph has no nodes")
                                     : "node " + std::to_string(node) + " is outside 0.." +
                                           std::to_string(nodes - 1));
    if (e.distance < 0)
      return where() + "negative distance " + std::to_string(e.distance) +
             " (a distance counts iterations back, >= 0)";
    if (e.distance >= kRatioDistanceLimit)
      return where() + "distance " + std::to_string(e.distance) +
             " is outside the supported range (below 2^20 = " +
             std::to_string(kRatioDistanceLimit) + ")";
    if (e.weight <= -kRatioWeightLimit || e.weight >= kRatioWeightLimit)
      return where() + "weight " + std::to_string(e.weight) +
             " is outside the supported range (|w| < 2^40 = " + std::to_string(kRatioWeightLimit) +
             ")";
  }
  return "";
}

namespace {
constexpr unsigned kNone = ~0u;

/// Rotates a cycle to start at its smallest edge index, so that equal cycles
/// print alike.
std::vector<int64_t> canonicalCycle(llvm::ArrayRef<unsigned> cycle) {
  std::vector<int64_t> out(cycle.begin(), cycle.end());
  std::rotate(out.begin(), std::min_element(out.begin(), out.end()), out.end());
  return out;
}

/// A cycle of the current policy: its handle (smallest node), totals, and
/// rank among the policy's distinct ratios (equal ranks: equal ratios).
struct PolicyCycle {
  unsigned handle;
  int64_t weight, distance;
  double ratio;
  unsigned rank;
};

/// a's ratio < b's, exactly (distances are positive, products < 2^100).
bool ratioLess(const PolicyCycle &a, const PolicyCycle &b) {
  return Int128(a.weight) * b.distance < Int128(b.weight) * a.distance;
}

/// Howard's policy iteration for the maximum cycle ratio on `out`, where
/// every node with an out-edge lies on a cycle (the edges inside strongly
/// connected components). A policy picks one out-edge per node; each node
/// then leads to one policy cycle, whose ratio it takes, and gets a value:
/// weight less ratio times distance along its policy path to the cycle's
/// handle. Improvement first moves nodes to successors whose cycle has a
/// larger ratio, then, among equal ratios, to edges of larger value.
///
/// The edges' weights are flat per-slot arrays and a node's rank and value
/// share a cache line, so an improvement streams the edges once.
class Howard {
public:
  Howard(llvm::ArrayRef<RatioEdge> edges, const OutEdges &out, const CycleRatioOptions &options)
      : edges(edges), out(out), options(options), weight(out.numSlots()),
        distance(out.numSlots()), choice(out.numNodes(), {kNone, kNone, 0.0, 0.0}),
        cycleOf(out.numNodes()), value(out.numNodes()), probe(out.numNodes()) {
    for (unsigned k = 0; k < out.numSlots(); ++k) {
      weight[k] = double(edges[out.id[k]].weight);
      distance[k] = double(edges[out.id[k]].distance);
    }
    // Start from the heaviest out-edge of every node.
    for (unsigned u = 0; u < out.numNodes(); ++u) {
      unsigned best = kNone;
      for (unsigned k = out.begin[u]; k < out.begin[u + 1]; ++k)
        if (best == kNone || weight[k] > weight[best])
          best = k;
      if (best != kNone) {
        nodes.push_back(u);
        setPolicy(u, best);
      }
    }
  }

  bool empty() const { return nodes.empty(); }

  /// Policy evaluations, including the first.
  unsigned run() {
    unsigned evaluations = 1;
    evaluate();
    while (evaluations <= options.maxIterations && improve()) {
      evaluate();
      ++evaluations;
    }
    return evaluations;
  }

  /// The edges of a policy cycle of the largest ratio, in cycle order.
  std::vector<unsigned> bestCycle() const {
    const PolicyCycle *best = &cycles.front();
    for (const PolicyCycle &c : cycles)
      if (c.rank > best->rank)
        best = &c;
    std::vector<unsigned> cycle;
    unsigned x = best->handle;
    do {
      cycle.push_back(out.id[choice[x].slot]);
      x = choice[x].next;
    } while (x != best->handle);
    return cycle;
  }

  /// Potentials p(u) = p(next) - slotWeight(policy edge), 0 at the handles:
  /// the policy edges are tight, and when the policy is optimal for the ratio
  /// behind `slotWeight`, p(v) >= p(u) + slotWeight on every edge.
  std::vector<Int128> potentials(llvm::ArrayRef<Int128> slotWeight) const {
    std::vector<Int128> p(out.numNodes(), 0);
    std::vector<unsigned> cycle(out.numNodes());
    walkPolicy(
        p, cycle, [](llvm::ArrayRef<unsigned>) { return 0u; },
        [&](const Choice &c, unsigned) { return -slotWeight[c.slot]; });
    return p;
  }

private:
  /// A node's policy edge: its slot, target and weights, in one cache line
  /// for evaluate()'s walks.
  struct Choice {
    unsigned slot, next;
    double weight, distance;
  };
  /// What improve() reads of an edge's target.
  struct Probe {
    double value;
    unsigned rank;
  };

  /// Visits every node after its policy successor: result[u] = step(choice,
  /// cycle) + result[next], 0 at each cycle's handle (its smallest node).
  /// onCycle(nodes in policy order) names each new cycle first.
  template <typename T, typename OnCycle, typename Step>
  void walkPolicy(std::vector<T> &result, std::vector<unsigned> &cycleOfNode, OnCycle onCycle,
                  Step step) const {
    // cycleOfNode: kNone (not seen), kOnPath + position on the current walk,
    // or the node's cycle once valued.
    constexpr unsigned kOnPath = 1u << 31;
    std::fill(cycleOfNode.begin(), cycleOfNode.end(), kNone);
    std::vector<unsigned> path;
    auto set = [&](unsigned u, unsigned c) {
      result[u] = step(choice[u], c) + result[choice[u].next];
      cycleOfNode[u] = c;
    };
    for (unsigned s : nodes) {
      path.clear();
      unsigned x = s;
      while (cycleOfNode[x] == kNone) {
        cycleOfNode[x] = kOnPath + path.size();
        path.push_back(x);
        x = choice[x].next;
      }
      size_t tree = path.size();
      if (cycleOfNode[x] >= kOnPath) {
        // The walk closed a new cycle, path[first..end): value it backwards
        // from the handle h.
        size_t first = cycleOfNode[x] - kOnPath, end = path.size();
        llvm::ArrayRef<unsigned> cycle = llvm::ArrayRef<unsigned>(path).slice(first);
        unsigned c = onCycle(cycle);
        size_t h = first + (std::min_element(cycle.begin(), cycle.end()) - cycle.begin());
        result[path[h]] = T(0);
        cycleOfNode[path[h]] = c;
        for (size_t i = h; i-- > first;)
          set(path[i], c);
        for (size_t i = end - 1; i > h; --i)
          set(path[i], c);
        tree = first;
      }
      for (size_t i = tree; i-- > 0;)
        set(path[i], cycleOfNode[choice[path[i]].next]);
    }
  }

  /// Finds the policy cycles and their ranks, then each node's cycle and value.
  void evaluate() {
    cycles.clear();
    walkPolicy(
        value, cycleOf,
        [&](llvm::ArrayRef<unsigned> nodesOfCycle) {
          PolicyCycle c{*std::min_element(nodesOfCycle.begin(), nodesOfCycle.end()), 0, 0, 0.0, 0};
          for (unsigned y : nodesOfCycle) {
            c.weight += edges[out.id[choice[y].slot]].weight;
            c.distance += edges[out.id[choice[y].slot]].distance;
          }
          // Deadlocks are reported before Howard runs.
          assert(c.distance > 0 && "zero-distance policy cycle");
          c.ratio = double(c.weight) / double(c.distance);
          cycles.push_back(c);
          return unsigned(cycles.size() - 1);
        },
        [&](const Choice &choice, unsigned c) {
          return choice.weight - cycles[c].ratio * choice.distance;
        });
    std::vector<unsigned> sorted(cycles.size());
    std::iota(sorted.begin(), sorted.end(), 0);
    std::sort(sorted.begin(), sorted.end(),
              [&](unsigned a, unsigned b) { return ratioLess(cycles[a], cycles[b]); });
    for (size_t i = 1; i < sorted.size(); ++i)
      cycles[sorted[i]].rank = cycles[sorted[i - 1]].rank +
                               ratioLess(cycles[sorted[i - 1]], cycles[sorted[i]]);
    for (unsigned u : nodes)
      probe[u] = {value[u], cycles[cycleOf[u]].rank};
  }

  /// One pass over the edges: a successor whose cycle has a larger ratio
  /// wins outright; only when no node has one, nodes move, among equal
  /// ratios, to an edge whose value is larger by more than the tolerance.
  bool improve() {
    bool ratioGain = false;
    std::vector<std::pair<unsigned, unsigned>> valueGains; // (node, slot)
    for (unsigned u : nodes) {
      Probe mine = probe[u];
      double ratio = cycles[cycleOf[u]].ratio;
      double bestValue = mine.value + options.tolerance * (1.0 + std::abs(mine.value));
      unsigned bestRank = mine.rank, rankSlot = kNone, valueSlot = kNone;
      for (unsigned k = out.begin[u]; k < out.begin[u + 1]; ++k) {
        Probe theirs = probe[out.to[k]];
        if (theirs.rank > bestRank) {
          bestRank = theirs.rank;
          rankSlot = k;
        } else if (!ratioGain && theirs.rank == mine.rank) {
          double candidate = weight[k] - ratio * distance[k] + theirs.value;
          if (candidate > bestValue) {
            bestValue = candidate;
            valueSlot = k;
          }
        }
      }
      if (rankSlot != kNone) {
        setPolicy(u, rankSlot);
        ratioGain = true;
      } else if (!ratioGain && valueSlot != kNone) {
        valueGains.push_back({u, valueSlot});
      }
    }
    if (ratioGain)
      return true;
    for (auto [u, k] : valueGains)
      setPolicy(u, k);
    return !valueGains.empty();
  }

  void setPolicy(unsigned u, unsigned k) { choice[u] = {k, out.to[k], weight[k], distance[k]}; }

  llvm::ArrayRef<RatioEdge> edges;
  const OutEdges &out;
  const CycleRatioOptions &options;
  std::vector<double> weight, distance; // per slot
  std::vector<unsigned> nodes;          // the nodes with an out-edge
  std::vector<Choice> choice;           // the policy
  std::vector<unsigned> cycleOf;
  std::vector<double> value;
  std::vector<Probe> probe;
  std::vector<PolicyCycle> cycles;
};

/// Fills the witness and its totals (and, for Ok, the reduced ratio).
void setWitness(CycleRatioResult &result, llvm::ArrayRef<RatioEdge> edges,
                std::vector<int64_t> cycle) {
  result.weight = result.distance = 0;
  for (int64_t e : cycle) {
    result.weight += edges[e].weight;
    result.distance += edges[e].distance;
  }
  result.cycle = std::move(cycle);
  if (result.status != CycleRatioStatus::Ok)
    return;
  int64_t g = std::gcd(result.weight, result.distance);
  result.num = result.weight / g;
  result.den = result.distance / g;
}
} // namespace

std::vector<int64_t> findZeroDistanceCycle(int64_t nodes, llvm::ArrayRef<RatioEdge> edges,
                                           std::vector<unsigned> *order) {
  // Kahn's algorithm on the distance-0 edges; what it cannot remove holds a
  // cycle, where every node has a distance-0 predecessor that also remains.
  OutEdges zero = buildOutEdges(nodes, edges, [&](unsigned e) { return edges[e].distance == 0; });
  std::vector<unsigned> indegree(nodes, 0), sorted;
  for (unsigned v : zero.to)
    ++indegree[v];
  for (unsigned v = 0; v < nodes; ++v)
    if (indegree[v] == 0)
      sorted.push_back(v);
  for (size_t i = 0; i < sorted.size(); ++i)
    for (unsigned k = zero.begin[sorted[i]]; k < zero.begin[sorted[i] + 1]; ++k)
      if (--indegree[zero.to[k]] == 0)
        sorted.push_back(zero.to[k]);
  if (int64_t(sorted.size()) == nodes) {
    if (order)
      *order = std::move(sorted);
    return {};
  }
  std::vector<unsigned> into(nodes, kNone);
  for (unsigned e : zero.id)
    if (indegree[edges[e].from] > 0 && indegree[edges[e].to] > 0)
      into[edges[e].to] = e;
  unsigned start = 0;
  while (indegree[start] == 0)
    ++start;
  // Walk predecessors until a node repeats; the walk from there is a cycle.
  std::vector<unsigned> seen(nodes, kNone), back;
  unsigned x = start;
  for (unsigned step = 0; seen[x] == kNone; ++step) {
    seen[x] = step;
    back.push_back(into[x]);
    x = edges[into[x]].from;
  }
  std::vector<unsigned> cycle(back.begin() + seen[x], back.end());
  std::reverse(cycle.begin(), cycle.end());
  return canonicalCycle(cycle);
}

CycleRatioResult maxCycleRatio(int64_t nodes, llvm::ArrayRef<RatioEdge> edges,
                               const CycleRatioOptions &options) {
  assert(validateRatioGraph(nodes, edges).empty() && "maxCycleRatio needs a valid graph");
  CycleRatioResult result;
  if (std::vector<int64_t> deadlock = findZeroDistanceCycle(nodes, edges); !deadlock.empty()) {
    result.status = CycleRatioStatus::Deadlock;
    setWitness(result, edges, std::move(deadlock));
    return result;
  }
  OutEdges all = buildOutEdges(nodes, edges, [](unsigned) { return true; });
  std::vector<unsigned> component = strongComponents(all);
  // Cycles live inside components: keep only the edges there.
  OutEdges core = buildOutEdges(nodes, edges, [&](unsigned e) {
    return component[edges[e].from] == component[edges[e].to];
  });
  Howard howard(edges, core, options);
  if (howard.empty()) {
    result.status = CycleRatioStatus::Acyclic;
    return result;
  }

  result.status = CycleRatioStatus::Ok;
  result.howardIterations = howard.run();
  std::vector<unsigned> candidate = howard.bestCycle();
  std::vector<Int128> weight(core.numSlots());
  while (true) {
    setWitness(result, edges, canonicalCycle(candidate));
    for (unsigned k = 0; k < core.numSlots(); ++k) {
      const RatioEdge &e = edges[core.id[k]];
      weight[k] = Int128(e.weight) * result.den - Int128(result.num) * e.distance;
    }
    std::vector<Int128> label = howard.potentials(weight);
    ++result.certificationChecks;
    std::vector<unsigned> larger = findPositiveCycle(core, weight, label);
    if (larger.empty())
      return result;
    // Positive under w * den - num * d: a ratio above num / den.
    candidate = std::move(larger);
  }
}

} // namespace raptor::spatial
