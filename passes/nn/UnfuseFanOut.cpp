//===- UnfuseFanOut.cpp - KV-head fan-out back to Llama's form -*- C++ -*-===//
//
// raptor-unfuse-fan-out: the importer fuses Llama's repeat_kv into one
// `nn.fan_out`; the codec-placement paper's SmolLM2 graph keeps the four
// operators (view with a unit dimension, expand, clone, view), and its
// traffic counts their reads. Fan-outs with repeats = 1 are explicit
// fan-out nodes (raptor-insert-fan-out) and stay.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"

namespace raptor {
#define GEN_PASS_DEF_UNFUSEFANOUT
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

struct UnfuseFanOutPass : raptor::impl::UnfuseFanOutBase<UnfuseFanOutPass> {
  void runOnOperation() override {
    SmallVector<nn::FanOutOp> fanOuts;
    getOperation().walk([&](nn::FanOutOp op) {
      if (op.getRepeats() > 1)
        fanOuts.push_back(op);
    });
    OpBuilder b(&getContext());
    for (nn::FanOutOp op : fanOuts) {
      auto type = cast<RankedTensorType>(op.getInput().getType());
      // In -rank..rank-1 (the op's verifier checks it), negative from the
      // end; the I64Attr's getter returns it as unsigned.
      int64_t dim = static_cast<int64_t>(op.getDim());
      if (dim < 0)
        dim += type.getRank();
      if (!type.hasStaticShape()) {
        op.emitError("cannot unfuse the fan-out of a dynamically shaped tensor (its views need static sizes)");
        return signalPassFailure();
      }
      // (.., heads, rest..) -> (.., heads, 1, rest..) -> (.., heads, repeats, rest..)
      SmallVector<int64_t> unit(type.getShape()), wide(type.getShape());
      unit.insert(unit.begin() + dim + 1, 1);
      wide.insert(wide.begin() + dim + 1, op.getRepeats());
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value v = nn::ViewOp::create(b, loc, op.getInput(), b.getDenseI64ArrayAttr(unit));
      v = nn::ExpandOp::create(b, loc, v, b.getDenseI64ArrayAttr(wide));
      v = nn::CloneOp::create(b, loc, v);
      v = nn::ViewOp::create(b, loc, v,
                             b.getDenseI64ArrayAttr(cast<RankedTensorType>(op.getType()).getShape()));
      op.replaceAllUsesWith(v);
      op.erase();
    }
  }
};

} // namespace
