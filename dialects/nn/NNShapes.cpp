//===- NNShapes.cpp - Result-type inference for nn ops ----------*- C++ -*-===//
//
// Shape rules follow aten's meta functions. Every rule propagates dynamic
// sizes (a dynamic input size gives a dynamic output size) and reports
// malformed operands through emitOptionalError, so both builders and the
// verifier get a located diagnostic.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "dialects/nn/ElementCount.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace raptor::nn;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

bool isDyn(int64_t d) { return ShapedType::isDynamic(d); }

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

RankedTensorType like(RankedTensorType base, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, base.getElementType());
}

/// Appends the inferred result type `base` with `shape`, unless a static
/// size is negative or the sizes multiply past int64 (shape arithmetic on
/// huge inputs: the type would assert, or count wrongly later).
LogicalResult pushInferred(SmallVectorImpl<Type> &types, std::optional<Location> loc, Type element,
                           ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    if (!isDyn(d) && (d < 0 || llvm::MulOverflow(count, d, count)))
      return emitOptionalError(loc, "inferred result shape [", shape,
                               "] has a negative size or more elements than int64 counts");
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult pushInferred(SmallVectorImpl<Type> &types, std::optional<Location> loc, RankedTensorType base,
                           ArrayRef<int64_t> shape) {
  return pushInferred(types, loc, base.getElementType(), shape);
}

/// Maps a possibly negative dimension index into [0, rank).
FailureOr<int64_t> normDim(std::optional<Location> loc, int64_t dim,
                           int64_t rank, StringRef what = "dim") {
  int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank)
    return emitOptionalError(loc, what, " ", dim,
                             " is out of range for rank ", rank);
  return d;
}

/// Numpy broadcasting of two shapes.
FailureOr<SmallVector<int64_t>> broadcast(std::optional<Location> loc,
                                          ArrayRef<int64_t> a,
                                          ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 1)
      out[i] = y;
    else if (y == 1)
      out[i] = x;
    else if (isDyn(x) || isDyn(y))
      out[i] = isDyn(x) ? y : x;
    else if (x == y)
      out[i] = x;
    else
      return emitOptionalError(loc, "shapes [", a, "] and [", b,
                               "] are not broadcast-compatible");
  }
  return out;
}

/// Output size of a sliding window (convolution, pooling).
int64_t windowOut(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                  int64_t dilation, bool ceilMode) {
  if (isDyn(in) || isDyn(kernel))
    return kDyn;
  int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1;
  // A negative span means the window does not fit: report size <= 0 (floor
  // division, as aten's div_rtn) instead of rounding toward zero.
  if (span < 0)
    return 0;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // A ceil-mode window must start inside the input or left padding.
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

/// Kernel, stride and dilation must be positive and padding non-negative.
LogicalResult checkWindow(std::optional<Location> loc, ArrayRef<int64_t> kernel,
                          ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                          ArrayRef<int64_t> dilation) {
  auto positive = [](ArrayRef<int64_t> v) {
    return llvm::all_of(v, [](int64_t x) { return x > 0 || isDyn(x); });
  };
  if (!positive(kernel))
    return emitOptionalError(loc, "kernel sizes must be positive, got [", kernel, "]");
  if (!positive(stride))
    return emitOptionalError(loc, "stride must be positive, got [", stride, "]");
  if (!positive(dilation))
    return emitOptionalError(loc, "dilation must be positive, got [", dilation, "]");
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, "padding must be non-negative, got [", padding, "]");
  return success();
}

/// Reads a per-spatial-dimension list that may be given once for all dims.
FailureOr<SmallVector<int64_t>> spatialList(std::optional<Location> loc,
                                            StringRef name,
                                            ArrayRef<int64_t> values,
                                            size_t n, int64_t dflt) {
  if (values.empty())
    return SmallVector<int64_t>(n, dflt);
  if (values.size() == 1)
    return SmallVector<int64_t>(n, values[0]);
  if (values.size() != n)
    return emitOptionalError(loc, "'", name, "' has ", values.size(),
                             " entries but the op has ", n,
                             " spatial dimensions");
  return SmallVector<int64_t>(values);
}

// Default-valued attributes may be absent from the adaptor when a result
// type is inferred before the op exists (the generic builder path used by
// the Python bindings), so inference reads them through these helpers.
int64_t intOr(IntegerAttr attr, int64_t dflt) {
  return attr ? attr.getValue().getSExtValue() : dflt;
}
bool boolOr(BoolAttr attr, bool dflt) { return attr ? attr.getValue() : dflt; }
ArrayRef<int64_t> arrayOr(DenseI64ArrayAttr attr, ArrayRef<int64_t> dflt = {}) {
  return attr ? attr.asArrayRef() : dflt;
}

/// Required attributes can also be missing on that path; report them.
LogicalResult require(std::optional<Location> loc,
                      std::initializer_list<std::pair<Attribute, StringRef>> attrs) {
  for (auto [attr, name] : attrs)
    if (!attr)
      return emitOptionalError(loc, "requires attribute '", name, "'");
  return success();
}

bool compatible(TypeRange l, TypeRange r) {
  if (l.size() != r.size())
    return false;
  for (auto [a, b] : llvm::zip(l, r)) {
    if (getElementTypeOrSelf(a) != getElementTypeOrSelf(b) ||
        failed(verifyCompatibleShape(a, b)))
      return false;
  }
  return true;
}
} // namespace

// Every InferOp uses shape compatibility (dynamic sizes match anything).
#define RAPTOR_NN_COMPATIBLE(OP)                                               \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return compatible(l, r);                                                   \
  }
