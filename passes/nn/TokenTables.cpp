//===- TokenTables.cpp - Functions of token ids as lookups ------*- C++ -*-===//
#include "passes/nn/TokenTables.h"

#include "dialects/nn/NNOps.h"
#include "passes/nn/GenericOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

using namespace mlir;

namespace raptor::nn {
namespace {

/// Most elements (ids times positions) the analysis holds for one value.
constexpr int64_t kMostElements = int64_t(1) << 26;
/// Most runs of positions a float use of a moved function is built of
/// (each a slice or a constant: a mask broadcast element by element would
/// take thousands).
constexpr size_t kMostRuns = 64;
/// The most values an element-wise function of values at several id
/// positions takes (TokenTables' composed reading): a mask's are 0 and 1.
constexpr size_t kMostValues = 4;

int64_t elementCount(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : -1;
}

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

bool isF32Tensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32();
}

/// Whether `v` holds float32 elements, which the analysis keeps as their
/// bit patterns (exact, whatever the value: -0, infinities).
bool isReal(Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  return type && type.getElementType().isF32();
}
int64_t encodedReal(float x) { return int64_t(llvm::bit_cast<uint32_t>(x)); }
float decodedReal(int64_t x) { return llvm::bit_cast<float>(uint32_t(x)); }

/// An element of `v` as a number (a float32's bits decoded).
double numberOf(int64_t x, Value v) { return isReal(v) ? double(decodedReal(x)) : double(x); }

/// The element a splat constant `v` holds, as the analysis keeps it.
std::optional<int64_t> splatElement(Value v) {
  if (std::optional<int64_t> i = splatInteger(v))
    return i;
  DenseFPElementsAttr data;
  if (!isReal(v) || !matchPattern(v, m_Constant(&data)) || !data.isSplat())
    return std::nullopt;
  return encodedReal(data.getSplatValue<APFloat>().convertToFloat());
}

bool isNegation(StringRef target) { return target == "onnx.Not" || target == "aten.logical_not.default"; }

/// Bitwise and logical operators of two integers (aten's `.Tensor` and
/// `.Scalar` overloads, ONNX's And / Or / Xor on booleans) and minimum /
/// maximum; a logical one is of "not zero".
std::optional<std::function<int64_t(int64_t, int64_t)>> bitwise(StringRef target) {
  using F = std::function<int64_t(int64_t, int64_t)>;
  static const std::pair<StringRef, F> functions[] = {
      {"aten.bitwise_and", [](int64_t a, int64_t b) { return a & b; }},
      {"aten.bitwise_or", [](int64_t a, int64_t b) { return a | b; }},
      {"aten.bitwise_xor", [](int64_t a, int64_t b) { return a ^ b; }},
      {"aten.logical_and", [](int64_t a, int64_t b) -> int64_t { return a != 0 && b != 0; }},
      {"aten.logical_or", [](int64_t a, int64_t b) -> int64_t { return a != 0 || b != 0; }},
      {"aten.logical_xor", [](int64_t a, int64_t b) -> int64_t { return (a != 0) != (b != 0); }},
      {"aten.minimum", [](int64_t a, int64_t b) { return std::min(a, b); }},
      {"aten.maximum", [](int64_t a, int64_t b) { return std::max(a, b); }},
  };
  static const std::pair<StringRef, StringRef> onnx[] = {
      {"onnx.And", "aten.logical_and"}, {"onnx.Or", "aten.logical_or"}, {"onnx.Xor", "aten.logical_xor"}};
  StringRef name = target;
  (void)(name.consume_back(".Tensor") || name.consume_back(".Scalar") || name.consume_back(".default"));
  for (const auto &[from, to] : onnx)
    if (name == from)
      name = to;
  for (const auto &[n, f] : functions)
    if (n == name)
      return f;
  return std::nullopt;
}

/// A comparison of integers: ONNX's (two operands) and aten's (`.Scalar`:
/// a tensor and the integer `other`; `.Tensor`: two tensors).
std::optional<std::function<bool(int64_t, int64_t)>> relation(StringRef target) {
  using R = std::function<bool(int64_t, int64_t)>;
  static const std::pair<StringRef, R> relations[] = {
      {"Equal", [](int64_t a, int64_t b) { return a == b; }},
      {"Less", [](int64_t a, int64_t b) { return a < b; }},
      {"Greater", [](int64_t a, int64_t b) { return a > b; }},
      {"LessOrEqual", [](int64_t a, int64_t b) { return a <= b; }},
      {"GreaterOrEqual", [](int64_t a, int64_t b) { return a >= b; }},
      {"aten.eq", [](int64_t a, int64_t b) { return a == b; }},
      {"aten.ne", [](int64_t a, int64_t b) { return a != b; }},
      {"aten.lt", [](int64_t a, int64_t b) { return a < b; }},
      {"aten.le", [](int64_t a, int64_t b) { return a <= b; }},
      {"aten.gt", [](int64_t a, int64_t b) { return a > b; }},
      {"aten.ge", [](int64_t a, int64_t b) { return a >= b; }},
  };
  StringRef name = target;
  if (!name.consume_front("onnx.") && !name.consume_back(".Scalar") && !name.consume_back(".Tensor"))
    return std::nullopt;
  for (const auto &[n, r] : relations)
    if (n == name)
      return r;
  return std::nullopt;
}

/// Integer division and remainder as torch states them (`floor` rounds
/// toward minus infinity, `trunc` toward zero; a remainder takes the sign
/// of the divisor); none for a zero divisor, which torch does not define
/// for integers.
std::optional<int64_t> divided(int64_t a, int64_t b, StringRef mode) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
    return std::nullopt;
  int64_t q = a / b, r = a % b; // (C++ truncates)
  if (mode == "trunc")
    return q;
  if (mode == "fmod") // (the dividend's sign)
    return r;
  bool inexact = r != 0 && ((r < 0) != (b < 0));
  if (mode == "floor")
    return inexact ? q - 1 : q;
  return inexact ? r + b : r; // "remainder"
}

/// The rounding of a generic integer division or remainder, if `target`
/// is one (`div.Tensor_mode` names it in `rounding_mode`).
std::optional<StringRef> division(AtenOp aten) {
  StringRef target = aten.getTarget();
  if (target == "aten.remainder.Scalar" || target == "aten.remainder.Tensor")
    return StringRef("remainder");
  if (target == "aten.floor_divide.default")
    return StringRef("floor");
  if (target == "aten.fmod.Scalar" || target == "aten.fmod.Tensor")
    return StringRef("fmod");
  if (target == "onnx.Div") // (of integers: truncating, as onnxruntime computes it)
    return StringRef("trunc");
  if (target == "onnx.Mod") // (its `fmod` 1: the dividend's sign; 0: the divisor's)
    return StringRef(intParam(aten, "fmod").value_or(0) ? "fmod" : "remainder");
  if (target != "aten.div.Tensor_mode" && target != "aten.div.Scalar_mode")
    return std::nullopt;
  auto mode = aten.getParamsAttr() ? dyn_cast_or_null<StringAttr>(aten.getParamsAttr().get("rounding_mode"))
                                   : StringAttr();
  if (!mode || (mode.getValue() != "floor" && mode.getValue() != "trunc"))
    return std::nullopt;
  return mode.getValue();
}

/// An integer converted to the element type of `v` (a cast to booleans is
/// "not zero"; narrower integers wrap).
int64_t converted(int64_t x, Value v) {
  auto type = cast<IntegerType>(cast<ShapedType>(v.getType()).getElementType());
  if (type.getWidth() == 1)
    return x != 0;
  if (type.getWidth() >= 64)
    return x;
  APInt bits = APInt(64, uint64_t(x)).trunc(type.getWidth());
  return type.isUnsigned() ? int64_t(bits.getZExtValue()) : bits.getSExtValue();
}

/// a + b, a - b or a * b in the integer type of `v` (computed unsigned:
/// it wraps, as the integer types do).
int64_t wrapped(char op, int64_t a, int64_t b, Value v) {
  uint64_t x = uint64_t(a), y = uint64_t(b);
  return converted(int64_t(op == '*' ? x * y : op == '-' ? x - y : x + y), v);
}

/// The tensor operands of an element-wise integer op the analysis takes,
/// and its function of their elements; none for any other op.
struct Elementwise {
  SmallVector<Value, 3> operands;
  std::function<std::optional<int64_t>(ArrayRef<int64_t>)> apply;
};

/// An element of `from` cast to the element type of `to` as torch casts:
/// to float32 rounded to nearest, a float to booleans "not zero", to
/// other integers truncated toward zero; none for a float no integer
/// type holds.
std::optional<int64_t> castElement(int64_t x, Value from, Value to) {
  if (isReal(to))
    return encodedReal(isReal(from) ? decodedReal(x) : float(x));
  if (!isReal(from))
    return converted(x, to);
  float f = decodedReal(x);
  if (cast<IntegerType>(cast<ShapedType>(to.getType()).getElementType()).getWidth() == 1)
    return int64_t(f != 0.0f);
  if (!std::isfinite(f) || std::abs(f) >= 9.0e18f)
    return std::nullopt;
  return converted(int64_t(std::trunc(f)), to);
}

/// A number parameter of a generic op (`other` of aten's `.Scalar`
/// overloads), integer or real.
std::optional<double> numberParam(AtenOp op, StringRef name) {
  Attribute a = op.getParamsAttr() ? op.getParamsAttr().get(name) : Attribute();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return double(i.getInt());
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  return std::nullopt;
}

