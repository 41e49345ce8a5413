//===- ConvertWeightProducts.cpp - Products by weights as linear layers ---===//
//
// raptor-convert-weight-products: a matrix product whose right operand is
// computed at compile time (einsum or `@` with a parameter) is a linear
// layer with the transposed operand as weight, which the back end maps on
// crossbars and codec placement gives an INT8 variant. One whose left
// operand is (Perceiver's learned latents times the inputs' keys,
// W @ X^T) is the same layer on the transposed right operand, transposed
// back: W @ R = (R^T @ W^T)^T.
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

  /// `value` with its last two dimensions exchanged.
  static Value transposed(OpBuilder &b, Location loc, Value value) {
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    std::swap(dims[rank - 2], dims[rank - 1]);
    return nn::PermuteOp::create(b, loc, value, b.getDenseI64ArrayAttr(dims));
  }

  void convert(nn::MatmulOp product, nn::CompileTimeValues &known) {
    if (convertRightWeight(product, known) || convertLeftWeight(product, known))
      return;
    // A batch of weights (Perceiver's latents' queries, one matrix per
    // head), with any batch dimensions (ONNX keeps (1, heads, ...)): the
    // batch flattened, a product per entry, each a layer, concatenated.
    Value lhs = product.getSelf(), rhs = product.getOther();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t rank = lhsType.getRank();
    if (rank < 3 || rhsType.getRank() != rank || known.contains(lhs) == known.contains(rhs) ||
        lhsType.getShape().drop_back(2) != rhsType.getShape().drop_back(2))
      return;
    int64_t batch = 1;
    for (int64_t d : lhsType.getShape().drop_back(2))
      batch *= d;
    if (rank == 3 && batch == 1)
      return; // (the rules above decline it: a shape they do not express)
    int64_t m = lhsType.getShape()[rank - 2], k = lhsType.getShape()[rank - 1], n = rhsType.getShape()[rank - 1];
    OpBuilder b(product);
    Location loc = product.getLoc();
    if (rank > 3) {
      lhs = nn::ViewOp::create(b, loc, lhs, b.getDenseI64ArrayAttr({batch, m, k}));
      rhs = nn::ViewOp::create(b, loc, rhs, b.getDenseI64ArrayAttr({batch, k, n}));
    }
    auto entry = [&](Value v, int64_t i) -> Value {
      if (batch == 1)
        return v;
      return nn::SliceOp::create(b, loc, v, b.getI64IntegerAttr(0), b.getI64IntegerAttr(i), b.getI64IntegerAttr(i + 1),
                                 b.getI64IntegerAttr(1));
    };
    SmallVector<nn::MatmulOp> entries;
    SmallVector<Value> results;
    for (int64_t i = 0; i < batch; ++i) {
      Value self = entry(lhs, i);
      Value other = entry(rhs, i);
      entries.push_back(nn::MatmulOp::create(b, loc, self, other));
      results.push_back(entries.back().getOut());
    }
    Value joined = batch == 1 ? results.front() : nn::CatOp::create(b, loc, results, b.getI64IntegerAttr(0));
    if (rank > 3)
      joined = nn::ViewOp::create(b, loc, joined,
                                  b.getDenseI64ArrayAttr(cast<RankedTensorType>(product.getOut().getType()).getShape()));
    product.getOut().replaceAllUsesWith(joined);
    product->erase();
    for (nn::MatmulOp one : entries)
      if (!convertRightWeight(one, known))
        convertLeftWeight(one, known);
  }

  /// W @ R as (R^T @ W^T)^T, the right-weight rule's layer on R^T.
  bool convertLeftWeight(nn::MatmulOp product, nn::CompileTimeValues &known) {
    Value lhs = product.getSelf(), rhs = product.getOther();
    if (cast<RankedTensorType>(rhs.getType()).getRank() < 2 || known.contains(rhs) || !known.contains(lhs))
      return false;
    OpBuilder b(product);
    Location loc = product.getLoc();
    Value inputT = transposed(b, loc, rhs);
    Value weightT = transposed(b, loc, lhs);
    auto flipped = nn::MatmulOp::create(b, loc, inputT, weightT);
    Value back = transposed(b, loc, flipped.getOut());
    if (!convertRightWeight(flipped, known)) {
      back.getDefiningOp()->erase();
      flipped->erase();
      weightT.getDefiningOp()->erase();
      inputT.getDefiningOp()->erase();
      return false;
    }
    product.getOut().replaceAllUsesWith(back);
    product->erase();
    return true;
  }

  bool convertRightWeight(nn::MatmulOp product, nn::CompileTimeValues &known) {
    Value lhs = product.getSelf(), rhs = product.getOther();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    ArrayRef<int64_t> w = rhsType.getShape();
    // A weight (in, out), or (1, in, out) applied to a batch of one.
    bool matrix = rhsType.getRank() == 2 || (rhsType.getRank() == 3 && w[0] == 1 && lhsType.getRank() == 3);
    if (!matrix || lhsType.getRank() < 2 || known.contains(lhs) || !known.contains(rhs) ||
        !rhsType.getElementType().isF32())
      return false;
    int64_t in = w[w.size() - 2], out = w[w.size() - 1];
    SmallVector<int64_t> layerShape(lhsType.getShape());
    layerShape.back() = out;
    if (ArrayRef<int64_t>(layerShape) != cast<RankedTensorType>(product.getOut().getType()).getShape())
      return false; // (a broadcast the layer does not express)
    OpBuilder b(product);
    Location loc = product.getLoc();
    Value weight = rhsType.getRank() == 2 ? rhs : nn::ViewOp::create(b, loc, rhs, b.getDenseI64ArrayAttr({in, out}));
    weight = nn::PermuteOp::create(b, loc, weight, b.getDenseI64ArrayAttr({1, 0}));
    product.getOut().replaceAllUsesWith(nn::LinearOp::create(b, loc, lhs, weight, Value()));
    product->erase();
    return true;
  }
};

} // namespace
