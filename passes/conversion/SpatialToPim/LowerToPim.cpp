//===- LowerToPim.cpp - The raptor-lower-to-pim pass ------------*- C++ -*-===//
#include "passes/conversion/Passes.h"
#include "passes/conversion/SpatialToPim/Lowering.h"

#include "mlir/IR/SymbolTable.h"

namespace raptor {
#define GEN_PASS_DEF_LOWERTOPIM
#include "passes/conversion/Passes.h.inc"
} // namespace raptor

using namespace mlir;

namespace {

struct LowerToPimPass : raptor::impl::LowerToPimBase<LowerToPimPass> {
  using Base::Base;
  LowerToPimPass(const raptor::LowerToPimOptions &options, std::shared_ptr<const raptor::nn::SafeTensorsFile> weights)
      : Base(options), preloaded(std::move(weights)) {}

  /// Weights the caller opened (raptor compile opens the file once for
  /// calibration, the lowering and the report); else `weights=FILE`.
  std::shared_ptr<const raptor::nn::SafeTensorsFile> preloaded;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A `fallback_of` graph (raptor-schedule-spatial kept streamed rows over
    // whole tensors, or shorter lanes over taller ones) is lowered only when
    // the chosen programs do not fit: the fastest predicted first.
    SmallVector<raptor::spatial::GraphOp> graphs, fallbacks;
    for (auto graph : module.getOps<raptor::spatial::GraphOp>())
      (graph->hasAttr("fallback_of") ? fallbacks : graphs).push_back(graph);
    if (graphs.size() != 1) {
      module.emitError() << "raptor-lower-to-pim needs exactly one scheduled spatial.graph (found "
                         << graphs.size() << "); run raptor-build-compute-graph and raptor-schedule-spatial";
      return signalPassFailure();
    }
    auto predicted = [](raptor::spatial::GraphOp g) {
      IntegerAttr ns = g.getPredictedNs();
      return ns ? ns.getInt() : std::numeric_limits<int64_t>::max();
    };
    llvm::stable_sort(fallbacks, [&](auto a, auto b) { return predicted(a) < predicted(b); });
    SmallVector<raptor::spatial::GraphOp> candidates{graphs.front()};
    candidates.append(fallbacks);
    StringAttr name = graphs.front().getSymNameAttr();
    Attribute rowBlock = graphs.front()->getAttr("row_block"), laneTiles = graphs.front()->getAttr("lane_tiles");
    if (candidates.size() == 1) {
      if (failed(lowerFitting(module, graphs.front())))
        signalPassFailure();
      return;
    }
    std::string reason;
    for (size_t i = 0; i < candidates.size(); ++i) {
      raptor::spatial::GraphOp graph = candidates[i];
      LogicalResult lowered = failure();
      {
        // A failed attempt's errors are the next one's reason, not the
        // compile's.
        ScopedDiagnosticHandler quiet(&getContext(), [&](Diagnostic &d) {
          if (reason.empty() && d.getSeverity() == DiagnosticSeverity::Error)
            reason = d.str();
          return success();
        });
        lowered = lowerFitting(module, graph);
      }
      if (succeeded(lowered)) {
        for (raptor::spatial::GraphOp other : candidates)
          if (other != graph)
            other.erase();
        if (i > 0) {
          graph->removeAttr("fallback_of");
          graph.setSymNameAttr(name);
          // What the manifest reports as given up, and why.
          if (rowBlock != graph->getAttr("row_block"))
            graph->setAttr("row_block_fallback", StringAttr::get(&getContext(), reason));
          if (laneTiles != graph->getAttr("lane_tiles"))
            graph->setAttr("lane_tiles_fallback", StringAttr::get(&getContext(), reason));
        }
        return;
      }
      for (auto chip : llvm::make_early_inc_range(module.getOps<raptor::pim::ChipOp>()))
        chip.erase();
    }
    // None fits: the errors are the chosen graph's (a fallback's, another
    // schedule's, would name tasks the compile did not choose), lowered
    // once more for its diagnostics.
    for (raptor::spatial::GraphOp fallback : fallbacks)
      fallback.erase();
    (void)lowerFitting(module, graphs.front());
    signalPassFailure();
  }

  /// lower() with first-fit local memory, and once more with best fit when
  /// a core ran out of room: first fit can leave no gap large enough among
  /// many small ones (U-Net's streamed programs without copies, 0.3 MB
  /// short with 19 MB free). The programs that fit first are unchanged.
  LogicalResult lowerFitting(ModuleOp module, raptor::spatial::GraphOp graph) {
    bool outOfMemory = false;
    LogicalResult first = failure();
    {
      ScopedDiagnosticHandler quiet(&getContext(), [](Diagnostic &) { return success(); });
      first = lower(module, graph, /*bestFit=*/false, &outOfMemory);
    }
    if (succeeded(first))
      return success();
    for (auto chip : llvm::make_early_inc_range(module.getOps<raptor::pim::ChipOp>()))
      chip.erase();
    // Another failure is lowered again as it was, for its diagnostics.
    return lower(module, graph, /*bestFit=*/outOfMemory, nullptr);
  }

  /// The programs of `graph`'s function, in a new pim.chip.
  LogicalResult lower(ModuleOp module, raptor::spatial::GraphOp graph, bool bestFit, bool *outOfMemory) {
    auto name = graph.getFunctionAttr();
    auto func = name ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(graph, name) : func::FuncOp();
    if (!func || func.isExternal() || !func.getBody().hasOneBlock())
      return graph.emitError("names no single-block function (its 'function' attribute)");
    const raptor::pim::TargetModel model = graph.getTarget().getModel();
    const raptor::pim::TargetModel *target = &model;
    std::shared_ptr<const raptor::nn::SafeTensorsFile> weights = preloaded;
    if (!weights && !weightsPath.empty()) {
      auto file = raptor::nn::SafeTensorsFile::open(weightsPath);
      if (!file)
        return module.emitError() << llvm::toString(file.takeError());
      weights = std::move(*file);
    }
    raptor::nn::ConstantEvaluator constants(weights.get());
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto chip = raptor::pim::ChipOp::create(
        b, func.getLoc(), (func.getSymName() + "_chip").str(), target->cores, target->crossbarsPerCore,
        ArrayRef<int64_t>{int64_t(target->crossbarRows), int64_t(target->crossbarCols)},
        target->localMemoryBytes, target->cellBits, target->weightBits, graph.getTarget());
    chip.getBody().emplaceBlock();
    raptor::pim::Lowering lowering(func, graph, *target, constants, chip);
    lowering.bestFit = bestFit;
    LogicalResult result = lowering.run();
    if (outOfMemory)
      *outOfMemory = lowering.outOfMemory;
    return result;
  }
};

} // namespace

std::unique_ptr<mlir::Pass> raptor::createLowerToPim(const LowerToPimOptions &options,
                                                     std::shared_ptr<const nn::SafeTensorsFile> weights) {
  return std::make_unique<LowerToPimPass>(options, std::move(weights));
}
