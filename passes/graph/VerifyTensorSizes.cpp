//===- VerifyTensorSizes.cpp - The raptor-verify-tensor-sizes pass -------===//
#include "passes/graph/Passes.h"

#include "dialects/nn/ElementCount.h"

namespace raptor {
#define GEN_PASS_DEF_VERIFYTENSORSIZES
#include "passes/graph/Passes.h.inc"
} // namespace raptor

namespace {
struct VerifyTensorSizesPass : public raptor::impl::VerifyTensorSizesBase<VerifyTensorSizesPass> {
  void runOnOperation() override {
    if (mlir::failed(raptor::nn::verifyTensorSizes(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