RAPTOR_NN_COMPATIBLE(ConstantOp)
RAPTOR_NN_COMPATIBLE(ConvolutionOp)
RAPTOR_NN_COMPATIBLE(LinearOp)
RAPTOR_NN_COMPATIBLE(MatmulOp)
RAPTOR_NN_COMPATIBLE(ScaledDotProductAttentionOp)
RAPTOR_NN_COMPATIBLE(BatchNormOp)
RAPTOR_NN_COMPATIBLE(LayerNormOp)
RAPTOR_NN_COMPATIBLE(RMSNormOp)
RAPTOR_NN_COMPATIBLE(RotaryEmbeddingOp)
RAPTOR_NN_COMPATIBLE(AddOp)
RAPTOR_NN_COMPATIBLE(SubOp)
RAPTOR_NN_COMPATIBLE(MulOp)
RAPTOR_NN_COMPATIBLE(DivOp)
RAPTOR_NN_COMPATIBLE(WhereOp)
RAPTOR_NN_COMPATIBLE(MeanOp)
RAPTOR_NN_COMPATIBLE(AmaxOp)
RAPTOR_NN_COMPATIBLE(MaxPool2dOp)
RAPTOR_NN_COMPATIBLE(AvgPool2dOp)
RAPTOR_NN_COMPATIBLE(AdaptiveAvgPool2dOp)
RAPTOR_NN_COMPATIBLE(UpsampleNearest2dOp)
RAPTOR_NN_COMPATIBLE(CatOp)
RAPTOR_NN_COMPATIBLE(SplitWithSizesOp)
RAPTOR_NN_COMPATIBLE(SliceOp)
RAPTOR_NN_COMPATIBLE(SelectOp)
RAPTOR_NN_COMPATIBLE(IndexSelectOp)
RAPTOR_NN_COMPATIBLE(IndexOp)
RAPTOR_NN_COMPATIBLE(AsStridedOp)
RAPTOR_NN_COMPATIBLE(ViewOp)
RAPTOR_NN_COMPATIBLE(PermuteOp)
RAPTOR_NN_COMPATIBLE(ExpandOp)
RAPTOR_NN_COMPATIBLE(ConstantPadNdOp)
RAPTOR_NN_COMPATIBLE(EmbeddingOp)
RAPTOR_NN_COMPATIBLE(KVCacheOp)
RAPTOR_NN_COMPATIBLE(FanOutOp)
#undef RAPTOR_NN_COMPATIBLE

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getValueAttr(), "value"}})))
    return failure();
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return emitOptionalError(loc, "value must be a ranked tensor");
  types.push_back(type);
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix operators
//===----------------------------------------------------------------------===//

