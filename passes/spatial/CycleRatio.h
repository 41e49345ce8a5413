//===- CycleRatio.h - Exact maximum cycle ratio of an event graph -*- C++ -*-===//
//
// Periodic timing analysis (shared seed 002, "Periodic dependency
// diagnostics"; issue 11 item 4). An edge (u, v, w, d) of an event graph says
// t(v, k) >= t(u, k - d) + w: event v of iteration k happens at least w ns
// after event u of iteration k - d. The steady-state initiation interval is
// the maximum cycle ratio, max over cycles C of w(C) / d(C).
//
// maxCycleRatio answers exactly, in three steps:
//  1. deadlock: a cycle of distance-0 edges (events of one iteration waiting
//     on each other) is reported with its edges before any ratio;
//  2. Howard's policy iteration (Cochet-Terrasson, Cohen, Gaubert,
//     McGettrick, Quadrat 1998; Dasdan 2004) on the strongly connected
//     components proposes a critical cycle; cycle ratios are exact
//     fractions, node values are doubles compared with a tolerance;
//  3. certification: with the candidate's reduced ratio num/den, one search
//     for a positive cycle under the integer weights w * den - num * d. None
//     proves the candidate maximal; one found has a larger ratio, becomes the
//     candidate, and the check repeats. The answer is therefore exact even
//     when floating point misled Howard.
//
// bisectCycleRatio is the seed's independent cross-check: at most 64
// integer probes "is there a positive cycle under w - II * d?" bracket the
// ratio within 1 ns.
//
// Complexity, V nodes and E edges: validation, deadlock search and the
// components are O(V + E); each Howard iteration is O(V + E) (no polynomial
// bound on the number of iterations is known, in practice it is small and
// grows slowly with size, see docs/benchmarks.md); a certification check is a
// FIFO label-correcting search with Tarjan's subtree disassembly, O(V E) in
// the worst case and O(V + E) when Howard's potentials are already feasible,
// which is the usual case. A bisection probe is at most min(R, V - 1) + 1
// sweeps of O(V + E) over the edges' endpoints, R the number of edges with a
// positive distance.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_CYCLERATIO_H
#define RAPTOR_PASSES_SPATIAL_CYCLERATIO_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace raptor::spatial {

/// t(to, k) >= t(from, k - distance) + weight.
struct RatioEdge {
  int64_t from, to, weight, distance;
};

/// The supported numeric range: every cycle total, the scaled weights of the
/// certification and the bisection's labels then fit in 64 or 128 bits (see
/// CycleRatio.cpp for the bounds).
constexpr int64_t kMaxRatioNodes = int64_t(1) << 20;     // nodes <= 2^20
constexpr int64_t kRatioWeightLimit = int64_t(1) << 40;  // |weight| < 2^40
constexpr int64_t kRatioDistanceLimit = int64_t(1) << 20; // 0 <= distance < 2^20
constexpr int64_t kMaxRatioEdges = (int64_t(1) << 31) - 1;

/// Empty when the graph is within range, else a one-line description of the
/// first problem (node count, edge endpoints, negative distance, weight or
/// distance outside the supported range). The solvers require a valid graph.
std::string validateRatioGraph(int64_t nodes, llvm::ArrayRef<RatioEdge> edges);

enum class CycleRatioStatus {
  Ok,       // a cycle ratio: num / den with its critical cycle
  Deadlock, // a cycle of distance-0 edges (no ratio)
  Acyclic,  // no cycle at all (no recurrence bound)
};

/// "ok", "deadlock" or "acyclic".
const char *toString(CycleRatioStatus status);

struct CycleRatioOptions {
  /// Howard's node values are doubles; a policy change must gain more than
  /// tolerance * (1 + |value|). Certification makes the answer exact for any
  /// tolerance; a coarse one only costs certification rounds.
  double tolerance = 1e-9;
  /// Policy improvements after which Howard stops with its best cycle so far
  /// (certification still makes the answer exact).
  unsigned maxIterations = 1000;
};

struct CycleRatioResult {
  CycleRatioStatus status = CycleRatioStatus::Acyclic;
  /// Ok: the maximum cycle ratio num / den, reduced, den > 0.
  int64_t num = 0, den = 1;
  /// Ok: a critical cycle; Deadlock: a cycle of distance-0 edges. Edge
  /// indices in cycle order (each edge's `to` is the next edge's `from`, the
  /// last edge returns to the first's `from`), starting at the smallest index.
  std::vector<int64_t> cycle;
  /// The witness's totals (Ok: weight / distance == num / den).
  int64_t weight = 0, distance = 0;
  /// Ok: Howard's policy evaluations (1 + policy improvements).
  unsigned howardIterations = 0;
  /// Positive-cycle checks run: 1 when Howard's candidate was maximal, one
  /// more for each larger cycle the checks found.
  unsigned certificationChecks = 0;
};

/// The exact maximum cycle ratio of a graph that validateRatioGraph accepts.
CycleRatioResult maxCycleRatio(int64_t nodes, llvm::ArrayRef<RatioEdge> edges,
                               const CycleRatioOptions &options = {});

struct RatioBracket {
  CycleRatioStatus status = CycleRatioStatus::Acyclic;
  /// Ok: lo < ratio <= hi and hi == lo + 1.
  int64_t lo = 0, hi = 0;
  unsigned probes = 0; // positive-cycle probes run, at most 64
};

/// The seed's bisection on integer initiation intervals II: a probe asks
/// whether some cycle has w(C) - II * d(C) > 0, i.e. ratio > II. Deadlock and
/// Acyclic are reported as by maxCycleRatio, without probes.
RatioBracket bisectCycleRatio(int64_t nodes, llvm::ArrayRef<RatioEdge> edges);

/// Edge indices of a cycle made of distance-0 edges, in cycle order, or empty
/// when the distance-0 edges form a DAG; then `order`, when given, receives
/// a topological order of all nodes under the distance-0 edges. O(V + E).
std::vector<int64_t> findZeroDistanceCycle(int64_t nodes, llvm::ArrayRef<RatioEdge> edges,
                                           std::vector<unsigned> *order = nullptr);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_CYCLERATIO_H
