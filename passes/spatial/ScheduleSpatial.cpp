//===- ScheduleSpatial.cpp - Schedules of spatial compute graphs -*- C++ -*-===//
//
// raptor-schedule-spatial: latency mode (PEFT or HEFT under crossbar
// capacity) or pipeline mode (stages searched with the queue model); writes
// core, start_ns, slot and last on every task and the evaluation on the
// graph.
//
//===----------------------------------------------------------------------===//
#include "dialects/codec/CodecDialect.h"
#include "dialects/nn/ElementCount.h"
#include "dialects/nn/NNOps.h"
#include "dialects/spatial/SpatialDialect.h"
#include "passes/JsonAttributes.h"
#include "passes/spatial/Passes.h"
#include "passes/spatial/CostModel.h"
#include "passes/spatial/ListScheduler.h"
#include "passes/spatial/PipelineScheduler.h"
#include "passes/spatial/QueueModel.h"
#include "passes/spatial/Replication.h"
#include "passes/spatial/RowMaps.h"
#include "simulator/TargetModel.h"
#include "passes/spatial/WeightTiling.h"
#include "passes/nn/CompileTime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <set>

namespace raptor {
#define GEN_PASS_DEF_SCHEDULESPATIAL
#include "passes/spatial/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace sp = raptor::spatial;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t rounded(double ns) { return int64_t(std::llround(ns)); }

/// Under crossing=auto a skewed pipeline's intervals count 1 / (1 -
/// kSkewedGain) of themselves in every comparison (QueueCost::handicap):
/// it must be predicted about this much faster than another form or
/// candidate to replace it.
constexpr double kSkewedGain = 0.10;

/// In latency mode a choice the queue model predicts faster (global-memory
/// transfers over rendezvous, streamed rows over whole tensors) is taken
/// only when at least this much faster: a closer call is within the
/// model's error (docs/timing.md: 0.92-1.01 of the simulated latency on the
/// bench's CNNs since the event registers pass from sender to sender).
constexpr double kClearlyFaster = 0.05;

/// A pipeline graph challenging another (copies weighed with their
/// followers) replaces it when its predicted interval is this much shorter:
/// the pipeline search's rule (clearlyBetter), the queue model's interval
/// error between candidates of one model.
constexpr double kClearlyShorterInterval = 0.021;

/// Each core's tasks in the order its program runs them: by start (to the
/// nanosecond), then graph order.
std::map<unsigned, std::vector<unsigned>> tasksByCore(const std::vector<unsigned> &core,
                                                      const std::vector<double> &start) {
  std::map<unsigned, std::vector<unsigned>> perCore;
  for (unsigned i = 0; i < core.size(); ++i)
    perCore[core[i]].push_back(i);
  for (auto &[c, list] : perCore)
    std::stable_sort(list.begin(), list.end(),
                     [&](unsigned x, unsigned y) { return rounded(start[x]) < rounded(start[y]); });
  return perCore;
}

/// What scheduling needs of a compute graph's tasks: their costs, crossbars,
/// dependencies with bytes, and the global-memory traffic of the model's
/// inputs and outputs they carry.
struct GraphTasks {
  SmallVector<sp::TaskOp> tasks;
  sp::TaskGraph graph;
  std::vector<int64_t> edgeBytes;
  std::vector<unsigned> group; // dense operator index per task, in order
  std::vector<int64_t> loadBytes, storeBytes;
  std::vector<int64_t> wholeBytes; // a task computing all rows: its share of its results
  std::vector<int64_t> rowBytes;   // a copy of some rows: its rows' share of its results
  std::vector<bool> readsRows; // copies of replicated operators
  std::vector<bool> passThrough; // views and concatenations (sp::movesNoData)
  /// Per task its output rows, per pass-through task how its operands'
  /// rows scale to its own (0: they do not map), per edge the producer's
  /// rows the reader reads (all: {0, max}).
  std::vector<std::pair<int64_t, int64_t>> taskRows, edgeRows;
  std::vector<int64_t> rowScale;

