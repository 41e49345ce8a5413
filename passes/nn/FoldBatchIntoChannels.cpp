//===- FoldBatchIntoChannels.cpp - A batch of maps as one map -----------===//
//
// raptor-fold-batch-into-channels: the PIM lowering convolves and pools one
// map (batch 1). Models give it several: MViTv2 pools each attention head
// by one depthwise convolution with the heads as the batch, and a model
// exported with a batch of 2 convolves both samples. A convolution of N
// maps of C channels is one convolution of a single map of N C channels in
// N times the groups, its weights (and bias) repeated per sample, so that
// sample n's channels meet only their own copy; a pooling is per channel
// already. Views around the rewritten op keep every other op's shapes.
// Done on nn for both frontends (it was a torch decomposition before).
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"

namespace raptor {
#define GEN_PASS_DEF_FOLDBATCHINTOCHANNELS
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

/// The batch of a static (N, C, H, W) map, or 1 for any other operand
/// (other ranks, dynamic shapes: the lowering's own errors name them).
int64_t batchOf(Value map) {
  auto type = dyn_cast<RankedTensorType>(map.getType());
  if (!type || type.getRank() != 4 || !type.hasStaticShape())
    return 1;
  return type.getDimSize(0);
}

/// (N, C, H, W) as (1, N C, H, W), of the same element type.
RankedTensorType asOneMap(Type t) {
  auto type = cast<RankedTensorType>(t);
  ArrayRef<int64_t> s = type.getShape();
  return RankedTensorType::get({1, s[0] * s[1], s[2], s[3]}, type.getElementType());
}

Value viewAs(OpBuilder &b, Location loc, Value x, RankedTensorType type) {
  return nn::ViewOp::create(b, loc, type, x, b.getDenseI64ArrayAttr(type.getShape()));
}

/// `op` applied to its first operand viewed as one map, every result
/// viewed back to its batch; `operands` replace the rest (the repeated
/// weights of a convolution).
Operation *onOneMap(Operation *op, ArrayRef<Value> operands) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value map = viewAs(b, loc, op->getOperand(0), asOneMap(op->getOperand(0).getType()));
  Operation *folded = b.clone(*op);
  folded->setOperand(0, map);
  for (auto [i, v] : llvm::enumerate(operands))
    folded->setOperand(unsigned(i + 1), v);
  for (auto [mine, theirs] : llvm::zip(folded->getResults(), op->getResults())) {
    mine.setType(asOneMap(theirs.getType()));
    // Only results read get a view (the lowering refuses max-pooling
    // indices that anything reads).
    if (!theirs.use_empty())
      theirs.replaceAllUsesWith(viewAs(b, loc, mine, cast<RankedTensorType>(theirs.getType())));
  }
  op->erase();
  return folded;
}

/// Weights (O, C/g, kh, kw) and bias (O) repeated N times along their
/// first dimension, the groups multiplied by N.
void foldConvolution(nn::ConvolutionOp op, int64_t n) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto repeat = [&](Value v) -> Value {
    return v ? nn::CatOp::create(b, loc, SmallVector<Value>(size_t(n), v), uint64_t(0)).getResult() : Value();
  };
  SmallVector<Value> operands = {repeat(op.getWeight())};
  if (Value bias = op.getBias())
    operands.push_back(repeat(bias));
  int64_t groups = int64_t(op.getGroups()) * n;
  onOneMap(op, operands)->setAttr("groups", b.getI64IntegerAttr(groups));
}

struct FoldBatchIntoChannelsPass : raptor::impl::FoldBatchIntoChannelsBase<FoldBatchIntoChannelsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> batched;
    getOperation().walk([&](Operation *op) {
      auto conv = dyn_cast<nn::ConvolutionOp>(op);
      bool windowed = (conv && !conv.getTransposed()) ||
                      isa<nn::MaxPool2dOp, nn::AvgPool2dOp, nn::AdaptiveAvgPool2dOp>(op);
      if (windowed && batchOf(op->getOperand(0)) > 1 && batchOf(op->getResult(0)) > 1)
        batched.push_back(op);
    });
    for (Operation *op : batched) {
      if (auto conv = dyn_cast<nn::ConvolutionOp>(op))
        foldConvolution(conv, batchOf(conv.getInput()));
      else
        onOneMap(op, {});
    }
  }
};

} // namespace
