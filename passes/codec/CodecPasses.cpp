//===- CodecPasses.cpp - Codec placement passes -----------------*- C++ -*-===//
//
// Thin pass wrappers over CodecGraph (the algorithms) plus the two steps that
// rewrite IR: marker insertion (Algorithms 2-6) and materialization.
//
//===----------------------------------------------------------------------===//
#include "passes/codec/Passes.h"
#include "passes/codec/CodecCosts.h"
#include "passes/codec/CodecGraph.h"
#include "passes/codec/MarkerCodecs.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

namespace raptor {
#define GEN_PASS_DEF_INSERTCODECMARKERS
#define GEN_PASS_DEF_ASSIGNCODECSEMANTICS
#define GEN_PASS_DEF_ASSIGNLOCALCODECSEMANTICS
#define GEN_PASS_DEF_INDUCECODECSUBGRAPHS
#define GEN_PASS_DEF_COALESCECODECSUBGRAPHS
#define GEN_PASS_DEF_MATERIALIZECODECS
#define GEN_PASS_DEF_EXPANDREQUANTIZERS
#define GEN_PASS_DEF_PLACECODECS
#define GEN_PASS_DEF_REPORTCODECCOSTS
#include "passes/codec/Passes.h.inc"
} // namespace raptor

using namespace mlir;
using namespace raptor::codec;

namespace {

/// The policy and table a pass runs with: the `policy` option, else the
/// function's `codec.policy`, else W; the `table` option, else Table 5.
struct Rules {
  CommutationTable table;
  Policy policy;
};

FailureOr<Rules> resolveRules(func::FuncOp func, PolicyChoice policyOption,
                              StringRef tableOption) {
  StringRef name = "W";
  if (policyOption != PolicyChoice::Function)
    name = nameOf(llvm::ArrayRef(kPolicyChoices), policyOption);
  else if (auto attr = func->getAttrOfType<StringAttr>(CodecDialect::kPolicyAttrName))
    name = attr.getValue();
  std::optional<Policy> policy = parsePolicy(name);
  if (!policy)
    return func.emitError() << "unknown compression policy '" << name
                            << "' (expected Z, Y, X or W)";
  std::string message;
  FailureOr<CommutationTable> table = CommutationTable::load(
      tableOption, func.getContext(), [&](const Twine &m) { message = m.str(); });
  if (failed(table))
    return func.emitError() << message;
  return Rules{std::move(*table), *policy};
}

SmallVector<func::FuncOp> graphFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      funcs.push_back(func);
  return funcs;
}

Type elementOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }

/// Algorithms 2-6 on the IR: an input marker on every in-edge of every
/// non-marker (unless it already comes from one), then an output marker
/// after every used result and argument (unless its only use is one).
LogicalResult insertMarkers(func::FuncOp func, const PortModel &ports, IdGenerator &ids) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("codec placement needs a function with a single block "
                          "(a dataflow graph)");
  MLIRContext *context = func.getContext();
  Block &block = func.front();
  OpBuilder builder(context);
  auto sem = [&](Type s, Type t) { return SemanticsAttr::get(context, ids.next(), s, t); };
  auto isMarker = [](Operation *op) { return isa_and_nonnull<MarkInputOp, MarkOutputOp>(op); };

  SmallVector<Operation *> nodes;
  for (Operation &op : block)
    if (!isMarker(&op))
      nodes.push_back(&op);
  // Algorithm 3.
  for (Operation *op : nodes)
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!isa<RankedTensorType>(value.getType()) || isa_and_nonnull<MarkInputOp>(value.getDefiningOp()))
        continue;
      auto [s, t] = ports.portTypes(op, PortModel::inputPort(op, operand.getOperandNumber()),
                                    elementOf(value));
      builder.setInsertionPoint(op);
      auto marker = MarkInputOp::create(builder, op->getLoc(), value.getType(), value,
                                        sem(s, s), sem(s, t), SemanticsAttr(), SemanticsAttr());
      operand.set(marker.getResult());
    }
  // Algorithm 5.
  auto markOutput = [&](Value value, Type s, Type t, Location loc) {
    if (value.use_empty() || !isa<RankedTensorType>(value.getType()))
      return;
    if (value.hasOneUse() && isa<MarkOutputOp>(*value.getUsers().begin()))
      return;
    auto marker = MarkOutputOp::create(builder, loc, value.getType(), value, sem(s, t),
                                       sem(s, s), SemanticsAttr(), SemanticsAttr());
    value.replaceAllUsesExcept(marker.getResult(), marker);
  };
  builder.setInsertionPointToStart(&block);
  for (BlockArgument arg : block.getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      markOutput(arg, elementOf(arg), elementOf(arg), func.getLoc());
  for (Operation *op : nodes) {
    builder.setInsertionPointAfter(op);
    for (OpResult result : op->getResults()) {
      if (!isa<RankedTensorType>(result.getType()))
        continue;
      auto [s, t] = ports.portTypes(op, PortModel::outputPort(op, result.getResultNumber()),
                                    elementOf(result));
      markOutput(result, s, t, op->getLoc());
    }
  }
  func->setAttr(CodecDialect::kPolicyAttrName,
                StringAttr::get(context, policyName(ports.getPolicy())));
  return success();
}