  GraphTasks() = default;
  GraphTasks(sp::GraphOp g, const raptor::pim::TargetModel &t) {
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
    std::optional<raptor::nn::CompileTimeValues> known;
    if (func && !func.isExternal())
      known.emplace(func.front());
    for (auto [i, task] : llvm::enumerate(tasks)) {
      index[task.getDone()] = i;
      int64_t rowSource = task.getSource() ? int64_t(*task.getSource()) : -1;
      Operation *rowOp = rowSource >= 0 && rowSource < int64_t(ops.size()) ? ops[size_t(rowSource)] : nullptr;
      std::pair<int64_t, int64_t> own = sp::kAllRows, read = sp::kAllRows;
      if (auto rows = task.getRows()) {
        own = {(*rows)[0], (*rows)[1]};
        if (rowOp && known)
          read = sp::rowsRead(rowOp, *known, own.first, own.second).value_or(sp::kAllRows);
      }
      taskRows.push_back(own);
      graph.tiles.push_back(int64_t(task.getTiles()));
      for (unsigned p = 0; p < graph.numProcessors; ++p)
        graph.cost.push_back(double(task.getCostNs()));
      for (auto [dep, b] : llvm::zip(task.getDeps(), task.getBytes())) {
        graph.edges.push_back({index[dep], unsigned(i), t.meanTransferNs(b)});
        edgeBytes.push_back(b);
        edgeRows.push_back(read);
      }
      graph.sameProcessorAs.push_back(-1);
      if (auto block = task.getBlock(); block && *block > 0)
        for (Value dep : task.getDeps()) // the block before it, on whose crossbars it runs
          if (auto before = dep.getDefiningOp<sp::TaskOp>();
              before && before.getBlock() && *before.getBlock() + 1 == *block &&
              before.getSource() == task.getSource() && before.getLane() == task.getLane() &&
              before.getReplica() == task.getReplica())
            graph.sameProcessorAs.back() = int(index[dep]);
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
      // The task's share of the results other tasks read (not max pooling's
      // indices): all rows' over its lanes, or its own rows' (a lane of
      // partial sums holds all its rows' sums).
      int64_t whole = 0, ownRows = 0;
      if (source >= 0 && source < int64_t(ops.size()))
        for (Value r : ops[size_t(source)]->getResults()) {
          if (!isa<RankedTensorType>(r.getType()) || r.use_empty())
            continue;
          if (!task.getRows()) {
            whole += ceilDiv(sp::tensorBytes(r), std::max<int64_t>(1, lanesOfSource[source]));
          } else if (std::optional<size_t> d = sp::rowDim(r.getType())) {
            int64_t height = cast<RankedTensorType>(r.getType()).getDimSize(int64_t(*d));
            int64_t rows = std::clamp<int64_t>(own.second, 0, height) - std::clamp<int64_t>(own.first, 0, height);
            if (height > 0 && rows > 0)
              ownRows += sp::tensorBytes(r) / height * rows;
          }
        }
      loadBytes.push_back(load);
      storeBytes.push_back(store);
      wholeBytes.push_back(whole);
      rowBytes.push_back(ownRows);
      readsRows.push_back(bool(task.getRows()));
      rowScale.push_back(rowOp && sp::movesNoData(rowOp) ? sp::viewRowScale(rowOp).value_or(0) : 0);
      passThrough.push_back(source >= 0 && source < int64_t(ops.size()) && sp::movesNoData(ops[size_t(source)]) &&
                            !sp::gathersView(ops[size_t(source)]));
    }
  }

  /// A topological order in which a copy's followers (a task without
  /// crossbars reading it over the same rows: a codec, an activation, a
  /// residual sum after a convolution's copy) come right after it, else
  /// graph order: the
  /// pipeline's ordered packing cuts it into runs, and a run holding a copy
  /// with its followers keeps their data (a convolution's int32 sums) on
  /// its core. rank[t] is t's position; follows[t] the task t follows
  /// (-1: none).
  std::vector<unsigned> followerRanks(std::vector<int> &follows) const {
    unsigned n = unsigned(tasks.size());
    std::vector<std::vector<unsigned>> succ(n);
    std::vector<unsigned> waiting(n, 0);
    for (const sp::TaskGraph::Edge &e : graph.edges) {
      succ[e.from].push_back(e.to);
      ++waiting[e.to];
    }
    auto rowsOf = [&](unsigned i) {
      std::optional<ArrayRef<int64_t>> r = sp::TaskOp(tasks[i]).getRows();
      return r ? std::make_pair((*r)[0], (*r)[1]) : std::make_pair(int64_t(-1), int64_t(-1));
    };
    std::set<unsigned> ready;
    for (unsigned i = 0; i < n; ++i)
      if (!waiting[i])
        ready.insert(i);
    std::vector<unsigned> rank(n, 0);
    follows.assign(n, -1);
    int last = -1;
    for (unsigned position = 0; !ready.empty(); ++position) {
      unsigned pick = *ready.begin();
      if (last >= 0 && rowsOf(unsigned(last)).first >= 0)
        for (unsigned j : succ[unsigned(last)])
          if (ready.count(j) && graph.tiles[j] == 0 && rowsOf(j) == rowsOf(unsigned(last))) {
            pick = j;
            follows[j] = last;
            break;
          }
      ready.erase(pick);
      rank[pick] = position;
      last = int(pick);
      for (unsigned j : succ[pick])
        if (--waiting[j] == 0)
          ready.insert(j);
    }
    return rank;
  }

  /// Per task, the lane whose crossbars its copies share on one core (a
  /// dense index of (operator, lane)); -1 for a task without crossbars.
  std::vector<int64_t> laneKeys() const {
    std::map<std::pair<int64_t, int64_t>, int64_t> dense;
    std::vector<int64_t> keys;
    for (sp::TaskOp task : tasks) {
      if (!task.getSource() || task.getTiles() == 0) {
        keys.push_back(-1);
        continue;
      }
      auto key = std::make_pair(int64_t(*task.getSource()), int64_t(task.getLane()));
      keys.push_back(dense.try_emplace(key, int64_t(dense.size())).first->second);
    }
    return keys;
  }

