//===- NormalizeRowOps.cpp - Row operators as the lowering takes them ---===//
//
// raptor-normalize-row-ops: the PIM lowering normalizes rows (a softmax over
// the last dimension) and lowers attention over (batch, heads, length, dim).
// Models write both more freely: ConvBERT's span kernel softmaxes over its
// 9 offsets (not last), timm's NesT attends within blocks of 5-d
// (batch, heads, blocks, length, dim) tensors, torch allows 2-d and 3-d
// attention, and VOLO's auxiliary head takes a maximum over tokens.
// This pass rewrites each into the lowering's shape with layout operators
// around it (a permutation there and back; views folding the dimensions
// between batch and length into the heads; a maximum as a max pooling of
// the reduced elements), same values, so that both frontends and the
// codec placement see one form.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"

namespace raptor {
#define GEN_PASS_DEF_NORMALIZEROWOPS
#include "passes/nn/Passes.h.inc"
} // namespace raptor

#include <numeric>

using namespace mlir;
namespace nn = raptor::nn;

namespace {

SmallVector<int64_t> shapeOf(Value v) { return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape()); }

/// The views below need every size: an op of dynamic shape is an error
/// (the PIM lowering takes static shapes only).
LogicalResult requireStaticShapes(Operation *op) {
  for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto ranked = dyn_cast<RankedTensorType>(t); !ranked || !ranked.hasStaticShape())
      return op->emitOpError("raptor-normalize-row-ops needs static shapes, not ") << t;
  return success();
}

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<int64_t>());
}

Value view(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> shape) {
  if (ArrayRef<int64_t>(shapeOf(x)) == shape)
    return x;
  return nn::ViewOp::create(b, loc, x, b.getDenseI64ArrayAttr(shape));
}

/// softmax(x, d), d not last: permute d last, softmax the rows, permute back.
void normalizeSoftmax(nn::SoftmaxOp op) {
  int64_t rank = int64_t(shapeOf(op.getSelf()).size()), d = op.getDim();
  if (d < 0)
    d += rank;
  if (rank < 2 || d == rank - 1)
    return;
  SmallVector<int64_t> order, back(size_t(rank), 0);
  for (int64_t i = 0; i < rank; ++i)
    if (i != d)
      order.push_back(i);
  order.push_back(d);
  for (int64_t i = 0; i < rank; ++i)
    back[size_t(order[size_t(i)])] = i;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value moved = nn::PermuteOp::create(b, loc, op.getSelf(), b.getDenseI64ArrayAttr(order));
  Value rows = nn::SoftmaxOp::create(b, loc, moved, rank - 1, op.getHalfToFloat());
  op.getResult().replaceAllUsesWith(nn::PermuteOp::create(b, loc, rows, b.getDenseI64ArrayAttr(back)));
  op.erase();
}

/// amax(x, dims): the reduced dimensions moved last (a permutation when
/// they are not), x viewed as (1, kept, reduced, 1) and max-pooled by a
/// (reduced, 1) window, the result viewed to amax's shape: the maximum
/// over each column of kept elements, as the pooling lowers it.
LogicalResult poolMaximum(nn::AmaxOp op) {
  if (failed(requireStaticShapes(op)))
    return failure();
  SmallVector<int64_t> in = shapeOf(op.getSelf());
  int64_t rank = int64_t(in.size());
  if (rank == 0) { // a scalar is its own maximum (aten reads its dims as of rank 1)
    op.getResult().replaceAllUsesWith(op.getSelf());
    op.erase();
    return success();
  }
  std::optional<ArrayRef<int64_t>> dims = op.getDim();
  SmallVector<bool> reduced(size_t(rank), !dims || dims->empty());
  for (int64_t d : dims.value_or(ArrayRef<int64_t>()))
    reduced[size_t(d < 0 ? d + rank : d)] = true;
  SmallVector<int64_t> order;
  int64_t kept = 1, over = 1;
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[size_t(i)])
      order.push_back(i), kept *= in[size_t(i)];
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[size_t(i)])
      order.push_back(i), over *= in[size_t(i)];
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getSelf();
  if (!llvm::equal(order, llvm::seq<int64_t>(0, rank)))
    x = nn::PermuteOp::create(b, loc, x, b.getDenseI64ArrayAttr(order));
  x = view(b, loc, x, {1, kept, over, 1});
  SmallVector<int64_t> window = {over, 1};
  auto pool = nn::MaxPool2dOp::create(b, loc, x, window, window);
  op.getResult().replaceAllUsesWith(view(b, loc, pool.getOut(), shapeOf(op.getOut())));
  op.erase();
  return success();
}