LogicalResult ConvolutionOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getStrideAttr(), "stride"}, {adaptor.getPaddingAttr(), "padding"}, {adaptor.getDilationAttr(), "dilation"}})))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  RankedTensorType weight = tensorType(adaptor.getWeight());
  int64_t rank = input.getRank();
  if (rank < 3)
    return emitOptionalError(loc, "input must have rank >= 3 (N, C, spatial...), got ", rank);
  if (weight.getRank() != rank)
    return emitOptionalError(loc, "weight rank ", weight.getRank(),
                             " differs from input rank ", rank);
  size_t n = rank - 2;
  auto stride = spatialList(loc, "stride", adaptor.getStride(), n, 1);
  auto padding = spatialList(loc, "padding", adaptor.getPadding(), n, 0);
  auto dilation = spatialList(loc, "dilation", adaptor.getDilation(), n, 1);
  auto outPad =
      spatialList(loc, "output_padding", arrayOr(adaptor.getOutputPaddingAttr()), n, 0);
  if (failed(stride) || failed(padding) || failed(dilation) || failed(outPad))
    return failure();
  if (failed(checkWindow(loc, weight.getShape().drop_front(2), *stride, *padding,
                         *dilation)))
    return failure();
  int64_t groups = intOr(adaptor.getGroupsAttr(), 1);
  if (groups <= 0)
    return emitOptionalError(loc, "groups must be positive, got ", groups);
  bool transposed = boolOr(adaptor.getTransposedAttr(), false);
  int64_t inC = input.getDimSize(1);
  // Non-transposed weight: (O, C/groups, k...); transposed: (C, O/groups, k...).
  int64_t perGroup = weight.getDimSize(1), channels = 0;
  if (!isDyn(perGroup) && llvm::MulOverflow(perGroup, groups, channels))
    return emitOptionalError(loc, "groups = ", groups, " times ", perGroup,
                             " weight channels overflows int64");
  int64_t wIn = transposed ? weight.getDimSize(0) : channels;
  if (!isDyn(inC) && !isDyn(weight.getDimSize(transposed ? 0 : 1)) && inC != wIn)
    return emitOptionalError(loc, "input has ", inC, " channels but weight expects ",
                             wIn, " (groups = ", groups, ")");
  int64_t wOut = weight.getDimSize(transposed ? 1 : 0);
  if (!transposed && !isDyn(wOut) && wOut % groups != 0)
    return emitOptionalError(loc, "weight has ", wOut,
                             " output channels, not divisible by groups = ", groups);
  int64_t outC = transposed
                     ? (isDyn(weight.getDimSize(1)) ? kDyn : channels)
                     : weight.getDimSize(0);
  if (Value bias = adaptor.getBias()) {
    RankedTensorType b = tensorType(bias);
    if (b.getRank() != 1 || (!isDyn(b.getDimSize(0)) && !isDyn(outC) &&
                             b.getDimSize(0) != outC))
      return emitOptionalError(loc, "bias must have shape [", outC, "], got ", b);
  }
  SmallVector<int64_t> shape = {input.getDimSize(0), outC};
  for (size_t i = 0; i < n; ++i) {
    int64_t in = input.getDimSize(i + 2), k = weight.getDimSize(i + 2);
    if (!transposed) {
      int64_t o = windowOut(in, k, (*stride)[i], (*padding)[i], (*dilation)[i], false);
      if (!isDyn(o) && o <= 0)
        return emitOptionalError(loc, "spatial dim ", i, " of size ", in,
                                 " is too small for kernel ", k);
      shape.push_back(o);
    } else {
      int64_t o = isDyn(in) || isDyn(k)
                      ? kDyn
                      : (in - 1) * (*stride)[i] - 2 * (*padding)[i] +
                            (*dilation)[i] * (k - 1) + (*outPad)[i] + 1;
      if (!isDyn(o) && o <= 0)
        return emitOptionalError(loc, "transposed convolution output size ", o,
                                 " of spatial dim ", i, " is not positive");
      shape.push_back(o);
    }
  }
  if (failed(pushInferred(types, loc, input, shape)))
    return failure();
  return success();
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType input = tensorType(adaptor.getInput());
  RankedTensorType weight = tensorType(adaptor.getWeight());
  if (input.getRank() < 1 || weight.getRank() < 1 || weight.getRank() > 2)
    return emitOptionalError(loc, "expects input of rank >= 1 and a 1-d or 2-d weight, got ",
                             input, " and ", weight);
  // A 1-d weight (in) contracts the last dim away: aten's matmul semantics.
  bool vector = weight.getRank() == 1;
  int64_t wIn = weight.getDimSize(weight.getRank() - 1);
  int64_t in = input.getDimSize(input.getRank() - 1);
  if (!isDyn(in) && !isDyn(wIn) && in != wIn)
    return emitOptionalError(loc, "input features ", in,
                             " do not match weight in-features ", wIn);
  int64_t outF = vector ? 1 : weight.getDimSize(0);
  if (Value bias = adaptor.getBias()) {
    RankedTensorType b = tensorType(bias);
    if (b.getRank() > 1 ||
        (b.getRank() == 1 && !isDyn(b.getDimSize(0)) && !isDyn(outF) &&
         b.getDimSize(0) != outF))
      return emitOptionalError(loc, "bias must have shape [", outF, "], got ", b);
  }
  SmallVector<int64_t> shape(input.getShape());
  if (vector)
    shape.pop_back();
  else
    shape.back() = outF;
  if (failed(pushInferred(types, loc, input, shape)))
    return failure();
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType a = tensorType(adaptor.getSelf());
  RankedTensorType b = tensorType(adaptor.getOther());
  if (a.getRank() < 1 || b.getRank() < 1)
    return emitOptionalError(loc, "matmul operands must have rank >= 1");
  // torch.matmul promotes 1-d operands to matrices and drops the added dim.
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec)
    as.insert(as.begin(), 1);
  if (bVec)
    bs.push_back(1);
  int64_t k1 = as.back(), k2 = bs[bs.size() - 2];
  if (!isDyn(k1) && !isDyn(k2) && k1 != k2)
    return emitOptionalError(loc, "contraction sizes differ: ", k1, " vs ", k2);
  auto batch = broadcast(loc, ArrayRef(as).drop_back(2), ArrayRef(bs).drop_back(2));
  if (failed(batch))
    return failure();
  SmallVector<int64_t> shape = *batch;
  if (!aVec)
    shape.push_back(as[as.size() - 2]);
  if (!bVec)
    shape.push_back(bs.back());
  if (failed(pushInferred(types, loc, a, shape)))
    return failure();
  return success();
}

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  RankedTensorType q = tensorType(adaptor.getQuery());
  RankedTensorType k = tensorType(adaptor.getKey());
  RankedTensorType v = tensorType(adaptor.getValue());
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank)
    return emitOptionalError(loc, "query, key and value must share a rank >= 2");
  auto dim = [](RankedTensorType t, int64_t fromEnd) {
    return t.getDimSize(t.getRank() - fromEnd);
  };
  if (!isDyn(dim(q, 1)) && !isDyn(dim(k, 1)) && dim(q, 1) != dim(k, 1))
    return emitOptionalError(loc, "query and key embedding sizes differ: ",
                             dim(q, 1), " vs ", dim(k, 1));
  if (!isDyn(dim(k, 2)) && !isDyn(dim(v, 2)) && dim(k, 2) != dim(v, 2))
    return emitOptionalError(loc, "key and value sequence lengths differ: ",
                             dim(k, 2), " vs ", dim(v, 2));
  if (rank >= 3) {
    int64_t qh = dim(q, 3), kh = dim(k, 3);
    if (!isDyn(qh) && !isDyn(kh) && qh != kh) {
      if (!boolOr(adaptor.getEnableGqaAttr(), false))
        return emitOptionalError(loc, "query has ", qh, " heads but key has ", kh,
                                 "; set enable_gqa for grouped-query attention");
      if (kh == 0 || qh % kh != 0)
        return emitOptionalError(loc, "grouped-query attention needs key heads (",
                                 kh, ") to divide query heads (", qh, ")");
    }
  }
  SmallVector<int64_t> shape(q.getShape());
  shape.back() = dim(v, 1);
  if (failed(pushInferred(types, loc, q, shape)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType input = tensorType(adaptor.getInput());
  if (input.getRank() < 2)
    return emitOptionalError(loc, "input must have rank >= 2 (N, C, ...)");
  int64_t c = input.getDimSize(1);
  for (Value stat : {adaptor.getWeight(), adaptor.getBias(),
                     adaptor.getRunningMean(), adaptor.getRunningVar()}) {
    RankedTensorType t = tensorType(stat);
    if (t.getRank() != 1 || (!isDyn(c) && !isDyn(t.getDimSize(0)) && t.getDimSize(0) != c))
      return emitOptionalError(loc, "per-channel operands must have shape [", c,
                               "], got ", t);
  }
  types.push_back(input);
  // aten returns empty saved statistics in inference mode.
  if (failed(pushInferred(types, loc, input, {0})))
    return failure();
  if (failed(pushInferred(types, loc, input, {0})))
    return failure();
  return success();
}

/// The trailing dimensions of `input` must equal `normalized`, and the affine
/// parameters (when present) must have exactly that shape.
static LogicalResult checkNormalized(std::optional<Location> loc,
                                     RankedTensorType input,
                                     ArrayRef<int64_t> normalized,
                                     ArrayRef<Value> params) {
  if (normalized.empty() || normalized.size() > size_t(input.getRank()))
    return emitOptionalError(loc, "normalized_shape [", normalized,
                             "] does not fit input ", input);
  ArrayRef<int64_t> tail = input.getShape().take_back(normalized.size());
  for (auto [t, n] : llvm::zip(tail, normalized))
    if (!isDyn(t) && t != n)
      return emitOptionalError(loc, "normalized_shape [", normalized,
                               "] does not match the trailing dims of ", input);
  for (Value p : params)
    if (p && tensorType(p).getShape() != normalized)
      return emitOptionalError(loc, "weight and bias must have shape [",
                               normalized, "], got ", p.getType());
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getNormalizedShapeAttr(), "normalized_shape"}})))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  if (failed(checkNormalized(loc, input, adaptor.getNormalizedShape(),
                             {adaptor.getWeight(), adaptor.getBias()})))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult RMSNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getNormalizedShapeAttr(), "normalized_shape"}})))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  if (failed(checkNormalized(loc, input, adaptor.getNormalizedShape(),
                             {adaptor.getWeight()})))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult RotaryEmbeddingOp::inferReturnTypes(MLIRContext *,
                                                  std::optional<Location> loc,
                                                  Adaptor adaptor,
                                                  SmallVectorImpl<Type> &types) {
  RankedTensorType input = tensorType(adaptor.getInput());
  if (input.getRank() == 0)
    return emitOptionalError(loc, "rotary embedding needs an input of rank >= 1");
  // The shape the tables broadcast to: the input's, or with packed heads
  // one head's (the last dimension replaced by head_dim).
  SmallVector<int64_t> rotated(input.getShape());
  int64_t features = rotated.back();
  if (std::optional<uint64_t> headDim = adaptor.getHeadDim()) {
    int64_t hd = static_cast<int64_t>(*headDim);
    // The attribute's constraint is checked after inference (a builder's
    // attribute has not been verified yet): no division by it before.
    if (hd <= 0)
      return emitOptionalError(loc, "head_dim must be positive, got ", hd);
    if (!isDyn(features) && features % hd != 0)
      return emitOptionalError(loc, "head_dim ", hd, " does not divide the last dimension ",
                               features, " of the input");
    rotated.back() = hd;
  }
  for (Value table : {adaptor.getCos(), adaptor.getSin()}) {
    auto shape = broadcast(loc, rotated, tensorType(table).getShape());
    if (failed(shape))
      return failure();
    if (failed(verifyCompatibleShape(*shape, rotated)))
      return emitOptionalError(loc, "cos/sin ", table.getType(), " must broadcast to ",
                               adaptor.getHeadDim() ? "one head of the input " : "the input ",
                               input);
  }
  if (!isDyn(rotated.back()) && rotated.back() % 2 != 0)
    return emitOptionalError(loc, "rotary embedding needs an even ",
                             adaptor.getHeadDim() ? "head_dim" : "last dimension", ", got ",
                             rotated.back());
  types.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// Element-wise binary operators
//===----------------------------------------------------------------------===//

namespace {
/// aten's type categories, in promotion order.
enum class Category { Bool, Int, Float };

Category category(Type t) {
  if (t.isInteger(1))
    return Category::Bool;
  return isa<FloatType>(t) ? Category::Float : Category::Int;
}

/// The smallest type of the same category holding both (f16 with bf16 is f32).
Type wider(Type a, Type b) {
  if (a == b)
    return a;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa != wb)
    return wa > wb ? a : b;
  return Float32Type::get(a.getContext());
}

/// torch.result_type for two tensors: dimensioned tensors outrank 0-d ones
/// unless the 0-d tensor is of a higher category.
Type promote(RankedTensorType a, RankedTensorType b) {
  Type ea = a.getElementType(), eb = b.getElementType();
  Category ca = category(ea), cb = category(eb);
  bool da = a.getRank() > 0, db = b.getRank() > 0;
  if (da != db) {
    Type dim = da ? ea : eb, zero = da ? eb : ea;
    return category(zero) > category(dim) ? zero : dim;
  }
  if (ca != cb)
    return ca > cb ? ea : eb;
  return wider(ea, eb);
}

/// torch.result_type for a tensor and a Python scalar: a scalar of a higher
/// category promotes to the default type of its category (f32, i64).
Type promote(RankedTensorType a, Attribute scalar) {
  Type ea = a.getElementType();
  Category cs = isa<FloatAttr>(scalar) ? Category::Float : Category::Int;
  if (cs <= category(ea))
    return ea;
  return cs == Category::Float ? Type(Float32Type::get(a.getContext()))
                               : Type(IntegerType::get(a.getContext(), 64));
}
} // namespace