/// An element-wise op on float32 data the analysis takes (MPT's mask
/// made reals and cast back to booleans): float arithmetic (in float32,
/// as torch computes it, integers promoted), negation, casts, a select of
/// reals, comparisons of reals.
std::optional<Elementwise> realElementwise(Operation *op) {
  Value out = op->getResult(0);
  if (auto select = dyn_cast<WhereOp>(op)) {
    if (!isReal(out) || !isReal(select.getSelf()) || !isReal(select.getOther()) || isReal(select.getCondition()))
      return std::nullopt;
    return Elementwise{{select.getCondition(), select.getSelf(), select.getOther()},
                       [](ArrayRef<int64_t> x) -> std::optional<int64_t> { return x[0] ? x[1] : x[2]; }};
  }
  if (isa<AddOp, SubOp, MulOp, DivOp>(op)) {
    auto alpha = dyn_cast_or_null<FloatAttr>(op->getAttr("alpha"));
    Attribute scalar = op->getAttr("scalar");
    if (!isReal(out) || (alpha && alpha.getValueAsDouble() != 1.0) || (op->getNumOperands() == 1 && !scalar))
      return std::nullopt;
    float c = 0.0f;
    if (auto i = dyn_cast_or_null<IntegerAttr>(scalar))
      c = float(i.getInt());
    else if (auto f = dyn_cast_or_null<FloatAttr>(scalar))
      c = float(f.getValueAsDouble());
    char kind = isa<SubOp>(op) ? '-' : isa<MulOp>(op) ? '*' : isa<DivOp>(op) ? '/' : '+';
    SmallVector<Value, 3> operands(op->getOperands());
    return Elementwise{operands, [=](ArrayRef<int64_t> x) -> std::optional<int64_t> {
                         float a = float(numberOf(x[0], operands[0]));
                         float b = x.size() > 1 ? float(numberOf(x[1], operands[1])) : c;
                         return encodedReal(kind == '*' ? a * b : kind == '/' ? a / b : kind == '-' ? a - b : a + b);
                       }};
  }
  if (auto neg = dyn_cast<NegOp>(op))
    return Elementwise{{neg.getSelf()}, [](ArrayRef<int64_t> x) -> std::optional<int64_t> {
                         return encodedReal(-decodedReal(x[0]));
                       }};
  auto aten = dyn_cast<AtenOp>(op);
  if (!aten || aten.getArgs().empty())
    return std::nullopt;
  SmallVector<Value, 3> args(aten.getArgs().begin(), aten.getArgs().end());
  if (isCast(aten) && args.size() == 1)
    return Elementwise{args, [from = args[0], out](ArrayRef<int64_t> x) { return castElement(x[0], from, out); }};
  auto r = relation(aten.getTarget());
  if (!r || isReal(out) || !isIntegerTensor(out))
    return std::nullopt;
  auto compare = [r = *r](double a, double b) -> std::optional<int64_t> {
    // (the relations of integers, on the order of the numbers; NaN is
    // unordered: only "not equal" holds, the one true both ways)
    if (std::isnan(a) || std::isnan(b))
      return int64_t(r(0, 1) && r(1, 0));
    return a < b ? int64_t(r(0, 1)) : a > b ? int64_t(r(1, 0)) : int64_t(r(0, 0));
  };
  if (args.size() == 1) {
    std::optional<double> other = numberParam(aten, "other");
    if (!other)
      return std::nullopt;
    return Elementwise{args, [=, self = args[0]](ArrayRef<int64_t> x) { return compare(numberOf(x[0], self), *other); }};
  }
  if (args.size() != 2)
    return std::nullopt;
  return Elementwise{args, [=](ArrayRef<int64_t> x) {
                       return compare(numberOf(x[0], args[0]), numberOf(x[1], args[1]));
                     }};
}

std::optional<Elementwise> elementwise(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Value out = op->getResult(0);
  if (isReal(out) || llvm::any_of(op->getOperands(), isReal))
    return realElementwise(op);
  if (!isIntegerTensor(out))
    return std::nullopt;
  if (auto select = dyn_cast<WhereOp>(op))
    return Elementwise{{select.getCondition(), select.getSelf(), select.getOther()},
                       [](ArrayRef<int64_t> x) -> std::optional<int64_t> { return x[0] ? x[1] : x[2]; }};
  if (isa<AddOp, SubOp, MulOp>(op)) {
    Value other = op->getOperand(op->getNumOperands() - 1);
    auto scalar = dyn_cast_or_null<IntegerAttr>(op->getAttr("scalar"));
    auto alpha = dyn_cast_or_null<FloatAttr>(op->getAttr("alpha"));
    if ((alpha && alpha.getValueAsDouble() != 1.0) || (op->getNumOperands() == 1 && !scalar))
      return std::nullopt;
    char kind = isa<SubOp>(op) ? '-' : isa<MulOp>(op) ? '*' : '+';
    SmallVector<Value, 3> operands{op->getOperand(0)};
    if (op->getNumOperands() == 2)
      operands.push_back(other);
    int64_t c = scalar ? scalar.getInt() : 0;
    return Elementwise{operands, [=](ArrayRef<int64_t> x) -> std::optional<int64_t> {
                         return wrapped(kind, x[0], x.size() > 1 ? x[1] : c, out);
                       }};
  }
  if (auto neg = dyn_cast<NegOp>(op))
    return Elementwise{{neg.getSelf()}, [=](ArrayRef<int64_t> x) -> std::optional<int64_t> {
                         return converted(int64_t(0 - uint64_t(x[0])), out);
                       }};
  if (auto clamp = dyn_cast<ClampOp>(op)) {
    // (integral bounds only: torch's clamp of integers by a fraction promotes to floats)
    auto bound = [](std::optional<APFloat> b) -> std::optional<std::optional<int64_t>> {
      if (!b)
        return std::optional<int64_t>();
      double v = b->convertToDouble();
      if (v != std::floor(v) || std::abs(v) > 9e15)
        return std::nullopt;
      return std::optional<int64_t>(int64_t(v));
    };
    auto lo = bound(clamp.getMin()), hi = bound(clamp.getMax());
    if (!lo || !hi)
      return std::nullopt;
    return Elementwise{{clamp.getSelf()}, [lo = *lo, hi = *hi](ArrayRef<int64_t> x) -> std::optional<int64_t> {
                         int64_t y = lo ? std::max(x[0], *lo) : x[0];
                         return hi ? std::min(y, *hi) : y;
                       }};
  }
  auto aten = dyn_cast<AtenOp>(op);
  if (!aten || aten.getArgs().empty())
    return std::nullopt;
  StringRef target = aten.getTarget();
  SmallVector<Value, 3> args(aten.getArgs().begin(), aten.getArgs().end());
  if (isCast(aten) && args.size() == 1)
    return Elementwise{args, [=](ArrayRef<int64_t> x) -> std::optional<int64_t> { return converted(x[0], out); }};
  if (isNegation(target) && args.size() == 1)
    return Elementwise{args, [](ArrayRef<int64_t> x) -> std::optional<int64_t> { return x[0] == 0; }};
  if (target == "aten.bitwise_not.default" && args.size() == 1) {
    bool boolean = cast<IntegerType>(cast<ShapedType>(out.getType()).getElementType()).getWidth() == 1;
    return Elementwise{args, [=](ArrayRef<int64_t> x) -> std::optional<int64_t> {
                         return boolean ? int64_t(x[0] == 0) : converted(~x[0], out); // (of booleans: not)
                       }};
  }
  // A binary integer function: of two operands, or of one and aten's `other`.
  std::function<std::optional<int64_t>(int64_t, int64_t)> binary;
  if (auto r = relation(target))
    binary = [r = *r](int64_t a, int64_t b) -> std::optional<int64_t> { return r(a, b); };
  else if (auto f = bitwise(target))
    binary = [f = *f, out](int64_t a, int64_t b) -> std::optional<int64_t> { return converted(f(a, b), out); };
  else if (target == "aten.sub.Tensor" || target == "aten.add.Tensor" || target == "aten.mul.Tensor")
    // (generic when the tensor is the second operand: `c - ids`)
    binary = [kind = target == "aten.sub.Tensor" ? '-' : target == "aten.mul.Tensor" ? '*' : '+',
              out](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapped(kind, a, b, out); };
  else if (std::optional<StringRef> mode = division(aten))
    binary = [mode = mode->str(), out](int64_t a, int64_t b) -> std::optional<int64_t> {
      std::optional<int64_t> y = divided(a, b, mode);
      return y ? std::optional(converted(*y, out)) : std::nullopt;
    };
  else
    return std::nullopt;
  if (args.size() == 1 && target.starts_with("aten.")) {
    if (Attribute alpha = aten.getParamsAttr() ? aten.getParamsAttr().get("alpha") : Attribute()) {
      auto i = dyn_cast<IntegerAttr>(alpha);
      auto f = dyn_cast<FloatAttr>(alpha);
      if (!(i && i.getInt() == 1) && !(f && f.getValueAsDouble() == 1.0))
        return std::nullopt;
    }
    if (std::optional<int64_t> other = intParam(aten, "other"))
      return Elementwise{args, [=](ArrayRef<int64_t> x) { return binary(x[0], *other); }};
    if (std::optional<int64_t> self = intParam(aten, "self"))
      return Elementwise{args, [=](ArrayRef<int64_t> x) { return binary(*self, x[0]); }};
  }
  if (args.size() == 2)
    return Elementwise{args, [=](ArrayRef<int64_t> x) { return binary(x[0], x[1]); }};
  return std::nullopt;
}

bool isSum(StringRef target) {
  return target == "onnx.ReduceSum" || target == "aten.sum.dim_IntList" || target == "aten.sum.default";
}

/// The axes a sum reduces (ONNX's constant second operand, aten's `dim`;
/// none: all) and whether it keeps them; none for axes not known.
std::optional<std::pair<SmallVector<int64_t>, bool>> reduced(AtenOp sum, int64_t rank) {
  if (rank == 0) // (a sum of one element: not a count of positions)
    return std::nullopt;
  SmallVector<int64_t> dims;
  bool onnx = sum.getTarget().starts_with("onnx.");
  if (onnx && sum.getArgs().size() > 1) {
    DenseIntElementsAttr axes;
    if (!matchPattern(sum.getArgs()[1], m_Constant(&axes)))
      return std::nullopt;
    for (const APInt &a : axes)
      dims.push_back(a.getSExtValue());
  } else if (!onnx && sum.getParamsAttr()) {
    if (Attribute dim = sum.getParamsAttr().get("dim")) {
      auto list = dyn_cast<DenseI64ArrayAttr>(dim);
      if (!list)
        return std::nullopt;
      dims.append(list.asArrayRef().begin(), list.asArrayRef().end());
    }
    if (sum.getParamsAttr().get("dtype"))
      return std::nullopt;
  }
  for (int64_t &d : dims)
    d = (d % rank + rank) % rank;
  if (dims.empty()) {
    if (onnx && intParam(sum, "noop_with_empty_axes").value_or(0))
      return std::nullopt;
    dims.resize(size_t(rank));
    std::iota(dims.begin(), dims.end(), 0);
  }
  bool keep = onnx ? intParam(sum, "keepdims").value_or(1) != 0 : intParam(sum, "keepdim").value_or(0) != 0;
  return std::pair(dims, keep);
}

struct ValueHash {
  size_t operator()(Value v) const { return hash_value(v); }
};

