//===- FoldTokenArithmetic.cpp - Run-time id arithmetic as nn ops -*- C++ -*-===//
//
// raptor-fold-token-arithmetic: what models compute from their token ids at
// run time reaches the graph as generic nn.aten ops (comparisons, casts, a
// cumulative sum), which no back end lowers one by one. This pass finds the
// computations models actually make and states them as the operators the
// back end computes:
// - RoBERTa's position ids (transformers' create_position_ids_from_input_ids,
//   copied into XLM-R, CamemBERT, MPNet, Longformer, ESM...):
//   ((cumsum(ids != pad) + offset) * (ids != pad)) + pad, through any
//   integer casts, becomes nn.token_positions;
// - a gather from a compile-time tensor holding one value (the token-type
//   ids buffer of zeros those models gather by their position ids) becomes
//   that value, whatever the indices;
// - transformers' sequence classifiers' pick of the last token that is not
//   padding, x[arange(B), argmax(arange(L) * (ids != pad), -1)] (or, from
//   ONNX, x flattened and gathered at the argmax plus L arange(B)), becomes
//   nn.last_token;
// - functions of the ids read as embedding indices (decoder ids shifted
//   by ONNX ScatterND) or as numbers (ESM's mask of its mask token,
//   selected by and summed) become lookups (TokenTables.h).
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/GenericOps.h"
#include "passes/nn/Passes.h"
#include "passes/nn/TokenTables.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

