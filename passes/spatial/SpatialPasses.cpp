//===- SpatialPasses.cpp - Compute graphs and their schedules ---*- C++ -*-===//
//
// raptor-build-compute-graph: nn ops -> spatial.task lanes for a target.
// raptor-schedule-spatial: PEFT (or HEFT) under crossbar capacity; writes
// core, start_ns, slot and last on every task.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "dialects/spatial/SpatialDialect.h"
#include "passes/Passes.h"
#include "passes/spatial/CostModel.h"
#include "passes/spatial/ListScheduler.h"
#include "passes/spatial/PipelineScheduler.h"
#include "passes/spatial/QueueModel.h"
#include "passes/spatial/Replication.h"
#include "passes/spatial/TargetModel.h"
#include "passes/spatial/WeightTiling.h"
#include "passes/nn/CompileTime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace raptor {
#define GEN_PASS_DEF_BUILDCOMPUTEGRAPH
#define GEN_PASS_DEF_SCHEDULESPATIAL
#include "passes/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace sp = raptor::spatial;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// An operator of the function as lanes, before its tasks exist.
struct PlannedOp {
  Operation *op;
  int64_t position;
  sp::Lanes lanes;
};

/// Copies of each operator: MVM operators whose output rows can be split
/// are candidates, priced by their slowest lane and by moving the input
/// rows a copy reads to its core.
std::vector<int64_t> planCopies(ArrayRef<PlannedOp> ops, const sp::TargetModel &t, int64_t spare,
                                sp::ReplicationRule rule) {
  std::vector<sp::ReplicationCandidate> candidates;
  for (const PlannedOp &p : ops) {
    sp::ReplicationCandidate c;
    c.laneTiles = p.lanes.tiles;
    if (!p.lanes.matrix.empty() && p.lanes.rows > 1) {
      c.windows = p.lanes.windows;
      c.rows = p.lanes.rows;
      c.ns = *std::max_element(p.lanes.ns.begin(), p.lanes.ns.end());
      c.inputRows = p.lanes.inputRows;
      c.inputRowBytes = p.lanes.inputRowBytes;
      c.stride = p.lanes.stride;
      c.halo = p.lanes.halo;
    }
    candidates.push_back(c);
  }
  sp::ReplicationTarget where{int64_t(t.cores), int64_t(t.crossbarsPerCore), spare,
                              [&](int64_t bytes) { return t.meanTransferNs(bytes); }};
  return sp::planReplication(candidates, where, rule);
}