  /// Copies of one lane placed on one core run one after the other: as one
  /// task over the union of their contiguous rows they need one copy of
  /// the weights and receive their inputs once. rep[t] is the task that
  /// stands for t (t itself unless merged into an earlier-rows copy).
  std::vector<unsigned> coLocatedCopies(const std::vector<unsigned> &core) const {
    std::vector<unsigned> rep(tasks.size());
    std::iota(rep.begin(), rep.end(), 0u);
    std::map<std::tuple<int64_t, int64_t, unsigned>, std::vector<unsigned>> runs; // (source, lane, core)
    for (unsigned i = 0; i < tasks.size(); ++i) {
      sp::TaskOp task = tasks[i];
      if (task.getRows() && task.getSource())
        runs[{int64_t(*task.getSource()), int64_t(task.getLane()), core[i]}].push_back(i);
    }
    for (auto &[key, members] : runs) {
      auto rowsOf = [&](unsigned i) { return *sp::TaskOp(tasks[i]).getRows(); };
      std::stable_sort(members.begin(), members.end(),
                       [&](unsigned x, unsigned y) { return rowsOf(x)[0] < rowsOf(y)[0]; });
      unsigned head = members.front();
      int64_t end = rowsOf(head)[1];
      for (unsigned i : llvm::drop_begin(members)) {
        if (rowsOf(i)[0] == end) {
          rep[i] = head;
        } else {
          head = i;
        }
        end = rowsOf(i)[1];
      }
    }
    return rep;
  }

  /// The graph with each task merged into rep[task] (costs, traffic and
  /// dependencies combined; a representative keeps its own crossbars).
  /// `kept` lists the representatives, in order: the compact graph's tasks.
  GraphTasks merged(const std::vector<unsigned> &rep, std::vector<unsigned> &kept) const {
    GraphTasks m;
    std::vector<unsigned> index(tasks.size(), ~0u);
    kept.clear();
    for (unsigned i = 0; i < tasks.size(); ++i)
      if (rep[i] == i) {
        index[i] = kept.size();
        kept.push_back(i);
      }
    m.graph.numTasks = kept.size();
    m.graph.numProcessors = graph.numProcessors;
    m.graph.capacity = graph.capacity;
    m.graph.serialReceives = graph.serialReceives;
    m.graph.cost.assign(size_t(kept.size()) * graph.numProcessors, 0);
    m.loadBytes.assign(kept.size(), 0);
    m.storeBytes.assign(kept.size(), 0);
    m.wholeBytes.assign(kept.size(), 0);
    m.rowBytes.assign(kept.size(), 0);
    for (unsigned k : kept) {
      m.tasks.push_back(tasks[k]);
      m.graph.tiles.push_back(graph.tiles[k]);
      m.group.push_back(group[k]);
      m.readsRows.push_back(readsRows[k]);
      m.passThrough.push_back(passThrough[k]);
      m.taskRows.push_back(taskRows[k]);
      m.rowScale.push_back(rowScale[k]);
    }
    for (unsigned i = 0; i < tasks.size(); ++i) {
      unsigned r = index[rep[i]];
      for (unsigned p = 0; p < graph.numProcessors; ++p)
        m.graph.cost[size_t(r) * graph.numProcessors + p] += graph.execution(i, p);
      m.loadBytes[r] += loadBytes[i];
      m.storeBytes[r] += storeBytes[i];
      m.wholeBytes[r] += wholeBytes[i];
      m.rowBytes[r] += rowBytes[i];
      auto &rows = m.taskRows[r]; // (a merged run of blocks: all their rows)
      rows = {std::min(rows.first, taskRows[i].first), std::max(rows.second, taskRows[i].second)};
    }
    std::map<std::pair<unsigned, unsigned>, size_t> seen;
    for (auto [e, bytes, rows] : llvm::zip(graph.edges, edgeBytes, edgeRows)) {
      unsigned from = index[rep[e.from]], to = index[rep[e.to]];
      if (from == to)
        continue;
      auto [it, fresh] = seen.try_emplace({from, to}, m.graph.edges.size());
      if (fresh) {
        m.graph.edges.push_back({from, to, e.communication});
        m.edgeBytes.push_back(bytes);
        m.edgeRows.push_back(rows);
      } else {
        m.edgeBytes[it->second] += bytes;
        auto &both = m.edgeRows[it->second];
        both = {std::min(both.first, rows.first), std::max(both.second, rows.second)};
      }
    }
    return m;
  }

