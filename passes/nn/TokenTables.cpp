//===- TokenTables.cpp - Element-wise functions of ids as lookups -*- C++ -*-===//
#include "passes/nn/TokenTables.h"

#include "dialects/nn/NNOps.h"
#include "passes/nn/GenericOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <functional>
#include <numeric>

using namespace mlir;

namespace raptor::nn {
namespace {

int64_t elementCount(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : -1;
}

bool isF32Tensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32();
}

bool isCast(AtenOp op) {
  StringRef t = op.getTarget();
  return t == "onnx.Cast" || t == "aten._to_copy.default" || t.starts_with("aten.to.");
}

/// A comparison of a tensor with an integer: ONNX's (two operands, one a
/// splat constant) and aten's `.Scalar` overloads (the integer `other`).
std::optional<std::function<bool(int64_t, int64_t)>> relation(StringRef target) {
  using R = std::function<bool(int64_t, int64_t)>;
  static const std::pair<StringRef, R> relations[] = {
      {"Equal", [](int64_t a, int64_t b) { return a == b; }},
      {"Less", [](int64_t a, int64_t b) { return a < b; }},
      {"Greater", [](int64_t a, int64_t b) { return a > b; }},
      {"LessOrEqual", [](int64_t a, int64_t b) { return a <= b; }},
      {"GreaterOrEqual", [](int64_t a, int64_t b) { return a >= b; }},
      {"aten.eq.Scalar", [](int64_t a, int64_t b) { return a == b; }},
      {"aten.ne.Scalar", [](int64_t a, int64_t b) { return a != b; }},
      {"aten.lt.Scalar", [](int64_t a, int64_t b) { return a < b; }},
      {"aten.le.Scalar", [](int64_t a, int64_t b) { return a <= b; }},
      {"aten.gt.Scalar", [](int64_t a, int64_t b) { return a > b; }},
      {"aten.ge.Scalar", [](int64_t a, int64_t b) { return a >= b; }},
  };
  StringRef name = target.starts_with("onnx.") ? target.drop_front(5) : target;
  for (const auto &[n, r] : relations)
    if (n == name)
      return r;
  return std::nullopt;
}

/// The integer values that are element-wise functions of one id input:
/// element p of such a value is f(id p) (views keep the flat order, and
/// every operand besides the ids is one constant integer).
class TokenFunctions {
public:
  explicit TokenFunctions(Value ids) : ids(ids), count(elementCount(ids)) {}

  bool derived(Value v) {
    if (v == ids)
      return true;
    if (!isIntegerTensor(v) || elementCount(v) != count)
      return false;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    bool d = classify(v); // (recursive: the memo grows under it)
    memo[v] = d;
    return d;
  }

  /// f(id) for a derived value `v`.
  int64_t at(Value v, int64_t id) {
    if (v == ids)
      return id;
    Operation *op = v.getDefiningOp();
    if (auto view = dyn_cast<ViewOp>(op))
      return at(view.getSelf(), id);
    auto aten = cast<AtenOp>(op);
    StringRef target = aten.getTarget();
    if (isCast(aten)) {
      int64_t x = at(aten.getArgs().front(), id);
      auto type = cast<IntegerType>(cast<ShapedType>(v.getType()).getElementType());
      if (type.getWidth() == 1)
        return x != 0;
      if (type.getWidth() >= 64)
        return x;
      APInt bits(64, uint64_t(x));
      bits = bits.trunc(type.getWidth());
      return type.isUnsigned() ? int64_t(bits.getZExtValue()) : bits.getSExtValue();
    }
    if (target == "onnx.Not" || target == "aten.logical_not.default")
      return at(aten.getArgs().front(), id) == 0;
    auto r = *relation(target);
    if (aten.getArgs().size() == 1)
      return r(at(aten.getArgs().front(), id), *intParam(aten, "other"));
    Value lhs = aten.getArgs()[0], rhs = aten.getArgs()[1];
    return derived(lhs) ? r(at(lhs, id), *splatInteger(rhs)) : r(*splatInteger(lhs), at(rhs, id));
  }

private:
  bool classify(Value v) {
    Operation *op = v.getDefiningOp();
    if (auto view = dyn_cast_or_null<ViewOp>(op))
      return derived(view.getSelf());
    auto aten = dyn_cast_or_null<AtenOp>(op);
    if (!aten || aten->getNumResults() != 1 || aten.getArgs().empty())
      return false;
    StringRef target = aten.getTarget();
    ValueRange args = aten.getArgs();
    if (isCast(aten) || target == "onnx.Not" || target == "aten.logical_not.default")
      return args.size() == 1 && derived(args.front());
    if (!relation(target))
      return false;
    if (args.size() == 1)
      return target.starts_with("aten.") && intParam(aten, "other") && derived(args.front());
    if (args.size() != 2 || !target.starts_with("onnx."))
      return false;
    return (derived(args[0]) && splatInteger(args[1])) || (splatInteger(args[0]) && derived(args[1]));
  }