/// Element p of a tensor computed from the ids by data movement and
/// element-wise integer operators: a function (`column[p]`, a column of
/// the analysis's tables) of the id at flat position `at[p]`, or a constant
/// (`at[p]` = -1, `column[p]` its value).
struct Moved {
  std::vector<int64_t> at, column;
};

/// The flat source position of each element of a tensor of `shape`
/// broadcast (torch's rules) from one of `source` shape (of rank at most
/// shape's).
std::vector<int64_t> broadcastSources(ArrayRef<int64_t> source, ArrayRef<int64_t> shape) {
  size_t lead = shape.size() - source.size();
  int64_t total = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  std::vector<int64_t> sources;
  for (int64_t e = 0; e < total; ++e) {
    int64_t rest = e, flat = 0, stride = 1;
    for (size_t d = shape.size(); d-- > lead;) {
      int64_t i = rest % shape[d], size = source[d - lead];
      rest /= shape[d];
      flat += (size == 1 ? 0 : i) * stride;
      stride *= size;
    }
    sources.push_back(flat);
  }
  return sources;
}

/// Which values are such functions of one id input, over a vocabulary of
/// `rows` ids (the tables: a function's value for every id).
class IdAnalysis {
public:
  IdAnalysis(Value ids, int64_t rows) : ids(ids), rows(rows) {
    auto same = std::vector<int64_t>(size_t(rows));
    std::iota(same.begin(), same.end(), 0);
    identity = intern(std::move(same));
  }

  /// The value's elements, or null when it is not such a function.
  const Moved *of(Value v) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second ? &*it->second : nullptr;
    std::optional<Moved> m = compute(v); // (recursive: the memo grows under it)
    auto &slot = memo[v] = std::move(m);
    return slot ? &*slot : nullptr;
  }

  /// The one column `v` is at every position of the ids, element by
  /// element (a function of the id at the same position), if it is.
  std::optional<int64_t> pointwise(Value v) {
    const Moved *m = of(v);
    if (!m || int64_t(m->at.size()) != elementCount(ids))
      return std::nullopt;
    for (size_t p = 0; p < m->at.size(); ++p)
      if (m->at[p] != int64_t(p) || m->column[p] != m->column[0])
        return std::nullopt;
    return m->column.empty() ? std::nullopt : std::optional(m->column[0]);
  }

  const std::vector<int64_t> &table(int64_t column) const { return columns[size_t(column)]; }
  int64_t identity = 0;

  /// Past the ids' positions, an `at` names one the program computes: in
  /// row b, the count of ids that are not `pad`, less one (MBart's decoder
  /// start token). Its (b, pad), if it is one.
  std::optional<std::pair<int64_t, int64_t>> countedAt(int64_t at) const {
    int64_t n = elementCount(ids);
    if (at < n)
      return std::nullopt;
    return std::pair((at - n) / rows, (at - n) % rows);
  }