  /// A lowering order for a placement: each task as early as its core
  /// (running its tasks in graph order) and its inputs allow, then all
  /// tasks by that start. Interleaving the cores this way lets a producer
  /// feed every consumer core before any of them computes (in graph order
  /// a core holding two copies would make the producer wait for the
  /// first copy's work before sending the second's rows). Returns the
  /// order and the starts.
  std::pair<std::vector<unsigned>, std::vector<double>> loweringOrder(const raptor::pim::TargetModel &t,
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

  /// A lowering order for the list schedule `s` that puts each task where
  /// its first receive begins in the schedule (its start less the serial
  /// receives of its inputs from other cores), tasks with such receives
  /// before the others at one time, in a topological order that keeps each
  /// core's order of tasks. Against the order by start: a core that
  /// finishes a task sends its data before it starts its next task (which
  /// starts first, the transfer taking time), so the consumer is not a
  /// task late on every layer.
  std::vector<unsigned> transferOrder(const raptor::pim::TargetModel &t, const sp::Schedule &s) const {
    unsigned n = graph.numTasks;
    std::vector<double> key(s.start.begin(), s.start.end());
    std::vector<bool> remote(n, false);
    std::vector<std::vector<unsigned>> succ(n);
    std::vector<unsigned> waiting(n, 0);
    for (auto [e, bytes] : llvm::zip(graph.edges, edgeBytes)) {
      succ[e.from].push_back(e.to);
      ++waiting[e.to];
      if (s.processor[e.from] != s.processor[e.to] && bytes > 0) {
        key[e.to] -= double(t.transferNs(bytes, s.processor[e.from], s.processor[e.to]));
        remote[e.to] = true;
      }
    }
    // Each core keeps the schedule's order of its tasks: only the places
    // of the cores' sequences relative to each other move.
    for (auto &[core, list] : tasksByCore(s.processor, s.start)) {
      for (size_t k = 1; k < list.size(); ++k) {
        succ[list[k - 1]].push_back(list[k]);
        ++waiting[list[k]];
        // Its receives cannot begin before its core is done with the task
        // before it (a receive is an instruction of the core).
        key[list[k]] = std::max(key[list[k]], s.finish[list[k - 1]]);
      }
    }
    using Entry = std::tuple<int64_t, bool, unsigned>; // (key, no receive, graph index): smallest first
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    for (unsigned i = 0; i < n; ++i)
      if (!waiting[i])
        ready.push({rounded(key[i]), !remote[i], i});
    std::vector<unsigned> order;
    while (!ready.empty()) {
      unsigned i = std::get<2>(ready.top());
      ready.pop();
      order.push_back(i);
      for (unsigned j : succ[i])
        if (--waiting[j] == 0)
          ready.push({rounded(key[j]), !remote[j], j});
    }
    return order;
  }

  /// The queue model's view of a placement in a lowering order.
  sp::PlacedGraph placed(const raptor::pim::TargetModel &t, std::vector<unsigned> core, std::vector<unsigned> order,
                         sp::Crossing crossing = sp::Crossing::Interleaved, bool mailbox = false) const {
    sp::PlacedGraph p;
    p.crossing = crossing;
    p.mailbox = mailbox;
    p.localMemoryBytes = t.localMemoryBytes;
    p.cores = t.cores;
    p.core = std::move(core);
    p.order = std::move(order);
    for (unsigned i = 0; i < graph.numTasks; ++i)
      p.work.push_back(graph.execution(i, 0));
    for (auto [e, bytes, rows] : llvm::zip(graph.edges, edgeBytes, edgeRows))
      p.edges.push_back({e.from, e.to, bytes, rows});
    p.loadBytes = loadBytes;
    p.storeBytes = storeBytes;
    p.wholeBytes = wholeBytes;
    p.rowBytes = rowBytes;
    p.group = group;
    p.readsRows = readsRows;
    p.passThrough = passThrough;
    p.taskRows = taskRows;
    p.rowScale = rowScale;
    const raptor::pim::TimingConfig &timing = t.timing;
    p.transfer = [&timing](int64_t bytes, unsigned from, unsigned to) {
      // TimingConfig::transferPairNs's phases; each instruction's issue
      // and retirement on its side (each side executes for longer than
      // the minimum cycle: it reads or writes).
      double issue = timing.pipelineNs();
      return sp::TransferParts{timing.messageNs(1, to, from), timing.localNs(bytes, false) + issue,
                               timing.messageNs(bytes, from, to),
                               double(timing.receiveCycles) * timing.periodNs + timing.deliveredWriteNs(bytes) + issue};
    };
    p.globalServiceNs = [&timing](int64_t bytes, bool write) { return timing.globalNs(bytes, write); };
    p.localCopyNs = [&timing](int64_t bytes) { return timing.copyInstructionNs(bytes); };
    p.globalOverheadNs = [&timing](int64_t bytes, bool write, unsigned core) {
      int64_t global = timing.globalNode(), c = int64_t(core);
      // TimingConfig::instructionNs's ld and st, without the service.
      return timing.serialNs(timing.messageNs(write ? bytes : 1, c, global) + timing.messageNs(0, global, c) +
                             (write ? timing.localNs(bytes, false) + double(timing.storeAckCycles) * timing.periodNs
                                    : timing.deliveredWriteNs(bytes)));
    };
    return p;
  }
};

llvm::StringRef crossingName(sp::Crossing c) {
  switch (c) {
  case sp::Crossing::Local:
    return "local";
  case sp::Crossing::Global:
    return "global";
  case sp::Crossing::Skewed:
    return "skewed";
  case sp::Crossing::Interleaved:
    break;
  }
  return "interleaved";
}

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
  c.taskStartNs = latency.taskStartNs;
  c.intervalNs = first.intervalNs;
  c.alternativeTieIntervalNs = second.intervalNs;
  c.coreBusyNs = first.coreBusyNs;
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
      o["handicap"] = c.cost.handicap;
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
      {"candidates", std::move(candidates)}};
}