/// Broadcasts `self` with `other` (or a scalar) and promotes element types
/// as aten does; true division of integers gives the default float type.
static LogicalResult inferBinary(std::optional<Location> loc, Value self,
                                 Value other, Attribute scalar, bool trueDivide,
                                 SmallVectorImpl<Type> &types) {
  RankedTensorType a = tensorType(self);
  SmallVector<int64_t> shape(a.getShape());
  Type element;
  if (other) {
    RankedTensorType b = tensorType(other);
    auto broadcasted = broadcast(loc, a.getShape(), b.getShape());
    if (failed(broadcasted))
      return failure();
    shape = *broadcasted;
    element = promote(a, b);
  } else {
    element = scalar ? promote(a, scalar) : a.getElementType();
  }
  if (trueDivide && category(element) != Category::Float)
    element = Float32Type::get(a.getContext());
  if (failed(pushInferred(types, loc, element, shape)))
    return failure();
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  RankedTensorType c = tensorType(adaptor.getCondition()), a = tensorType(adaptor.getSelf()),
                   b = tensorType(adaptor.getOther());
  if (!c.getElementType().isInteger(1))
    return emitOptionalError(loc, "condition must be a tensor of i1, not ", c.getElementType());
  auto both = broadcast(loc, a.getShape(), b.getShape());
  if (failed(both))
    return failure();
  auto all = broadcast(loc, c.getShape(), *both);
  if (failed(all))
    return failure();
  return pushInferred(types, loc, promote(a, b), *all);
}

