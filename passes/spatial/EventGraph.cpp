//===- EventGraph.cpp - The periodic event graph of looping cores -*- C++ -*-===//
#include "passes/spatial/EventGraph.h"

#include "passes/spatial/CycleRatio.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>

namespace raptor::spatial {

namespace {
/// Integer nanoseconds for the exact solver (rounded up: the estimate errs
/// towards the slower side).
int64_t ns(double value) { return int64_t(std::ceil(value - 1e-9)); }
} // namespace

int64_t PeriodicGraphBuilder::node(std::string what) {
  report.nodes.push_back(std::move(what));
  return int64_t(report.nodes.size()) - 1;
}

void PeriodicGraphBuilder::edge(int64_t from, int64_t to, double weight, int64_t distance, std::string what) {
  report.edges.push_back({from, to, ns(weight), distance, std::move(what)});
}

void PeriodicGraphBuilder::beginCore(int64_t c) {
  core = c;
  entry = previous = node(llvm::formatv("core {0}: start of an iteration", c));
  chunk = coreWork = 0;
  items = 0;
}

void PeriodicGraphBuilder::work(double workNs, int64_t count) {
  chunk += workNs;
  items += count;
}

void PeriodicGraphBuilder::transfer(bool sending, int64_t peer, const std::function<std::string(int64_t)> &label,
                                    double afterNs) {
  int64_t from = sending ? core : peer, to = sending ? peer : core;
  Count &count = sides[{from, to}];
  int64_t k = sending ? count.sends++ : count.recvs++;
  auto [it, fresh] = rendezvous.try_emplace({from, to, k}, 0);
  if (fresh)
    it->second = node(label(k));
  edge(previous, it->second, chunk, 0, llvm::formatv("core {0}: {1} {2}", core, items, unit));
  coreWork += chunk;
  chunk = afterNs;
  items = 0;
  previous = it->second;
}

int64_t PeriodicGraphBuilder::step(std::string what) {
  int64_t next = node(std::move(what));
  edge(previous, next, chunk, 0, llvm::formatv("core {0}: {1} {2}", core, items, unit));
  coreWork += chunk;
  chunk = 0;
  items = 0;
  previous = next;
  return next;
}

void PeriodicGraphBuilder::signal(int64_t peer, int64_t event, double deliveryNs) {
  int64_t at = step(llvm::formatv("core {0}: a token to event register {1} of core {2}", core, event, peer));
  registers[{peer, event}].signals.push_back({at, core, deliveryNs});
}

void PeriodicGraphBuilder::wait(int64_t event, int64_t count) {
  int64_t at = step(llvm::formatv("core {0}: waits for {1} tokens of event register {2}", core, count, event));
  registers[{core, event}].waits.push_back({at, count});
}

void PeriodicGraphBuilder::endCore() {
  int64_t exit = node(llvm::formatv("core {0}: end of an iteration", core));
  edge(previous, exit, chunk, 0, llvm::formatv("core {0}: {1} {2}", core, items, unit));
  coreWork += chunk;
  edge(exit, entry, 0, 1, llvm::formatv("core {0}: the next iteration", core));
  if (coreWork > report.busiestCoreWorkNs) {
    report.busiestCoreWorkNs = coreWork;
    report.busiestCore = core;
  }
}

void PeriodicGraphBuilder::unavailable(std::string reason) {
  if (failed)
    return;
  failed = true;
  report.status = "unavailable";
  report.reason = std::move(reason);
}

PeriodicReport PeriodicGraphBuilder::finish() {
  report.globalServiceNs = globalNs;
  if (failed)
    return std::move(report);
  for (const auto &[key, pending] : sides)
    if (pending.sends != pending.recvs) {
      unavailable(llvm::formatv("core {0} sends {1} transfers to core {2}, which receives {3}", key.first,
                                pending.sends, key.second, pending.recvs));
      return std::move(report);
    }
  for (const auto &[key, r] : registers) {
    auto [c, event] = key;
    if (r.waits.size() != 1 || r.waits.front().second != int64_t(r.signals.size())) {
      unavailable(llvm::formatv("core {0} waits {1} times for event register {2}, which {3} signals per iteration "
                                "fill (the graph expresses one wait for all of them)",
                                c, r.waits.size(), event, r.signals.size()));
      return std::move(report);
    }
    for (auto [from, sender, deliveryNs] : r.signals)
      edge(from, r.waits.front().first, deliveryNs, 0,
           llvm::formatv("core {0}: a token to event register {1} of core {2}", sender, event, c));
  }
  std::vector<RatioEdge> graph;
  for (const PeriodicEdge &e : report.edges)
    graph.push_back({e.from, e.to, e.weightNs, e.distance});
  if (std::string error = validateRatioGraph(int64_t(report.nodes.size()), graph); !error.empty()) {
    unavailable("the event graph is outside the solver's range: " + error);
    return std::move(report);
  }
  CycleRatioResult ratio = maxCycleRatio(int64_t(report.nodes.size()), graph);
  report.status = toString(ratio.status);
  report.cycle = ratio.cycle;
  report.cycleWeightNs = ratio.weight;
  report.cycleDistance = ratio.distance;
  std::set<int64_t> cores;
  for (int64_t e : ratio.cycle) {
    const std::string &what = report.edges[size_t(e)].what;
    cores.insert(std::stoll(what.substr(5))); // "core N: ..."
  }
  report.cycleCores.assign(cores.begin(), cores.end());
  if (ratio.status != CycleRatioStatus::Ok)
    return std::move(report);
  report.ratioNum = ratio.num;
  report.ratioDen = ratio.den;
  report.intervalNs = double(ratio.num) / double(ratio.den);
  report.bound = "recurrence";
  if (report.busiestCoreWorkNs > report.intervalNs) {
    report.intervalNs = report.busiestCoreWorkNs;
    report.bound = "core work";
  }
  if (report.globalServiceNs > report.intervalNs) {
    report.intervalNs = report.globalServiceNs;
    report.bound = "global memory";
  }
  return std::move(report);
}

llvm::json::Object periodicJson(const PeriodicReport &r) {
  llvm::json::Array cycle;
  for (size_t i = 0; i < r.cycle.size() && i < 128; ++i) {
    const PeriodicEdge &e = r.edges[size_t(r.cycle[i])];
    cycle.push_back(llvm::json::Object{{"from", r.nodes[size_t(e.from)]},
                                       {"to", r.nodes[size_t(e.to)]},
                                       {"weight_ns", e.weightNs},
                                       {"distance", e.distance},
                                       {"what", e.what}});
  }
  return llvm::json::Object{{"status", r.status},
                            {"reason", r.reason},
                            {"ratio_num", r.ratioNum},
                            {"ratio_den", r.ratioDen},
                            {"interval_ns", r.intervalNs},
                            {"bound", r.bound},
                            {"busiest_core", r.busiestCore},
                            {"busiest_core_work_ns", r.busiestCoreWorkNs},
                            {"global_service_ns", r.globalServiceNs},
                            {"nodes", int64_t(r.nodes.size())},
                            {"edges", int64_t(r.edges.size())},
                            {"cycle_weight_ns", r.cycleWeightNs},
                            {"cycle_distance", r.cycleDistance},
                            {"cycle_cores", llvm::json::Array(r.cycleCores)},
                            {"cycle_edges", int64_t(r.cycle.size())},
                            {"cycle", std::move(cycle)}};
}

} // namespace raptor::spatial
