//===- ExpandPowers.cpp - Powers as the back end's operations ---*- C++ -*-===//
//
// raptor-expand-powers: squares, cubes and fourth powers become products,
// x**-0.5 and quotients by square roots become (products by) reciprocal
// square roots (the vector unit's
// rsqrt), so that L2 norms from either frontend reach the PIM lowering as
// operations it computes.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/CompileTime.h"
#include "passes/nn/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace raptor {
#define GEN_PASS_DEF_EXPANDPOWERS
#include "passes/nn/Passes.h.inc"
} // namespace raptor

#include <cmath>

using namespace mlir;
namespace nn = raptor::nn;

namespace {

bool hasExponent(nn::PowOp pow, double exponent) { return pow.getExponent().convertToDouble() == exponent; }

/// The divisor `other` of a quotient as a square root: (its radicand, the
/// lower clamp of the root if any, the expands between root and quotient).
struct Root {
  Value radicand;
  std::optional<double> atLeast;
  SmallVector<nn::ExpandOp> expands;
};

std::optional<Root> rootOf(Value other) {
  Root root;
  while (auto expand = other.getDefiningOp<nn::ExpandOp>()) {
    root.expands.push_back(expand);
    other = expand.getSelf();
  }
  if (auto clamp = other.getDefiningOp<nn::ClampOp>(); clamp && clamp.getMin() && !clamp.getMax()) {
    root.atLeast = clamp.getMin()->convertToDouble();
    other = clamp.getSelf();
  }
  auto pow = other.getDefiningOp<nn::PowOp>();
  if (!pow || !hasExponent(pow, 0.5))
    return std::nullopt;
  root.radicand = pow.getSelf();
  return root;
}

struct ExpandPowersPass : raptor::impl::ExpandPowersBase<ExpandPowersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> replaced;
    getOperation().walk([&](nn::PowOp pow) {
      OpBuilder b(pow);
      Location loc = pow.getLoc();
      Value x = pow.getSelf(), result;
      auto product = [&](Value a, Value c) -> Value { return nn::MulOp::create(b, loc, a, c, Attribute()); };
      // Products in torch's order: (x x) x for GPT-2's x**3, (x x)(x x).
      if (hasExponent(pow, 2.0))
        result = product(x, x);
      else if (hasExponent(pow, 3.0))
        result = product(product(x, x), x);
      else if (hasExponent(pow, 4.0)) {
        Value square = product(x, x);
        result = product(square, square);
      } else if (double e = pow.getExponent().convertToDouble(); e >= 5 && e <= 64 && e == std::floor(e)) {
        // Larger whole powers (Yoso's (1 - acos / pi) ** 9) by squaring:
        // the squares x, x^2, x^4 ... multiplied in where the exponent's
        // bits are set (a few float roundings from torch's pow).
        int64_t n = int64_t(e);
        Value square = x;
        for (; n; n >>= 1) {
          if (n & 1)
            result = result ? product(result, square) : square;
          if (n > 1)
            square = product(square, square);
        }
      } else if (hasExponent(pow, -0.5))
        result = nn::RsqrtOp::create(b, loc, x);
      else
        return;
      pow.getResult().replaceAllUsesWith(result);
      replaced.push_back(pow);
    });
    getOperation().walk([&](nn::DivOp div) {
      std::optional<Root> root = div.getOther() ? rootOf(div.getOther()) : std::nullopt;
      if (!root)
        return;
      OpBuilder b(div);
      Location loc = div.getLoc();
      Value r = root->radicand;
      // sqrt(b) clamped below by eps >= 0 is sqrt(max(b, eps^2)); a negative
      // bound never binds a root.
      if (root->atLeast && *root->atLeast > 0)
        r = nn::ClampOp::create(b, loc, r, b.getF64FloatAttr(*root->atLeast * *root->atLeast), FloatAttr());
      r = nn::RsqrtOp::create(b, loc, r);
      for (nn::ExpandOp expand : llvm::reverse(root->expands))
        r = nn::ExpandOp::create(b, expand.getLoc(), r, expand.getSizeAttr());
      div.getResult().replaceAllUsesWith(nn::MulOp::create(b, loc, div.getSelf(), r, Attribute()));
      replaced.push_back(div);
    });
    // A root left over (not a divisor: ConvNeXt V2's global response norm
    // divides the norms by their mean) computed at run time: the
    // reciprocal of its reciprocal root, which the vector unit has
    // (sqrt(0) = 1 / rsqrt(0) = 1 / inf = 0). The compiler computes known
    // roots as they are.
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      raptor::nn::CompileTimeValues known(func.getBody().front());
      func.walk([&](nn::PowOp pow) {
        if (!hasExponent(pow, 0.5) || pow->use_empty() || known.contains(pow.getSelf()))
          return;
        OpBuilder b(pow);
        Location loc = pow.getLoc();
        auto scalarType = RankedTensorType::get({}, b.getF32Type());
        Value one = nn::ConstantOp::create(b, loc, DenseElementsAttr::get(scalarType, ArrayRef<float>{1.0f}));
        Value root = nn::DivOp::create(b, loc, one, nn::RsqrtOp::create(b, loc, pow.getSelf()), Attribute());
        pow.getResult().replaceAllUsesWith(root);
        replaced.push_back(pow);
      });
    });
    // The replaced ops, then whatever only they used (the old roots).
    SmallVector<Operation *> dead(replaced.rbegin(), replaced.rend());
    while (!dead.empty()) {
      Operation *op = dead.pop_back_val();
      if (!op->use_empty() || !isa<nn::NNDialect>(op->getDialect()))
        continue;
      SmallVector<Value> operands(op->getOperands());
      op->erase();
      for (Value v : operands)
        if (Operation *def = v.getDefiningOp(); def && def->use_empty())
          dead.push_back(def);
    }
  }
};

} // namespace