#define RAPTOR_NN_BINARY(OP, TRUE_DIVIDE)                                      \
  LogicalResult OP::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return inferBinary(loc, adaptor.getSelf(), adaptor.getOther(),             \
                       adaptor.getScalarAttr(), TRUE_DIVIDE, types);           \
  }
RAPTOR_NN_BINARY(AddOp, false)
RAPTOR_NN_BINARY(SubOp, false)
RAPTOR_NN_BINARY(MulOp, false)
RAPTOR_NN_BINARY(DivOp, true)
#undef RAPTOR_NN_BINARY

//===----------------------------------------------------------------------===//
// Reductions and pooling
//===----------------------------------------------------------------------===//

/// The result of reducing `self` over `dims` (every dimension when absent
/// or empty), kept as size 1 with `keepdim`: nn.mean and nn.amax.
static LogicalResult inferReduction(std::optional<Location> loc, RankedTensorType self,
                                    std::optional<ArrayRef<int64_t>> dims, BoolAttr keepdim,
                                    SmallVectorImpl<Type> &types) {
  int64_t rank = self.getRank();
  SmallVector<bool> reduced(rank, false);
  if (!dims || dims->empty()) {
    reduced.assign(rank, true);
  } else {
    for (int64_t d : *dims) {
      // aten wraps dims of a 0-d tensor as if it had rank 1.
      auto n = rank == 0 ? normDim(loc, d, 1) : normDim(loc, d, rank);
      if (failed(n))
        return failure();
      if (rank == 0)
        continue;
      if (reduced[*n])
        return emitOptionalError(loc, "dim ", d, " appears more than once");
      reduced[*n] = true;
    }
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(self.getDimSize(i));
    else if (boolOr(keepdim, false))
      shape.push_back(1);
  }
  return pushInferred(types, loc, self, shape);
}

LogicalResult MeanOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferReduction(loc, tensorType(adaptor.getSelf()), adaptor.getDim(), adaptor.getKeepdimAttr(), types);
}

LogicalResult AmaxOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  return inferReduction(loc, tensorType(adaptor.getSelf()), adaptor.getDim(), adaptor.getKeepdimAttr(), types);
}

/// The output shape of 2-d pooling over the last two dimensions of `self`,
/// (C, H, W) or (N, C, H, W); an empty stride means the kernel size (aten).
static FailureOr<SmallVector<int64_t>>
poolShape(std::optional<Location> loc, RankedTensorType self, ArrayRef<int64_t> kernelList,
          ArrayRef<int64_t> strideList, ArrayRef<int64_t> paddingList, ArrayRef<int64_t> dilationList,
          bool ceilMode) {
  if (self.getRank() != 3 && self.getRank() != 4)
    return emitOptionalError(loc, "input must be (C, H, W) or (N, C, H, W), got ", self);
  auto kernel = spatialList(loc, "kernel_size", kernelList, 2, 1);
  if (failed(kernel))
    return failure();
  auto stride = strideList.empty() ? kernel : spatialList(loc, "stride", strideList, 2, 1);
  auto padding = spatialList(loc, "padding", paddingList, 2, 0);
  auto dilation = spatialList(loc, "dilation", dilationList, 2, 1);
  if (failed(stride) || failed(padding) || failed(dilation))
    return failure();
  if (failed(checkWindow(loc, *kernel, *stride, *padding, *dilation)))
    return failure();
  SmallVector<int64_t> shape(self.getShape());
  int64_t rank = self.getRank();
  for (int i = 0; i < 2; ++i) {
    if ((*padding)[i] * 2 > (*kernel)[i])
      return emitOptionalError(loc, "padding must be at most half the kernel size");
    int64_t &d = shape[rank - 2 + i];
    d = windowOut(d, (*kernel)[i], (*stride)[i], (*padding)[i], (*dilation)[i], ceilMode);
    if (!isDyn(d) && d <= 0)
      return emitOptionalError(loc, "pooling window larger than the input ", self);
  }
  return shape;
}

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getKernelSizeAttr(), "kernel_size"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  FailureOr<SmallVector<int64_t>> shape =
      poolShape(loc, self, adaptor.getKernelSize(), arrayOr(adaptor.getStrideAttr()),
                arrayOr(adaptor.getPaddingAttr()), arrayOr(adaptor.getDilationAttr()),
                boolOr(adaptor.getCeilModeAttr(), false));
  if (failed(shape))
    return failure();
  if (failed(pushInferred(types, loc, self, *shape)))
    return failure();
  types.push_back(RankedTensorType::get(*shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getKernelSizeAttr(), "kernel_size"}})))
    return failure();
  if (auto divisor = adaptor.getDivisorOverrideAttr(); divisor && divisor.getInt() <= 0)
    return emitOptionalError(loc, "divisor_override must be positive");
  RankedTensorType self = tensorType(adaptor.getSelf());
  FailureOr<SmallVector<int64_t>> shape =
      poolShape(loc, self, adaptor.getKernelSize(), arrayOr(adaptor.getStrideAttr()),
                arrayOr(adaptor.getPaddingAttr()), {}, boolOr(adaptor.getCeilModeAttr(), false));
  if (failed(shape))
    return failure();
  if (failed(pushInferred(types, loc, self, *shape)))
    return failure();
  return success();
}