  Value ids;
  int64_t count;
  llvm::DenseMap<Value, bool> memo;
};

/// The rows of the smallest embedding table `ids` (or a view of it) index.
std::optional<int64_t> vocabulary(Value ids) {
  std::optional<int64_t> rows;
  SmallVector<Value> work{ids};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto view = dyn_cast<ViewOp>(user))
        work.push_back(view.getOut());
      else if (auto embedding = dyn_cast<EmbeddingOp>(user); embedding && embedding.getIndices() == v)
        if (auto table = dyn_cast<RankedTensorType>(embedding.getWeight().getType());
            table && table.hasStaticShape() && table.getRank() == 2)
          rows = std::min(rows.value_or(table.getDimSize(0)), table.getDimSize(0));
    }
  }
  return rows;
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

class Rewriter {
public:
  Rewriter(Value ids, int64_t rows) : ids(ids), rows(rows), functions(ids) {}

  /// Rewrites `op` if it reads a function of the ids as numbers; whether
  /// it did (then `op` and the functions left unused are erased).
  bool visit(Operation *op) {
    if (auto select = dyn_cast<WhereOp>(op))
      return visitSelect(select);
    auto aten = dyn_cast<AtenOp>(op);
    if (!aten || aten.getArgs().empty() || !functions.derived(aten.getArgs().front()))
      return false;
    if (isCast(aten) && isF32Tensor(aten->getResult(0))) {
      Value f = aten.getArgs().front();
      OpBuilder b(op);
      replace(op, lookup(b, op->getLoc(), [&](int64_t id) { return float(functions.at(f, id)); }, f));
      return true;
    }
    return aten.getTarget() == "onnx.ReduceSum" && visitSum(aten);
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
    auto shape = cast<ShapedType>(like.getType()).getShape();
    if (cast<ShapedType>(looked.getType()).getShape() == shape)
      return looked;
    return ViewOp::create(b, loc, looked, b.getDenseI64ArrayAttr(shape));
  }

  bool visitSelect(WhereOp select) {
    Value f = select.getCondition(), x = select.getSelf(), y = select.getOther();
    auto type = cast<RankedTensorType>(select.getOut().getType());
    if (!functions.derived(f) || !isF32Tensor(select.getOut()) || !finiteOrRunTime(x) || !finiteOrRunTime(y))
      return false;
    OpBuilder b(select);
    Location loc = select.getLoc();
    auto product = [&](Value v, bool when) -> Value {
      Value mask = lookup(b, loc, [&](int64_t id) { return float((functions.at(f, id) != 0) == when); }, f);
      return MulOp::create(b, loc, v, mask, Attribute());
    };
    Value result;
    if (!isZero(x))
      result = product(x, true);
    if (!isZero(y)) {
      Value other = product(y, false);
      result = result ? Value(AddOp::create(b, loc, result, other, Attribute(), b.getF64FloatAttr(1.0))) : other;
    }
    if (!result)
      result = product(x, true); // both zero
    if (result.getType() != type)
      result = ExpandOp::create(b, loc, result, b.getDenseI64ArrayAttr(type.getShape()));
    replace(select, result);
    return true;
  }

  /// The float casts of a sum of f(ids) over constant axes (its only
  /// uses): the mean of the lookup times the count.
  bool visitSum(AtenOp sum) {
    Value f = sum.getArgs().front();
    auto shape = cast<ShapedType>(f.getType()).getShape();
    int64_t rank = int64_t(shape.size());
    SmallVector<int64_t> dims;
    if (sum.getArgs().size() > 1) {
      DenseIntElementsAttr axes;
      if (!matchPattern(sum.getArgs()[1], m_Constant(&axes)))
        return false;
      for (const APInt &a : axes)
        dims.push_back((a.getSExtValue() % rank + rank) % rank);
    }
    if (dims.empty()) {
      if (intParam(sum, "noop_with_empty_axes").value_or(0))
        return false;
      dims.resize(size_t(rank));
      std::iota(dims.begin(), dims.end(), 0);
    }
    int64_t counted = 1;
    for (int64_t d : dims)
      counted *= shape[size_t(d)];
    bool keep = intParam(sum, "keepdims").value_or(1) != 0;
    SmallVector<Operation *> casts(sum->getUsers());
    if (casts.empty() || !llvm::all_of(casts, [](Operation *user) {
          auto cast = dyn_cast<AtenOp>(user);
          return cast && isCast(cast) && isF32Tensor(cast->getResult(0));
        }))
      return false;
    OpBuilder b(sum);
    Location loc = sum.getLoc();
    Value mask = lookup(b, loc, [&](int64_t id) { return float(functions.at(f, id)); }, f);
    Value mean = MeanOp::create(b, loc, mask, b.getDenseI64ArrayAttr(dims), b.getBoolAttr(keep));
    Value total = MulOp::create(b, loc, mean, Value(), b.getF64FloatAttr(double(counted)));
    if (llvm::any_of(casts, [&](Operation *user) { return user->getResult(0).getType() != total.getType(); })) {
      eraseDead(total.getDefiningOp());
      return false;
    }
    for (Operation *user : casts)
      replace(user, total);
    return true;
  }

  void replace(Operation *op, Value by) {
    op->getResult(0).replaceAllUsesWith(by);
    eraseDead(op);
  }

  Value ids;
  int64_t rows;
  TokenFunctions functions;
};

} // namespace

void foldTokenTables(func::FuncOp func) {
  if (func.isExternal())
    return;
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
    }
  }
}

} // namespace raptor::nn