/// The leading dimensions of a (..., rows, columns) attention operand as
/// (batch, heads): none -> (1, 1), (B) -> (B, 1), (B, H1, H2, ...) ->
/// (B, H1 H2 ...).
SmallVector<int64_t> batchAndHeads(ArrayRef<int64_t> leading) {
  if (leading.empty())
    return {1, 1};
  return {leading.front(), product(leading.drop_front())};
}

/// Attention of rank other than 4 as rank-4 attention between views. Keys
/// and values must have the queries' leading dimensions (rank 4 keeps its
/// grouped-query and broadcast forms, which the lowering takes as they are);
/// a mask broadcast over some folded dimensions is expanded over them first.
LogicalResult normalizeAttention(nn::ScaledDotProductAttentionOp op) {
  SmallVector<int64_t> q = shapeOf(op.getQuery()), out = shapeOf(op.getOut());
  size_t rank = q.size();
  if (rank == 4 || rank < 2)
    return success();
  if (failed(requireStaticShapes(op)))
    return failure();
  ArrayRef<int64_t> leading = ArrayRef<int64_t>(q).drop_back(2);
  for (Value kv : {op.getKey(), op.getValue()}) {
    SmallVector<int64_t> s = shapeOf(kv);
    if (s.size() != rank || ArrayRef<int64_t>(s).drop_back(2) != leading)
      return op.emitOpError("attention of rank ") << rank << " needs keys and values with the queries' leading "
                                                  << "dimensions to fold them into (batch, heads)";
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<int64_t> heads = batchAndHeads(leading);
  // One view per operand value (self-attention reads one tensor three times).
  llvm::SmallDenseMap<Value, Value> viewed;
  auto fourD = [&](Value x) {
    Value &v = viewed[x];
    if (!v) {
      SmallVector<int64_t> s = shapeOf(x), shape(heads);
      shape.append({s[rank - 2], s[rank - 1]});
      v = view(b, loc, x, shape);
    }
    return v;
  };
  SmallVector<Value> operands = {fourD(op.getQuery()), fourD(op.getKey()), fourD(op.getValue())};
  if (Value mask = op.getAttnMask()) {
    SmallVector<int64_t> m = shapeOf(mask);
    if (m.size() > rank)
      return op.emitOpError("an attention mask of rank ") << m.size() << " does not broadcast to rank-" << rank
                             << " queries";
    SmallVector<int64_t> padded(rank - m.size(), 1);
    padded.append(m);
    // The folded dimensions (between batch and rows) become one: the mask
    // keeps them only if it is broadcast over all of them.
    ArrayRef<int64_t> folded = rank > 3 ? ArrayRef<int64_t>(padded).slice(1, rank - 3) : ArrayRef<int64_t>();
    if (product(folded) != 1) {
      mask = view(b, loc, mask, padded);
      SmallVector<int64_t> size(rank, -1);
      for (size_t d = 1; d + 2 < rank; ++d)
        size[d] = padded[d] = q[d];
      mask = nn::ExpandOp::create(b, loc, mask, b.getDenseI64ArrayAttr(size));
    }
    SmallVector<int64_t> shape = batchAndHeads(ArrayRef<int64_t>(padded).drop_back(2));
    shape.append({padded[rank - 2], padded[rank - 1]});
    operands.push_back(view(b, loc, mask, shape));
  }
  Operation *attention = b.clone(*op);
  attention->setOperands(operands);
  SmallVector<int64_t> result(heads);
  result.append({out[rank - 2], out[rank - 1]});
  attention->getResult(0).setType(RankedTensorType::get(result, cast<RankedTensorType>(op.getType()).getElementType()));
  op.getResult().replaceAllUsesWith(view(b, loc, attention->getResult(0), out));
  op.erase();
  return success();
}

struct NormalizeRowOpsPass : raptor::impl::NormalizeRowOpsBase<NormalizeRowOpsPass> {
  void runOnOperation() override {
    getOperation().walk([](nn::SoftmaxOp op) { normalizeSoftmax(op); });
    bool failedOne = false;
    getOperation().walk([&](nn::AmaxOp op) { failedOne |= failed(poolMaximum(op)); });
    getOperation().walk([&](nn::ScaledDotProductAttentionOp op) { failedOne |= failed(normalizeAttention(op)); });
    if (failedOne)
      signalPassFailure();
  }
};

} // namespace