struct BuildComputeGraphPass : raptor::impl::BuildComputeGraphBase<BuildComputeGraphPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string message;
    FailureOr<sp::TargetModel> target =
        sp::TargetModel::load(targetPath, [&](const Twine &m) { message = m.str(); });
    if (targetPath.empty() || failed(target)) {
      module.emitError() << (targetPath.empty() ? "raptor-build-compute-graph needs target=FILE.json"
                                                : message);
      return signalPassFailure();
    }
    const sp::TargetModel &t = *target;
    std::optional<sp::ReplicationRule> rule = sp::parseReplicationRule(replicate);
    if (!rule) {
      module.emitError() << "unknown replication rule '" << replicate << "' (expected none, time or windows)";
      return signalPassFailure();
    }
    if (!(replicationBudget >= 0 && replicationBudget <= 1)) {
      module.emitError() << "replication-budget must be a fraction from 0 to 1, not " << replicationBudget;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitError("compute graphs need a single-block function");
        return signalPassFailure();
      }
      OpBuilder builder(module.getBodyRegion());
      builder.setInsertionPointToEnd(module.getBody());
      auto graph = sp::GraphOp::create(builder, func.getLoc(),
                                       builder.getStringAttr(func.getSymName().str() + "_tasks"),
                                       builder.getStringAttr(targetPath),
                                       builder.getI64IntegerAttr(t.cores),
                                       builder.getI64IntegerAttr(t.crossbarsPerCore),
                                       FlatSymbolRefAttr::get(func.getSymNameAttr()));
      graph.getBody().emplaceBlock();
      builder.setInsertionPointToStart(&graph.getBody().front());
      // Operators as lanes first: replication is planned over all of them.
      std::vector<PlannedOp> planned;
      raptor::nn::CompileTimeValues known(func.front());
      int64_t position = -1, totalTiles = 0;
      for (Operation &op : func.front()) {
        ++position;
        if (op.hasTrait<OpTrait::IsTerminator>())
          continue;
        // Weights, constants and what the compiler computes from them alone
        // (folded batch norms, constant embeddings) are data, not work.
        if (op.getNumResults() && llvm::all_of(op.getResults(), [&](Value r) { return known.contains(r); }))
          continue;
        if (!isa<raptor::nn::NNDialect>(op.getDialect())) {
          op.emitError("compute graphs take nn ops only; this op is not one");
          return signalPassFailure();
        }
        FailureOr<sp::Lanes> lanes = sp::lanesOf(&op, t);
        if (failed(lanes))
          return signalPassFailure();
        for (int64_t tiles : lanes->tiles)
          totalTiles += tiles;
        planned.push_back({&op, position, std::move(*lanes)});
      }
      int64_t chip = int64_t(t.cores) * t.crossbarsPerCore;
      if (totalTiles > chip) {
        func.emitError() << "the model needs " << totalTiles << " crossbars but the chip has "
                         << chip << " (" << t.cores << " cores x " << t.crossbarsPerCore << ")";
        return signalPassFailure();
      }
      int64_t spare = std::max<int64_t>(0, int64_t(std::floor(replicationBudget * double(chip))) - totalTiles);
      std::vector<int64_t> copies = planCopies(planned, t, spare, *rule);

      llvm::DenseMap<Value, std::pair<SmallVector<Value>, int64_t>> producers; // tasks, bytes per task
      for (auto [index, p] : llvm::enumerate(planned)) {
        Operation &op = *p.op;
        const sp::Lanes &lanes = p.lanes;
        SmallVector<Value> deps;
        SmallVector<int64_t> bytes;
        for (Value operand : op.getOperands()) {
          auto it = producers.find(operand);
          if (it == producers.end())
            continue; // a graph input or weight, resident before the run
          for (Value lane : it->second.first) {
            deps.push_back(lane);
            bytes.push_back(it->second.second);
          }
        }
        std::string base = op.getName().stripDialect().str();
        if (auto name = dyn_cast<NameLoc>(op.getLoc()))
          base = name.getName().str();
        SmallVector<Value> results;
        int64_t n = copies[index];
        for (unsigned l = 0; l < lanes.count; ++l)
          for (int64_t k = 0; k < n; ++k) {
            int64_t tiles = lanes.tiles[l];
            std::string suffix = "#" + std::to_string(l) + (k ? "@" + std::to_string(k) : "");
            std::string weight = tiles ? (lanes.weight.empty() ? base : lanes.weight) + suffix : "";
            DenseI64ArrayAttr rowTiles, colTiles, rows;
            if (!lanes.matrix.empty()) {
              const sp::MatrixTiling::Lane &m = lanes.matrix[l];
              rowTiles = builder.getDenseI64ArrayAttr({m.rowBegin, m.rowEnd});
              colTiles = builder.getDenseI64ArrayAttr({m.colBegin, m.colEnd});
            }
            double ns = lanes.ns[l];
            SmallVector<int64_t> reads(bytes);
            if (n > 1) {
              auto [begin, end] = sp::rowsOfCopy(lanes.rows, n, k);
              rows = builder.getDenseI64ArrayAttr({begin, end});
              ns *= double(end - begin) / double(lanes.rows);
              // A copy receives only the input rows its windows read.
              int64_t needed = std::min(lanes.inputRows, (end - begin) * lanes.stride + lanes.halo);
              for (int64_t &b : reads)
                b = std::max<int64_t>(1, ceilDiv(b * needed, std::max<int64_t>(lanes.inputRows, 1)));
            }
            auto task = sp::TaskOp::create(
                builder, op.getLoc(), sp::TaskType::get(&getContext()), builder.getStringAttr(base + suffix), deps,
                builder.getDenseI64ArrayAttr(reads), builder.getI64IntegerAttr(int64_t(std::ceil(ns - 1e-9))),
                builder.getI64IntegerAttr(tiles), weight.empty() ? StringAttr() : builder.getStringAttr(weight),
                builder.getStringAttr(op.getName().getStringRef()), builder.getI64IntegerAttr(p.position),
                builder.getI64IntegerAttr(l), rowTiles, colTiles, rows, builder.getI64IntegerAttr(k), IntegerAttr(),
                IntegerAttr(), IntegerAttr(), BoolAttr());
            results.push_back(task.getDone());
          }
        int64_t tasks = int64_t(results.size());
        for (Value r : op.getResults())
          if (isa<RankedTensorType>(r.getType()))
            producers[r] = {results, std::max<int64_t>(1, ceilDiv(sp::tensorBytes(r), tasks))};
      }
    }
  }
};