private:
  int64_t intern(std::vector<int64_t> values) {
    auto [it, inserted] = interned.try_emplace(values, int64_t(columns.size()));
    if (inserted)
      columns.push_back(std::move(values));
    return it->second;
  }

  /// The elements of `v` picked by flat source positions.
  static Moved picked(const Moved &from, ArrayRef<int64_t> sources) {
    Moved out;
    for (int64_t s : sources) {
      out.at.push_back(from.at[size_t(s)]);
      out.column.push_back(from.column[size_t(s)]);
    }
    return out;
  }

  /// Flat source positions of a result of `shape` whose index along `dim`
  /// is `index(j)` in a source of `source` shape (the other indices equal).
  static std::vector<int64_t> along(ArrayRef<int64_t> source, ArrayRef<int64_t> shape, size_t dim,
                                    const std::function<int64_t(int64_t)> &index) {
    int64_t inner = std::accumulate(shape.begin() + dim + 1, shape.end(), int64_t(1), std::multiplies<>());
    int64_t total = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
    std::vector<int64_t> out;
    for (int64_t e = 0; e < total; ++e) {
      int64_t outer = e / (inner * shape[dim]), j = (e / inner) % shape[dim], in = e % inner;
      out.push_back((outer * source[dim] + index(j)) * inner + in);
    }
    return out;
  }

  std::optional<Moved> compute(Value v) {
    int64_t n = elementCount(v);
    if (n < 0 || !(isIntegerTensor(v) || isReal(v)) || n * rows > kMostElements)
      return std::nullopt;
    if (v == ids) {
      Moved m;
      m.at.resize(size_t(n));
      std::iota(m.at.begin(), m.at.end(), 0);
      m.column.assign(size_t(n), identity);
      return m;
    }
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (DenseFPElementsAttr reals; isReal(v) && matchPattern(v, m_Constant(&reals))) {
      Moved m;
      m.at.assign(size_t(n), -1);
      for (const APFloat &x : reals)
        m.column.push_back(encodedReal(x.convertToFloat()));
      return m;
    }
    DenseIntElementsAttr data;
    if (matchPattern(v, m_Constant(&data))) {
      Moved m;
      m.at.assign(size_t(n), -1);
      bool unsignedType = data.getElementType().isUnsignedInteger();
      for (const APInt &x : data) // (booleans are 0 and 1)
        m.column.push_back(x.getBitWidth() == 1 || unsignedType ? int64_t(x.getZExtValue()) : x.getSExtValue());
      if (data.isSplat())
        m.column.assign(size_t(n), m.column.front());
      return m;
    }
    if (isa<ViewOp, CloneOp>(op)) {
      const Moved *from = of(op->getOperand(0));
      return from ? std::optional(*from) : std::nullopt;
    }
    if (auto expand = dyn_cast<ExpandOp>(op))
      return broadcast(expand.getSelf(), shapeOf(v));
    if (auto permute = dyn_cast<PermuteOp>(op))
      return permuted(permute.getSelf(), permute.getDims());
    if (auto pad = dyn_cast<ConstantPadNdOp>(op))
      return padded(pad);
    if (auto slice = dyn_cast<SliceOp>(op)) {
      const Moved *from = of(slice.getSelf());
      ArrayRef<int64_t> source = shapeOf(slice.getSelf());
      size_t dim = size_t((slice.getDim() + int64_t(source.size())) % int64_t(source.size()));
      int64_t start = slice.getStart().value_or(0), size = source[dim], step = slice.getStep();
      start = std::clamp<int64_t>(start < 0 ? start + size : start, 0, size);
      if (!from)
        return std::nullopt;
      return picked(*from, along(source, shapeOf(v), dim, [&](int64_t j) { return start + j * step; }));
    }
    if (auto select = dyn_cast<SelectOp>(op)) {
      const Moved *from = of(select.getSelf());
      ArrayRef<int64_t> source = shapeOf(select.getSelf());
      int64_t rank = int64_t(source.size()), dim = (select.getDim() + rank) % rank;
      int64_t index = (select.getIndex() + source[size_t(dim)]) % source[size_t(dim)];
      SmallVector<int64_t> kept(source.begin(), source.end());
      kept[size_t(dim)] = 1;
      if (!from)
        return std::nullopt;
      return picked(*from, along(source, kept, size_t(dim), [&](int64_t) { return index; }));
    }
    if (auto cat = dyn_cast<CatOp>(op))
      return concatenated(cat);
    if (auto scatter = dyn_cast<AtenOp>(op); scatter && scatter.getTarget() == "onnx.ScatterND")
      return scattered(scatter);
    if (auto gather = dyn_cast<AtenOp>(op);
        gather && (gather.getTarget() == "aten.gather.default" || gather.getTarget() == "onnx.GatherElements"))
      return pickedAtCount(gather);
    if (auto select = dyn_cast<WhereOp>(op))
      if (std::optional<Moved> m = selected(select))
        return m;
    if (std::optional<Elementwise> e = elementwise(op))
      return combined(*e, shapeOf(v));
    return std::nullopt;
  }

  /// A select by a condition known at every position picks each element
  /// from one operand (MBart's start token forced before its ids shifted
  /// right: both are functions of ids, the element-wise rule takes one);
  /// none for a condition computed from the ids.
  std::optional<Moved> selected(WhereOp select) {
    ArrayRef<int64_t> shape = shapeOf(select.getOut());
    std::optional<Moved> c = broadcast(select.getCondition(), shape);
    if (!c || llvm::any_of(c->at, [](int64_t at) { return at >= 0; }))
      return std::nullopt;
    std::optional<Moved> x = broadcast(select.getSelf(), shape), y = broadcast(select.getOther(), shape);
    if (!x || !y)
      return std::nullopt;
    Moved out;
    for (size_t p = 0; p < c->at.size(); ++p) {
      const Moved &from = c->column[p] ? *x : *y;
      out.at.push_back(from.at[p]);
      out.column.push_back(from.column[p]);
    }
    return out;
  }

  /// A gather along the ids' length (torch's gather, ONNX's
  /// GatherElements) of a function of the id at each position, at the
  /// count of ids that are not padding less one (MBart's and PLBart's
  /// decoder start token, `shift_tokens_right`): row b's element is that
  /// function of the id at a position the program computes (countedAt).
  /// A row of padding alone reads padding at any position: torch raises
  /// there, ONNX reads the last one.
  std::optional<Moved> pickedAtCount(AtenOp gather) {
    if (gather.getArgs().size() != 2)
      return std::nullopt;
    Value self = gather.getArgs()[0], index = gather.getArgs()[1];
    ArrayRef<int64_t> shape = shapeOf(ids);
    std::optional<int64_t> dim = intParam(gather, gather.getTarget().starts_with("onnx.") ? "axis" : "dim");
    if (shape.size() != 2 || shapeOf(self) != shape || !dim || (*dim != 1 && *dim != -1))
      return std::nullopt;
    SmallVector<int64_t, 2> picks{shape[0], 1};
    if (shapeOf(index) != ArrayRef<int64_t>(picks))
      return std::nullopt;
    std::optional<int64_t> column = pointwise(self);
    std::optional<int64_t> pad = column ? paddingCounted(index) : std::nullopt;
    if (!pad)
      return std::nullopt;
    Moved out;
    for (int64_t b = 0; b < shape[0]; ++b) {
      // (no id is padding: the count is the length, a position known)
      out.at.push_back(*pad < 0 ? (b + 1) * shape[1] - 1 : elementCount(ids) + b * rows + *pad);
      out.column.push_back(*column);
    }
    return out;
  }

  /// The padding id when `index` (through views) counts the ids that are
  /// not it, less one, along each row: `s - 1` of a sum over the length of
  /// a function of the id at each position that is 0 for one id of the
  /// vocabulary and 1 for every other; -1 when it is 1 for all of them.
  std::optional<int64_t> paddingCounted(Value index) {
    Operation *def = beforeViews(index).getDefiningOp();
    std::optional<Elementwise> less = def ? elementwise(def) : std::nullopt;
    if (!less || less->operands.empty())
      return std::nullopt;
    SmallVector<int64_t, 3> x{0};
    for (Value c : ArrayRef<Value>(less->operands).drop_front()) {
      std::optional<int64_t> splat = splatInteger(c);
      if (!splat)
        return std::nullopt;
      x.push_back(*splat);
    }
    for (int64_t probe : {0, 1, 12345}) {
      x[0] = probe;
      if (less->apply(x) != std::optional<int64_t>(probe - 1))
        return std::nullopt;
    }
    auto sum = less->operands.front().getDefiningOp<AtenOp>();
    if (!sum || !isSum(sum.getTarget()) || sum.getArgs().empty())
      return std::nullopt;
    Value counted = sum.getArgs().front();
    auto axes = reduced(sum, int64_t(shapeOf(counted).size()));
    if (!axes || axes->first != SmallVector<int64_t>{1} || shapeOf(counted) != shapeOf(ids))
      return std::nullopt;
    std::optional<int64_t> kept = pointwise(counted);
    if (!kept)
      return std::nullopt;
    int64_t pad = -1;
    for (auto [id, k] : llvm::enumerate(table(*kept)))
      if (k == 0 && pad < 0)
        pad = int64_t(id);
      else if (k != 1)
        return std::nullopt; // (a second id not counted, or a count of more than one)
    return pad;
  }

  /// `from` broadcast to `shape` (its dimensions aligned to the right;
  /// a dimension of 1 repeated).
  std::optional<Moved> broadcast(Value from, ArrayRef<int64_t> shape) {
    const Moved *m = of(from);
    ArrayRef<int64_t> source = shapeOf(from);
    if (!m || source.size() > shape.size())
      return std::nullopt;
    return picked(*m, broadcastSources(source, shape));
  }

  /// `from` with its dimensions permuted (result dimension k is source
  /// dimension dims[k]; XLNet reads its ids transposed).
  std::optional<Moved> permuted(Value from, ArrayRef<int64_t> dims) {
    const Moved *m = of(from);
    ArrayRef<int64_t> source = shapeOf(from);
    size_t rank = source.size();
    if (!m || dims.size() != rank)
      return std::nullopt;
    std::vector<int64_t> stride(rank, 1); // the source's, row-major
    for (size_t d = rank; d-- > 1;)
      stride[d - 1] = stride[d] * source[d];
    std::vector<int64_t> sources(m->at.size());
    for (size_t e = 0; e < sources.size(); ++e) {
      int64_t rest = int64_t(e), flat = 0;
      for (size_t k = rank; k-- > 0;) {
        size_t d = size_t((dims[k] + int64_t(rank)) % int64_t(rank));
        flat += (rest % source[d]) * stride[d];
        rest /= source[d];
      }
      sources[e] = flat;
    }
    return picked(*m, sources);
  }

  /// A constant padding (F.pad: a start token before the ids shifted
  /// right): the padded elements are the constant, the others `from`'s.
  std::optional<Moved> padded(ConstantPadNdOp pad) {
    const Moved *m = of(pad.getSelf());
    double value = pad.getValue().convertToDouble();
    ArrayRef<int64_t> source = shapeOf(pad.getSelf()), shape = shapeOf(pad.getOut());
    ArrayRef<int64_t> widths = pad.getPad();
    size_t rank = source.size();
    bool real = isReal(pad.getOut());
    if (!m || widths.size() % 2 || widths.size() / 2 > rank || (!real && value != std::floor(value)))
      return std::nullopt;
    std::vector<int64_t> before(rank, 0);
    for (size_t k = 0; k < widths.size() / 2; ++k) // (pairs from the last dimension backwards)
      before[rank - 1 - k] = widths[2 * k];
    Moved out;
    int64_t total = elementCount(pad.getOut());
    for (int64_t e = 0; e < total; ++e) {
      int64_t rest = e, flat = 0, stride = 1;
      bool inside = true;
      for (size_t d = rank; d-- > 0;) {
        int64_t i = rest % shape[d] - before[d];
        rest /= shape[d];
        inside = inside && i >= 0 && i < source[d];
        flat += i * stride;
        stride *= source[d];
      }
      out.at.push_back(inside ? m->at[size_t(flat)] : -1);
      out.column.push_back(inside ? m->column[size_t(flat)]
                           : real ? encodedReal(float(value))
                                  : converted(int64_t(value), pad.getOut()));
    }
    return out;
  }

  std::optional<Moved> concatenated(CatOp cat) {
    ArrayRef<int64_t> shape = shapeOf(cat.getOut());
    size_t dim = size_t((cat.getDim() + int64_t(shape.size())) % int64_t(shape.size()));
    int64_t inner = std::accumulate(shape.begin() + dim + 1, shape.end(), int64_t(1), std::multiplies<>());
    int64_t outer = std::accumulate(shape.begin(), shape.begin() + dim, int64_t(1), std::multiplies<>());
    SmallVector<const Moved *> parts;
    for (Value t : cat.getTensors())
      if (const Moved *m = of(t); m && shapeOf(t).size() == shape.size())
        parts.push_back(m);
      else
        return std::nullopt;
    Moved out;
    for (int64_t o = 0; o < outer; ++o)
      for (auto [t, m] : llvm::zip(cat.getTensors(), parts)) {
        int64_t block = shapeOf(t)[dim] * inner;
        out.at.insert(out.at.end(), m->at.begin() + o * block, m->at.begin() + (o + 1) * block);
        out.column.insert(out.column.end(), m->column.begin() + o * block, m->column.begin() + (o + 1) * block);
      }
    return out;
  }

  /// ONNX's ScatterND with constant indices (no reduction): the data with
  /// the blocks the indices name replaced by the updates'.
  std::optional<Moved> scattered(AtenOp scatter) {
    if (scatter.getArgs().size() != 3 || (scatter.getParamsAttr() && scatter.getParamsAttr().get("reduction")))
      return std::nullopt;
    Value data = scatter.getArgs()[0], indices = scatter.getArgs()[1], updates = scatter.getArgs()[2];
    DenseIntElementsAttr where;
    const Moved *base = of(data), *with = of(updates);
    if (!base || !with || !matchPattern(indices, m_Constant(&where)))
      return std::nullopt;
    ArrayRef<int64_t> shape = shapeOf(data), index = shapeOf(indices);
    size_t q = size_t(index.back());
    if (q == 0 || q > shape.size()) // (q = 0 would replace the whole tensor)
      return std::nullopt;
    int64_t block = std::accumulate(shape.begin() + q, shape.end(), int64_t(1), std::multiplies<>());
    std::vector<int64_t> coordinates;
    for (const APInt &x : where)
      coordinates.push_back(x.getSExtValue());
    Moved out = *base;
    for (size_t u = 0; u * q < coordinates.size(); ++u) {
      int64_t offset = 0;
      for (size_t d = 0; d < q; ++d) {
        int64_t i = coordinates[u * q + d];
        i = i < 0 ? i + shape[d] : i;
        if (i < 0 || i >= shape[d])
          return std::nullopt;
        offset = offset * shape[d] + i;
      }
      for (int64_t e = 0; e < block; ++e) {
        size_t to = size_t(offset * block + e), from = size_t(int64_t(u) * block + e);
        if (from >= with->at.size())
          return std::nullopt;
        out.at[to] = with->at[from];
        out.column[to] = with->column[from];
      }
    }
    return out;
  }

  /// An element-wise op: its operands are values broadcast to its shape
  /// (transformers' masks: queries' against keys') or constants of one
  /// value; each element a function of one id at most.
  std::optional<Moved> combined(const Elementwise &e, ArrayRef<int64_t> shape) {
    int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
    SmallVector<const Moved *> operands;
    SmallVector<std::optional<int64_t>> splats;
    std::deque<Moved> spread; // (operands broadcast here, at stable addresses)
    for (Value x : e.operands) {
      std::optional<int64_t> splat = splatElement(x);
      const Moved *m = splat ? nullptr : of(x);
      if (m && int64_t(m->at.size()) != n)
        if (std::optional<Moved> b = broadcast(x, shape))
          m = &spread.emplace_back(std::move(*b));
      if (!splat && (!m || int64_t(m->at.size()) != n))
        return std::nullopt;
      operands.push_back(m);
      splats.push_back(splat);
    }
    Moved out;
    // (each operand's column, or its constant, at one element) -> the column made of them
    std::map<std::vector<std::pair<bool, int64_t>>, std::pair<bool, int64_t>> made; // (a constant?, value or column)
    SmallVector<int64_t, 3> x(operands.size());
    for (int64_t p = 0; p < n; ++p) {
      int64_t at = -1;
      for (const Moved *m : operands)
        if (m && m->at[size_t(p)] >= 0) {
          if (at >= 0 && at != m->at[size_t(p)])
            return std::nullopt; // a function of two ids
          at = m->at[size_t(p)];
        }
      auto operand = [&](size_t i, int64_t id) {
        const Moved *m = operands[i];
        if (!m)
          return *splats[i];
        int64_t c = m->column[size_t(p)];
        return m->at[size_t(p)] < 0 ? c : columns[size_t(c)][size_t(id)];
      };
      auto value = [&](int64_t id) -> std::optional<int64_t> {
        for (size_t i = 0; i < operands.size(); ++i)
          x[i] = operand(i, id);
        return e.apply(x);
      };
      out.at.push_back(at);
      if (at < 0) {
        std::optional<int64_t> c = value(0);
        if (!c)
          return std::nullopt;
        out.column.push_back(*c);
        continue;
      }
      std::vector<std::pair<bool, int64_t>> key;
      for (size_t i = 0; i < operands.size(); ++i) {
        bool varies = operands[i] && operands[i]->at[size_t(p)] >= 0;
        key.push_back({varies, varies ? operands[i]->column[size_t(p)] : operand(i, 0)});
      }
      auto it = made.find(key);
      if (it == made.end()) {
        std::vector<int64_t> table;
        for (int64_t id = 0; id < rows; ++id) {
          std::optional<int64_t> y = value(id);
          if (!y)
            return std::nullopt;
          table.push_back(*y);
        }
        // The same for every id by a constant operand (a causal mask's
        // future keys: `false & mask`): a constant, which costs no lookup.
        // (A function alone of the id stays one: `ids != -5` counts ids.)
        bool byConstant = llvm::any_of(key, [](const std::pair<bool, int64_t> &k) { return !k.first; });
        bool constant = byConstant && llvm::all_equal(table);
        int64_t first = table.front();
        it = made.try_emplace(key, constant, constant ? first : intern(std::move(table))).first;
      }
      auto [constant, column] = it->second;
      if (constant)
        out.at.back() = -1;
      out.column.push_back(column);
    }
    return out;
  }

  Value ids;
  int64_t rows;
  std::unordered_map<Value, std::optional<Moved>, ValueHash> memo;
  std::vector<std::vector<int64_t>> columns;
  std::map<std::vector<int64_t>, int64_t> interned;
};

} // namespace