/// The graph of a marked function with its semantics read from the markers.
FailureOr<CodecGraph> readGraph(func::FuncOp func) {
  FailureOr<CodecGraph> graph = CodecGraph::build(func);
  if (failed(graph) || failed(graph->checkMarked()) || failed(graph->readSemantics()))
    return failure();
  return graph;
}

/// The target view: observation points at the dominators of encoded
/// subgraphs, then every marker replaced by what it materializes to.
void materializeCodecs(CodecGraph &graph, const std::vector<Subgraph> &subgraphs) {
  MLIRContext *context = graph.function().getContext();
  OpBuilder builder(context);
  std::vector<Edge> &edges = graph.getEdges();
  // Read before observation points redirect operands, as the cost model reads them.
  std::vector<MarkerCodec> codecs = markerCodecs(graph);
  for (const Subgraph &h : subgraphs) {
    if (h.removed || !h.sem.encoded() || h.dominator < 0)
      continue;
    unsigned d = h.dominator;
    SemanticsAttr sem = toAttr(context, h.sem);
    // Observe the data entering the dominator within the subgraph, or (for
    // an entry) the data it sends into the subgraph.
    SmallVector<unsigned> inside;
    for (unsigned e : graph.inEdges(d))
      if (edges[e].sem.id == h.sem.id)
        inside.push_back(e);
    if (!inside.empty()) {
      for (unsigned e : inside) {
        OpOperand *operand = edges[e].operand;
        builder.setInsertionPoint(operand->getOwner());
        auto observe = ObserveOp::create(builder, operand->getOwner()->getLoc(),
                                         operand->get().getType(), operand->get(), sem);
        operand->set(observe.getResult());
      }
      continue;
    }
    llvm::SmallPtrSet<void *, 2> done;
    for (unsigned f : graph.outEdges(d)) {
      if (edges[f].sem.id != h.sem.id)
        continue;
      Value value = edges[f].operand->get();
      if (!done.insert(value.getAsOpaquePointer()).second)
        continue;
      if (Operation *def = value.getDefiningOp())
        builder.setInsertionPointAfter(def);
      else
        builder.setInsertionPointToStart(&graph.function().front());
      auto observe = ObserveOp::create(builder, graph.function().getLoc(), value.getType(),
                                       value, sem);
      value.replaceAllUsesExcept(observe.getResult(), observe);
    }
  }
  // Markers in block order: an identical codec reuses the value of the
  // first one, which comes earlier and so dominates its readers; so does a
  // decoder, from the first marker that decodes the same value.
  llvm::DenseMap<unsigned, Value> materialized, decoded;
  for (const MarkerCodec &c : codecs) {
    Operation *marker = graph.op(c.marker);
    Value value = marker->getOperand(0);
    builder.setInsertionPoint(marker);
    Location loc = marker->getLoc();
    Type type = value.getType();
    if (c.sharedWith) {
      value = (c.kind == CodecKind::Decode ? decoded : materialized).lookup(*c.sharedWith);
    } else if (c.kind == CodecKind::Requantize) {
      value = RequantizeOp::create(builder, loc, type, value, toAttr(context, c.from), toAttr(context, c.to));
    } else {
      if (c.decoderSharedWith)
        value = decoded.lookup(*c.decoderSharedWith);
      else if (c.kind == CodecKind::Decode || c.kind == CodecKind::DecodeEncode)
        value = DecodeOp::create(builder, loc, type, value, toAttr(context, c.from));
      if (c.kind != CodecKind::Encode)
        decoded[c.marker] = value;
      if (c.kind == CodecKind::Encode || c.kind == CodecKind::DecodeEncode)
        value = EncodeOp::create(builder, loc, type, value, toAttr(context, c.to));
    }
    materialized[c.marker] = value;
    marker->getResult(0).replaceAllUsesWith(value);
  }
  for (const MarkerCodec &c : codecs)
    graph.op(c.marker)->erase();
}

LogicalResult writeReport(Operation *anchor, StringRef format, StringRef output,
                          const std::vector<CodecCosts> &costs) {
  if (format != "table" && format != "json")
    return anchor->emitError() << "unknown format '" << format
                               << "' (expected 'table' or 'json')";
  std::string error;
  auto file = openOutputFile(output, &error);
  if (!file)
    return anchor->emitError() << error;
  if (format == "json") {
    llvm::json::Array all;
    for (const CodecCosts &c : costs)
      all.push_back(toJSON(c));
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(all))) << "\n";
  } else {
    for (const CodecCosts &c : costs)
      printTable(c, file->os());
  }
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

struct InsertCodecMarkersPass
    : raptor::impl::InsertCodecMarkersBase<InsertCodecMarkersPass> {
  using Base::Base;
  void runOnOperation() override {
    IdGenerator ids(getOperation());
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<Rules> rules = resolveRules(func, policy, table);
      if (failed(rules) ||
          failed(insertMarkers(func, PortModel(rules->table, rules->policy), ids)))
        return signalPassFailure();
    }
  }
};

