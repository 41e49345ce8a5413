//===- Replication.h - Copies of weight lanes on spare crossbars -*- C++ -*-===//
//
// Workload splitting by replication (shared seed 002): an MVM operator's
// lanes are copied onto spare crossbars, each copy computing a range of the
// output rows. The plan says how many copies each operator gets.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_REPLICATION_H
#define RAPTOR_PASSES_SPATIAL_REPLICATION_H

#include "passes/Vocabulary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace raptor::spatial {

enum class ReplicationRule {
  None,
  /// PIMCOMP's greedy rule (the baseline): copy the operator with the most
  /// output windows per copy while crossbars remain.
  Windows,
  /// Give copies to the operator whose longest copy they shorten most per
  /// crossbar, net of bringing each copy its input rows, while any saves
  /// time. Copies hold whole rows, so the step is the fewest copies that
  /// shorten the longest (28 rows: 14 copies take 2 rows, as 20 do; 28
  /// take 1).
  Time,
  /// For throughput: copy the operator whose copies are the slowest while
  /// they take more than a fraction of the work per core (every core then
  /// holds about the same work, and no copy is too large to share a core).
  Balance,
  /// time for a latency schedule, balance for a pipeline (the compile's
  /// default; resolved by the compute graph's `mode`).
  Auto,
};

inline constexpr Choice<ReplicationRule> kReplicationRules[] = {
    {ReplicationRule::None, "none", "one copy of every lane"},
    {ReplicationRule::Time, "time",
     "add the copies that shorten an operator's longest copy most per crossbar, net of the input each brings, "
     "while any saves time"},
    {ReplicationRule::Windows, "windows", "PIMCOMP's greedy rule: copy the operator with the most output windows "
                                          "per copy while crossbars remain"},
    {ReplicationRule::Balance, "balance",
     "copy the operator whose copies are slowest while they take more than half the work per core (a pipeline "
     "also tries copies weighed with the work that follows them and keeps the faster plan)"},
    {ReplicationRule::Auto, "auto", "time in latency mode, balance in pipeline mode"},
};

/// An operator that may be replicated.
struct ReplicationCandidate {
  int64_t windows = 0;   // output positions
  int64_t rows = 1;      // output rows: the most copies (each takes whole rows)
  std::vector<int64_t> laneTiles; // crossbars of each lane of one copy
  double ns = 0;         // its time with one copy (the slowest lane)
  /// The vector work of the operators that follow its row copies with
  /// copies of their own (codecs, element-wise, pooling), which each copy
  /// takes to its core: the balance rule weighs a copy with its share.
  double followNs = 0;
  // The input a copy of `n` output rows reads: min(inputRows, n * stride +
  // halo) rows of inputRowBytes (a convolution's windows overlap by the
  // halo; a linear layer reads its own rows).
  int64_t inputRows = 1, inputRowBytes = 0, stride = 1, halo = 0;
};

/// Where copies go: `cores` cores of `capacity` crossbars. A copy is added
/// only if every lane (copies included) still packs onto them (first fit,
/// largest first: packs()).
struct ReplicationTarget {
  int64_t cores = 0, capacity = 0;
  int64_t spareCrossbars = 0; // beyond the single copies
  /// All the graph's work, every operator's lanes (the balance rule's
  /// target is a share of it per core).
  double totalNs = 0;
  /// The time to bring `bytes` to a core (the time rule's cost of a copy).
  std::function<double(int64_t bytes)> transferNs;
  /// The balance rule weighs a copy with its share of the followers' work
  /// (ReplicationCandidate::followNs), not its MVMs alone.
  bool weighFollowers = false;
};

/// Whether `tiles` (crossbars of each lane) pack into `bins` cores of
/// `capacity`, first fit, largest first. (The list scheduler's fallback
/// places by best fit, scheduleWithCapacity: the two agree except on
/// packings too tight for either to be sure; best fit here moved the
/// balance rule's plans, ResNet-18 f32 p8 5% slower.)
bool packs(std::vector<int64_t> tiles, int64_t bins, int64_t capacity);

/// Copies per candidate (at least 1 each; every operator of the graph is a
/// candidate, those with one row or no tiles keep one copy).
/// Deterministic: ties go to the lower index.
/// Copies of each candidate (1: none) under `rule` (not Auto).
std::vector<int64_t> planReplication(llvm::ArrayRef<ReplicationCandidate> candidates,
                                     const ReplicationTarget &target, ReplicationRule rule);

/// Rows [begin, end) of copy `index` of `copies` over `rows` rows: balanced,
/// in order.
std::pair<int64_t, int64_t> rowsOfCopy(int64_t rows, int64_t copies, int64_t index);

} // namespace raptor::spatial

RAPTOR_CHOICE_PARSER(raptor::spatial::ReplicationRule)

#endif // RAPTOR_PASSES_SPATIAL_REPLICATION_H