/// Rewrites the graph's tasks as GraphTasks::merged does: a representative
/// takes its members' rows, cost and dependencies (bytes added), their
/// users depend on it instead, and the members are erased.
void mergeTaskOps(MutableArrayRef<sp::TaskOp> tasks, const std::vector<unsigned> &rep) {
  if (tasks.empty())
    return;
  Builder b(tasks.front().getContext());
  std::map<unsigned, std::vector<unsigned>> members;
  for (unsigned i = 0; i < tasks.size(); ++i)
    if (rep[i] != i)
      members[rep[i]].push_back(i);
  auto combineDeps = [&](sp::TaskOp task, ArrayRef<sp::TaskOp> from) {
    llvm::MapVector<Value, int64_t> deps;
    for (sp::TaskOp f : from)
      for (auto [d, bytes] : llvm::zip(f.getDeps(), f.getBytes()))
        deps[d] += bytes;
    SmallVector<Value> values;
    SmallVector<int64_t> bytes;
    for (auto &[d, n] : deps) {
      values.push_back(d);
      bytes.push_back(n);
    }
    task->setOperands(values);
    task.setBytesAttr(b.getDenseI64ArrayAttr(bytes));
  };
  for (auto &[r, list] : members) {
    sp::TaskOp head = tasks[r];
    SmallVector<sp::TaskOp> all{head};
    int64_t cost = int64_t(head.getCostNs()), begin = (*head.getRows())[0], end = (*head.getRows())[1];
    for (unsigned i : list) {
      all.push_back(tasks[i]);
      cost += int64_t(tasks[i].getCostNs());
      end = std::max(end, (*tasks[i].getRows())[1]);
    }
    combineDeps(head, all);
    head.setCostNsAttr(b.getI64IntegerAttr(cost));
    head.setRowsAttr(b.getDenseI64ArrayAttr({begin, end}));
    for (unsigned i : list)
      tasks[i].getDone().replaceAllUsesWith(head.getDone());
  }
  for (auto &[r, list] : members)
    for (unsigned i : list)
      tasks[i].erase();
  // Users of several merged copies now name the representative more than once.
  for (sp::TaskOp task : tasks.front()->getBlock()->getOps<sp::TaskOp>()) {
    llvm::SmallPtrSet<Value, 8> distinct(task.getDeps().begin(), task.getDeps().end());
    if (distinct.size() != task.getDeps().size())
      combineDeps(task, {task});
  }
}

/// Writes `value` to `path` (removed again if the pass fails later: the
/// caller keeps it); an error on `anchor` when it cannot.
LogicalResult writeJson(Operation *anchor, StringRef path, llvm::json::Value value, StringRef what) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = mlir::openOutputFile(path, &error);
  if (!file)
    return anchor->emitError() << "cannot write the " << what << ": " << error;
  file->os() << llvm::formatv("{0:2}", value) << "\n";
  file->keep();
  return success();
}

struct ScheduleSpatialPass : raptor::impl::ScheduleSpatialBase<ScheduleSpatialPass> {
  using Base::Base;

  /// Merges co-located copies of `g` under placement `core` in the IR and
  /// returns the graph read back with its cores.
  GraphTasks mergeCopies(sp::GraphOp graph, const raptor::pim::TargetModel &t, GraphTasks &g, const std::vector<unsigned> &core,
                         std::vector<unsigned> &cores) {
    std::vector<unsigned> rep = g.coLocatedCopies(core);
    llvm::DenseMap<Operation *, unsigned> placed;
    for (unsigned i = 0; i < g.tasks.size(); ++i)
      placed[g.tasks[i]] = core[i];
    mergeTaskOps(g.tasks, rep);
    GraphTasks merged(graph, t);
    cores.clear();
    for (sp::TaskOp task : merged.tasks)
      cores.push_back(placed.lookup(task));
    return merged;
  }