LogicalResult AdaptiveAvgPool2dOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
                                                    SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getOutputSizeAttr(), "output_size"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  if (self.getRank() != 3 && self.getRank() != 4)
    return emitOptionalError(loc, "input must be (C, H, W) or (N, C, H, W), got ", self);
  ArrayRef<int64_t> size = adaptor.getOutputSize();
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0)
    return emitOptionalError(loc, "output_size must be two positive sizes");
  SmallVector<int64_t> shape(self.getShape());
  shape[shape.size() - 2] = size[0];
  shape[shape.size() - 1] = size[1];
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult UpsampleNearest2dOp::inferReturnTypes(MLIRContext *,
                                                    std::optional<Location> loc,
                                                    Adaptor adaptor,
                                                    SmallVectorImpl<Type> &types) {
  RankedTensorType input = tensorType(adaptor.getInput());
  if (input.getRank() != 4)
    return emitOptionalError(loc, "input must be (N, C, H, W), got ", input);
  auto size = adaptor.getOutputSize();
  auto scales = adaptor.getScaleFactors();
  if (size.has_value() == scales.has_value())
    return emitOptionalError(loc, "exactly one of output_size and scale_factors must be given");
  SmallVector<int64_t> shape(input.getShape());
  for (int i = 0; i < 2; ++i) {
    if (size) {
      if (size->size() != 2 || (*size)[i] <= 0)
        return emitOptionalError(loc, "output_size must be 2 positive sizes, got [",
                                 *size, "]");
      shape[2 + i] = (*size)[i];
    } else {
      if (scales->size() != 2 || (*scales)[i] <= 0)
        return emitOptionalError(loc, "scale_factors must be 2 positive numbers");
      int64_t in = shape[2 + i];
      shape[2 + i] = isDyn(in) ? kDyn : int64_t(double(in) * (*scales)[i]);
      if (!isDyn(shape[2 + i]) && shape[2 + i] <= 0)
        return emitOptionalError(loc, "scale factor ", (*scales)[i],
                                 " gives an empty output for size ", in);
    }
  }
  if (failed(pushInferred(types, loc, input, shape)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Data layout and routing
//===----------------------------------------------------------------------===//

LogicalResult CatOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  ValueRange tensors = adaptor.getTensors();
  if (tensors.empty())
    return emitOptionalError(loc, "cat needs at least one tensor");
  RankedTensorType first = tensorType(tensors.front());
  int64_t rank = first.getRank();
  auto dim = normDim(loc, intOr(adaptor.getDimAttr(), 0), rank);
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : tensors.drop_front()) {
    RankedTensorType t = tensorType(v);
    if (t.getRank() != rank || t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "cat operands must share rank and element type: ",
                               first, " vs ", t);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t s = t.getDimSize(i);
      if (i == *dim && !isDyn(shape[i]) && !isDyn(s) && llvm::AddOverflow(shape[i], s, shape[i]))
        return emitOptionalError(loc, "cat along dim ", i, " of ", first, " and ", t, " overflows int64");
      else if (i == *dim)
        shape[i] = isDyn(shape[i]) || isDyn(s) ? kDyn : shape[i];
      else if (!isDyn(shape[i]) && !isDyn(s) && shape[i] != s)
        return emitOptionalError(loc, "cat operands differ in dim ", i, ": ",
                                 first, " vs ", t);
    }
  }
  if (failed(pushInferred(types, loc, first, shape)))
    return failure();
  return success();
}