struct AssignCodecSemanticsPass
    : raptor::impl::AssignCodecSemanticsBase<AssignCodecSemanticsPass> {
  using Base::Base;
  void runOnOperation() override {
    IdGenerator ids(getOperation());
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<Rules> rules = resolveRules(func, policy, table);
      FailureOr<CodecGraph> graph = CodecGraph::build(func);
      if (failed(rules) || failed(graph) || failed(graph->checkMarked()))
        return signalPassFailure();
      graph->assignSemantics(PortModel(rules->table, rules->policy), ids);
      graph->writeSemantics();
    }
  }
};

struct AssignLocalCodecSemanticsPass
    : raptor::impl::AssignLocalCodecSemanticsBase<AssignLocalCodecSemanticsPass> {
  using Base::Base;
  void runOnOperation() override {
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<Rules> rules = resolveRules(func, policy, table);
      FailureOr<CodecGraph> graph = CodecGraph::build(func);
      if (failed(rules) || failed(graph) || failed(graph->checkMarked()))
        return signalPassFailure();
      graph->assignLocalSemantics(PortModel(rules->table, rules->policy));
      graph->writeSemantics();
    }
  }
};

struct InduceCodecSubgraphsPass
    : raptor::impl::InduceCodecSubgraphsBase<InduceCodecSubgraphsPass> {
  void runOnOperation() override {
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<CodecGraph> graph = readGraph(func);
      if (failed(graph))
        return signalPassFailure();
      graph->writeDominators(graph->induceSubgraphs());
    }
  }
};

struct CoalesceCodecSubgraphsPass
    : raptor::impl::CoalesceCodecSubgraphsBase<CoalesceCodecSubgraphsPass> {
  void runOnOperation() override {
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<CodecGraph> graph = readGraph(func);
      if (failed(graph))
        return signalPassFailure();
      std::vector<Subgraph> subgraphs = graph->induceSubgraphs();
      graph->coalesce(subgraphs);
      graph->writeSemantics();
      graph->writeDominators(graph->induceSubgraphs());
    }
  }
};

struct MaterializeCodecsPass
    : raptor::impl::MaterializeCodecsBase<MaterializeCodecsPass> {
  void runOnOperation() override {
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<CodecGraph> graph = readGraph(func);
      if (failed(graph))
        return signalPassFailure();
      std::vector<Subgraph> subgraphs = graph->induceSubgraphs();
      graph->writeDominators({});
      materializeCodecs(*graph, subgraphs);
    }
  }
};

struct ExpandRequantizersPass
    : raptor::impl::ExpandRequantizersBase<ExpandRequantizersPass> {
  void runOnOperation() override {
    SmallVector<RequantizeOp> requantizers;
    getOperation().walk([&](RequantizeOp op) { requantizers.push_back(op); });
    OpBuilder builder(&getContext());
    for (RequantizeOp op : requantizers) {
      builder.setInsertionPoint(op);
      Type type = op.getType();
      Value decoded = DecodeOp::create(builder, op.getLoc(), type, op.getInput(), op.getFrom());
      op.replaceAllUsesWith(EncodeOp::create(builder, op.getLoc(), type, decoded, op.getTo()).getResult());
      op.erase();
    }
  }
};

struct PlaceCodecsPass : raptor::impl::PlaceCodecsBase<PlaceCodecsPass> {
  using Base::Base;
  void runOnOperation() override {
    IdGenerator ids(getOperation());
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<Rules> rules = resolveRules(func, policy, table);
      if (failed(rules))
        return signalPassFailure();
      PortModel ports(rules->table, rules->policy);
      if (failed(insertMarkers(func, ports, ids)))
        return signalPassFailure();
      FailureOr<CodecGraph> graph = CodecGraph::build(func);
      if (failed(graph))
        return signalPassFailure();
      if (placement == Placement::Local) {
        graph->assignLocalSemantics(ports);
      } else {
        graph->assignSemantics(ports, ids);
        if (placement == Placement::NonlocalCoalesced) {
          std::vector<Subgraph> subgraphs = graph->induceSubgraphs();
          graph->coalesce(subgraphs);
        }
      }
      std::vector<Subgraph> subgraphs = graph->induceSubgraphs();
      if (materialize) {
        materializeCodecs(*graph, subgraphs);
        continue;
      }
      graph->writeSemantics();
      graph->writeDominators(subgraphs);
    }
  }
};

struct ReportCodecCostsPass : raptor::impl::ReportCodecCostsBase<ReportCodecCostsPass> {
  using Base::Base;
  void runOnOperation() override {
    std::vector<CodecCosts> costs;
    for (func::FuncOp func : graphFunctions(getOperation())) {
      FailureOr<CodecGraph> graph = readGraph(func);
      if (failed(graph))
        return signalPassFailure();
      costs.push_back(computeCosts(*graph, graph->induceSubgraphs()));
    }
    if (failed(writeReport(getOperation(), format, output, costs)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