  /// Writes core, slot, last and start_ns; `order` is the lowering order,
  /// `start` the first inference's start of each task.
  void place(MutableArrayRef<sp::TaskOp> tasks, const std::vector<unsigned> &core, const std::vector<double> &start) {
    Builder b(&getContext());
    for (auto &[c, list] : tasksByCore(core, start)) {
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
    for (auto [i, e] : llvm::enumerate(g.graph.edges)) {
      transfers += g.graph.transfer(i, core[e.from], core[e.to]);
      longest[e.to] = std::max(longest[e.to], longest[e.from] + g.graph.execution(e.to, 0));
    }
    double critical = g.tasks.empty() ? 0 : *std::max_element(longest.begin(), longest.end());
    std::set<unsigned> used(core.begin(), core.end());
    graph->setAttr("serial_work_ns", b.getI64IntegerAttr(rounded(serial)));
    graph->setAttr("critical_path_ns", b.getI64IntegerAttr(rounded(critical)));
    graph->setAttr("transfer_work_ns", b.getI64IntegerAttr(rounded(transfers)));
    graph->setAttr("cores_used", b.getI64IntegerAttr(int64_t(used.size())));
    if (cost.available) {
      // Each task's predicted start: what Timing.tasks is compared with.
      for (auto [i, task] : llvm::enumerate(g.tasks))
        if (i < cost.taskStartNs.size())
          task->setAttr("predicted_start_ns", b.getI64IntegerAttr(rounded(cost.taskStartNs[i])));
      graph->setAttr("predicted_latency_ns", b.getI64IntegerAttr(rounded(cost.latencyNs)));
      graph->setAttr("predicted_interval_ns", b.getI64IntegerAttr(rounded(cost.intervalNs)));
      graph->setAttr("alternative_tie_interval_ns", b.getI64IntegerAttr(rounded(cost.alternativeTieIntervalNs)));
    } else {
      graph->setAttr("prediction", b.getStringAttr("unavailable: " + cost.reason));
    }
  }

  /// periodic=FILE (or the `periodic` attribute): the schedule's event
  /// graph, as its programs would loop.
  LogicalResult writePeriodic(sp::GraphOp graph, const sp::PlacedGraph &placed) {
    if (periodic.empty() && !periodicAttribute)
      return success();
    sp::PeriodicReport r = sp::periodicOf(sp::programOf(placed));
    llvm::json::Object json = sp::periodicJson(r);
    json["mode"] = raptor::nameOf(llvm::ArrayRef(sp::kScheduleModes), sp::ScheduleMode(mode)).str();
    if (periodicAttribute)
      graph->setAttr("periodic", raptor::attributeOfJson(&getContext(), llvm::json::Value(llvm::json::Object(json))));
    return periodic.empty() ? success() : writeJson(graph, periodic, std::move(json), "periodic diagnostic");
  }

  LogicalResult latency(sp::GraphOp graph, const raptor::pim::TargetModel &t, GraphTasks &g) {
    g.graph.link = [&](size_t edge, unsigned from, unsigned to) {
      return double(t.transferNs(g.edgeBytes[edge], from, to));
    };
    sp::Schedule s = sp::scheduleWithCapacity(g.graph, algorithm == sp::ListAlgorithm::PEFT);
    if (!s.feasible)
      return g.tasks[s.failedTask].emitError()
             << "no core can hold this task's " << g.graph.tiles[s.failedTask] << " crossbars next to the others (tried "
             << s.strategy << ")";
    place(g.tasks, s.processor, s.start);
    // The lowering's order (`position`): start times, then the graph's
    // order; or the transfer-first order when the queue model finds its
    // programs faster. (Copies the list scheduler put on one core stay
    // separate tasks: merging them would need new start times consistent
    // with its order.)
    std::vector<unsigned> order(g.tasks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned x, unsigned y) { return rounded(s.start[x]) < rounded(s.start[y]); });
    // The order, then the transfers (rendezvous, or through global memory:
    // sp::PlacedGraph::mailbox), whose programs the queue model finds
    // fastest. Under `auto`, global memory only when clearly faster
    // (kClearlyFaster): its programs read what the graph's dependencies do
    // not always name (a reader signalled where its sender is when it is
    // lowered), which the model does not see (docs/scheduling.md
    // "Transfers").
    std::vector<unsigned> early = g.transferOrder(t, s);
    auto fastest = [&](bool global, std::vector<unsigned> &chosen) {
      sp::QueueCost best;
      bool first = true;
      for (const std::vector<unsigned> *candidate : {&order, &early}) {
        sp::QueueCost c = queueCost(sp::programOf(g.placed(t, s.processor, *candidate, sp::Crossing::Interleaved, global)));
        if (first || (c.available && (!best.available || c.latencyNs < best.latencyNs))) {
          best = std::move(c);
          chosen = *candidate;
          first = false;
        }
      }
      return best;
    };
    std::vector<unsigned> chosen, globalOrder;
    sp::QueueCost cost;
    bool mailbox = transfers == sp::TransferMode::Global;
    if (!mailbox)
      cost = fastest(false, chosen);
    if (transfers != sp::TransferMode::Rendezvous) {
      sp::QueueCost global = fastest(true, globalOrder);
      if (mailbox || (global.available &&
                      (!cost.available || global.latencyNs < (1 - kClearlyFaster) * cost.latencyNs))) {
        cost = std::move(global);
        chosen = std::move(globalOrder);
        mailbox = true;
      }
    }
    order = std::move(chosen);
    Builder positions(&getContext());
    for (auto [position, i] : llvm::enumerate(order))
      g.tasks[i].setPositionAttr(positions.getI64IntegerAttr(int64_t(position)));
    summarize(graph, g, s.processor, cost);
    if (failed(writePeriodic(graph, g.placed(t, s.processor, order, sp::Crossing::Interleaved, mailbox))))
      return failure();
    Builder b(&getContext());
    graph->setAttr("transfers", b.getStringAttr(mailbox ? "global" : "rendezvous"));
    graph->setAttr("makespan_ns", b.getI64IntegerAttr(rounded(s.makespan)));
    graph->setAttr("strategy", b.getStringAttr(s.strategy));
    graph->setAttr("algorithm",
                   b.getStringAttr(raptor::nameOf(llvm::ArrayRef(sp::kListAlgorithms), sp::ListAlgorithm(algorithm))));
    graph->setAttr("mode", b.getStringAttr("latency"));
    return success();
  }

