//===- PositiveCycle.h - Exact positive-cycle search ------------*- C++ -*-===//
//
// The certification step of the cycle-ratio solver (CycleRatio.h): given
// integer edge weights, find potentials p with p(v) >= p(u) + c(u, v) on every
// edge, or a cycle of positive total weight.
//
// FIFO label correcting (Bellman-Ford-Moore) with Tarjan's subtree
// disassembly (Tarjan 1981; Cherkassky and Goldberg 1999, "BFCT"): the parent
// edges form a tree of tight edges rooted at the initial labels; when a node's
// label grows, its subtree is cut out (those labels will grow too), and a
// relaxation (u, v) with u in v's subtree closes a positive cycle, found at
// once. Every label is then an initial label plus the weight of a simple tree
// path, which bounds the arithmetic. O(V E) in the worst case; one scan of
// every edge when the initial labels are already feasible.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_POSITIVECYCLE_H
#define RAPTOR_PASSES_SPATIAL_POSITIVECYCLE_H

#include "passes/spatial/CycleRatio.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace raptor::spatial {

using Int128 = __int128;

/// The edges of a graph grouped by source (CSR), laid out for streaming:
/// slot k in [begin[u], begin[u + 1]) is edge id[k], from u to to[k].
struct OutEdges {
  std::vector<unsigned> begin; // nodes + 1 offsets
  std::vector<unsigned> to, id;

  unsigned numNodes() const { return begin.size() - 1; }
  unsigned numSlots() const { return to.size(); }
};

/// The edges for which `keep(edge index)` holds, grouped by source node.
OutEdges buildOutEdges(int64_t nodes, llvm::ArrayRef<RatioEdge> edges,
                       llvm::function_ref<bool(unsigned)> keep);

/// Strongly connected components: a component id per node, numbered in
/// reverse topological order (every edge between two components runs to a
/// smaller id).
std::vector<unsigned> strongComponents(const OutEdges &out);

/// Searches the graph `out` under `weight` (one per slot), starting from
/// `label` (one per node, any values; updated in place). Returns a positive
/// cycle as edge ids in cycle order, or empty when none exists, in which case
/// `label` holds feasible potentials.
std::vector<unsigned> findPositiveCycle(const OutEdges &out, llvm::ArrayRef<Int128> weight,
                                        std::vector<Int128> &label);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_POSITIVECYCLE_H