int64_t rounded(double ns) { return int64_t(std::llround(ns)); }

/// What scheduling needs of a compute graph's tasks: their costs, crossbars,
/// dependencies with bytes, and the global-memory traffic of the model's
/// inputs and outputs they carry.
struct GraphTasks {
  SmallVector<sp::TaskOp> tasks;
  sp::TaskGraph graph;
  std::vector<int64_t> edgeBytes;
  std::vector<unsigned> group; // dense operator index per task, in order
  std::vector<int64_t> loadBytes, storeBytes;
  std::vector<bool> readsRows; // copies of replicated operators

  GraphTasks(sp::GraphOp g, const sp::TargetModel &t) {
    tasks.assign(g.getBody().getOps<sp::TaskOp>().begin(), g.getBody().getOps<sp::TaskOp>().end());
    llvm::DenseMap<Value, unsigned> index;
    graph.numTasks = tasks.size();
    graph.numProcessors = t.cores;
    graph.capacity = t.crossbarsPerCore;
    graph.serialReceives = true; // one transfer unit per core
    func::FuncOp func;
    if (g.getFunctionAttr())
      func = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(g, g.getFunctionAttr());
    SmallVector<Operation *> ops;
    if (func && !func.isExternal())
      for (Operation &op : func.front())
        ops.push_back(&op);
    llvm::DenseMap<int64_t, unsigned> lanesOfSource, dense;
    for (sp::TaskOp task : tasks)
      if (task.getSource())
        ++lanesOfSource[int64_t(*task.getSource())];
    for (auto [i, task] : llvm::enumerate(tasks)) {
      index[task.getDone()] = i;
      graph.tiles.push_back(int64_t(task.getTiles()));
      for (unsigned p = 0; p < graph.numProcessors; ++p)
        graph.cost.push_back(double(task.getCostNs()));
      for (auto [dep, b] : llvm::zip(task.getDeps(), task.getBytes())) {
        graph.edges.push_back({index[dep], unsigned(i), t.meanTransferNs(b)});
        edgeBytes.push_back(b);
      }
      int64_t source = task.getSource() ? int64_t(*task.getSource()) : -1;
      group.push_back(dense.try_emplace(source, dense.size()).first->second);
      int64_t load = 0, store = 0;
      if (source >= 0 && source < int64_t(ops.size())) {
        Operation *op = ops[size_t(source)];
        int64_t lanes = std::max<unsigned>(1, lanesOfSource[source]);
        for (Value operand : op->getOperands())
          if (auto arg = dyn_cast<BlockArgument>(operand); arg && arg.getOwner() == &func.front())
            load += ceilDiv(sp::tensorBytes(arg), lanes);
        for (Value r : op->getResults())
          if (llvm::any_of(r.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); }))
            store += ceilDiv(sp::tensorBytes(r), lanes);
      }
      loadBytes.push_back(load);
      storeBytes.push_back(store);
      readsRows.push_back(bool(task.getRows()));
    }
  }

  /// A lowering order for a placement: each task as early as its core
  /// (running its tasks in graph order) and its inputs allow, then all
  /// tasks by that start. Interleaving the cores this way lets a producer
  /// feed every consumer core before any of them computes (in graph order
  /// a core holding two copies would make the producer wait for the
  /// first copy's work before sending the second's rows). Returns the
  /// order and the starts.
  std::pair<std::vector<unsigned>, std::vector<double>> loweringOrder(const sp::TargetModel &t,
                                                                      const std::vector<unsigned> &core) const {
    std::vector<double> start(graph.numTasks, 0), finish(graph.numTasks, 0);
    std::map<unsigned, double> free;
    std::vector<std::vector<unsigned>> inputs(graph.numTasks);
    for (unsigned e = 0; e < graph.edges.size(); ++e)
      inputs[graph.edges[e].to].push_back(e);
    for (unsigned i = 0; i < graph.numTasks; ++i) { // graph order is topological
      double ready = free[core[i]];
      for (unsigned e : inputs[i]) {
        unsigned from = graph.edges[e].from;
        ready = std::max(ready, finish[from] + double(t.transferNs(edgeBytes[e], core[from], core[i])));
      }
      start[i] = ready;
      finish[i] = free[core[i]] = ready + graph.execution(i, 0);
    }
    std::vector<unsigned> order(graph.numTasks);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned x, unsigned y) { return rounded(start[x]) < rounded(start[y]); });
    return {order, start};
  }

  /// The queue model's view of a placement in a lowering order.
  sp::PlacedGraph placed(const sp::TargetModel &t, std::vector<unsigned> core, std::vector<unsigned> order) const {
    sp::PlacedGraph p;
    p.cores = t.cores;
    p.core = std::move(core);
    p.order = std::move(order);
    for (unsigned i = 0; i < graph.numTasks; ++i)
      p.work.push_back(graph.execution(i, 0));
    for (auto [e, bytes] : llvm::zip(graph.edges, edgeBytes))
      p.edges.push_back({e.from, e.to, bytes});
    p.loadBytes = loadBytes;
    p.storeBytes = storeBytes;
    p.readsRows = readsRows;
    const raptor::pim::TimingConfig &timing = t.timing;
    p.transfer = [&timing](int64_t bytes, unsigned from, unsigned to) {
      // TimingConfig::transferPairNs's phases; each instruction's issue
      // and retirement on its side.
      double issue = timing.serialNs(0);
      return sp::TransferParts{timing.messageNs(1, to, from), timing.localNs(bytes, false) + issue,
                               timing.messageNs(bytes, from, to),
                               double(timing.receiveCycles) * timing.periodNs + timing.localNs(bytes, true) + issue};
    };
    p.globalServiceNs = [&timing](int64_t bytes, bool write) { return timing.globalNs(bytes, write); };
    p.globalOverheadNs = [&timing](int64_t bytes, bool write) {
      int64_t global = timing.globalNode();
      return timing.serialNs(timing.messageNs(write ? bytes : 1, 0, global) + timing.messageNs(0, global, 0) +
                             timing.localNs(bytes, !write));
    };
    return p;
  }
};

