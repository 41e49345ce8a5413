//===- FoldBatchNorm.cpp - Inference batch norm into weights ----*- C++ -*-===//
//
// raptor-fold-batch-norm: an inference batch norm is a per-channel affine
// map y = x * s + t with s = gamma / sqrt(var + eps), t = beta - mean * s.
// After a convolution whose only user it is, it folds into the
// convolution's weights (w * s per output channel) and bias (b * s + t);
// elsewhere it becomes a multiply and an add. The new weight expressions
// are nn ops on weights, computed by the compiler (passes/nn/CompileTime).
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"
#include "passes/nn/CompileTime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace raptor {
#define GEN_PASS_DEF_FOLDBATCHNORM
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

/// `v` viewed as a per-channel vector along dimension 1 of a rank-`rank`
/// tensor (or dimension 0 when `alongFirst`).
Value perChannel(OpBuilder &b, Location loc, Value v, int64_t rank, bool alongFirst) {
  int64_t channels = cast<RankedTensorType>(v.getType()).getNumElements();
  SmallVector<int64_t> size(rank, 1);
  size[alongFirst ? 0 : 1] = channels;
  return nn::ViewOp::create(b, loc, v, b.getDenseI64ArrayAttr(size));
}

Value add(OpBuilder &b, Location loc, Value x, Value y, Attribute scalar = Attribute()) {
  return nn::AddOp::create(b, loc, x, y, scalar, FloatAttr());
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return nn::SubOp::create(b, loc, x, y, Attribute(), FloatAttr());
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) { return nn::MulOp::create(b, loc, x, y, Attribute()); }

struct FoldBatchNormPass : raptor::impl::FoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      nn::CompileTimeValues known(func.front());
      SmallVector<nn::BatchNormOp> norms(func.getOps<nn::BatchNormOp>());
      for (nn::BatchNormOp bn : norms)
        if (failed(fold(bn, known)))
          return signalPassFailure();
    }
  }

  LogicalResult fold(nn::BatchNormOp bn, nn::CompileTimeValues &known) {
    for (Value p : {bn.getWeight(), bn.getBias(), bn.getRunningMean(), bn.getRunningVar()})
      if (!known.contains(p))
        return success(); // statistics computed at run time: leave it
    if (!bn.getSaveMean().use_empty() || !bn.getSaveInvstd().use_empty())
      return success(); // the saved statistics are used: not an inference norm
    auto type = cast<RankedTensorType>(bn.getOut().getType());
    if (type.getRank() < 2)
      return bn.emitOpError("needs an input with a channel dimension (rank >= 2)");
    auto conv = bn.getInput().getDefiningOp<nn::ConvolutionOp>();
    bool intoConv = conv && conv->hasOneUse() && !conv.getTransposed() && known.contains(conv.getWeight()) &&
                    (!conv.getBias() || known.contains(conv.getBias()));
    // Weight expressions go before the convolution they fold into.
    OpBuilder b(intoConv ? conv.getOperation() : bn.getOperation());
    Location loc = bn.getLoc();
    // s = gamma * rsqrt(var + eps); t = beta - mean * s.
    Value var = add(b, loc, bn.getRunningVar(), Value(), b.getF64FloatAttr(bn.getEps().convertToDouble()));
    Value s = mul(b, loc, bn.getWeight(), nn::RsqrtOp::create(b, loc, var));
    Value t = sub(b, loc, bn.getBias(), mul(b, loc, bn.getRunningMean(), s));
    Value result;
    if (intoConv) {
      int64_t rank = cast<RankedTensorType>(conv.getWeight().getType()).getRank();
      Value weight = mul(b, loc, conv.getWeight(), perChannel(b, loc, s, rank, true));
      Value bias = conv.getBias() ? add(b, loc, mul(b, loc, conv.getBias(), s), t) : t;
      result = nn::ConvolutionOp::create(b, conv.getLoc(), conv.getInput(), weight, bias, conv.getStrideAttr(),
                                         conv.getPaddingAttr(), conv.getDilationAttr(), conv.getTransposedAttr(),
                                         conv.getOutputPaddingAttr(), conv.getGroupsAttr());
    } else {
      int64_t rank = type.getRank();
      Value scaled = mul(b, loc, bn.getInput(), perChannel(b, loc, s, rank, false));
      result = add(b, loc, scaled, perChannel(b, loc, t, rank, false));
    }
    bn.getOut().replaceAllUsesWith(result);
    bn->erase();
    if (conv && conv->use_empty())
      conv->erase();
    return success();
  }
};

} // namespace