bool readAsMask(Value ids, ArrayRef<Operation *> counting) {
  SmallVector<Value> work{ids};
  llvm::SmallPtrSet<Operation *, 8> seen;
  bool any = false;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (auto positions = dyn_cast<TokenPositionsOp>(user);
          (positions && positions.getPaddingIdx() == 0) || llvm::is_contained(counting, user)) {
        any = true;
        continue;
      }
      auto type = user->getNumResults() == 1 ? dyn_cast<ShapedType>(user->getResult(0).getType()) : ShapedType();
      auto cast = dyn_cast<AtenOp>(user);
      if (cast && isCast(cast) && type && (type.getElementType().isInteger(1) || isa<FloatType>(type.getElementType()))) {
        any |= type.getElementType().isInteger(1);
        continue;
      }
      if (isa<AddOp, SubOp, MulOp, DivOp>(user) && isF32Tensor(user->getResult(0)))
        continue; // as numbers (ESM's embeddings times the mask: torch promotes it)
      if (!isa<ViewOp, CloneOp>(user) && !elementwise(user))
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return any;
}

namespace {


/// The rows of the smallest embedding table `ids` (or a view of it)
/// index, or, when none does, of the smallest one a value computed from
/// them indexes (Canine reads its ids only through hashes): the
/// vocabulary the ids are drawn from; 2 for a mask read only as booleans.
std::optional<int64_t> vocabulary(Value ids) {
  auto smallest = [](ArrayRef<EmbeddingOp> embeddings) {
    std::optional<int64_t> rows;
    for (EmbeddingOp embedding : embeddings)
      if (auto table = dyn_cast<RankedTensorType>(embedding.getWeight().getType());
          table && table.hasStaticShape() && table.getRank() == 2)
        rows = std::min(rows.value_or(table.getDimSize(0)), table.getDimSize(0));
    return rows;
  };
  SmallVector<EmbeddingOp> direct, computed;
  SmallVector<std::pair<Value, bool>> work{{ids, true}}; // (value, a view of the ids)
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    auto [v, view] = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto embedding = dyn_cast<EmbeddingOp>(user)) {
        if (embedding.getIndices() == v)
          (view ? direct : computed).push_back(embedding);
        continue;
      }
      // (Positions say nothing of the ids' range, only where padding is.)
      if (isa<TokenPositionsOp>(user) || user->getNumResults() != 1 || !isIntegerTensor(user->getResult(0)) ||
          !seen.insert(user).second)
        continue;
      work.push_back({user->getResult(0), view && isa<ViewOp>(user)});
    }
  }
  if (!direct.empty())
    return smallest(direct);
  if (direct.empty() && computed.empty() && readAsMask(ids))
    return 2;
  // Through functions: the tables whose indices the analysis states as
  // functions of the ids over that table's rows (a cumulative sum modulo 3
  // into a table of 3 says nothing of the ids' range).
  SmallVector<EmbeddingOp> analysable;
  for (EmbeddingOp embedding : computed)
    if (std::optional<int64_t> rows = smallest({embedding});
        rows && *rows > 0 && IdAnalysis(ids, *rows).of(embedding.getIndices()))
      analysable.push_back(embedding);
  return smallest(analysable);
}

/// A compile-time operand of a select that is not a finite number
/// everywhere (a*m + b*(1-m) would not be exact), or is unknown.
bool finiteOrRunTime(Value v) {
  DenseFPElementsAttr data;
  if (!matchPattern(v, m_Constant(&data)))
    return true;
  return llvm::all_of(data.getValues<APFloat>(), [](const APFloat &x) { return x.isFinite(); });
}

bool isZero(Value v) {
  DenseFPElementsAttr data;
  return matchPattern(v, m_Constant(&data)) && data.isSplat() && data.getSplatValue<APFloat>().isZero();
}

Value i64Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

class Rewriter {
public:
  Rewriter(Value ids, int64_t rows) : ids(ids), rows(rows), analysis(ids, rows) {}

  /// Rewrites `op` if it reads a function of the ids as numbers or as
  /// embedding indices; whether it did (then `op` and the functions left
  /// unused are erased).
  bool visit(Operation *op) {
    // A function of the ids waits for the last op of its chain (MPT's mask
    // made reals and cast back to booleans): the reads below take whole
    // chains, each one lookup.
    if (op->getNumResults() == 1 && isFunction(op->getResult(0)))
      return false;
    if (auto select = dyn_cast<WhereOp>(op))
      return visitSelect(select);
    if (auto rows = dyn_cast<IndexSelectOp>(op))
      return visitRowSelect(rows);
    if (auto embedding = dyn_cast<EmbeddingOp>(op))
      return visitShiftedPositions(embedding) || visitEmbedding(embedding);
    if (auto guard = dyn_cast<NanToNumOp>(op))
      return visitGuardedSoftmax(guard);
    auto aten = dyn_cast<AtenOp>(op);
    if (aten && !aten.getArgs().empty() && isSum(aten.getTarget()))
      return visitSum(aten);
    if (aten && isCast(aten) && isF32Tensor(aten->getResult(0)) && isIntegerTensor(aten.getArgs().front())) {
      // (of positions, or of values at several positions: one lookup)
      OpBuilder b(op);
      std::optional<Value> numbers = floatOf(b, op->getLoc(), aten.getArgs().front(), [](int64_t x) { return float(x); });
      if (!numbers)
        return false;
      replace(op, *numbers);
      return true;
    }
    return visitReads(op);
  }

private:
  /// The lookup of g(id) for every element of `like` (a function of the ids).
  Value lookup(OpBuilder &b, Location loc, const std::function<float(int64_t)> &g, Value like) {
    std::vector<float> table(size_t(rows), 0.0f);
    for (int64_t id = 0; id < rows; ++id)
      table[size_t(id)] = g(id);
    auto type = RankedTensorType::get({rows, 1}, b.getF32Type());
    Value constant = ConstantOp::create(b, loc, DenseElementsAttr::get(type, ArrayRef<float>(table)));
    Value looked = EmbeddingOp::create(b, loc, constant, ids);
    ArrayRef<int64_t> shape = shapeOf(like);
    if (shapeOf(looked) == shape)
      return looked;
    return ViewOp::create(b, loc, looked, b.getDenseI64ArrayAttr(shape));
  }

  /// `v` (a function of the ids, through views, broadcasts and
  /// permutations of one that is a function of the id at each position)
  /// with each element x read as g(x): the lookup of the inner function,
  /// moved as `v` moves it; none for any other value.
  std::optional<Value> floatOf(OpBuilder &b, Location loc, Value v, const std::function<float(int64_t)> &g) {
    if (!isIntegerTensor(v) && !isReal(v))
      return std::nullopt;
    if (auto positions = v.getDefiningOp<TokenPositionsOp>(); positions && positions.getIds() == ids)
      return positionsRead(b, loc, positions, g);
    if (std::optional<int64_t> f = analysis.pointwise(v)) {
      const std::vector<int64_t> &table = analysis.table(*f);
      return lookup(b, loc, [&](int64_t id) { return g(table[size_t(id)]); }, v);
    }
    Operation *def = v.getDefiningOp();
    std::optional<Value> inner;
    if (def && isa<ViewOp, ExpandOp, PermuteOp>(def))
      inner = floatOf(b, loc, def->getOperand(0), g);
    if (!inner) {
      if (std::optional<Value> broadcast = spread(b, loc, v, g))
        return broadcast;
      if (std::optional<Value> runs = gathered(b, loc, v, g))
        return runs;
      return composed(b, loc, v, g);
    }
    if (auto view = dyn_cast<ViewOp>(def))
      return Value(ViewOp::create(b, loc, *inner, view.getSizeAttr()));
    if (auto expand = dyn_cast<ExpandOp>(def))
      return Value(ExpandOp::create(b, loc, *inner, expand.getSizeAttr()));
    return Value(PermuteOp::create(b, loc, *inner, cast<PermuteOp>(def).getDimsAttr()));
  }

  /// Positions numbered from the ids (nn.token_positions) read as g of
  /// their values (Bloom's ALiBi: the slopes times the positions): the
  /// lookup of g over every position they can hold by them, as the
  /// positions' embeddings are.
  Value positionsRead(OpBuilder &b, Location loc, TokenPositionsOp positions, const std::function<float(int64_t)> &g) {
    int64_t most = positions.getStart() + positions.getOffset() + shapeOf(ids).back();
    std::vector<float> table;
    for (int64_t p = 0; p <= most; ++p)
      table.push_back(g(p));
    auto type = RankedTensorType::get({most + 1, 1}, b.getF32Type());
    Value constant = ConstantOp::create(b, loc, DenseElementsAttr::get(type, ArrayRef<float>(table)));
    Value looked = EmbeddingOp::create(b, loc, constant, positions.getOut());
    return ViewOp::create(b, loc, looked, b.getDenseI64ArrayAttr(shapeOf(positions.getOut())));
  }

