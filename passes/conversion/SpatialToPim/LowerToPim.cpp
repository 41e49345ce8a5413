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
    std::string message;
    FailureOr<raptor::pim::TargetModel> target =
        raptor::pim::TargetModel::load(graph.getTarget(), [&](const Twine &m) { message = m.str(); });
    if (failed(target)) {
      graph.emitError() << message;
      return signalPassFailure();
    }
    std::unique_ptr<raptor::nn::SafeTensorsFile> weights;
    if (!weightsPath.empty()) {
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
        target->localMemoryBytes, target->cellBits, target->weightBits);
    chip.getBody().emplaceBlock();
    chip->setAttr("target", b.getStringAttr(graph.getTarget()));
    raptor::pim::Lowering lowering(func, graph, *target, constants, chip);
    if (failed(lowering.run()))
      return signalPassFailure();
  }
};

} // namespace