/// Both tie orders' intervals and the first inference's latency.
sp::QueueCost queueCost(const sp::QueueProgram &program) {
  sp::QueueCost c;
  sp::QueueRun latency = sp::runQueueModel(program, {false, false, 64});
  sp::QueueRun first = sp::runQueueModel(program, {true, false, 64});
  sp::QueueRun second = sp::runQueueModel(program, {true, true, 64});
  for (const sp::QueueRun *r : {&latency, &first, &second})
    if (r->status != "ok") {
      c.reason = r->status + ": " + r->reason;
      return c;
    }
  c.available = true;
  c.latencyNs = latency.latencyNs;
  c.intervalNs = first.intervalNs;
  c.alternativeTieIntervalNs = second.intervalNs;
  for (unsigned core = 0; core < first.coreBusyNs.size(); ++core)
    if (first.coreBusyNs[core] > c.busiestNs) {
      c.busiestNs = first.coreBusyNs[core];
      c.busiestCore = core;
    }
  return c;
}

llvm::json::Array vectorJson(const std::vector<unsigned> &v) {
  llvm::json::Array a;
  for (unsigned x : v)
    a.push_back(int64_t(x));
  return a;
}

/// reports/pipeline_selection.json: every evaluated candidate with its
/// stage vectors, costs and search parent, the selection and the budgets.
llvm::json::Object selectionReport(const sp::PipelineProblem &problem, const sp::PipelineResult &r) {
  llvm::json::Array candidates;
  for (auto [i, c] : llvm::enumerate(r.candidates)) {
    llvm::json::Object o{{"index", int64_t(i)},
                         {"parent", c.parent},
                         {"move", c.move},
                         {"stage_starts", vectorJson(c.starts)},
                         {"stage_cores", vectorJson(c.budgets)},
                         {"bound_ns", c.bound},
                         {"available", c.cost.available}};
    if (c.cost.available) {
      o["interval_ns"] = c.cost.intervalNs;
      o["alternative_tie_interval_ns"] = c.cost.alternativeTieIntervalNs;
      o["latency_ns"] = c.cost.latencyNs;
      o["busiest_core"] = int64_t(c.cost.busiestCore);
      o["busiest_core_work_ns"] = c.cost.busiestNs;
    } else {
      o["reason"] = c.cost.reason;
    }
    candidates.push_back(std::move(o));
  }
  return llvm::json::Object{
      {"depth", int64_t(problem.depth)},
      {"cores", int64_t(problem.cores)},
      {"groups", int64_t(problem.group.empty() ? 0 : problem.group.back() + 1)},
      {"tasks", int64_t(problem.group.size())},
      {"selected", int64_t(r.selected)},
      {"selection_rule", "the best candidate replaces the initial one only if max(ties)/0.979 < "
                         "min(initial ties)/1.021"},
      {"initial_fallback", r.fallback},
      {"termination", r.termination},
      {"queue_evaluations", int64_t(r.evaluations)},
      {"queue_budget", int64_t(problem.maxEvaluations)},
      {"packings", int64_t(r.packings)},
      {"packing_budget", int64_t(problem.maxPackings)},
      {"phase_seconds", llvm::json::Object{{"initial_dp", r.dpSeconds},
                                           {"neighbourhood_ranking", r.rankingSeconds},
                                           {"packing", r.packingSeconds},
                                           {"queue", r.queueSeconds}}},
      {"candidates", std::move(candidates)}};
}