namespace raptor {
#define GEN_PASS_DEF_FOLDTOKENARITHMETIC
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;
using nn::atenOf, nn::eraseDead, nn::intParam, nn::isIntegerTensor, nn::splatInteger;

namespace {

/// `v` before integer casts (aten._to_copy, aten.to, type_as, ONNX Cast,
/// also from booleans): the mask and the sums of the positions are small
/// counts, which every integer type holds alike.
Value beforeCasts(Value v) {
  while (auto aten = v.getDefiningOp<nn::AtenOp>()) {
    bool cast = nn::isCast(aten) || aten.getTarget() == "aten.type_as.default";
    if (!cast || aten.getArgs().empty() || !isIntegerTensor(aten.getArgs().front()) || !isIntegerTensor(v))
      break;
    v = aten.getArgs().front();
  }
  return v;
}

/// The integer an nn.add or nn.sub (alpha 1) adds or subtracts
/// everywhere: its scalar, or a constant `other` holding one value that
/// does not widen the result.
template <typename AddOrSub> std::optional<int64_t> addedScalar(AddOrSub add) {
  if (add.getAlpha().convertToDouble() != 1.0)
    return std::nullopt;
  if (Value other = add.getOther())
    return add.getSelf().getType() == add.getOut().getType() ? splatInteger(other) : std::nullopt;
  auto scalar = dyn_cast_or_null<IntegerAttr>(add.getScalarAttr());
  return scalar ? std::optional<int64_t>(scalar.getInt()) : std::nullopt;
}

/// `v` before integer casts and additions and subtractions of one integer
/// everywhere (OPT's `- 1`, then its table's `+ 2`), whose sum is added to
/// `total`.
Value beforeAddedIntegers(Value v, int64_t &total) {
  for (;;) {
    v = beforeCasts(v);
    std::optional<int64_t> c;
    Value self;
    if (auto add = v.getDefiningOp<nn::AddOp>(); add && (c = addedScalar(add)))
      self = add.getSelf();
    else if (auto sub = v.getDefiningOp<nn::SubOp>(); sub && (c = addedScalar(sub)))
      c = -*c, self = sub.getSelf();
    else
      return v;
    total += *c;
    v = self;
  }
}

/// Whether an integer is added to or subtracted from `v` everywhere
/// further on (through casts): then the last addition is where a match
/// of the whole sum starts.
bool addedToFurther(Value v) {
  return llvm::any_of(v.getUsers(), [&](Operation *user) {
    if (auto aten = dyn_cast<nn::AtenOp>(user); aten && nn::isCast(aten) && isIntegerTensor(aten->getResult(0)))
      return addedToFurther(aten->getResult(0));
    if (auto add = dyn_cast<nn::AddOp>(user))
      return add.getSelf() == v && addedScalar(add).has_value();
    auto sub = dyn_cast<nn::SubOp>(user);
    return sub && sub.getSelf() == v && addedScalar(sub).has_value();
  });
}

/// `mask = ids != pad`: the op computing it (aten.ne.Scalar, or ONNX's
/// Not of an Equal), the ids and the padding index. An attention mask of
/// 0s and 1s is its own (no op, padding 0).
struct Mask {
  Operation *op = nullptr;
  Value ids;
  int64_t pad = 0;
};

Mask paddingMask(Value v) {
  v = beforeCasts(v);
  if (nn::AtenOp ne = atenOf(v, "aten.ne.Scalar"); ne && ne.getArgs().size() == 1)
    if (std::optional<int64_t> other = intParam(ne, "other"); other && isIntegerTensor(ne.getArgs().front()))
      return {ne, ne.getArgs().front(), *other};
  nn::AtenOp negation = atenOf(v, "onnx.Not");
  nn::AtenOp equal = negation && negation.getArgs().size() == 1 ? atenOf(negation.getArgs().front(), "onnx.Equal")
                                                                 : nn::AtenOp();
  if (!equal || equal.getArgs().size() != 2)
    return {};
  for (auto [ids, other] : {std::pair(equal.getArgs()[0], equal.getArgs()[1]),
                            std::pair(equal.getArgs()[1], equal.getArgs()[0])})
    if (std::optional<int64_t> pad = splatInteger(other); pad && isIntegerTensor(ids) && !splatInteger(ids))
      return {negation, ids, *pad};
  return {};
}

/// The input of a cumulative sum along the last dimension (aten.cumsum,
/// ONNX CumSum neither exclusive nor reversed) defining `v`.
Value lastDimCumsumInput(Value v) {
  auto aten = v.getDefiningOp<nn::AtenOp>();
  if (!aten || aten.getArgs().empty())
    return {};
  Value input = aten.getArgs().front();
  int64_t rank = cast<ShapedType>(input.getType()).getRank();
  std::optional<int64_t> dim;
  if (aten.getTarget() == "aten.cumsum.default" && aten.getArgs().size() == 1)
    dim = intParam(aten, "dim");
  else if (aten.getTarget() == "onnx.CumSum" && aten.getArgs().size() == 2 && !intParam(aten, "exclusive").value_or(0) &&
           !intParam(aten, "reverse").value_or(0))
    dim = splatInteger(aten.getArgs()[1]);
  return dim && (*dim == rank - 1 || *dim == -1) ? input : Value();
}

/// Whether `mask` is an integer model input that is a mask of 0s and 1s
/// (TokenTables.h), the running sum `sums` and the `product` counting its
/// positions: OPT's `cumsum(mask) * mask`.
bool attentionMask(Value mask, Operation *sums, Operation *product) {
  return isa<BlockArgument>(mask) && isIntegerTensor(mask) && nn::readAsMask(mask, {sums, product});
}

/// `(cumsum(mask, last) + offset) * mask + base` ending at `root` (the
/// product when the base is 0, else the last of the integers added: `- 1
/// + 2` is `+ 1`), with mask = ids != pad or an attention mask of 0s and
/// 1s, and an offset of -1 or more (Bloom's `(cumsum(mask) - 1) * mask`):
/// the ids and the operator's attributes.
struct Positions {
  Value ids;
  int64_t pad = 0, offset = 0, base = 0;
};

std::optional<Positions> matchPositions(Operation *root) {
  int64_t base = 0;
  Value out = root->getResult(0);
  if (!isIntegerTensor(out) || addedToFurther(out))
    return std::nullopt;
  auto product = beforeAddedIntegers(out, base).getDefiningOp<nn::MulOp>();
  if (!product || !product.getOther() || base < 0)
    return std::nullopt;
  for (auto [maskSide, sumSide] : {std::pair(product.getSelf(), product.getOther()),
                                   std::pair(product.getOther(), product.getSelf())}) {
    Mask mask = paddingMask(maskSide);
    if (!mask.op)
      mask.ids = beforeCasts(maskSide); // an attention mask, if read as one
    int64_t offset = 0;
    Value sums = beforeAddedIntegers(sumSide, offset);
    Value counted = lastDimCumsumInput(sums);
    if (!counted || (mask.op ? paddingMask(counted).op != mask.op
                             : beforeCasts(counted) != mask.ids ||
                                   !attentionMask(mask.ids, sums.getDefiningOp(), product)))
      continue;
    if (mask.pad < 0 || offset < -1 ||
        cast<ShapedType>(mask.ids.getType()).getShape() != cast<ShapedType>(out.getType()).getShape())
      return std::nullopt;
    return Positions{mask.ids, mask.pad, offset, base};
  }
  return std::nullopt;
}

/// Whether `v` is the constant 0, 1, ..., n - 1 (of any shape holding n
/// elements: torch.arange, seen through views).
bool isArange(Value v, int64_t n) {
  v = nn::beforeViews(v);
  DenseElementsAttr data;
  if (!matchPattern(v, m_Constant(&data)) || data.getNumElements() != n || !isIntegerTensor(v))
    return false;
  int64_t i = 0;
  for (const APInt &x : data.getValues<APInt>())
    if (x.getSExtValue() != i++)
      return false;
  return true;
}

/// `argmax(arange(L) * (ids != pad), -1)` defining `v` (aten.argmax, or
/// ONNX ArgMax keeping the first maximum), ids of shape `batch` x `length`:
/// the ids and the padding index. The product is largest at the last
/// position whose id is not the padding (all products 0: position 0, as
/// argmax).
std::optional<Mask> lastTokenPosition(Value v, ArrayRef<int64_t> batchAndLength) {
  v = beforeCasts(v);
  nn::AtenOp argmax = atenOf(v, "aten.argmax.default");
  std::optional<int64_t> dim;
  if (argmax && !intParam(argmax, "keepdim").value_or(0))
    dim = intParam(argmax, "dim");
  if (!argmax && (argmax = atenOf(v, "onnx.ArgMax")) && !intParam(argmax, "keepdims").value_or(1) &&
      !intParam(argmax, "select_last_index").value_or(0))
    dim = intParam(argmax, "axis").value_or(0);
  if (!dim || (*dim != 1 && *dim != -1) || argmax.getArgs().size() != 1)
    return std::nullopt;
  auto product = beforeCasts(argmax.getArgs().front()).getDefiningOp<nn::MulOp>();
  if (!product || !product.getOther() || cast<ShapedType>(product.getType()).getShape() != batchAndLength)
    return std::nullopt;
  for (auto [positions, maskSide] : {std::pair(product.getSelf(), product.getOther()),
                                     std::pair(product.getOther(), product.getSelf())}) {
    Mask mask = paddingMask(maskSide);
    if (mask.op && isArange(positions, batchAndLength[1]) &&
        cast<ShapedType>(mask.ids.getType()).getShape() == batchAndLength)
      return mask;
  }
  return std::nullopt;
}

/// `x[arange(B), argmax(arange(L) * (ids != pad), -1)]` at `root` (the
/// classifiers of transformers' GPT-2, LLaMA, Mistral, Qwen2... as
/// torch.export gives them): the rows of x at each sequence's last token.
std::optional<Mask> matchLastToken(nn::IndexOp root) {
  auto x = cast<RankedTensorType>(root.getSelf().getType());
  if (root.getIndices().size() != 2 || x.getRank() < 2 || !x.hasStaticShape() ||
      !isArange(root.getIndices()[0], x.getDimSize(0)))
    return std::nullopt;
  return lastTokenPosition(root.getIndices()[1], x.getShape().take_front(2));
}

/// The same pick as the ONNX exporter writes it: x (B, L, C) flattened to
/// (B L, C) and gathered (an nn.embedding of computed rows) at the argmax
/// plus L arange(B). Returns x with the ids and the padding index.
std::optional<std::pair<Value, Mask>> matchFlatLastToken(nn::EmbeddingOp root) {
  auto flat = root.getWeight().getDefiningOp<nn::ViewOp>();
  auto x = flat ? dyn_cast<RankedTensorType>(flat.getSelf().getType()) : RankedTensorType();
  if (!x || x.getRank() != 3 || !x.hasStaticShape())
    return std::nullopt;
  int64_t batch = x.getDimSize(0), length = x.getDimSize(1);
  Value position = root.getIndices();
  if (auto add = position.getDefiningOp<nn::AddOp>()) {
    // + L b for sequence b: a scalar 0 at batch 1, else the constant.
    std::optional<int64_t> scalar = addedScalar(add);
    DenseElementsAttr offsets;
    bool rowStarts = false;
    if (Value other = add.getOther(); other && matchPattern(other, m_Constant(&offsets)) &&
                                      offsets.getNumElements() == batch && isIntegerTensor(other)) {
      int64_t b = 0;
      rowStarts = llvm::all_of(offsets.getValues<APInt>(),
                               [&](const APInt &o) { return o.getSExtValue() == length * b++; });
    }
    if (!(scalar == 0 && batch == 1) && !rowStarts)
      return std::nullopt;
    position = add.getSelf();
  } else if (batch != 1) {
    return std::nullopt;
  }
  if (cast<ShapedType>(root.getIndices().getType()).getShape() != ArrayRef<int64_t>{batch})
    return std::nullopt;
  std::optional<Mask> mask = lastTokenPosition(position, x.getShape().take_front(2));
  if (!mask)
    return std::nullopt;
  return std::pair(flat.getSelf(), *mask);
}

/// The one value of a compile-time tensor that holds no other, seen
/// through the views and broadcasts that keep it so.
std::optional<Attribute> uniformValue(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (isa<nn::ExpandOp, nn::ViewOp, nn::SliceOp, nn::PermuteOp, nn::CloneOp>(op)) {
      v = op->getOperand(0);
      continue;
    }
    DenseElementsAttr data;
    if (!matchPattern(op, m_Constant(&data)) || !data.isSplat())
      return std::nullopt;
    return data.getSplatValue<Attribute>();
  }
  return std::nullopt;
}

/// Whether a generic op's result elements are elements of its first operand.
bool isGather(StringRef target) {
  return llvm::is_contained({StringRef("aten.gather.default"), StringRef("aten.index_select.default"),
                             StringRef("onnx.Gather"), StringRef("onnx.GatherElements")},
                            target);
}

struct FoldTokenArithmeticPass : raptor::impl::FoldTokenArithmeticBase<FoldTokenArithmeticPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      SmallVector<Operation *> roots;
      func.walk([&](Operation *op) {
        if (isa<nn::AddOp, nn::MulOp, nn::IndexOp, nn::EmbeddingOp>(op) ||
            (isa<nn::AtenOp>(op) && isGather(cast<nn::AtenOp>(op).getTarget())))
          roots.push_back(op);
      });
      for (Operation *op : roots) {
        OpBuilder b(op);
        if (isa<nn::AddOp, nn::MulOp>(op)) {
          std::optional<Positions> p = matchPositions(op);
          if (!p)
            continue;
          Value positions = nn::TokenPositionsOp::create(
              b, op->getLoc(), op->getResult(0).getType(), p->ids, b.getI64IntegerAttr(p->pad),
              b.getI64IntegerAttr(p->offset), p->base == p->pad ? IntegerAttr() : b.getI64IntegerAttr(p->base));
          op->getResult(0).replaceAllUsesWith(positions);
          eraseDead(op);
          continue;
        }
        if (auto index = dyn_cast<nn::IndexOp>(op)) {
          std::optional<Mask> last = matchLastToken(index);
          if (!last)
            continue;
          Value rows = nn::LastTokenOp::create(b, op->getLoc(), index.getOut().getType(), index.getSelf(), last->ids,
                                               b.getI64IntegerAttr(last->pad));
          index.getOut().replaceAllUsesWith(rows);
          eraseDead(op);
          continue;
        }
        if (auto lookup = dyn_cast<nn::EmbeddingOp>(op)) {
          std::optional<std::pair<Value, Mask>> last = matchFlatLastToken(lookup);
          if (!last)
            continue;
          Value rows = nn::LastTokenOp::create(b, op->getLoc(), lookup.getOut().getType(), last->first,
                                               last->second.ids, b.getI64IntegerAttr(last->second.pad));
          lookup.getOut().replaceAllUsesWith(rows);
          eraseDead(op);
          continue;
        }
        // A gather picks elements of its data (the first operand): all the same one.
        auto gather = cast<nn::AtenOp>(op);
        if (gather.getArgs().empty() || op->getNumResults() != 1)
          continue;
        std::optional<Attribute> value = uniformValue(gather.getArgs().front());
        auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
        if (!value || !type || !type.hasStaticShape())
          continue;
        Value constant = nn::ConstantOp::create(b, op->getLoc(), DenseElementsAttr::get(type, *value));
        op->getResult(0).replaceAllUsesWith(constant);
        eraseDead(op);
      }
      // What is left of the ids' arithmetic, read as numbers: lookups.
      if (failed(nn::foldTokenTables(func)))
        signalPassFailure();
    });
  }
};

} // namespace