LogicalResult SplitWithSizesOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getSplitSizesAttr(), "split_sizes"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  auto dim = normDim(loc, intOr(adaptor.getDimAttr(), 0), self.getRank());
  if (failed(dim))
    return failure();
  int64_t total = 0;
  for (int64_t s : adaptor.getSplitSizes()) {
    if (s < 0)
      return emitOptionalError(loc, "split sizes must be non-negative");
    total += s;
  }
  int64_t size = self.getDimSize(*dim);
  if (!isDyn(size) && total != size)
    return emitOptionalError(loc, "split sizes sum to ", total,
                             " but dim ", *dim, " has size ", size);
  SmallVector<int64_t> shape(self.getShape());
  for (int64_t s : adaptor.getSplitSizes()) {
    shape[*dim] = s;
    if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  }
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  RankedTensorType self = tensorType(adaptor.getSelf());
  auto dim = normDim(loc, intOr(adaptor.getDimAttr(), 0), self.getRank());
  if (failed(dim))
    return failure();
  int64_t step = intOr(adaptor.getStepAttr(), 1);
  if (step <= 0)
    return emitOptionalError(loc, "slice step must be positive, got ", step);
  SmallVector<int64_t> shape(self.getShape());
  int64_t size = shape[*dim];
  if (!isDyn(size)) {
    // Python slice semantics: negative bounds count from the end, and bounds
    // clamp to [0, size].
    auto clampBound = [&](std::optional<uint64_t> b, int64_t dflt) {
      if (!b)
        return dflt;
      int64_t v = static_cast<int64_t>(*b);
      if (v < 0)
        v += size;
      return std::clamp<int64_t>(v, 0, size);
    };
    int64_t start = clampBound(adaptor.getStart(), 0);
    int64_t end = clampBound(adaptor.getEnd(), size);
    shape[*dim] = end > start ? (end - start + step - 1) / step : 0;
  }
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getDimAttr(), "dim"}, {adaptor.getIndexAttr(), "index"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  if (self.getRank() == 0)
    return emitOptionalError(loc, "cannot select from a 0-d tensor");
  auto dim = normDim(loc, static_cast<int64_t>(adaptor.getDim()), self.getRank());
  if (failed(dim))
    return failure();
  int64_t size = self.getDimSize(*dim);
  int64_t index = static_cast<int64_t>(adaptor.getIndex());
  if (!isDyn(size) && (index < -size || index >= size))
    return emitOptionalError(loc, "index ", index, " is out of range for dim ", *dim,
                             " of size ", size);
  SmallVector<int64_t> shape(self.getShape());
  shape.erase(shape.begin() + *dim);
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult IndexSelectOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getDimAttr(), "dim"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  RankedTensorType index = tensorType(adaptor.getIndex());
  if (index.getRank() > 1)
    return emitOptionalError(loc, "index must be 0-d or 1-d, got ", index);
  SmallVector<int64_t> shape(self.getShape());
  if (self.getRank() == 0) {
    // aten treats a 0-d self as 1-d of size 1 and keeps it 0-d.
    if (failed(normDim(loc, static_cast<int64_t>(adaptor.getDim()), 1)))
      return failure();
    types.push_back(self);
    return success();
  }
  auto dim = normDim(loc, static_cast<int64_t>(adaptor.getDim()), self.getRank());
  if (failed(dim))
    return failure();
  shape[*dim] = index.getRank() == 0 ? 1 : index.getDimSize(0);
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult IndexOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  RankedTensorType self = tensorType(adaptor.getSelf());
  ValueRange indices = adaptor.getIndices();
  if (indices.empty())
    return emitOptionalError(loc, "index needs at least one index tensor");
  if (int64_t(indices.size()) > self.getRank())
    return emitOptionalError(loc, "too many indices (", indices.size(), ") for ", self);
  SmallVector<int64_t> shape;
  for (Value v : indices) {
    auto next = broadcast(loc, shape, tensorType(v).getShape());
    if (failed(next))
      return failure();
    shape = std::move(*next);
  }
  llvm::append_range(shape, self.getShape().drop_front(indices.size()));
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult AsStridedOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getSizeAttr(), "size"}, {adaptor.getStrideAttr(), "stride"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  ArrayRef<int64_t> size = adaptor.getSize(), stride = adaptor.getStride();
  if (size.size() != stride.size())
    return emitOptionalError(loc, "as_strided has ", size.size(), " sizes but ", stride.size(),
                             " strides");
  int64_t offset = intOr(adaptor.getStorageOffsetAttr(), 0);
  if (offset < 0)
    return emitOptionalError(loc, "storage_offset must be non-negative, got ", offset);
  // The last element read: offset + sum((size - 1) * stride), unless the
  // view is empty.
  int64_t last = offset;
  bool empty = false;
  for (auto [s, st] : llvm::zip(size, stride)) {
    if (s < 0)
      return emitOptionalError(loc, "invalid as_strided size ", s);
    if (st < 0)
      return emitOptionalError(loc, "as_strided strides must be non-negative, got ", st);
    if (s == 0) {
      empty = true;
      continue;
    }
    int64_t step;
    if (llvm::MulOverflow(s - 1, st, step) || llvm::AddOverflow(last, step, last))
      return emitOptionalError(loc, "as_strided sizes [", size, "] and strides [", stride,
                               "] overflow int64");
  }
  if (!empty && self.hasStaticShape()) {
    std::optional<int64_t> elements = raptor::nn::elementCount(self.getShape());
    if (!elements)
      return emitOptionalError(loc, self, " has more elements than int64 counts");
    if (last >= *elements)
      return emitOptionalError(loc, "as_strided reads element ", last, " of ", self, " (",
                               *elements, " elements): not a view of it");
  }
  if (failed(pushInferred(types, loc, self, size)))
    return failure();
  return success();
}

