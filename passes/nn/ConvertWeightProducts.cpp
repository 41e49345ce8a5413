//===- ConvertWeightProducts.cpp - Products by weights as linear layers ---===//
//
// raptor-convert-weight-products: a matrix product whose right operand is
// computed at compile time (einsum or `@` with a parameter) is a linear
// layer with the transposed operand as weight, which the back end maps on
// crossbars and codec placement gives an INT8 variant.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/CompileTime.h"
#include "passes/nn/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace raptor {
#define GEN_PASS_DEF_CONVERTWEIGHTPRODUCTS
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

struct ConvertWeightProductsPass : raptor::impl::ConvertWeightProductsBase<ConvertWeightProductsPass> {
  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      nn::CompileTimeValues known(func.front());
      SmallVector<nn::MatmulOp> products(func.getOps<nn::MatmulOp>());
      for (nn::MatmulOp product : products)
        convert(product, known);
    }
  }

  void convert(nn::MatmulOp product, nn::CompileTimeValues &known) {
    Value lhs = product.getSelf(), rhs = product.getOther();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    ArrayRef<int64_t> w = rhsType.getShape();
    // A weight (in, out), or (1, in, out) applied to a batch of one.
    bool matrix = rhsType.getRank() == 2 || (rhsType.getRank() == 3 && w[0] == 1 && lhsType.getRank() == 3);
    if (!matrix || lhsType.getRank() < 2 || known.contains(lhs) || !known.contains(rhs) ||
        !rhsType.getElementType().isF32())
      return;
    int64_t in = w[w.size() - 2], out = w[w.size() - 1];
    SmallVector<int64_t> layerShape(lhsType.getShape());
    layerShape.back() = out;
    if (ArrayRef<int64_t>(layerShape) != cast<RankedTensorType>(product.getOut().getType()).getShape())
      return; // (a broadcast the layer does not express)
    OpBuilder b(product);
    Location loc = product.getLoc();
    Value weight = rhsType.getRank() == 2 ? rhs : nn::ViewOp::create(b, loc, rhs, b.getDenseI64ArrayAttr({in, out}));
    weight = nn::PermuteOp::create(b, loc, weight, b.getDenseI64ArrayAttr({1, 0}));
    product.getOut().replaceAllUsesWith(nn::LinearOp::create(b, loc, lhs, weight, Value()));
    product->erase();
  }
};

} // namespace