struct ScheduleSpatialPass : raptor::impl::ScheduleSpatialBase<ScheduleSpatialPass> {
  using Base::Base;

  /// Writes core, slot, last and start_ns; `order` is the lowering order,
  /// `start` the first inference's start of each task.
  void place(MutableArrayRef<sp::TaskOp> tasks, const std::vector<unsigned> &core, const std::vector<double> &start) {
    std::map<unsigned, std::vector<unsigned>> perCore;
    for (unsigned i = 0; i < tasks.size(); ++i)
      perCore[core[i]].push_back(i);
    Builder b(&getContext());
    for (auto &[c, list] : perCore) {
      std::stable_sort(list.begin(), list.end(),
                       [&](unsigned x, unsigned y) { return rounded(start[x]) < rounded(start[y]); });
      for (auto [slot, i] : llvm::enumerate(list)) {
        tasks[i].setCoreAttr(b.getI64IntegerAttr(c));
        tasks[i].setStartNsAttr(b.getI64IntegerAttr(rounded(start[i])));
        tasks[i].setSlotAttr(b.getI64IntegerAttr(slot));
        tasks[i].setLastAttr(b.getBoolAttr(slot + 1 == list.size()));
      }
    }
  }

  /// The seed's evaluation figures (serial work, dependency critical path,
  /// summed transfer work) and the queue model's predictions.
  void summarize(sp::GraphOp graph, const GraphTasks &g, const std::vector<unsigned> &core,
                 const sp::QueueCost &cost) {
    Builder b(&getContext());
    double serial = 0, transfers = 0;
    std::vector<double> longest(g.tasks.size(), 0);
    for (unsigned i = 0; i < g.tasks.size(); ++i) {
      serial += g.graph.execution(i, 0);
      longest[i] += g.graph.execution(i, 0);
    }
    for (const sp::TaskGraph::Edge &e : g.graph.edges) {
      transfers += g.graph.transfer(e, core[e.from], core[e.to]);
      longest[e.to] = std::max(longest[e.to], longest[e.from] + g.graph.execution(e.to, 0));
    }
    double critical = g.tasks.empty() ? 0 : *std::max_element(longest.begin(), longest.end());
    std::set<unsigned> used(core.begin(), core.end());
    graph->setAttr("serial_work_ns", b.getI64IntegerAttr(rounded(serial)));
    graph->setAttr("critical_path_ns", b.getI64IntegerAttr(rounded(critical)));
    graph->setAttr("transfer_work_ns", b.getI64IntegerAttr(rounded(transfers)));
    graph->setAttr("cores_used", b.getI64IntegerAttr(int64_t(used.size())));
    if (cost.available) {
      graph->setAttr("predicted_latency_ns", b.getI64IntegerAttr(rounded(cost.latencyNs)));
      graph->setAttr("predicted_interval_ns", b.getI64IntegerAttr(rounded(cost.intervalNs)));
      graph->setAttr("alternative_tie_interval_ns", b.getI64IntegerAttr(rounded(cost.alternativeTieIntervalNs)));
    } else {
      graph->setAttr("prediction", b.getStringAttr("unavailable: " + cost.reason));
    }
  }