LogicalResult ViewOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getSizeAttr(), "size"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  SmallVector<int64_t> shape(adaptor.getSize());
  int64_t inferIndex = -1, known = 1;
  for (auto [i, s] : llvm::enumerate(shape)) {
    if (s == -1) {
      if (inferIndex >= 0)
        return emitOptionalError(loc, "only one dimension of size may be -1");
      inferIndex = i;
    } else if (s < 0) {
      return emitOptionalError(loc, "invalid view size ", s);
    } else if (llvm::MulOverflow(known, s, known)) {
      return emitOptionalError(loc, "view sizes [", adaptor.getSize(), "] overflow int64");
    }
  }
  if (!self.hasStaticShape()) {
    if (inferIndex >= 0)
      shape[inferIndex] = kDyn;
  } else {
    std::optional<int64_t> elements = raptor::nn::elementCount(self.getShape());
    if (!elements)
      return emitOptionalError(loc, self, " has more elements than int64 counts");
    int64_t numel = *elements;
    if (inferIndex >= 0) {
      if (known == 0 || numel % known != 0)
        return emitOptionalError(loc, "cannot view ", self, " as [", adaptor.getSize(), "]");
      shape[inferIndex] = numel / known;
    } else if (known != numel) {
      return emitOptionalError(loc, "cannot view ", self, " (", numel,
                               " elements) as [", adaptor.getSize(), "] (", known,
                               " elements)");
    }
  }
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult PermuteOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getDimsAttr(), "dims"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  int64_t rank = self.getRank();
  ArrayRef<int64_t> dims = adaptor.getDims();
  if (int64_t(dims.size()) != rank)
    return emitOptionalError(loc, "permutation [", dims, "] does not match rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t d : dims) {
    auto n = normDim(loc, d, rank);
    if (failed(n))
      return failure();
    if (seen[*n])
      return emitOptionalError(loc, "[", dims, "] is not a permutation");
    seen[*n] = true;
    shape.push_back(self.getDimSize(*n));
  }
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getSizeAttr(), "size"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  ArrayRef<int64_t> size = adaptor.getSize();
  int64_t rank = self.getRank();
  if (int64_t(size.size()) < rank)
    return emitOptionalError(loc, "expand size [", size, "] has fewer dims than ", self);
  int64_t lead = size.size() - rank;
  SmallVector<int64_t> shape;
  for (auto [i, s] : llvm::enumerate(size)) {
    int64_t in = int64_t(i) < lead ? 1 : self.getDimSize(i - lead);
    if (s < -1) {
      return emitOptionalError(loc, "invalid expand size ", s, " for dim ", i);
    } else if (s == -1) {
      if (int64_t(i) < lead)
        return emitOptionalError(loc, "-1 is not allowed for a new leading dimension");
      shape.push_back(in);
    } else if (!isDyn(in) && in != 1 && in != s) {
      return emitOptionalError(loc, "cannot expand dim ", i, " of size ", in,
                               " to ", s);
    } else {
      shape.push_back(s);
    }
  }
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult ConstantPadNdOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getPadAttr(), "pad"}})))
    return failure();
  RankedTensorType self = tensorType(adaptor.getSelf());
  ArrayRef<int64_t> pad = adaptor.getPad();
  int64_t rank = self.getRank();
  if (pad.size() % 2 != 0 || int64_t(pad.size() / 2) > rank)
    return emitOptionalError(loc, "pad must hold (before, after) pairs for at most ",
                             rank, " dims, got [", pad, "]");
  SmallVector<int64_t> shape(self.getShape());
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    int64_t &d = shape[rank - 1 - p];
    if (isDyn(d))
      continue;
    d += pad[2 * p] + pad[2 * p + 1];
    if (d < 0)
      return emitOptionalError(loc, "padding makes dim ", rank - 1 - p, " negative");
  }
  if (failed(pushInferred(types, loc, self, shape)))
    return failure();
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  RankedTensorType weight = tensorType(adaptor.getWeight());
  RankedTensorType indices = tensorType(adaptor.getIndices());
  if (weight.getRank() != 2)
    return emitOptionalError(loc, "embedding weight must be 2-d, got ", weight);
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(weight.getDimSize(1));
  if (failed(pushInferred(types, loc, weight, shape)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Decoder-specific operators
//===----------------------------------------------------------------------===//

LogicalResult KVCacheOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType key = tensorType(adaptor.getKey());
  RankedTensorType value = tensorType(adaptor.getValue());
  if (key.getRank() < 2 || value.getRank() != key.getRank())
    return emitOptionalError(loc, "key and value must share a rank >= 2");
  int64_t past = intOr(adaptor.getPastLengthAttr(), 0);
  if (past < 0)
    return emitOptionalError(loc, "past_length must be non-negative");
  for (RankedTensorType t : {key, value}) {
    SmallVector<int64_t> shape(t.getShape());
    int64_t &seq = shape[shape.size() - 2];
    if (!isDyn(seq) && llvm::AddOverflow(seq, past, seq))
      return emitOptionalError(loc, "past_length ", past, " plus ", t.getShape()[shape.size() - 2],
                               " new positions overflows int64");
    if (failed(pushInferred(types, loc, t, shape)))
    return failure();
  }
  return success();
}

LogicalResult FanOutOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(require(loc, {{adaptor.getRepeatsAttr(), "repeats"}})))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  auto dim = normDim(loc, intOr(adaptor.getDimAttr(), 1), input.getRank());
  if (failed(dim))
    return failure();
  int64_t repeats = static_cast<int64_t>(adaptor.getRepeats());
  if (repeats <= 0)
    return emitOptionalError(loc, "repeats must be positive, got ", repeats);
  SmallVector<int64_t> shape(input.getShape());
  if (!isDyn(shape[*dim]) && llvm::MulOverflow(shape[*dim], repeats, shape[*dim]))
    return emitOptionalError(loc, "repeats = ", repeats, " of ", input.getDimSize(*dim), " overflows int64");
  if (failed(pushInferred(types, loc, input, shape)))
    return failure();
  return success();
}