  /// `v` read as g of its elements when it is one function of the ids
  /// broadcast (transformers' mask of keys against every query: a
  /// broadcasting `and` with a constant, no view of its own), constants
  /// in places (a causal mask's future keys, `false & mask`): the lookup
  /// viewed with unit dimensions and expanded, times a constant 0/1 mask
  /// of the places it holds, plus the constants elsewhere (exact: g is
  /// finite, and x * 1 + 0 is x, x * 0 + c is c).
  std::optional<Value> spread(OpBuilder &b, Location loc, Value v, const std::function<float(int64_t)> &g) {
    const Moved *m = analysis.of(v);
    if (!m)
      return std::nullopt;
    std::optional<int64_t> column;
    for (size_t p = 0; p < m->at.size(); ++p)
      if (m->at[p] >= 0) {
        if (column && *column != m->column[p])
          return std::nullopt;
        column = m->column[p];
      }
    if (!column)
      return std::nullopt;
    ArrayRef<int64_t> shape = shapeOf(v);
    SmallVector<int64_t> dims; // the ids' dimensions longer than 1, placed in order among v's of their size
    for (int64_t d : shapeOf(ids))
      if (d != 1)
        dims.push_back(d);
    SmallVector<int64_t> placed(shape.size(), 1);
    auto matches = [&] {
      std::vector<int64_t> sources = broadcastSources(placed, shape);
      for (size_t p = 0; p < sources.size(); ++p)
        if (m->at[p] >= 0 && m->at[p] != sources[p])
          return false;
      return true;
    };
    std::function<bool(size_t, size_t)> place = [&](size_t i, size_t from) {
      if (i == dims.size())
        return matches();
      for (size_t d = from; d < shape.size(); ++d)
        if (shape[d] == dims[i]) {
          placed[d] = dims[i];
          if (place(i + 1, d + 1))
            return true;
          placed[d] = 1;
        }
      return false;
    };
    if (!place(0, 0))
      return std::nullopt;
    const std::vector<int64_t> &table = analysis.table(*column);
    Value looked = lookup(b, loc, [&](int64_t id) { return g(table[size_t(id)]); }, ids);
    Value viewed = ViewOp::create(b, loc, looked, b.getDenseI64ArrayAttr(placed));
    Value result = ExpandOp::create(b, loc, viewed, b.getDenseI64ArrayAttr(shape));
    if (llvm::all_of(m->at, [](int64_t at) { return at >= 0; }))
      return result;
    std::vector<float> held, constants;
    for (size_t p = 0; p < m->at.size(); ++p) {
      held.push_back(m->at[p] >= 0 ? 1.0f : 0.0f);
      constants.push_back(m->at[p] >= 0 ? 0.0f : g(m->column[p]));
    }
    auto type = RankedTensorType::get(shape, b.getF32Type());
    auto constant = [&](ArrayRef<float> values) {
      return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
    };
    result = MulOp::create(b, loc, result, constant(held), Attribute());
    if (llvm::any_of(constants, [](float c) { return c != 0.0f; }))
      result = AddOp::create(b, loc, result, constant(constants), Attribute(), b.getF64FloatAttr(1.0));
    return result;
  }

  /// `v` read as g of its elements when they are functions of ids at other
  /// positions or constants (a mask with a position forced, the mask of
  /// decoder ids shifted right): in runs of positions, slices of the lookup
  /// of g by the ids and constants, concatenated (at most kMostRuns runs).
  std::optional<Value> gathered(OpBuilder &b, Location loc, Value v, const std::function<float(int64_t)> &g) {
    const Moved *m = analysis.of(v);
    if (!m || m->at.empty() || llvm::all_of(m->at, [](int64_t at) { return at < 0; }))
      return std::nullopt;
    if (runsOf(*m).size() > kMostRuns)
      return std::nullopt;
    std::map<int64_t, Value> byColumn; // column -> g of it looked up by the ids, as (ids, 1)
    Value flat = inRuns(
        b, loc, *m,
        [&](int64_t p, int64_t q) -> Value {
          std::vector<float> values;
          for (int64_t e = p; e < q; ++e)
            values.push_back(g(m->column[size_t(e)]));
          auto type = RankedTensorType::get({q - p, 1}, b.getF32Type());
          return ConstantOp::create(b, loc, DenseElementsAttr::get(type, ArrayRef<float>(values)));
        },
        [&](int64_t column) {
          Value &all = byColumn[column];
          if (!all) {
            const std::vector<int64_t> &table = analysis.table(column);
            all = ViewOp::create(b, loc, lookup(b, loc, [&](int64_t id) { return g(table[size_t(id)]); }, ids),
                                 b.getDenseI64ArrayAttr({elementCount(ids), 1}));
          }
          return all;
        });
    return Value(ViewOp::create(b, loc, flat, b.getDenseI64ArrayAttr(shapeOf(v))));
  }

  /// The values `v`'s elements can take (at most kMostValues): a
  /// function of the ids', over the vocabulary, and its constants; an
  /// element-wise operator's, over its operands' values.
  std::optional<std::set<int64_t>> valuesOf(Value v) {
    if (auto it = valueMemo.find(v); it != valueMemo.end())
      return it->second;
    std::optional<std::set<int64_t>> values = computeValues(v); // (recursive: the memo grows under it)
    return valueMemo[v] = std::move(values);
  }

  std::optional<std::set<int64_t>> computeValues(Value v) {
    std::set<int64_t> values;
    if (const Moved *m = analysis.of(v)) {
      for (size_t p = 0; p < m->at.size() && values.size() <= kMostValues; ++p) {
        if (m->at[p] < 0)
          values.insert(m->column[p]);
        else
          for (int64_t x : analysis.table(m->column[p]))
            values.insert(x);
      }
    } else {
      std::optional<Elementwise> e = v.getDefiningOp() ? elementwise(v.getDefiningOp()) : std::nullopt;
      if (!e)
        return std::nullopt;
      std::optional<std::vector<std::vector<int64_t>>> pairs = operandValues(*e);
      if (!pairs)
        return std::nullopt;
      for (const std::vector<int64_t> &x : *pairs) {
        std::optional<int64_t> y = e->apply(x);
        if (!y)
          return std::nullopt;
        values.insert(*y);
      }
    }
    if (values.size() > kMostValues)
      return std::nullopt;
    return values;
  }

  /// Every combination of the values of an element-wise operator's
  /// operands (at most kMostValues^2).
  std::optional<std::vector<std::vector<int64_t>>> operandValues(const Elementwise &e) {
    std::vector<std::vector<int64_t>> combinations{{}};
    for (Value operand : e.operands) {
      std::optional<std::set<int64_t>> values = valuesOf(operand);
      if (!values || combinations.size() * values->size() > kMostValues * kMostValues)
        return std::nullopt;
      std::vector<std::vector<int64_t>> longer;
      for (const std::vector<int64_t> &c : combinations)
        for (int64_t x : *values) {
          longer.push_back(c);
          longer.back().push_back(x);
        }
      combinations = std::move(longer);
    }
    return combinations;
  }

  /// `v` read as g of its elements when it is an element-wise function of
  /// values whose elements are functions of ids at different positions
  /// (DeBERTa's mask of query and key pairs, m_i m_j), which no lookup
  /// states. Of one operand u: u read as g(f(x)). Of several: with c the
  /// most frequent g(f(x)) over the operands' value combinations x, c
  /// plus, for each other x, (g(f(x)) - c) times the product of the
  /// operands' indicators [u_k = x_k] (each read as a function of the ids,
  /// broadcast by the products). Exact: at each element one product is 1
  /// and the others 0, and c + (g - c) is checked to round to g.
  std::optional<Value> composed(OpBuilder &b, Location loc, Value v, const std::function<float(int64_t)> &g) {
    std::optional<Elementwise> e = v.getDefiningOp() ? elementwise(v.getDefiningOp()) : std::nullopt;
    if (!e || e->operands.empty())
      return std::nullopt;
    if (e->operands.size() == 1) {
      bool undefined = false;
      std::optional<Value> read = floatOf(b, loc, e->operands.front(), [&](int64_t x) {
        std::optional<int64_t> y = e->apply({x});
        undefined |= !y;
        return y ? g(*y) : 0.0f;
      });
      if (read && undefined) {
        eraseDead(read->getDefiningOp());
        return std::nullopt;
      }
      return read;
    }
    std::optional<std::vector<std::vector<int64_t>>> combinations = operandValues(*e);
    if (!combinations)
      return std::nullopt;
    std::vector<float> read;
    std::map<float, int64_t> frequency;
    for (const std::vector<int64_t> &x : *combinations) {
      std::optional<int64_t> y = e->apply(x);
      if (!y || !std::isfinite(g(*y)))
        return std::nullopt;
      read.push_back(g(*y));
      ++frequency[read.back()];
    }
    auto exactAround = [&](float c) {
      return llvm::all_of(read, [&](float r) { return float(double(c) + double(float(double(r) - c))) == r; });
    };
    float common = 0.0f;
    int64_t most = 0;
    for (auto [value, count] : frequency)
      if (count > most && exactAround(value))
        common = value, most = count;
    SmallVector<Value> terms;
    auto drop = [&] {
      for (Value term : llvm::reverse(terms))
        eraseDead(term.getDefiningOp());
    };
    for (auto [x, value] : llvm::zip(*combinations, read)) {
      if (value == common)
        continue;
      Value term;
      for (auto [k, operand] : llvm::enumerate(e->operands)) {
        int64_t at = x[k];
        std::optional<Value> indicator = floatOf(b, loc, operand, [at](int64_t y) { return float(y == at); });
        if (!indicator) {
          if (term)
            eraseDead(term.getDefiningOp());
          drop();
          return std::nullopt;
        }
        term = term ? Value(MulOp::create(b, loc, term, *indicator, Attribute())) : *indicator;
      }
      if (float scale = float(double(value) - common); scale != 1.0f)
        term = MulOp::create(b, loc, term, Value(), b.getF64FloatAttr(scale));
      terms.push_back(term);
    }
    auto type = RankedTensorType::get(shapeOf(v), b.getF32Type());
    if (terms.empty())
      return Value(ConstantOp::create(b, loc, DenseElementsAttr::get(type, common)));
    Value sum = terms.front();
    for (Value term : ArrayRef(terms).drop_front())
      sum = AddOp::create(b, loc, sum, term, Attribute(), b.getF64FloatAttr(1.0));
    if (common != 0.0f)
      sum = AddOp::create(b, loc, sum, Value(), b.getF64FloatAttr(common), b.getF64FloatAttr(1.0));
    if (shapeOf(sum) != type.getShape())
      sum = ExpandOp::create(b, loc, sum, b.getDenseI64ArrayAttr(type.getShape()));
    return sum;
  }