  LogicalResult latency(sp::GraphOp graph, const sp::TargetModel &t, GraphTasks &g) {
    g.graph.link = [&](const sp::TaskGraph::Edge &e, unsigned from, unsigned to) {
      size_t i = &e - g.graph.edges.data();
      return double(t.transferNs(g.edgeBytes[i], from, to));
    };
    sp::Schedule s = sp::scheduleWithCapacity(g.graph, algorithm == "peft");
    if (!s.feasible)
      return g.tasks[s.failedTask].emitError()
             << "no core can hold this task's " << g.graph.tiles[s.failedTask] << " crossbars next to the others (tried "
             << s.strategy << ")";
    place(g.tasks, s.processor, s.start);
    // The lowering's order: start times, then the graph's order.
    std::vector<unsigned> order(g.tasks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned x, unsigned y) { return rounded(s.start[x]) < rounded(s.start[y]); });
    summarize(graph, g, s.processor, queueCost(sp::programOf(g.placed(t, s.processor, order))));
    Builder b(&getContext());
    graph->setAttr("makespan_ns", b.getI64IntegerAttr(rounded(s.makespan)));
    graph->setAttr("strategy", b.getStringAttr(s.strategy));
    graph->setAttr("algorithm", b.getStringAttr(algorithm));
    graph->setAttr("mode", b.getStringAttr("latency"));
    return success();
  }

  LogicalResult pipeline(sp::GraphOp graph, const sp::TargetModel &t, GraphTasks &g) {
    sp::PipelineProblem problem;
    problem.cores = t.cores;
    problem.capacity = t.crossbarsPerCore;
    problem.depth = unsigned(depth);
    problem.group = g.group;
    problem.tiles = g.graph.tiles;
    for (const sp::TaskGraph::Edge &e : g.graph.edges)
      problem.edges.push_back({e.from, e.to, e.communication});
    for (unsigned i = 0; i < g.tasks.size(); ++i)
      problem.work.push_back(g.graph.execution(i, 0));
    // Each core's program runs its stage's lanes in graph (topological)
    // order, receiving before and sending after; the cores interleave in
    // the lowering by loweringOrder.
    problem.evaluate = [&](const std::vector<unsigned> &core) {
      return queueCost(sp::programOf(g.placed(t, core, g.loweringOrder(t, core).first)));
    };
    if (std::string invalid = problem.validate(); !invalid.empty())
      return graph.emitError() << "pipeline mode: " << invalid;
    sp::PipelineResult r = sp::schedulePipeline(problem);
    if (!r.feasible)
      return graph.emitError() << "pipeline mode: " << r.error;
    const sp::PipelineCandidate &chosen = r.candidates[r.selected];
    // start_ns: the lowering order's starts (the lowering sorts by them).
    auto [order, start] = g.loweringOrder(t, chosen.core);
    sp::QueueRun first = sp::runQueueModel(sp::programOf(g.placed(t, chosen.core, order)), {false, false, 64});
    place(g.tasks, chosen.core, start);
    summarize(graph, g, chosen.core, chosen.cost);
    Builder b(&getContext());
    graph->setAttr("makespan_ns", b.getI64IntegerAttr(rounded(chosen.cost.available ? chosen.cost.latencyNs
                                                                                     : first.latencyNs)));
    graph->setAttr("strategy", b.getStringAttr("prefix DP, packing and beam refinement (" + r.termination + ")"));
    graph->setAttr("algorithm", b.getStringAttr("pipeline"));
    graph->setAttr("mode", b.getStringAttr("pipeline"));
    graph->setAttr("stages", b.getDenseI64ArrayAttr(
                                 SmallVector<int64_t>(chosen.budgets.begin(), chosen.budgets.end())));
    graph->setAttr("stage_starts", b.getDenseI64ArrayAttr(
                                       SmallVector<int64_t>(chosen.starts.begin(), chosen.starts.end())));
    graph->setAttr("queue_evaluations", b.getI64IntegerAttr(r.evaluations));
    if (!report.empty()) {
      std::string error;
      std::unique_ptr<llvm::ToolOutputFile> file = mlir::openOutputFile(report, &error);
      if (!file)
        return graph.emitError() << "cannot write the pipeline report: " << error;
      file->os() << llvm::formatv("{0:2}", llvm::json::Value(selectionReport(problem, r))) << "\n";
      file->keep();
    }
    return success();
  }

  void runOnOperation() override {
    if (mode != "latency" && mode != "pipeline") {
      getOperation().emitError() << "unknown mode '" << mode << "' (expected latency or pipeline)";
      return signalPassFailure();
    }
    if (algorithm != "peft" && algorithm != "heft") {
      getOperation().emitError() << "unknown algorithm '" << algorithm << "' (expected peft or heft)";
      return signalPassFailure();
    }
    if (mode == "pipeline" && depth < 1) {
      getOperation().emitError() << "pipeline mode needs depth=N with N >= 1, not " << int64_t(depth);
      return signalPassFailure();
    }
    for (auto graph : getOperation().getOps<sp::GraphOp>()) {
      std::string message;
      FailureOr<sp::TargetModel> target =
          sp::TargetModel::load(graph.getTarget(), [&](const Twine &m) { message = m.str(); });
      if (failed(target)) {
        graph.emitError() << message;
        return signalPassFailure();
      }
      GraphTasks g(graph, *target);
      if (failed(mode == "pipeline" ? pipeline(graph, *target, g) : latency(graph, *target, g)))
        return signalPassFailure();
    }
  }
};

} // namespace
