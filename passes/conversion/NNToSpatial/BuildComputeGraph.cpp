//===- BuildComputeGraph.cpp - nn ops to spatial compute instances -*- C++ -*-===//
//
// raptor-build-compute-graph, the conversion from the nn dialect to the
// spatial one: each operator of a function becomes lanes (weight tiles that
// fit one core's crossbars, costs under the target's timing rules), copied
// onto spare crossbars by the replication rule, with dependencies that
// carry the bytes each copy reads.
//
//===----------------------------------------------------------------------===//
#include "dialects/codec/CodecDialect.h"
#include "dialects/nn/ElementCount.h"
#include "dialects/nn/NNOps.h"
#include "dialects/spatial/SpatialDialect.h"
#include "passes/conversion/Passes.h"
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
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace raptor {
#define GEN_PASS_DEF_BUILDCOMPUTEGRAPH
#include "passes/conversion/Passes.h.inc"
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
  /// Its output rows when it can follow its input's row copies with copies
  /// of its own (an element-wise, codec or pooling operator on maps); 0
  /// otherwise.
  int64_t vectorRows = 0;
};

/// Copies of each operator: MVM operators whose output rows can be split
/// are candidates, priced by their slowest lane and by moving the input
/// rows a copy reads to its core (and, with `weighFollowers`, under the
/// balance rule by the work of the operators that follow their copies).
std::vector<int64_t> planCopies(ArrayRef<PlannedOp> ops, const raptor::pim::TargetModel &t, int64_t spare,
                                sp::ReplicationRule rule, bool weighFollowers) {
  std::vector<sp::ReplicationCandidate> candidates;
  double total = 0;
  for (const PlannedOp &p : ops) {
    for (double ns : p.lanes.ns)
      total += ns;
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
  // A follower's work goes to the MVM operators whose copies it follows
  // (through other followers and views), shared among them.
  if (weighFollowers) {
    llvm::DenseMap<Operation *, size_t> indexOf;
    for (auto [index, p] : llvm::enumerate(ops))
      indexOf[p.op] = index;
    std::vector<std::vector<size_t>> roots(ops.size());
    for (auto [index, p] : llvm::enumerate(ops)) {
      if (candidates[index].ns > 0) {
        roots[index] = {index};
        continue;
      }
      if (!p.vectorRows && !sp::movesNoData(p.op))
        continue;
      std::set<size_t> from;
      for (Value operand : p.op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (auto it = indexOf.find(def); it != indexOf.end())
            from.insert(roots[it->second].begin(), roots[it->second].end());
      roots[index].assign(from.begin(), from.end());
      double ns = 0;
      for (double lane : p.lanes.ns)
        ns += lane;
      for (size_t r : roots[index])
        candidates[r].followNs += ns / double(roots[index].size());
    }
  }
  sp::ReplicationTarget where{int64_t(t.cores), int64_t(t.crossbarsPerCore), spare, total,
                              [&](int64_t bytes) { return t.meanTransferNs(bytes); }, weighFollowers};
  return sp::planReplication(candidates, where, rule);
}

struct BuildComputeGraphPass : raptor::impl::BuildComputeGraphBase<BuildComputeGraphPass> {
  using Base::Base;

  /// The compile's target: `target=FILE` read here, once, and kept as the
  /// module's pim.target for the passes after this one; else the module's.
  FailureOr<raptor::pim::TargetAttr> moduleTarget(ModuleOp module) {
    if (targetPath.empty()) {
      if (auto attr = module->getAttrOfType<raptor::pim::TargetAttr>("pim.target"))
        return attr;
      return module.emitError() << "raptor-build-compute-graph needs target=FILE.json or a module with a "
                                   "pim.target attribute";
    }
    std::string message;
    FailureOr<raptor::pim::TargetModel> model =
        raptor::pim::TargetModel::load(targetPath, [&](const Twine &m) { message = m.str(); });
    if (failed(model))
      return module.emitError() << message;
    auto attr = raptor::pim::TargetAttr::get(&getContext(), *model);
    module->setAttr("pim.target", attr);
    return attr;
  }
  /// The compute graph of `func`, named `name`: convolutions in row blocks
  /// of about `blockRows` rows (0: whole tensors per task), lanes of at
  /// most `laneRowTiles` row tiles (0: as many as a core holds), copies
  /// planned with or without their followers' work (planCopies).
  FailureOr<sp::GraphOp> buildGraph(ModuleOp module, func::FuncOp func, StringRef name,
                                    raptor::pim::TargetAttr targetAttr, const raptor::pim::TargetModel &t,
                                    sp::ReplicationRule rule, int64_t blockRows, int64_t laneRowTiles,
                                    bool weighFollowers = false) {
    // Streamed rows need the element-wise operators between convolutions
    // to stream too.
    bool follow = followRows || blockRows > 0;
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto graph = sp::GraphOp::create(builder, func.getLoc(),
                                     builder.getStringAttr(name),
                                     targetAttr,
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
      if (!isa<raptor::nn::NNDialect>(op.getDialect()) &&
          !isa<raptor::codec::EncodeOp, raptor::codec::DecodeOp, raptor::codec::RescaleOp, raptor::codec::ObserveOp>(
              &op)) {
        op.emitError("compute graphs take nn ops and materialized codecs (codec.encode, decode, rescale, observe) "
                     "only; this op is neither");
        return failure();
      }
      FailureOr<sp::Lanes> lanes = sp::lanesOf(&op, t, laneRowTiles);
      if (failed(lanes))
        return failure();
      for (int64_t tiles : lanes->tiles)
        totalTiles += tiles;
      int64_t vectorRows = 0;
      // A depthwise convolution (vector work) follows row copies as
      // pooling does, its copies reading their windows' rows (kept whole,
      // it alone had held each block of MobileNetV2 int8 for a whole map:
      // 55.2 ms against 12.1 ms streamed).
      auto conv = dyn_cast<raptor::nn::ConvolutionOp>(op);
      bool depthwise = conv && sp::isDepthwise(conv);
      if (follow && lanes->count == 1 && lanes->tiles[0] == 0 && (!conv || depthwise) &&
          sp::rowsRead(&op, known, 0, 1))
        vectorRows = cast<RankedTensorType>(op.getResult(0).getType()).getShape()[*sp::rowDim(op.getResult(0).getType())];
      planned.push_back({&op, position, std::move(*lanes), vectorRows});
    }
    // Short lanes only where they still pack onto the cores (smaller
    // pieces can pack worse: three lanes of 6, 6 and 4 crossbars do not
    // fit cores of 8 beside others where two of 8 did).
    if (laneRowTiles > 0) {
      std::vector<int64_t> tiles;
      for (const PlannedOp &p : planned)
        tiles.insert(tiles.end(), p.lanes.tiles.begin(), p.lanes.tiles.end());
      if (sp::packs(tiles, int64_t(t.cores), int64_t(t.crossbarsPerCore))) {
        graph->setAttr("lane_tiles", builder.getI64IntegerAttr(laneRowTiles)); // the lowering tiles by it too
      } else {
        totalTiles = 0;
        for (PlannedOp &p : planned) {
          FailureOr<sp::Lanes> full = sp::lanesOf(p.op, t, 0);
          if (failed(full))
            return failure();
          p.lanes = std::move(*full);
          for (int64_t n : p.lanes.tiles)
            totalTiles += n;
        }
      }
    }
    int64_t chip = int64_t(t.cores) * t.crossbarsPerCore;
    if (totalTiles > chip) {
      func.emitError() << "the model needs " << totalTiles << " crossbars but the chip has "
                       << chip << " (" << t.cores << " cores x " << t.crossbarsPerCore << ")";
      return failure();
    }
    int64_t spare = std::max<int64_t>(0, int64_t(std::floor(replicationBudget * double(chip))) - totalTiles);
    std::vector<int64_t> copies = planCopies(planned, t, spare, rule, weighFollowers);
    if (rule == sp::ReplicationRule::Balance)
      graph->setAttr("copies_weighed_by", builder.getStringAttr(weighFollowers ? "matrix and followers" : "matrix"));
    // Row blocks per copy (row-block): a convolution's copy computes its
    // rows in blocks of about row-block rows, one task each.
    std::vector<int64_t> blocks(planned.size(), 1);
    if (blockRows > 0)
      for (auto [index, p] : llvm::enumerate(planned))
        if (isa<raptor::nn::ConvolutionOp>(p.op) && !p.lanes.matrix.empty() && p.lanes.rows > 1)
          blocks[index] = ceilDiv(ceilDiv(p.lanes.rows, copies[index]), blockRows);

    // Element-wise and pooling operators on maps that arrive in row
    // copies (or blocks) follow them with as many copies (blocks) of
    // their own (at most their rows), so that no single lane gathers the
    // whole map.
    llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> copiesOf, plannedCopies;
    for (auto [index, p] : llvm::enumerate(planned))
      plannedCopies[p.op] = {copies[index], blocks[index]};
    for (auto [index, p] : llvm::enumerate(planned)) {
      if (p.vectorRows) {
        int64_t rows = p.vectorRows;
        int64_t n = 1, b = 1;
        bool fromInputs = true;
        for (Value operand : p.op->getOperands())
          if (Operation *def = operand.getDefiningOp()) {
            auto [copiesOfDef, blocksOfDef] = copiesOf.lookup(def);
            n = std::max(n, copiesOfDef);
            b = std::max(b, blocksOfDef);
            fromInputs = false;
          }
        // On the model's inputs alone (the first encoder), it leads: as
        // many copies as its one reader takes (past an observation
        // point), which then reads its rows from them, not the whole
        // input from one core. (Leading after any operator in no copies
        // made U-Net int8 676.7 ms against 508.5.)
        Operation *reader = p.op;
        while (fromInputs && reader->hasOneUse()) {
          reader = *reader->getUsers().begin();
          if (!isa<raptor::codec::ObserveOp>(reader)) {
            auto [readerCopies, readerBlocks] = plannedCopies.lookup(reader);
            n = std::max(n, readerCopies);
            b = std::max(b, readerBlocks);
            break;
          }
        }
        copies[index] = std::min(n, rows);
        blocks[index] = std::max<int64_t>(1, std::min(b, rows / copies[index]));
      }
      copiesOf[p.op] = {copies[index], blocks[index]};
      // An upsampled map is its producer's pieces, each upsampled where it
      // is (raptor-lower-to-pim): its readers follow the producer's
      // copies, reading their rows through it. (Gathered whole, U-Net
      // int8's last encoder held an 18 MiB map on one core.)
      if (isa<raptor::nn::UpsampleNearest2dOp>(p.op))
        if (Operation *def = p.op->getOperand(0).getDefiningOp())
          copiesOf[p.op] = copiesOf.lookup(def);
    }

    struct Produced {
      SmallVector<Value> tasks;
      SmallVector<std::pair<int64_t, int64_t>> rows; // per task (all rows when it is no copy)
      SmallVector<int64_t> bytes;                    // per task
    };
    llvm::DenseMap<Value, Produced> producers;
    // Task names are the operators' location names, else their kinds: one
    // used again takes a number (_1, _2, ...), so that every task a report
    // or a timeline names is one operator's (a model parsed from text has
    // file locations only: all its convolutions were "convolution").
    llvm::StringMap<unsigned> baseUses;
    llvm::StringSet<> taken;
    for (auto [index, p] : llvm::enumerate(planned)) {
      Operation &op = *p.op;
      const sp::Lanes &lanes = p.lanes;
      int64_t n = copies[index];
      // Split: its tasks compute ranges of output rows (copies, blocks).
      bool split = n > 1 || blocks[index] > 1;
      bool followsRows = split && lanes.matrix.empty();
      int64_t outRows = followsRows ? p.vectorRows : lanes.rows;
      // The dependencies of the task computing output rows [begin, end)
      // and what it receives from each: the producer tasks holding rows
      // it reads, the rows they share (every producer task for an
      // operator that is not split). Without a row view of the
      // producers, a copy of a lane still receives only the input rows
      // its windows read.
      auto depsOf = [&](int64_t begin, int64_t end, SmallVector<Value> &deps, SmallVector<int64_t> &bytes) {
        std::optional<std::pair<int64_t, int64_t>> need;
        int64_t neededRows = lanes.inputRows;
        if (split) {
          need = sp::rowsRead(&op, known, begin, end);
          neededRows = std::min(lanes.inputRows, (end - begin) * lanes.stride + lanes.halo);
        }
        for (Value operand : op.getOperands()) {
          auto it = producers.find(operand);
          if (it == producers.end())
            continue; // a graph input or weight, resident before the run
          auto type = dyn_cast<RankedTensorType>(operand.getType());
          std::optional<size_t> dim = sp::rowDim(operand.getType());
          bool aligned = need && dim && type.getShape()[*dim] > 1;
          for (auto [lane, rows, held] : llvm::zip(it->second.tasks, it->second.rows, it->second.bytes)) {
            int64_t b = held;
            bool heldRows = rows.second != sp::kAllRows.second;
            if (aligned && heldRows) {
              int64_t lo = std::max(rows.first, need->first), hi = std::min(rows.second, need->second);
              if (lo >= hi)
                continue;
              b = ceilDiv(b * (hi - lo), rows.second - rows.first);
            } else if (split && !followsRows) {
              b = ceilDiv(b * neededRows, std::max<int64_t>(lanes.inputRows, 1));
            } else if (aligned) { // a follower's rows of a whole tensor (ShuffleNet's half that skips the branch)
              int64_t height = type.getShape()[*dim];
              int64_t lo = std::clamp<int64_t>(need->first, 0, height), hi = std::clamp<int64_t>(need->second, 0, height);
              b = ceilDiv(b * std::max<int64_t>(hi - lo, 0), height);
            }
            deps.push_back(lane);
            bytes.push_back(std::max<int64_t>(1, b));
          }
        }
      };
      std::string base = op.getName().stripDialect().str();
      if (auto name = dyn_cast<NameLoc>(op.getLoc()))
        base = name.getName().str();
      for (std::string stem = base; !taken.insert(base).second;)
        base = stem + "_" + std::to_string(++baseUses[stem]);
      SmallVector<Value> results;
      SmallVector<std::pair<int64_t, int64_t>> resultRows;
      // The share of the output each task holds: its rows of its lane's
      // columns (a lane of partial sums holds them as 4-byte sums, which
      // its readers add).
      SmallVector<double> shares;
      SmallVector<bool> sums;
      for (unsigned l = 0; l < lanes.count; ++l)
        for (int64_t k = 0; k < n; ++k) {
          auto [copyBegin, copyEnd] = n > 1 ? sp::rowsOfCopy(outRows, n, k) : std::pair<int64_t, int64_t>{0, outRows};
          int64_t copyBlocks = std::max<int64_t>(1, std::min(blocks[index], copyEnd - copyBegin));
          std::string copySuffix = "#" + std::to_string(l) + (k ? "@" + std::to_string(k) : "");
          std::string weight = lanes.tiles[l] ? (lanes.weight.empty() ? base : lanes.weight) + copySuffix : "";
          Value previousBlock;
          for (int64_t j = 0; j < copyBlocks; ++j) {
            auto [blockBegin, blockEnd] = sp::rowsOfCopy(copyEnd - copyBegin, copyBlocks, j);
            int64_t begin = copyBegin + blockBegin, end = copyBegin + blockEnd;
            SmallVector<Value> deps;
            SmallVector<int64_t> bytes;
            depsOf(begin, end, deps, bytes);
            // A later block of a lane's copy runs after the one before it, on
            // its crossbars. (An element-wise operator's blocks hold no
            // crossbars: they are copies like any other.)
            bool onCrossbars = !lanes.matrix.empty() && copyBlocks > 1;
            if (previousBlock && onCrossbars) {
              deps.push_back(previousBlock);
              bytes.push_back(0);
            }
            int64_t tiles = j == 0 ? lanes.tiles[l] : 0;
            std::string suffix = copySuffix + (copyBlocks > 1 ? "/" + std::to_string(j) : "");
            DenseI64ArrayAttr rowTiles, colTiles, rows;
            if (!lanes.matrix.empty()) {
              const sp::MatrixTiling::Lane &m = lanes.matrix[l];
              rowTiles = builder.getDenseI64ArrayAttr({m.rowBegin, m.rowEnd});
              colTiles = builder.getDenseI64ArrayAttr({m.colBegin, m.colEnd});
            }
            double ns = lanes.ns[l];
            std::pair<int64_t, int64_t> span = sp::kAllRows;
            if (split) {
              span = {begin, end};
              rows = builder.getDenseI64ArrayAttr({begin, end});
              ns *= double(end - begin) / double(outRows);
            }
            auto task = sp::TaskOp::create(
                builder, op.getLoc(), sp::TaskType::get(&getContext()), builder.getStringAttr(base + suffix), deps,
                builder.getDenseI64ArrayAttr(bytes), builder.getI64IntegerAttr(int64_t(std::ceil(ns - 1e-9))),
                builder.getI64IntegerAttr(tiles), weight.empty() ? StringAttr() : builder.getStringAttr(weight),
                builder.getStringAttr(op.getName().getStringRef()), builder.getI64IntegerAttr(p.position),
                builder.getI64IntegerAttr(l), rowTiles, colTiles, rows, builder.getI64IntegerAttr(k), IntegerAttr(),
                IntegerAttr(), IntegerAttr(), BoolAttr(),
                onCrossbars ? builder.getI64IntegerAttr(j) : IntegerAttr(), IntegerAttr());
            results.push_back(task.getDone());
            resultRows.push_back(span);
            double share = split ? double(end - begin) / double(outRows) : 1.0;
            if (!lanes.matrix.empty()) {
              const sp::MatrixTiling::Lane &m = lanes.matrix[l];
              share *= double(std::min(lanes.cols, m.colEnd * t.crossbarCols) - m.colBegin * t.crossbarCols) /
                       double(lanes.cols);
              sums.push_back(m.partial);
            } else {
              share /= double(lanes.count);
              sums.push_back(false);
            }
            shares.push_back(share);
            previousBlock = task.getDone();
          }
        }
      for (Value r : op.getResults())
        if (isa<RankedTensorType>(r.getType())) {
          // Rows of maps are in the result's own coordinates only for a
          // map (4-d, or a view of one keeping its rows); otherwise every
          // task holds "all rows".
          SmallVector<std::pair<int64_t, int64_t>> rowsHeld(resultRows);
          auto type = cast<RankedTensorType>(r.getType());
          std::optional<size_t> dim = sp::rowDim(type);
          if (!dim || (type.getRank() != 4 && !followsRows) ||
              (split && !followsRows && lanes.rows != type.getShape()[*dim]))
            for (auto &span : rowsHeld)
              span = sp::kAllRows;
          SmallVector<int64_t> bytes;
          for (auto [share, partial] : llvm::zip(shares, sums)) {
            double whole = partial ? double(4 * cast<RankedTensorType>(r.getType()).getNumElements())
                                   : double(sp::tensorBytes(r));
            bytes.push_back(std::max<int64_t>(1, int64_t(std::ceil(share * whole))));
          }
          producers[r] = {results, rowsHeld, bytes};
        }
    }
    return graph;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<raptor::pim::TargetAttr> targetAttr = moduleTarget(module);
    if (failed(targetAttr))
      return signalPassFailure();
    const raptor::pim::TargetModel t = targetAttr->getModel();
    if (failed(raptor::nn::verifyTensorSizes(module)))
      return signalPassFailure();
    sp::ReplicationRule rule = replicate;
    if (rule == sp::ReplicationRule::Auto)
      rule = mode == sp::ScheduleMode::Pipeline ? sp::ReplicationRule::Balance : sp::ReplicationRule::Time;
    if (rowBlock < 0) {
      module.emitError() << "row-block must be a number of rows (0: whole tensors), not " << int64_t(rowBlock);
      return signalPassFailure();
    }
    if (rowBlock > 0 && mode == sp::ScheduleMode::Pipeline) {
      module.emitError() << "row-block streams rows within one inference: a latency-mode schedule (mode=latency)";
      return signalPassFailure();
    }
    if (laneTiles < 0) {
      module.emitError() << "lane-tiles must be a number of row tiles (0: as many as a core holds), not "
                         << int64_t(laneTiles);
      return signalPassFailure();
    }
    if (laneTiles > 0 && mode == sp::ScheduleMode::Pipeline) {
      module.emitError() << "lane-tiles shortens the copies of one inference's critical path: a latency-mode "
                            "schedule (mode=latency)";
      return signalPassFailure();
    }
    if (laneTilesChallengers && laneTiles < 2) {
      module.emitError() << "lane-tiles-challengers builds graphs of shorter lanes than lane-tiles=T: it needs "
                            "T > 1, not "
                         << int64_t(laneTiles);
      return signalPassFailure();
    }
    if (rowBlockAlternative && rowBlock <= 0) {
      module.emitError() << "row-block-alternative compares row streaming with whole tensors: it needs "
                            "row-block=R with R > 0";
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
      std::string name = func.getSymName().str() + "_tasks";
      FailureOr<sp::GraphOp> graph = buildGraph(module, func, name, *targetAttr, t, rule, rowBlock, laneTiles);
      if (failed(graph))
        return signalPassFailure();
      // Graphs with the same tasks (names, which count lanes, and rows)
      // are the same graph: one is scheduled.
      auto tasksOf = [](sp::GraphOp g) {
        std::vector<std::pair<std::string, std::vector<int64_t>>> tasks;
        for (sp::TaskOp task : g.getBody().getOps<sp::TaskOp>())
          tasks.push_back({task.getName().str(), task.getRows() ? std::vector<int64_t>(task.getRows()->begin(),
                                                                                        task.getRows()->end())
                                                                : std::vector<int64_t>()});
        return tasks;
      };
      auto markRowBlock = [&](sp::GraphOp g, int64_t rows) {
        g->setAttr("row_block", IntegerAttr::get(IntegerType::get(&getContext(), 64), rows));
      };
      if (rowBlock > 0)
        markRowBlock(*graph, int64_t(rowBlock));
      // Lanes shorter than the graph's challenge it (with the same rows).
      SmallVector<sp::GraphOp> shorterLanes;
      for (int64_t height = laneTilesChallengers ? int64_t(laneTiles) - 1 : 0; height >= 1; --height) {
        FailureOr<sp::GraphOp> lanes =
            buildGraph(module, func, name + "_lanes" + std::to_string(height), *targetAttr, t, rule, rowBlock, height);
        if (failed(lanes))
          return signalPassFailure();
        if (tasksOf(*graph) == tasksOf(*lanes)) {
          lanes->erase();
          continue;
        }
        if (rowBlock > 0)
          markRowBlock(*lanes, int64_t(rowBlock));
        (*lanes)->setAttr("challenger_of", FlatSymbolRefAttr::get((*graph).getSymNameAttr()));
        shorterLanes.push_back(*lanes);
      }
      // Copies weighed with their followers challenge the plan of their
      // MVMs alone: which balances the busiest core better depends on the
      // model (int8 MobileNetV2 2.39 -> 2.04 ms, ResNet-18 4.10 -> 4.38).
      if (balanceFollowersChallenger && rule == sp::ReplicationRule::Balance) {
        FailureOr<sp::GraphOp> followers =
            buildGraph(module, func, name + "_followers", *targetAttr, t, rule, rowBlock, laneTiles, true);
        if (failed(followers))
          return signalPassFailure();
        if (tasksOf(*graph) == tasksOf(*followers))
          followers->erase();
        else
          (*followers)->setAttr("challenger_of", FlatSymbolRefAttr::get((*graph).getSymNameAttr()));
      }
      if (rowBlockAlternative) {
        // The whole-tensor graph beside it (with the same lanes):
        // raptor-schedule-spatial keeps the one whose programs the queue
        // model finds faster.
        FailureOr<sp::GraphOp> whole = buildGraph(module, func, name + "_whole", *targetAttr, t, rule, 0, laneTiles);
        if (failed(whole))
          return signalPassFailure();
        // A model without streamed rows (no convolution to split, a
        // transformer) gives the same tasks twice: one graph is scheduled.
        if (tasksOf(*graph) == tasksOf(*whole)) {
          whole->erase();
          (*graph)->removeAttr("row_block");
          for (sp::GraphOp lanes : shorterLanes)
            lanes->removeAttr("row_block");
          continue;
        }
        (*whole)->setAttr("alternative_of", FlatSymbolRefAttr::get((*graph).getSymNameAttr()));
        // Blocks of half as many rows challenge the streamed graph: on the
        // largest maps they let more layers overlap (U-Net int8: 452
        // against 533 ms with 8 rows); elsewhere copies hold fewer rows
        // than a block and the graphs are the same.
        if (rowBlock > 1) {
          int64_t half = int64_t(rowBlock) / 2;
          FailureOr<sp::GraphOp> halves = buildGraph(module, func, name + "_half", *targetAttr, t, rule, half, laneTiles);
          if (failed(halves))
            return signalPassFailure();
          if (tasksOf(*graph) == tasksOf(*halves)) {
            halves->erase();
          } else {
            markRowBlock(*halves, half);
            (*halves)->setAttr("challenger_of", FlatSymbolRefAttr::get((*graph).getSymNameAttr()));
          }
        }
      }
    }
  }
};

} // namespace