  /// The runs [p, q) of positions of `m`: constants, or the same column of
  /// ids at consecutive positions.
  SmallVector<std::pair<int64_t, int64_t>> runsOf(const Moved &m) const {
    int64_t n = int64_t(m.at.size());
    SmallVector<std::pair<int64_t, int64_t>> runs;
    for (int64_t p = 0; p < n;) {
      int64_t q = p + 1;
      bool constant = m.at[size_t(p)] < 0, computed = bool(analysis.countedAt(m.at[size_t(p)]));
      while (q < n && !computed &&
             (constant ? m.at[size_t(q)] < 0
                       : m.column[size_t(q)] == m.column[size_t(p)] && m.at[size_t(q)] == m.at[size_t(q - 1)] + 1 &&
                             !analysis.countedAt(m.at[size_t(q)])))
        ++q;
      runs.push_back({p, q});
      p = q;
    }
    return runs;
  }

  /// `m`'s elements as rows (of any width) in runs: `constant(p, q)` for a
  /// run of constants, slices of `looked(column)` (one row per id position)
  /// for a run of ids, concatenated.
  Value inRuns(OpBuilder &b, Location loc, const Moved &m, const std::function<Value(int64_t, int64_t)> &constant,
               const std::function<Value(int64_t)> &looked) {
    SmallVector<Value> pieces;
    std::map<std::pair<int64_t, int64_t>, Value> picked; // (column, pad) -> each row's pick
    for (auto [p, q] : runsOf(m)) {
      if (m.at[size_t(p)] < 0) {
        pieces.push_back(constant(p, q));
        continue;
      }
      Value all = looked(m.column[size_t(p)]);
      if (auto counted = analysis.countedAt(m.at[size_t(p)])) { // row b's pick: nn.last_token, counted
        auto [row, pad] = *counted;
        Value &rowsPicked = picked[{m.column[size_t(p)], pad}];
        if (!rowsPicked) {
          ArrayRef<int64_t> length = shapeOf(ids);
          auto type = cast<RankedTensorType>(all.getType());
          int64_t width = type.getDimSize(1);
          Value byRow = ViewOp::create(b, loc, all, b.getDenseI64ArrayAttr({length[0], length[1], width}));
          rowsPicked = LastTokenOp::create(b, loc, RankedTensorType::get({length[0], width}, type.getElementType()),
                                           byRow, ids, uint64_t(pad), /*counted=*/true);
        }
        pieces.push_back(SliceOp::create(b, loc, rowsPicked, b.getI64IntegerAttr(0), b.getI64IntegerAttr(row),
                                         b.getI64IntegerAttr(row + 1), b.getI64IntegerAttr(1)));
        continue;
      }
      int64_t first = m.at[size_t(p)];
      pieces.push_back(first == 0 && q - p == elementCount(ids)
                           ? all
                           : Value(SliceOp::create(b, loc, all, b.getI64IntegerAttr(0), b.getI64IntegerAttr(first),
                                                   b.getI64IntegerAttr(first + q - p), b.getI64IntegerAttr(1))));
    }
    return pieces.size() == 1 ? pieces.front() : Value(CatOp::create(b, loc, pieces, b.getI64IntegerAttr(0)));
  }

  /// Whether `v` is a function of the ids (not a constant alone).
  bool isFunction(Value v) {
    const Moved *m = analysis.of(v);
    return m && llvm::any_of(m->at, [](int64_t at) { return at >= 0; });
  }

  /// Whether floatOf reads `v`: a function of the ids, an element-wise
  /// function of values it knows, positions numbered from the ids, or a
  /// view of one.
  bool readable(Value v) {
    if (isFunction(v) || valuesOf(v))
      return true;
    if (auto positions = v.getDefiningOp<TokenPositionsOp>())
      return positions.getIds() == ids;
    Operation *def = v.getDefiningOp();
    return def && isa<ViewOp, ExpandOp, PermuteOp>(def) && readable(def->getOperand(0));
  }

