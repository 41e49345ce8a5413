//===- PeriodicAnalysis.cpp - The steady state of looping programs -*- C++ -*-===//
//
// Each core's program becomes a chain of events: its entry, one event per
// transfer it takes part in, its exit. The local work between two events is
// the chain edge's weight (instructions priced alone, TimingConfig); a
// transfer is one event shared by its sender's and its receiver's chains
// (the rendezvous), after which the receiver pays the transfer and the
// sender its read; the exit leads to the entry one iteration later.
//
//===----------------------------------------------------------------------===//
#include "passes/pim/PeriodicAnalysis.h"

#include "dialects/pim/ProgramCursor.h"
#include "passes/spatial/CycleRatio.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace raptor::pim {

namespace {

/// Integer nanoseconds for the exact solver (rounded up: the estimate errs
/// towards the slower side).
int64_t ns(double value) { return int64_t(std::ceil(value - 1e-9)); }

class Builder {
public:
  Builder(const Program &program, const TimingConfig &config) : program(program), t(config) {}

  PeriodicReport build() {
    PeriodicReport report;
    for (const CoreProgram &p : program.programs)
      if (!p.code.empty() && !chain(p, report))
        return report;
    for (const auto &[key, pending] : sides)
      if (pending.sends != pending.recvs) {
        report.status = "unavailable";
        report.reason = llvm::formatv("core {0} sends {1} transfers to core {2}, which receives {3}",
                                      std::get<0>(key), pending.sends, std::get<1>(key), pending.recvs);
        return report;
      }
    report.nodes = std::move(nodes);
    report.edges = std::move(edges);
    return report;
  }

private:
  const Program &program;
  const TimingConfig &t;
  std::vector<std::string> nodes;
  std::vector<PeriodicEdge> edges;
  /// The k-th transfer from core a to core b: one event for both sides.
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> rendezvous;
  struct Count {
    int64_t sends = 0, recvs = 0;
  };
  std::map<std::pair<int64_t, int64_t>, Count> sides;

  int64_t node(std::string what) {
    nodes.push_back(std::move(what));
    return int64_t(nodes.size()) - 1;
  }

  void edge(int64_t from, int64_t to, double weight, int64_t distance, std::string what) {
    edges.push_back({from, to, ns(weight), distance, std::move(what)});
  }

  /// Core p's chain; false (and `report` unavailable) on what the graph
  /// cannot express.
  bool chain(const CoreProgram &p, PeriodicReport &report) {
    int64_t c = p.id;
    int64_t entry = node(llvm::formatv("core {0}: start of an iteration", c));
    int64_t previous = entry;
    double work = 0, chunk = 0, global = 0;
    int64_t instructions = 0;
    int32_t ibiw = 32, obiw = 32;
    for (ProgramCursor cursor(p); !cursor.done(); cursor.advance()) {
      const Instruction &in = cursor.current();
      chunk += double(cursor.takeImplicitScalars()) * t.periodNs;
      ++instructions;
      if (in.opcode == Opcode::Setbw)
        ibiw = in.ibiw, obiw = in.obiw;
      if (in.opcode == Opcode::Sync || in.opcode == Opcode::Wait) {
        report.status = "unavailable";
        report.reason = llvm::formatv("core {0} uses event registers (record {1}), which the diagnostic does not "
                                      "model",
                                      c, cursor.record());
        return false;
      }
      if (in.opcode != Opcode::Send && in.opcode != Opcode::Recv) {
        AccessContext context{program.xbarRows, program.xbarCols, program.cellBits, 0, ibiw, obiw};
        if (in.opcode == Opcode::Mvmul && in.group >= 0 && size_t(in.group) < p.groups.size())
          context.groupCrossbars = p.groups[size_t(in.group)].crossbars;
        chunk += t.instructionNs(in, context, c);
        if (in.opcode == Opcode::Ld || in.opcode == Opcode::St)
          global += t.globalNs(in.size, in.opcode == Opcode::St);
        continue;
      }
      bool sending = in.opcode == Opcode::Send;
      int64_t from = sending ? c : in.core, to = sending ? in.core : c;
      Count &count = sides[{from, to}];
      int64_t k = sending ? count.sends++ : count.recvs++;
      auto [it, fresh] = rendezvous.try_emplace({from, to, k}, 0);
      if (fresh)
        it->second = node(llvm::formatv("transfer {0} of core {1} to core {2} (tag {3}, {4} bytes)", k, from, to,
                                        in.tag, in.size));
      edge(previous, it->second, chunk, 0, llvm::formatv("core {0}: {1} instructions", c, instructions));
      work += chunk;
      // After the rendezvous the sender reads its data, the receiver waits
      // for the payload and writes it.
      chunk = sending ? t.serialNs(t.localNs(in.size, false)) : t.transferPairNs(in.size, from, to);
      instructions = 0;
      previous = it->second;
    }
    int64_t exit = node(llvm::formatv("core {0}: end of an iteration", c));
    edge(previous, exit, chunk, 0, llvm::formatv("core {0}: {1} instructions", c, instructions));
    work += chunk;
    edge(exit, entry, 0, 1, llvm::formatv("core {0}: the next iteration", c));
    if (work > report.busiestCoreWorkNs) {
      report.busiestCoreWorkNs = work;
      report.busiestCore = c;
    }
    report.globalServiceNs += global;
    return true;
  }
};

} // namespace

PeriodicReport analyzePeriodic(const Program &program, const TimingConfig &config) {
  PeriodicReport report = Builder(program, config).build();
  if (report.status == "unavailable")
    return report;
  std::vector<spatial::RatioEdge> graph;
  for (const PeriodicEdge &e : report.edges)
    graph.push_back({e.from, e.to, e.weightNs, e.distance});
  if (std::string error = spatial::validateRatioGraph(int64_t(report.nodes.size()), graph); !error.empty()) {
    report.status = "unavailable";
    report.reason = "the event graph is outside the solver's range: " + error;
    return report;
  }
  spatial::CycleRatioResult ratio = spatial::maxCycleRatio(int64_t(report.nodes.size()), graph);
  report.status = spatial::toString(ratio.status);
  report.cycle = ratio.cycle;
  report.cycleWeightNs = ratio.weight;
  report.cycleDistance = ratio.distance;
  std::set<int64_t> cores;
  for (int64_t e : ratio.cycle) {
    const std::string &what = report.edges[size_t(e)].what;
    cores.insert(std::stoll(what.substr(5))); // "core N: ..."
  }
  report.cycleCores.assign(cores.begin(), cores.end());
  if (ratio.status != spatial::CycleRatioStatus::Ok)
    return report;
  report.ratioNum = ratio.num;
  report.ratioDen = ratio.den;
  double recurrence = double(ratio.num) / double(ratio.den);
  report.intervalNs = recurrence;
  report.bound = "recurrence";
  if (report.busiestCoreWorkNs > report.intervalNs) {
    report.intervalNs = report.busiestCoreWorkNs;
    report.bound = "core work";
  }
  if (report.globalServiceNs > report.intervalNs) {
    report.intervalNs = report.globalServiceNs;
    report.bound = "global memory";
  }
  return report;
}

} // namespace raptor::pim
