//===- PackRotaryHeads.cpp - Rotary embedding before the head split -*- C++ -*-===//
//
// raptor-pack-rotary-heads: Llama splits a projection into heads (view,
// then a transpose) and rotates the split heads; the codec-placement
// paper's SmolLM2 graph evidently rotates the projection's output, before
// the head layout operators, as fused rotary kernels do. This matters to
// codec placement: the layout operators are INT8 at policy W and the
// rotation is FP32 only (Table 5), so a rotation after them decodes and
// re-encodes every query and key. The pass rewrites
//   rope(permute(view(x)), cos, sin)  ->  permute(view(rope(x, cos', sin')))
// with `head_dim` on the new rotation and the tables without their head
// axis; same values.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"

namespace raptor {
#define GEN_PASS_DEF_PACKROTARYHEADS
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

/// The head split a rotation reads: x [.., S, H * D] -> view [.., S, H, D]
/// -> permute (the S and H axes swapped) [.., H, S, D], each read once.
struct HeadSplit {
  nn::ViewOp view;
  nn::PermuteOp permute;
  int64_t headDim;
};

std::optional<HeadSplit> headSplitOf(nn::RotaryEmbeddingOp op) {
  auto permute = op.getInput().getDefiningOp<nn::PermuteOp>();
  if (!permute || !permute->hasOneUse())
    return std::nullopt;
  auto view = permute.getSelf().getDefiningOp<nn::ViewOp>();
  if (!view || !view->hasOneUse())
    return std::nullopt;
  auto x = cast<RankedTensorType>(view.getSelf().getType());
  auto split = cast<RankedTensorType>(view.getType());
  int64_t rank = split.getRank();
  if (!x.hasStaticShape() || !split.hasStaticShape() || rank < 3 || x.getRank() != rank - 1)
    return std::nullopt;
  ArrayRef<int64_t> xs = x.getShape(), ss = split.getShape();
  // Only the last dimension is split, into heads of D > 0 features.
  if (xs.drop_back() != ss.drop_back(2) || ss[rank - 1] <= 0 ||
      ss[rank - 2] * ss[rank - 1] != xs.back())
    return std::nullopt;
  ArrayRef<int64_t> dims = permute.getDims();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t expected = i == rank - 3 ? rank - 2 : i == rank - 2 ? rank - 3 : i;
    if (dims[i] != expected)
      return std::nullopt;
  }
  return HeadSplit{view, permute, ss[rank - 1]};
}

/// The shape of a table for the packed rotation: `table` (broadcasting to
/// [.., H, S, D]) without its head axis, which must have size 1 (every head
/// is rotated by the same angles).
std::optional<SmallVector<int64_t>> packedShape(Value table) {
  auto type = cast<RankedTensorType>(table.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t head = type.getRank() - 3; // the head axis, aligned from the right
  if (head < 0)
    return shape; // already broadcasts to [.., S, D]
  if (!type.hasStaticShape() || type.getDimSize(head) != 1)
    return std::nullopt;
  shape.erase(shape.begin() + head);
  return shape;
}

/// `table` in `shape`: the source of a view of that shape, else a new view.
Value packedTable(OpBuilder &b, Value table, ArrayRef<int64_t> shape) {
  if (cast<RankedTensorType>(table.getType()).getShape() == shape)
    return table;
  if (auto view = table.getDefiningOp<nn::ViewOp>())
    if (cast<RankedTensorType>(view.getSelf().getType()).getShape() == shape)
      return view.getSelf();
  return nn::ViewOp::create(b, table.getLoc(), table, b.getDenseI64ArrayAttr(shape));
}

struct PackRotaryHeadsPass : raptor::impl::PackRotaryHeadsBase<PackRotaryHeadsPass> {
  void runOnOperation() override {
    SmallVector<nn::RotaryEmbeddingOp> ropes;
    getOperation().walk([&](nn::RotaryEmbeddingOp op) {
      if (!op.getHeadDim())
        ropes.push_back(op);
    });
    OpBuilder b(&getContext());
    for (nn::RotaryEmbeddingOp op : ropes) {
      std::optional<HeadSplit> split = headSplitOf(op);
      if (!split)
        continue;
      std::optional<SmallVector<int64_t>> cosShape = packedShape(op.getCos());
      std::optional<SmallVector<int64_t>> sinShape = packedShape(op.getSin());
      if (!cosShape || !sinShape)
        continue;
      b.setInsertionPoint(op);
      Value cos = packedTable(b, op.getCos(), *cosShape);
      Value sin = packedTable(b, op.getSin(), *sinShape);
      Location loc = op.getLoc();
      Value x = split->view.getSelf();
      Value rotated = nn::RotaryEmbeddingOp::create(b, loc, x, cos, sin,
                                                    b.getI64IntegerAttr(split->headDim));
      Value v = nn::ViewOp::create(b, split->view.getLoc(), rotated, split->view.getSizeAttr());
      Value p = nn::PermuteOp::create(b, split->permute.getLoc(), v, split->permute.getDimsAttr());
      Value oldCos = op.getCos(), oldSin = op.getSin();
      op.replaceAllUsesWith(p);
      op.erase();
      split->permute.erase();
      split->view.erase();
      // The head-axis views of the tables, when nothing else reads them.
      Operation *cosView = oldCos.getDefiningOp(), *sinView = oldSin.getDefiningOp();
      for (Operation *view : {cosView, sinView == cosView ? nullptr : sinView})
        if (view && isa<nn::ViewOp>(view) && view->use_empty())
          view->erase();
    }
  }
};

} // namespace