  /// An op (not itself a function of the ids) reading one as reals: a
  /// function cast to reals or computed in reals (the scores plus a mask
  /// of reals, a function returned), or of integers in float arithmetic
  /// (`emb * (ids != pad).unsqueeze(-1)`: torch promotes it). That
  /// operand's lookup of its values, when all are finite (ONNX's
  /// `where(mask, 0, -inf)` is the guarded softmax's).
  bool visitReads(Operation *op) {
    bool arithmetic = isa<AddOp, SubOp, MulOp, DivOp>(op) && isF32Tensor(op->getResult(0));
    OpBuilder b(op);
    bool changed = false;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (!(isReal(v) || (arithmetic && isIntegerTensor(v))) || !readable(v))
        continue;
      bool finite = true, real = isReal(v);
      std::optional<Value> numbers = floatOf(b, op->getLoc(), v, [&](int64_t x) {
        float f = real ? decodedReal(x) : float(x);
        finite &= std::isfinite(f);
        return f;
      });
      if (numbers && !finite)
        eraseDead(numbers->getDefiningOp());
      if (!numbers || !finite)
        continue;
      operand.set(*numbers);
      if (Operation *def = v.getDefiningOp(); def && def->use_empty())
        eraseDead(def);
      changed = true;
    }
    return changed;
  }

  bool visitSelect(WhereOp select) {
    Value c = select.getCondition(), x = select.getSelf(), y = select.getOther();
    auto type = cast<RankedTensorType>(select.getOut().getType());
    if (!isF32Tensor(select.getOut()) || !finiteOrRunTime(x) || !finiteOrRunTime(y))
      return false;
    OpBuilder b(select);
    Location loc = select.getLoc();
    // (a probe: the condition must be such a function before anything is built)
    std::optional<Value> probe = floatOf(b, loc, c, [](int64_t m) { return float(m != 0); });
    if (!probe)
      return false;
    std::optional<Value> masks[2] = {floatOf(b, loc, c, [](int64_t m) { return float(m == 0); }), probe};
    auto product = [&](Value v, bool when) -> Value { return MulOp::create(b, loc, v, *masks[when], Attribute()); };
    Value result;
    if (!isZero(x))
      result = product(x, true);
    if (!isZero(y)) {
      Value other = product(y, false);
      result = result ? Value(AddOp::create(b, loc, result, other, Attribute(), b.getF64FloatAttr(1.0))) : other;
    }
    if (!result)
      result = product(x, true); // both zero
    for (std::optional<Value> &mask : masks) // (a mask no product took)
      if (Operation *def = mask->getDefiningOp(); def && def->use_empty())
        eraseDead(def);
    if (result.getType() != type)
      result = ExpandOp::create(b, loc, result, b.getDenseI64ArrayAttr(type.getShape()));
    replace(select, result);
    return true;
  }

  /// ONNX exporters' attention over a mask of the ids (transformers'
  /// attention_mask): nan_to_num(softmax(s + where(c, 0, -inf))), NaN
  /// replaced by 0 only, which is torch's zero row for a query keeping no
  /// key. The softmax of s + where(c, 0, -FLT_MAX) equals it on every
  /// other row (exp of the most negative float less the row's maximum is
  /// 0, as exp(-inf) is), and min(mean(c) * 2S, 1) along the softmax's S
  /// keys, 0 for a row keeping none and exactly 1 for any other (k ones'
  /// mean times 2S is at least about 2k), zeroes the rest: both lookups of
  /// the ids, no infinity, no NaN, no select, which the ISA lacks.
  bool visitGuardedSoftmax(NanToNumOp guard) {
    auto infinite = [](std::optional<APFloat> x, bool negative) {
      return x && x->isInfinity() && x->isNegative() == negative;
    };
    auto softmax = guard.getSelf().getDefiningOp<SoftmaxOp>();
    if (!infinite(guard.getPosinf(), false) || !infinite(guard.getNeginf(), true) ||
        guard.getNan().convertToDouble() != 0.0 || !softmax || !softmax->hasOneUse())
      return false;
    auto sum = softmax.getSelf().getDefiningOp<AddOp>();
    if (!sum || !sum.getOther() || sum.getAlpha().convertToDouble() != 1.0 || !sum->hasOneUse())
      return false;
    int64_t rank = int64_t(shapeOf(sum.getOut()).size());
    int64_t dim = (int64_t(softmax.getDim()) + rank) % rank;
    for (auto [scores, mask] : {std::pair(sum.getSelf(), sum.getOther()), std::pair(sum.getOther(), sum.getSelf())}) {
      auto select = mask.getDefiningOp<WhereOp>();
      DenseFPElementsAttr kept, dropped;
      if (!select || !matchPattern(select.getSelf(), m_Constant(&kept)) || !kept.isSplat() ||
          !kept.getSplatValue<APFloat>().isZero() || !matchPattern(select.getOther(), m_Constant(&dropped)) ||
          !dropped.isSplat() || !infinite(dropped.getSplatValue<APFloat>(), true))
        continue;
      ArrayRef<int64_t> shape = shapeOf(select.getOut());
      int64_t own = dim - (rank - int64_t(shape.size())); // the softmax's dimension in the mask's
      if (own < 0)
        continue;
      OpBuilder b(guard);
      Location loc = guard.getLoc();
      Value c = select.getCondition();
      std::optional<Value> bias = floatOf(b, loc, c, [](int64_t x) {
        return x ? 0.0f : -std::numeric_limits<float>::max();
      });
      if (!bias)
        continue;
      Value keep = *floatOf(b, loc, c, [](int64_t x) { return float(x != 0); });
      auto expanded = [&](Value v) {
        return shapeOf(v) == shape ? v : Value(ExpandOp::create(b, loc, v, b.getDenseI64ArrayAttr(shape)));
      };
      Value biased = AddOp::create(b, loc, scores, expanded(*bias), Attribute(), b.getF64FloatAttr(1.0));
      Value weights = SoftmaxOp::create(b, loc, biased, softmax.getDim(), softmax.getHalfToFloat());
      Value share = MeanOp::create(b, loc, expanded(keep), b.getDenseI64ArrayAttr({own}), b.getBoolAttr(true));
      Value scaled = MulOp::create(b, loc, share, Value(), b.getF64FloatAttr(2.0 * double(shape[size_t(own)])));
      Value some = ClampOp::create(b, loc, scaled, FloatAttr(), b.getF64FloatAttr(1.0));
      replace(guard, MulOp::create(b, loc, weights, some, Attribute()));
      return true;
    }
    return false;
  }

  /// The float casts of a sum of f(ids) over constant axes (its only
  /// uses): the mean of the lookup times the count.
  bool visitSum(AtenOp sum) {
    Value data = sum.getArgs().front();
    ArrayRef<int64_t> shape = shapeOf(data);
    auto axes = reduced(sum, int64_t(shape.size()));
    if (!axes)
      return false;
    auto [dims, keep] = *axes;
    int64_t counted = 1;
    for (int64_t d : dims)
      counted *= shape[size_t(d)];
    SmallVector<Operation *> casts(sum->getUsers());
    if (casts.empty() || !llvm::all_of(casts, [](Operation *user) {
          auto cast = dyn_cast<AtenOp>(user);
          return cast && isCast(cast) && isF32Tensor(cast->getResult(0));
        }))
      return false;
    OpBuilder b(sum);
    Location loc = sum.getLoc();
    std::optional<Value> mask = floatOf(b, loc, data, [](int64_t x) { return float(x); });
    if (!mask)
      return false;
    Value mean = MeanOp::create(b, loc, *mask, b.getDenseI64ArrayAttr(dims), b.getBoolAttr(keep));
    Value total = MulOp::create(b, loc, mean, Value(), b.getF64FloatAttr(double(counted)));
    if (llvm::any_of(casts, [&](Operation *user) { return user->getResult(0).getType() != total.getType(); })) {
      eraseDead(total.getDefiningOp());
      return false;
    }
    for (Operation *user : casts)
      replace(user, total);
    return true;
  }

  /// An embedding of ids moved and mapped (BART's and T5's decoder ids:
  /// a start token, then the ids shifted right, -100 as the padding): its
  /// rows in runs, each a slice of the lookup by the ids in a table W[f]
  /// (the embedding of W by f's values, computed by the compiler) or rows
  /// of W at constant indices, concatenated.
  bool visitEmbedding(EmbeddingOp embedding) {
    Value indices = embedding.getIndices(), weight = embedding.getWeight();
    Value plain = beforeViews(indices);
    // (The ids through views the back end reads as they are; indices the
    // compiler knows, such as the tables' own, are not the ids'.)
    const Moved *m = plain == ids ? nullptr : analysis.of(indices);
    if (!m || llvm::all_of(m->at, [](int64_t at) { return at < 0; }))
      return false;
    auto table = dyn_cast<RankedTensorType>(weight.getType());
    if (!table || !table.hasStaticShape() || table.getRank() != 2)
      return false;
    int64_t tableRows = table.getDimSize(0), width = table.getDimSize(1), n = int64_t(m->at.size());
    // The rows read, over every id of the vocabulary: all inside the table,
    // or the model reads past it for ids the contract allows (torch would
    // raise an IndexError on them): no lookup states that.
    int64_t lowest = std::numeric_limits<int64_t>::max(), highest = std::numeric_limits<int64_t>::min();
    auto reads = [&](int64_t row) {
      lowest = std::min(lowest, row);
      highest = std::max(highest, row);
    };
    for (int64_t p = 0; p < n; ++p)
      if (m->at[size_t(p)] < 0)
        reads(m->column[size_t(p)]);
      else
        llvm::for_each(analysis.table(m->column[size_t(p)]), reads);
    if (lowest < 0 || highest >= tableRows) {
      embedding.emitError() << "an embedding of " << tableRows << " rows reads row "
                            << (lowest < 0 ? lowest : highest)
                            << " computed from the token ids (ids 0.." << rows - 1
                            << ", the vocabulary of the tables they index)";
      failed = true;
      return false;
    }
    OpBuilder b(embedding);
    Location loc = embedding.getLoc();
    std::map<int64_t, Value> byColumn; // column -> the lookup of W[f] by the ids, as (ids, width)
    auto looked = [&](int64_t column) {
      Value &rowsOf = byColumn[column];
      if (!rowsOf) {
        Value w = weight;
        if (column != analysis.identity)
          w = EmbeddingOp::create(b, loc, weight, i64Constant(b, loc, analysis.table(column)));
        Value e = EmbeddingOp::create(b, loc, w, ids);
        rowsOf = ViewOp::create(b, loc, e, b.getDenseI64ArrayAttr({elementCount(ids), width}));
      }
      return rowsOf;
    };
    Value rowsAll = inRuns(
        b, loc, *m,
        [&](int64_t p, int64_t q) -> Value {
          std::vector<int64_t> rowsRead(m->column.begin() + p, m->column.begin() + q);
          return EmbeddingOp::create(b, loc, weight, i64Constant(b, loc, rowsRead));
        },
        looked);
    SmallVector<int64_t> shape(shapeOf(indices));
    shape.push_back(width);
    replace(embedding, ViewOp::create(b, loc, rowsAll, b.getDenseI64ArrayAttr(shape)));
    return true;
  }

  /// An embedding by the positions RoBERTa numbers (nn.token_positions) of decoder ids that are the ids
  /// shifted right behind a constant start token (M2M100's and NLLB's
  /// decoder positions): with m = (x != pad), position i > 0 counts
  /// m(start) plus the ids' mask to i - 1, so it is the ids' own position
  /// i - 1 with the offset raised by m(start), and position 0 a constant.
  /// The rows: the constant's, then the lookup by the ids' positions
  /// shifted, per sequence. (The shift must keep the padding where it is:
  /// f(id) is the padding for the padding id alone.)
  bool visitShiftedPositions(EmbeddingOp lookup) {
    Value table = lookup.getWeight();
    auto positions = beforeViews(lookup.getIndices()).getDefiningOp<TokenPositionsOp>();
    auto type = dyn_cast<RankedTensorType>(table.getType());
    ArrayRef<int64_t> shape = shapeOf(ids);
    if (!positions || positions.getBase() || positions.getIds() == ids || !type || type.getRank() != 2 ||
        !type.hasStaticShape() ||
        shape.size() != 2 || shapeOf(positions.getIds()) != shape)
      return false;
    const Moved *m = analysis.of(positions.getIds());
    if (!m || m->at.empty())
      return false;
    int64_t length = shape[1], pad = int64_t(positions.getPaddingIdx()), start = m->column[0];
    int64_t column = length > 1 ? m->column[1] : 0;
    for (int64_t p = 0; p < int64_t(m->at.size()); ++p) {
      int64_t i = p % length;
      bool first = i == 0;
      if (first ? m->at[size_t(p)] >= 0 || m->column[size_t(p)] != start
                : m->at[size_t(p)] != p - 1 || m->column[size_t(p)] != column)
        return false;
    }
    if (length > 1)
      for (auto [id, f] : llvm::enumerate(analysis.table(column)))
        if ((f == pad) != (int64_t(id) == pad))
          return false;
    OpBuilder b(lookup);
    Location loc = lookup.getLoc();
    int64_t kept = start != pad, offset = int64_t(positions.getOffset());
    Value rows; // (the ids' own positions are read only past the first)
    if (length > 1) {
      Value shifted = TokenPositionsOp::create(b, loc, positions.getOut().getType(), ids, uint64_t(pad),
                                               uint64_t(offset + kept), IntegerAttr());
      rows = ViewOp::create(b, loc, EmbeddingOp::create(b, loc, table, shifted),
                            b.getDenseI64ArrayAttr({shape[0] * length, type.getDimSize(1)}));
    }
    Value firstRow = EmbeddingOp::create(b, loc, table, i64Constant(b, loc, {kept ? pad + 1 + offset : pad}));
    SmallVector<Value> pieces;
    for (int64_t sequence = 0; sequence < shape[0]; ++sequence) {
      pieces.push_back(firstRow);
      if (length > 1)
        pieces.push_back(SliceOp::create(b, loc, rows, b.getI64IntegerAttr(0),
                                         b.getI64IntegerAttr(sequence * length),
                                         b.getI64IntegerAttr((sequence + 1) * length - 1), b.getI64IntegerAttr(1)));
    }
    Value all = pieces.size() == 1 ? pieces.front() : Value(CatOp::create(b, loc, pieces, b.getI64IntegerAttr(0)));
    replace(lookup, ViewOp::create(b, loc, all, b.getDenseI64ArrayAttr(shapeOf(lookup.getOut()))));
    return true;
  }

  /// Rows of a 2-d table selected by the ids or by positions numbered from
  /// them (M2M100's and XGLM's sinusoidal position tables,
  /// `index_select(table, 0, p)`): an embedding, which the back end looks
  /// up (and visitShiftedPositions rewrites when the numbered ids are
  /// shifted).
  bool visitRowSelect(IndexSelectOp select) {
    Value index = beforeViews(select.getIndex());
    auto type = dyn_cast<RankedTensorType>(select.getSelf().getType());
    if (select.getDim() != 0 || !type || type.getRank() != 2 || shapeOf(select.getIndex()).size() != 1 ||
        !(index == ids || index.getDefiningOp<TokenPositionsOp>()))
      return false;
    OpBuilder b(select);
    replace(select, EmbeddingOp::create(b, select.getLoc(), select.getSelf(), select.getIndex()));
    return true;
  }

  void replace(Operation *op, Value by) {
    op->getResult(0).replaceAllUsesWith(by);
    eraseDead(op);
  }

public:
  /// Whether a use read outside its table (an error was emitted).
  bool failed = false;

private:
  Value ids;
  int64_t rows;
  IdAnalysis analysis;
  std::unordered_map<Value, std::optional<std::set<int64_t>>, ValueHash> valueMemo;
};

} // namespace

LogicalResult foldTokenTables(func::FuncOp func) {
  if (func.isExternal())
    return success();
  for (BlockArgument ids : func.getArguments()) {
    if (!isIntegerTensor(ids) || elementCount(ids) < 0)
      continue;
    std::optional<int64_t> rows = vocabulary(ids);
    if (!rows || *rows < 1)
      continue;
    // One rewrite per walk: a rewrite erases ops (and the analysis's
    // memo would name erased values), so each walk starts afresh.
    bool changed = true;
    while (changed) {
      Rewriter rewriter(ids, *rows);
      changed = func.walk([&](Operation *op) {
                      return rewriter.visit(op) ? WalkResult::interrupt() : WalkResult::advance();
                    }).wasInterrupted();
      if (rewriter.failed)
        return failure();
    }
    // Functions of the ids nothing reads (an exporter's leftovers, such
    // as a scatter a rewrite bypassed) go too: no back end computes them.
    IdAnalysis analysis(ids, *rows);
    SmallVector<Operation *> unused;
    func.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && op->use_empty() && isIntegerTensor(op->getResult(0)) &&
          analysis.of(op->getResult(0)))
        unused.push_back(op);
    });
    for (Operation *op : unused)
      eraseDead(op);
  }
  return success();
}

} // namespace raptor::nn
