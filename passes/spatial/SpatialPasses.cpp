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
#include "passes/spatial/Replication.h"
#include "passes/spatial/TargetModel.h"
#include "passes/spatial/WeightTiling.h"
#include "passes/nn/CompileTime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <cmath>
#include <map>

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
            if (n > 1) {
              auto [begin, end] = sp::rowsOfCopy(lanes.rows, n, k);
              rows = builder.getDenseI64ArrayAttr({begin, end});
              ns *= double(end - begin) / double(lanes.rows);
            }
            auto task = sp::TaskOp::create(
                builder, op.getLoc(), sp::TaskType::get(&getContext()), builder.getStringAttr(base + suffix), deps,
                builder.getDenseI64ArrayAttr(bytes), builder.getI64IntegerAttr(int64_t(std::ceil(ns - 1e-9))),
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

struct ScheduleSpatialPass : raptor::impl::ScheduleSpatialBase<ScheduleSpatialPass> {
  using Base::Base;
  void runOnOperation() override {
    if (algorithm != "peft" && algorithm != "heft") {
      getOperation().emitError() << "unknown algorithm '" << algorithm << "' (expected peft or heft)";
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
      SmallVector<sp::TaskOp> tasks(graph.getBody().getOps<sp::TaskOp>());
      llvm::DenseMap<Value, unsigned> index;
      sp::TaskGraph g;
      g.numTasks = tasks.size();
      g.numProcessors = target->cores;
      g.capacity = target->crossbarsPerCore;
      g.serialReceives = true; // one transfer unit per core
      std::vector<int64_t> bytes;
      for (auto [i, task] : llvm::enumerate(tasks)) {
        index[task.getDone()] = i;
        g.tiles.push_back(int64_t(task.getTiles()));
        for (unsigned p = 0; p < g.numProcessors; ++p)
          g.cost.push_back(double(task.getCostNs()));
        for (auto [dep, b] : llvm::zip(task.getDeps(), task.getBytes())) {
          g.edges.push_back({index[dep], unsigned(i), target->meanTransferNs(b)});
          bytes.push_back(b);
        }
      }
      const sp::TargetModel &t = *target;
      g.link = [&](const sp::TaskGraph::Edge &e, unsigned from, unsigned to) {
        size_t i = &e - g.edges.data();
        return double(t.transferNs(bytes[i], from, to));
      };
      sp::Schedule s = sp::scheduleWithCapacity(g, algorithm == "peft");
      if (!s.feasible) {
        tasks[s.failedTask].emitError() << "no core can hold this task's " << g.tiles[s.failedTask]
                                        << " crossbars next to the others (tried "
                                        << s.strategy << ")";
        return signalPassFailure();
      }
      // Contiguous per-core slots in start order; the last one is marked.
      std::map<unsigned, std::vector<unsigned>> perCore;
      for (unsigned i = 0; i < tasks.size(); ++i)
        perCore[s.processor[i]].push_back(i);
      Builder b(&getContext());
      for (auto &[core, list] : perCore) {
        std::stable_sort(list.begin(), list.end(),
                         [&](unsigned x, unsigned y) { return s.start[x] < s.start[y]; });
        for (auto [slot, i] : llvm::enumerate(list)) {
          tasks[i].setCoreAttr(b.getI64IntegerAttr(core));
          tasks[i].setStartNsAttr(b.getI64IntegerAttr(int64_t(std::llround(s.start[i]))));
          tasks[i].setSlotAttr(b.getI64IntegerAttr(slot));
          tasks[i].setLastAttr(b.getBoolAttr(slot + 1 == list.size()));
        }
      }
      // Evaluation (seed 002): serial work, dependency critical path (costs
      // only; tasks are in dependency order), summed transfer work.
      double serial = 0, transfers = 0;
      std::vector<double> longest(tasks.size(), 0);
      for (unsigned i = 0; i < tasks.size(); ++i) {
        serial += g.execution(i, 0);
        longest[i] += g.execution(i, 0);
      }
      for (const sp::TaskGraph::Edge &e : g.edges) {
        transfers += g.transfer(e, s.processor[e.from], s.processor[e.to]);
        longest[e.to] = std::max(longest[e.to], longest[e.from] + g.execution(e.to, 0));
      }
      double critical = tasks.empty() ? 0 : *std::max_element(longest.begin(), longest.end());
      graph->setAttr("serial_work_ns", b.getI64IntegerAttr(int64_t(std::llround(serial))));
      graph->setAttr("critical_path_ns", b.getI64IntegerAttr(int64_t(std::llround(critical))));
      graph->setAttr("transfer_work_ns", b.getI64IntegerAttr(int64_t(std::llround(transfers))));
      graph->setAttr("cores_used", b.getI64IntegerAttr(int64_t(perCore.size())));
      graph->setAttr("makespan_ns", b.getI64IntegerAttr(int64_t(std::llround(s.makespan))));
      graph->setAttr("strategy", b.getStringAttr(s.strategy));
      graph->setAttr("algorithm", b.getStringAttr(algorithm));
    }
  }
};

} // namespace
