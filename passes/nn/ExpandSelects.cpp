//===- ExpandSelects.cpp - Selections by a known mask as arithmetic -*- C++ -*-===//
//
// raptor-expand-selects: an nn.where whose condition the compiler computes
// (a causal mask sliced from a constant buffer: eager attention's
// where(mask, scores, min)) and whose operands are computed at run time
// becomes products by the mask and a sum, which the vector unit computes
// (it has no select). Passes.td gives the forms and their exactness.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/CompileTime.h"
#include "passes/nn/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace raptor {
#define GEN_PASS_DEF_EXPANDSELECTS
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

/// A scalar f32 nn.constant.
Value scalar(OpBuilder &b, Location loc, float x) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  return nn::ConstantOp::create(b, loc, DenseElementsAttr::get(type, ArrayRef<float>{x}));
}

struct ExpandSelectsPass : raptor::impl::ExpandSelectsBase<ExpandSelectsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      nn::CompileTimeValues known(func.getBody().front());
      SmallVector<nn::WhereOp> selects;
      func.walk([&](nn::WhereOp w) { selects.push_back(w); });
      for (nn::WhereOp w : selects) {
        auto type = cast<RankedTensorType>(w.getOut().getType());
        Value c = w.getCondition(), x = w.getSelf(), y = w.getOther();
        // Not real numbers, a condition computed at run time (no
        // lowering), or everything known (the compiler computes it).
        if (!type.getElementType().isF32() || !known.contains(c) || (known.contains(x) && known.contains(y)))
          continue;
        OpBuilder b(w);
        Location loc = w.getLoc();
        // The masks and the known side where it is picked are where ops of
        // compile-time operands: data the compiler computes, not work.
        Value zero = scalar(b, loc, 0.0f), one = scalar(b, loc, 1.0f);
        auto select = [&](Value t, Value f) -> Value { return nn::WhereOp::create(b, loc, c, t, f); };
        auto product = [&](Value v, Value mask) -> Value { return nn::MulOp::create(b, loc, v, mask, Attribute()); };
        // (One statement per op: the IR comes out in this order.)
        Value first = known.contains(x) ? product(y, select(zero, one)) : product(x, select(one, zero));
        Value second = known.contains(x)   ? select(x, zero)
                       : known.contains(y) ? select(zero, y)
                                           : product(y, select(zero, one));
        Value result = nn::AddOp::create(b, loc, first, second, Attribute(), b.getF64FloatAttr(1.0));
        if (result.getType() != type)
          result = nn::ExpandOp::create(b, loc, result, b.getDenseI64ArrayAttr(type.getShape()));
        w.getOut().replaceAllUsesWith(result);
        w.erase();
      }
    });
  }
};

} // namespace