  LogicalResult pipeline(sp::GraphOp graph, const raptor::pim::TargetModel &t, GraphTasks &g) {
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
    problem.rank = g.followerRanks(problem.follows);
    // A view or concatenation goes with its first producer: its readers
    // read the producers' buffers, and on their core it adds no level.
    for (const sp::TaskGraph::Edge &e : g.graph.edges)
      if (g.passThrough[e.to] && problem.follows[e.to] < 0)
        problem.follows[e.to] = int(e.from);
    problem.lane = g.laneKeys();
    // Each core's program runs its stage's lanes in graph (topological)
    // order, receiving before and sending after; the cores interleave in
    // the lowering by loweringOrder.
    // Data crosses stages (sp::Crossing) at the iteration boundary in local
    // memory with relays (PipelineStages) when a core's boundary data and
    // its work's values (QueueProgram::localBytes, an estimate: measured
    // 0.7-0.8x the lowering's peak on U-Net int8 and a small residual
    // model) fit its local memory (a compile that runs out anyway is
    // lowered again without these forms: local-boundaries=false);
    // through global-memory regions handed over by tokens; or interleaved
    // with the work (receives before their task, sends after). Each
    // candidate is costed in each form it could be lowered in, in that
    // order, and a later form replaces an earlier one only when clearly
    // cheaper (the search's 2.1% rule: the queue model cannot tell closer
    // figures apart).
    // `forms`, when given, receives each costed form's queue cost (forms
    // not costed, as local beyond local memory, are left out), with its
    // estimated `local_bytes`.
    auto programFor = [&](const std::vector<unsigned> &core, sp::Crossing &crossing, sp::QueueCost &cost,
                          llvm::json::Object *forms = nullptr) {
      std::vector<unsigned> kept, cores;
      GraphTasks m = g.merged(g.coLocatedCopies(core), kept);
      for (unsigned k : kept)
        cores.push_back(core[k]);
      std::vector<unsigned> order = m.loweringOrder(t, cores).first;
      bool first = true;
      for (sp::Crossing form :
           {sp::Crossing::Local, sp::Crossing::Global, sp::Crossing::Interleaved, sp::Crossing::Skewed}) {
        sp::CrossingMode wanted = this->crossing;
        if (wanted != sp::CrossingMode::Auto && crossingName(form) != raptor::nameOf(llvm::ArrayRef(sp::kCrossingModes), wanted))
          continue;
        sp::QueueProgram program = sp::programOf(m.placed(t, cores, order, form));
        bool holdsLocally = form == sp::Crossing::Local || form == sp::Crossing::Skewed;
        if (wanted == sp::CrossingMode::Auto && holdsLocally &&
            (!localBoundaries || program.localBytes > t.localMemoryBytes))
          continue;
        sp::QueueCost c = queueCost(program);
        // A skewed pipeline's first inference takes a pass per level (5-20x
        // the other forms'): under auto it must buy clearly more throughput
        // than the queue model's error, here and against the other
        // candidates (ShuffleNetV2 fp32 was predicted 5.5% faster skewed and
        // simulated 8% slower; SigLIP's 3.8% cost its first inference 5x).
        if (form == sp::Crossing::Skewed && wanted == sp::CrossingMode::Auto)
          c.handicap = 1 / (1 - kSkewedGain);
        if (forms) {
          llvm::json::Object costs{{"available", c.available},
                                   {"interval_ns", c.intervalNs},
                                   {"alternative_tie_interval_ns", c.alternativeTieIntervalNs},
                                   {"handicap", c.handicap}};
          if (holdsLocally)
            costs["local_bytes"] = program.localBytes;
          (*forms)[crossingName(form)] = std::move(costs);
        }
        if (first || (c.available && (!cost.available || sp::clearlyBetter(c, cost)))) {
          crossing = form;
          cost = c;
          first = false;
        }
      }
    };
    problem.evaluate = [&](const std::vector<unsigned> &core) {
      sp::Crossing crossing;
      sp::QueueCost cost;
      programFor(core, crossing, cost);
      return cost;
    };
    if (std::string invalid = problem.validate(); !invalid.empty())
      return graph.emitError() << "pipeline mode: " << invalid;
    sp::PipelineResult r = sp::schedulePipeline(problem);
    if (!r.feasible)
      return graph.emitError() << "pipeline mode: " << r.error;
    sp::Crossing crossing;
    sp::QueueCost unused;
    llvm::json::Object forms;
    programFor(r.candidates[r.selected].core, crossing, unused, &forms);
    const sp::PipelineCandidate &chosen = r.candidates[r.selected];
    // start_ns: the lowering order's starts (the lowering sorts by them),
    // on the graph with co-located copies merged (as evaluated).
    std::vector<unsigned> cores;
    GraphTasks m = mergeCopies(graph, t, g, chosen.core, cores);
    auto [order, start] = m.loweringOrder(t, cores);
    sp::QueueRun first =
        sp::runQueueModel(sp::programOf(m.placed(t, cores, order, crossing)), {false, false, 64});
    place(m.tasks, cores, start);
    summarize(graph, m, cores, chosen.cost);
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
    // `boundaries` (whether data crosses at the iteration boundary) as
    // before; `crossing` says how.
    graph->setAttr("boundaries", b.getBoolAttr(crossing != sp::Crossing::Interleaved));
    graph->setAttr("crossing", b.getStringAttr(crossingName(crossing)));
    llvm::json::Object selection = selectionReport(problem, r);
    selection["boundaries"] = crossing != sp::Crossing::Interleaved;
    selection["crossing"] = crossingName(crossing);
    selection["crossing_costs"] = std::move(forms);
    // The selection travels with the graph (the emitter writes it as
    // reports/pipeline_selection.json); `report=FILE` also gets the search's
    // time per phase, which the IR leaves out so that a compile is
    // reproducible byte for byte.
    graph->setAttr("selection", raptor::attributeOfJson(&getContext(), llvm::json::Value(llvm::json::Object(selection))));
    if (!report.empty()) {
      selection["phase_seconds"] = llvm::json::Object{{"initial_dp", r.dpSeconds},
                                                      {"neighbourhood_ranking", r.rankingSeconds},
                                                      {"packing", r.packingSeconds},
                                                      {"queue", r.queueSeconds}};
      if (failed(writeJson(graph, report, llvm::json::Value(std::move(selection)), "pipeline report")))
        return failure();
    }
    return writePeriodic(graph, m.placed(t, cores, order, crossing));
  }

