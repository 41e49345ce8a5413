//===- EventGraph.h - The periodic event graph of looping cores -*- C++ -*-===//
//
// The periodic dependency diagnostic of shared seed 002, target-neutral:
// every core runs a chain of work between transfers as a loop body, so
// iteration k of a core starts only after its iteration k - 1 ended, and a
// transfer happens only when both of its sides reached it. The event graph
// of those constraints (edges t(v, k) >= t(u, k - d) + w) has a maximum
// cycle ratio: the interval the recurrence allows, with the critical cycle
// as its witness. The estimate is the largest of that, the busiest core's
// work and global memory's serialized service.
//
// Two front ends feed PeriodicGraphBuilder: the emitted programs
// (passes/pim/PeriodicAnalysis, `raptor periodic DIR`) and a schedule's
// queue-model action lists (raptor-schedule-spatial periodic=FILE,
// `raptor schedule --periodic`).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_EVENTGRAPH_H
#define RAPTOR_PASSES_SPATIAL_EVENTGRAPH_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace raptor::spatial {

struct PeriodicEdge {
  int64_t from, to, weightNs, distance;
  std::string what; // "core 3: 120 instructions" or "core 3: the next iteration"
};

struct PeriodicReport {
  /// ok, deadlock (a zero-distance cycle: the cores block each other
  /// within one iteration), acyclic (no core loops) or unavailable.
  std::string status;
  std::string reason; // why unavailable
  std::vector<std::string> nodes;
  std::vector<PeriodicEdge> edges;
  /// ok: the maximum cycle ratio, exact (ratioNum / ratioDen ns).
  int64_t ratioNum = 0, ratioDen = 1;
  /// The witness: a critical cycle (ok) or a zero-distance one (deadlock),
  /// as edge indices in order, with its totals and the cores it crosses.
  std::vector<int64_t> cycle;
  int64_t cycleWeightNs = 0, cycleDistance = 0;
  std::vector<int64_t> cycleCores;
  /// The other two terms of the estimate.
  double busiestCoreWorkNs = 0;
  int64_t busiestCore = -1;
  double globalServiceNs = 0;
  /// max(recurrence, busiest core, global service) and which of them.
  double intervalNs = 0;
  std::string bound;
};

/// The report as JSON (the witness: at most 128 edges listed; the totals
/// cover all of it): the keys `raptor periodic --json` prints.
llvm::json::Object periodicJson(const PeriodicReport &report);

class PeriodicGraphBuilder {
public:
  /// `unit` names what a chain's segments count ("instructions", "actions").
  explicit PeriodicGraphBuilder(std::string unit) : unit(std::move(unit)) {}

  void beginCore(int64_t core);
  /// Work of the current segment (`count` items of it).
  void work(double ns, int64_t count = 1);
  /// Global memory service the core requests (serialized over all cores).
  void global(double ns) { globalNs += ns; }
  /// The core reaches its next transfer to (sending) or from `peer`; both
  /// sides share one event, named by `label(k)` for the k-th transfer
  /// between the two; `afterNs` is the core's time after the rendezvous.
  void transfer(bool sending, int64_t peer, const std::function<std::string(int64_t k)> &label, double afterNs);
  /// The core signals one token to event register `event` of `peer`,
  /// delivered `deliveryNs` later, and goes on.
  void signal(int64_t peer, int64_t event, double deliveryNs);
  /// The core waits until its register `event` holds `count` tokens. The
  /// graph expresses one wait per register and iteration taking every
  /// token the iteration's signals send it, each signal of iteration k
  /// before the wait of iteration k (tokens never run an iteration ahead,
  /// as in Crossing::Global's hand-over); anything else is unavailable.
  void wait(int64_t event, int64_t count);
  void endCore();
  /// The graph cannot express what the cores do (the reason is reported).
  void unavailable(std::string reason);
  /// Checks that the transfers pair up, solves the cycle ratio and fills
  /// the estimate.
  PeriodicReport finish();

private:
  int64_t node(std::string what);
  void edge(int64_t from, int64_t to, double weight, int64_t distance, std::string what);

  std::string unit;
  PeriodicReport report;
  bool failed = false;
  int64_t core = -1, entry = -1, previous = -1, items = 0;
  double chunk = 0, coreWork = 0, globalNs = 0;
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> rendezvous; // (from, to, k) -> node
  struct Count {
    int64_t sends = 0, recvs = 0;
  };
  std::map<std::pair<int64_t, int64_t>, Count> sides;
  /// Per (core, register): the signals (node, signalling core, delivery
  /// time) and the waits (node, count).
  struct Register {
    std::vector<std::tuple<int64_t, int64_t, double>> signals;
    std::vector<std::pair<int64_t, int64_t>> waits;
  };
  std::map<std::pair<int64_t, int64_t>, Register> registers;
  /// Ends the current segment at a new node of the core's chain.
  int64_t step(std::string what);
};

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_EVENTGRAPH_H
