//===- ExpandSelects.cpp - Selections by a known mask as arithmetic -*- C++ -*-===//
//
// raptor-expand-selects: an nn.where whose condition the compiler computes
// (a causal mask sliced from a constant buffer: eager attention's
// where(mask, scores, min)) and whose operands are computed at run time
// becomes products by the mask and a sum, which the vector unit computes
// (it has no select). A NaN guard after a softmax over a constant mask
// that leaves every row a finite entry guards nothing and goes. Passes.td
// gives the forms and their exactness.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/CompileTime.h"
#include "passes/nn/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

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

/// Whether every row of `mask` along `dim` (of a sum of `rank`
/// dimensions it broadcasts to) holds a finite value, and no element is
/// NaN or +inf: the softmax of a finite tensor plus it is then NaN nowhere.
bool everyRowFinite(DenseFPElementsAttr mask, int64_t dim, int64_t rank) {
  ArrayRef<int64_t> shape = mask.getType().getShape();
  int64_t own = dim - (rank - int64_t(shape.size()));
  SmallVector<APFloat> values(mask.getValues<APFloat>());
  if (llvm::any_of(values, [](const APFloat &x) { return x.isNaN() || (x.isInfinity() && !x.isNegative()); }))
    return false;
  int64_t extent = own >= 0 ? shape[size_t(own)] : 1;
  int64_t inner = 1;
  for (size_t d = size_t(std::max<int64_t>(own + 1, 0)); d < shape.size(); ++d)
    inner *= shape[d];
  for (size_t start = 0; start < values.size(); ++start) {
    if ((int64_t(start) / inner) % extent != 0)
      continue; // (each row from its first element)
    bool finite = false;
    for (int64_t k = 0; k < extent && !finite; ++k)
      finite = values[start + size_t(k * inner)].isFinite();
    if (!finite)
      return false;
  }
  return true;
}

/// Attention scores: a matrix product of run-time values, scaled by
/// constants (finite for finite inputs: no -inf fill of a run-time mask).
bool isScores(Value x, nn::CompileTimeValues &known) {
  while (Operation *op = x.getDefiningOp()) {
    if (isa<nn::MatmulOp, nn::LinearOp>(op))
      return !known.contains(x);
    if (!isa<nn::MulOp, nn::DivOp>(op) || op->getNumOperands() != 1)
      return false; // (a product or quotient by a scalar attribute only)
    x = op->getOperand(0);
  }
  return false;
}

/// A NaN guard replacing NaN only (ONNX exporters' `Where(IsNaN(p), 0, p)`
/// after a decoder's softmax) of a softmax of `x + mask`, the mask a
/// constant without a row that is all -inf (a causal triangle) and `x`
/// attention scores (isScores): for finite inputs the softmax has no NaN,
/// and the guard is its input.
bool guardsNothing(nn::NanToNumOp guard, nn::CompileTimeValues &known) {
  auto inf = [](std::optional<APFloat> x, bool negative) {
    return x && x->isInfinity() && x->isNegative() == negative;
  };
  auto softmax = guard.getSelf().getDefiningOp<nn::SoftmaxOp>();
  if (!inf(guard.getPosinf(), false) || !inf(guard.getNeginf(), true) || !softmax)
    return false;
  auto sum = softmax.getSelf().getDefiningOp<nn::AddOp>();
  if (!sum || !sum.getOther() || sum.getAlpha().convertToDouble() != 1.0)
    return false;
  int64_t rank = cast<ShapedType>(sum.getOut().getType()).getRank();
  int64_t dim = (int64_t(softmax.getDim()) + rank) % rank;
  for (auto [x, m] : {std::pair(sum.getSelf(), sum.getOther()), std::pair(sum.getOther(), sum.getSelf())}) {
    DenseFPElementsAttr mask;
    if (isScores(x, known) && matchPattern(m, m_Constant(&mask)) && everyRowFinite(mask, dim, rank))
      return true;
  }
  return false;
}

struct ExpandSelectsPass : raptor::impl::ExpandSelectsBase<ExpandSelectsPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      nn::CompileTimeValues known(func.getBody().front());
      SmallVector<nn::NanToNumOp> guards;
      func.walk([&](nn::NanToNumOp g) { guards.push_back(g); });
      for (nn::NanToNumOp g : guards)
        if (guardsNothing(g, known)) {
          g.getOut().replaceAllUsesWith(g.getSelf());
          g.erase();
        }
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