  void runOnOperation() override {
    if (mode == sp::ScheduleMode::Pipeline && depth < 1) {
      getOperation().emitError() << "pipeline mode needs depth=N with N >= 1, not " << int64_t(depth);
      return signalPassFailure();
    }
    for (auto graph : getOperation().getOps<sp::GraphOp>()) {
      const raptor::pim::TargetModel target = graph.getTarget().getModel();
      GraphTasks g(graph, target);
      if (failed(mode == sp::ScheduleMode::Pipeline ? pipeline(graph, target, g) : latency(graph, target, g)))
        return signalPassFailure();
    }
    if (failed(keepFasterAlternatives()))
      return signalPassFailure();
  }

  /// A graph built as the `alternative_of` another (raptor-build-compute-graph
  /// row-block-alternative: the whole-tensor graph beside the streamed
  /// one): the alternative stays unless the other is predicted at least
  /// kClearlyFaster faster by the queue model. The one kept takes the other's name (the function has one
  /// graph); `alternative_latency_ns` records the prediction dropped. The
  /// graph dropped stays as the `fallback_of` the one kept, as do a graph
  /// a challenger replaced and the challengers that lost:
  /// raptor-lower-to-pim lowers the fastest fallback that fits when the chosen programs do
  /// not fit local memory (the queue model does not allocate buffers).
  /// Challengers (below) are settled before alternatives.
  LogicalResult keepFasterAlternatives() {
    ModuleOp module = getOperation();
    // The graphs carrying `attr` and the graph each names there (`relation`
    // words the error when it names none).
    auto pairedBy = [&](StringRef attr,
                        StringRef relation) -> FailureOr<SmallVector<std::pair<sp::GraphOp, sp::GraphOp>>> {
      SmallVector<std::pair<sp::GraphOp, sp::GraphOp>> pairs;
      for (auto graph : module.getOps<sp::GraphOp>())
        if (auto of = graph->getAttrOfType<FlatSymbolRefAttr>(attr)) {
          auto other = SymbolTable::lookupNearestSymbolFrom<sp::GraphOp>(module, of);
          if (!other)
            return graph.emitError() << relation << " " << of << ", which is no graph of the module";
          pairs.push_back({graph, other});
        }
      return pairs;
    };
    // The `challenger_of` a graph (the streamed graph with blocks of half
    // the rows, graphs of shorter lanes): the fastest of them replaces it,
    // taking its name, only when predicted at least kClearlyFaster faster;
    // first, so that the whole-tensor alternative is weighed against the
    // graph kept. The graph replaced and the other challengers stay as the
    // kept one's `fallback_of` (shorter lanes' partial sums and smaller
    // blocks can take more local memory).
    FailureOr<SmallVector<std::pair<sp::GraphOp, sp::GraphOp>>> challenges = pairedBy("challenger_of", "challenges");
    if (failed(challenges))
      return failure();
    llvm::MapVector<Operation *, SmallVector<sp::GraphOp>> challengersOf;
    for (auto [challenger, other] : *challenges) {
      challenger->removeAttr("challenger_of");
      challengersOf[other].push_back(challenger);
    }
    for (auto &[incumbent, challengers] : challengersOf) {
      auto other = cast<sp::GraphOp>(incumbent);
      IntegerAttr theirs = other.getPredictedNs();
      bool pipeline = mode == sp::ScheduleMode::Pipeline;
      double margin = pipeline ? kClearlyShorterInterval : kClearlyFaster;
      sp::GraphOp best;
      for (sp::GraphOp challenger : challengers) {
        IntegerAttr mine = challenger.getPredictedNs();
        bool clearly = mine && (!theirs || double(mine.getInt()) < (1 - margin) * double(theirs.getInt()));
        if (clearly && (!best || mine.getInt() < best.getPredictedNs().getInt()))
          best = challenger;
      }
      StringAttr name = other.getSymNameAttr();
      for (sp::GraphOp challenger : challengers)
        if (challenger != best)
          challenger->setAttr("fallback_of", FlatSymbolRefAttr::get(name));
      if (!best)
        continue;
      if (theirs)
        best->setAttr(pipeline ? "challenged_interval_ns" : "challenged_latency_ns", theirs);
      other.setSymNameAttr(StringAttr::get(&getContext(), name.getValue() + "_challenged"));
      best.setSymNameAttr(name);
      other->setAttr("fallback_of", FlatSymbolRefAttr::get(name));
    }
    FailureOr<SmallVector<std::pair<sp::GraphOp, sp::GraphOp>>> alternatives = pairedBy("alternative_of", "is an alternative of");
    if (failed(alternatives))
      return failure();
    for (auto [alternative, other] : *alternatives) {
      FlatSymbolRefAttr of = FlatSymbolRefAttr::get(other.getSymNameAttr());
      IntegerAttr mine = alternative.getPredictedNs(), theirs = other.getPredictedNs();
      bool otherWins = theirs && (!mine || double(theirs.getInt()) < (1 - kClearlyFaster) * double(mine.getInt()));
      sp::GraphOp kept = otherWins ? other : alternative, dropped = otherWins ? alternative : other;
      if (IntegerAttr lost = dropped.getPredictedNs())
        kept->setAttr("alternative_latency_ns", lost);
      alternative->removeAttr("alternative_of");
      StringAttr name = other.getSymNameAttr();
      if (!otherWins) {
        other.setSymNameAttr(StringAttr::get(&getContext(), name.getValue() + "_streamed"));
        alternative.setSymNameAttr(name);
      }
      dropped->setAttr("fallback_of", of);
    }
    return success();
  }
};

} // namespace
