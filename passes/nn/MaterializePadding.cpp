//===- MaterializePadding.cpp - Padding as an operator of its own -*- C++ -*-===//
//
// raptor-materialize-padding: the codec-placement paper's graphs carry
// padding as `aten.constant_pad_nd` before convolutions and max-pools, and
// its cost model counts that operator's reads; torch.export folds padding
// into the consumers. Each padded convolution gets zeros in front, each
// padded max-pool -inf (the identity of max), and loses its own padding.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <limits>

namespace raptor {
#define GEN_PASS_DEF_MATERIALIZEPADDING
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

/// constant_pad_nd's `pad` for symmetric spatial `padding` (in dimension
/// order): (before, after) pairs from the last dimension backwards.
SmallVector<int64_t> padPairs(ArrayRef<int64_t> padding) {
  SmallVector<int64_t> pad;
  for (int64_t p : llvm::reverse(padding))
    pad.append({p, p});
  return pad;
}

bool anyNonZero(ArrayRef<int64_t> values) {
  return llvm::any_of(values, [](int64_t v) { return v != 0; });
}

/// `input` padded by `padding` with `value`, in front of `user`.
Value pad(OpBuilder &b, Operation *user, Value input, ArrayRef<int64_t> padding, double value) {
  b.setInsertionPoint(user);
  return nn::ConstantPadNdOp::create(b, user->getLoc(), input,
                                     b.getDenseI64ArrayAttr(padPairs(padding)),
                                     b.getF64FloatAttr(value));
}

void materialize(nn::ConvolutionOp conv, OpBuilder &b) {
  if (conv.getTransposed() || !anyNonZero(conv.getPadding()))
    return; // a transposed convolution's padding crops its output instead
  SmallVector<int64_t> zeros(conv.getPadding().size(), 0);
  conv.getInputMutable().assign(pad(b, conv, conv.getInput(), conv.getPadding(), 0.0));
  conv.setPadding(zeros);
}

/// The pool's output shape may change in ceil mode (torch drops a last
/// window that would start in the right padding, not in padded data):
/// then the padding stays.
void materialize(nn::MaxPool2dOp pool, OpBuilder &b) {
  if (!anyNonZero(pool.getPadding()))
    return;
  Value padded = pad(b, pool, pool.getSelf(), pool.getPadding(),
                     -std::numeric_limits<double>::infinity());
  SmallVector<int64_t> zeros(pool.getPadding().size(), 0);
  auto unpadded = nn::MaxPool2dOp::create(b, pool.getLoc(), padded, pool.getKernelSizeAttr(),
                                          pool.getStrideAttr(), b.getDenseI64ArrayAttr(zeros),
                                          pool.getDilationAttr(), pool.getCeilModeAttr());
  if (unpadded->getResultTypes() != pool->getResultTypes()) {
    unpadded->erase();
    padded.getDefiningOp()->erase();
    return;
  }
  pool->replaceAllUsesWith(unpadded);
  pool->erase();
}

struct MaterializePaddingPass : raptor::impl::MaterializePaddingBase<MaterializePaddingPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    SmallVector<Operation *> padded;
    getOperation().walk([&](Operation *op) {
      if (isa<nn::ConvolutionOp, nn::MaxPool2dOp>(op))
        padded.push_back(op);
    });
    for (Operation *op : padded) {
      if (auto conv = dyn_cast<nn::ConvolutionOp>(op))
        materialize(conv, b);
      else
        materialize(cast<nn::MaxPool2dOp>(op), b);
    }
  }
};

} // namespace
