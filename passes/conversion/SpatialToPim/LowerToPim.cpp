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
    SmallVector<raptor::spatial::GraphOp> graphs(module.getOps<raptor::spatial::GraphOp>());
    if (graphs.size() != 1) {
      module.emitError() << "raptor-lower-to-pim needs exactly one scheduled spatial.graph (found "
                         << graphs.size() << "); run raptor-build-compute-graph and raptor-schedule-spatial";
      return signalPassFailure();
    }
    raptor::spatial::GraphOp graph = graphs.front();
    auto name = graph.getFunctionAttr();
    auto func = name ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(graph, name) : func::FuncOp();
    if (!func || func.isExternal() || !func.getBody().hasOneBlock()) {
      graph.emitError("names no single-block function (its 'function' attribute)");
      return signalPassFailure();
    }
    const raptor::pim::TargetModel model = graph.getTarget().getModel();
    const raptor::pim::TargetModel *target = &model;
    std::shared_ptr<const raptor::nn::SafeTensorsFile> weights = preloaded;
    if (!weights && !weightsPath.empty()) {
      auto file = raptor::nn::SafeTensorsFile::open(weightsPath);
      if (!file) {
        module.emitError() << llvm::toString(file.takeError());
        return signalPassFailure();
      }
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
    if (failed(lowering.run()))
      return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> raptor::createLowerToPim(const LowerToPimOptions &options,
                                                     std::shared_ptr<const nn::SafeTensorsFile> weights) {
  return std::make_unique<LowerToPimPass>(options, std::move(weights));
}
