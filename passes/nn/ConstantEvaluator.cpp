//===- ConstantEvaluator.cpp - Computing compile-time values ----*- C++ -*-===//
#include "passes/nn/ConstantEvaluator.h"

#include "dialects/nn/NNOps.h"
#include "simulator/VectorMath.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "dialects/codec/CodecDialect.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <cmath>

using namespace mlir;

namespace raptor::nn {

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

std::vector<int64_t> shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return {t.getShape().begin(), t.getShape().end()};
}

int64_t normalizedDim(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = int(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls f(outIndex, inIndex) for every element of `out` with `in`
/// broadcast to it (numpy rules: trailing dimensions aligned).
template <typename F>
void broadcast(const std::vector<int64_t> &out, const std::vector<int64_t> &in, F f) {
  size_t rank = out.size();
  std::vector<int64_t> inStrides(rank, 0);
  std::vector<int64_t> dense = rowMajorStrides(in);
  for (size_t i = 0; i < in.size(); ++i) {
    size_t d = rank - in.size() + i;
    inStrides[d] = in[i] == 1 ? 0 : dense[i];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t total = 1;
  for (int64_t d : out)
    total *= d;
  int64_t src = 0;
  for (int64_t k = 0; k < total; ++k) {
    f(k, src);
    for (int d = int(rank) - 1; d >= 0; --d) {
      if (++index[d] < out[d]) {
        src += inStrides[d];
        break;
      }
      src -= inStrides[d] * (out[d] - 1);
      index[d] = 0;
    }
  }
}

FailureOr<HostTensor> elementsOf(Operation *op, ElementsAttr attr) {
  HostTensor t;
  auto type = cast<ShapedType>(attr.getType());
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  t.data.reserve(size_t(type.getNumElements()));
  Type element = type.getElementType();
  if (isa<FloatType>(element)) {
    for (APFloat v : attr.getValues<APFloat>()) {
      bool lost;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      t.data.push_back(v.convertToFloat());
    }
  } else if (element.isInteger()) {
    for (APInt v : attr.getValues<APInt>()) {
      int64_t i = element.isInteger(1) ? int64_t(v.getZExtValue()) : v.getSExtValue();
      if (std::abs(i) > (int64_t(1) << 24))
        return op->emitError() << "integer constant " << i << " is beyond what float32 holds exactly";
      t.data.push_back(float(i));
    }
  } else {
    return op->emitError("constants must hold floats or integers");
  }
  return t;
}

/// Elements start, start + step, ... of dimension `dim` of `a` (all of
/// the other dimensions), as a tensor of `shape`: slices and splits.
HostTensor strided(const HostTensor &a, const std::vector<int64_t> &shape, int64_t dim, int64_t start,
                   int64_t step) {
  std::vector<int64_t> strides = rowMajorStrides(a.shape);
  HostTensor out{shape, std::vector<float>(size_t(HostTensor{shape, {}}.numel()))};
  for (size_t k = 0; k < out.data.size(); ++k) {
    int64_t src = 0, rest = int64_t(k);
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      int64_t i = rest % shape[d];
      rest /= shape[d];
      src += (d == dim ? start + i * step : i) * strides[d];
    }
    out.data[k] = a.data[size_t(src)];
  }
  return out;
}

} // namespace

FailureOr<const HostTensor *> ConstantEvaluator::evaluate(Value value) {
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second.get();
  FailureOr<HostTensor> t = compute(value);
  if (failed(t))
    return failure();
  auto &slot = cache[value];
  slot = std::make_unique<HostTensor>(std::move(*t));
  return slot.get();
}

FailureOr<HostTensor> ConstantEvaluator::compute(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto name = func ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), NNDialect::kParamAttrName)
                     : StringAttr();
    if (!name)
      return emitError(value.getLoc(), "this value is not known at compile time");
    if (!weights)
      return func.emitError() << "weight '" << name.getValue()
                              << "' has no data: give the compiler a weights file (weights=FILE.safetensors)";
    const SafeTensorsFile::Entry *e = weights->find(name.getValue());
    if (!e)
      return func.emitError() << "weights file '" << weights->path() << "' has no tensor '" << name.getValue() << "'";
    std::vector<int64_t> expected = shapeOf(value);
    if (e->shape != expected) {
      auto text = [](const std::vector<int64_t> &s) {
        std::string r = "(";
        for (size_t i = 0; i < s.size(); ++i)
          r += (i ? ", " : "") + std::to_string(s[i]);
        return r + ")";
      };
      return func.emitError() << "weight '" << name.getValue() << "' has shape " << text(e->shape) << " in '"
                              << weights->path() << "' but the model expects " << text(expected);
    }
    return HostTensor{expected, weights->floats(*e)};
  }
  Operation *op = value.getDefiningOp();
  unsigned resultIndex = cast<OpResult>(value).getResultNumber();
  std::vector<int64_t> outShape = shapeOf(value);
  auto operand = [&](Value v) -> FailureOr<const HostTensor *> { return evaluate(v); };
  // A weighted op's input, weight and optional bias (null when absent).
  using Weighted = std::array<const HostTensor *, 3>;
  auto weighted = [&](Value input, Value weight, Value bias) -> FailureOr<Weighted> {
    Weighted out{nullptr, nullptr, nullptr};
    for (auto [v, slot] : {std::pair{input, 0}, std::pair{weight, 1}, std::pair{bias, 2}}) {
      if (!v)
        continue;
      FailureOr<const HostTensor *> t = operand(v);
      if (failed(t))
        return failure();
      out[size_t(slot)] = *t;
    }
    return out;
  };
  auto binary = [&](Value self, Value other, Attribute scalar, double alpha,
                    float (*f)(float, float)) -> FailureOr<HostTensor> {
    FailureOr<const HostTensor *> a = operand(self);
    if (failed(a))
      return failure();
    HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()))};
    std::vector<float> b;
    std::vector<int64_t> bShape;
    if (other) {
      FailureOr<const HostTensor *> t = operand(other);
      if (failed(t))
        return failure();
      b = (*t)->data;
      bShape = (*t)->shape;
    } else {
      double s = 0;
      if (auto fa = dyn_cast_or_null<FloatAttr>(scalar))
        s = fa.getValueAsDouble();
      else if (auto ia = dyn_cast_or_null<IntegerAttr>(scalar))
        s = double(ia.getInt());
      b = {float(s)};
      bShape = {};
    }
    for (float &v : b)
      v = float(v * alpha);
    std::vector<float> aFull(out.data.size());
    broadcast(outShape, (*a)->shape, [&](int64_t k, int64_t i) { aFull[size_t(k)] = (*a)->data[size_t(i)]; });
    broadcast(outShape, bShape, [&](int64_t k, int64_t i) { out.data[size_t(k)] = f(aFull[size_t(k)], b[size_t(i)]); });
    return out;
  };
  auto unary = [&](Value self, float (*f)(float)) -> FailureOr<HostTensor> {
    FailureOr<const HostTensor *> a = operand(self);
    if (failed(a))
      return failure();
    HostTensor out = **a;
    for (float &v : out.data)
      v = f(v);
    return out;
  };
  auto reshaped = [&](Value self) -> FailureOr<HostTensor> {
    FailureOr<const HostTensor *> a = operand(self);
    if (failed(a))
      return failure();
    HostTensor out = **a;
    out.shape = outShape;
    return out;
  };
  using R = FailureOr<HostTensor>;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](ConstantOp c) { return elementsOf(op, c.getValue()); })
      .Case([&](AddOp o) {
        return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), o.getAlpha().convertToDouble(),
                      [](float x, float y) { return x + y; });
      })
      .Case([&](SubOp o) {
        return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), o.getAlpha().convertToDouble(),
                      [](float x, float y) { return x - y; });
      })
      .Case([&](MulOp o) {
        return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), 1.0, [](float x, float y) { return x * y; });
      })
      .Case([&](DivOp o) {
        return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), 1.0, [](float x, float y) { return x / y; });
      })
      .Case([&](WhereOp o) -> R {
        FailureOr<const HostTensor *> c = operand(o.getCondition()), a = operand(o.getSelf()),
                                      b = operand(o.getOther());
        if (failed(c) || failed(a) || failed(b))
          return failure();
        HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()))};
        std::vector<float> picked(out.data.size());
        broadcast(outShape, (*c)->shape, [&](int64_t k, int64_t i) { picked[size_t(k)] = (*c)->data[size_t(i)]; });
        broadcast(outShape, (*a)->shape, [&](int64_t k, int64_t i) {
          if (picked[size_t(k)] != 0)
            out.data[size_t(k)] = (*a)->data[size_t(i)];
        });
        broadcast(outShape, (*b)->shape, [&](int64_t k, int64_t i) {
          if (picked[size_t(k)] == 0)
            out.data[size_t(k)] = (*b)->data[size_t(i)];
        });
        return out;
      })
      .Case([&](MeanOp o) -> R { // a weight norm's ||v|| (wav2vec2's positional convolution)
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        const std::vector<int64_t> &in = (*a)->shape;
        size_t rank = in.size();
        std::optional<ArrayRef<int64_t>> dims = o.getDim();
        std::vector<bool> reduced(rank, !dims || dims->empty()); // (no dims: all of them)
        if (dims)
          for (int64_t d : *dims)
            reduced[size_t(normalizedDim(d, int64_t(rank)))] = true;
        std::vector<int64_t> kept(rank);
        int64_t count = 1;
        for (size_t d = 0; d < rank; ++d) {
          kept[d] = reduced[d] ? 1 : in[d];
          count *= reduced[d] ? in[d] : 1;
        }
        std::vector<int64_t> keptStrides = rowMajorStrides(kept);
        std::vector<double> sums(size_t(HostTensor{kept, {}}.numel()), 0.0);
        std::vector<int64_t> index(rank, 0);
        for (float x : (*a)->data) {
          int64_t at = 0;
          for (size_t d = 0; d < rank; ++d)
            at += reduced[d] ? 0 : index[d] * keptStrides[d];
          sums[size_t(at)] += double(x);
          for (int d = int(rank) - 1; d >= 0 && ++index[size_t(d)] == in[size_t(d)]; --d)
            index[size_t(d)] = 0;
        }
        HostTensor out{outShape, std::vector<float>(sums.size())};
        for (size_t i = 0; i < sums.size(); ++i)
          out.data[i] = float(sums[i] / double(std::max<int64_t>(count, 1)));
        return out;
      })
      .Case([&](CosOp o) { return unary(o.getSelf(), [](float x) { return vector_math::cos(x); }); })
      .Case([&](SinOp o) { return unary(o.getSelf(), [](float x) { return vector_math::sin(x); }); })
      .Case([&](RsqrtOp o) { return unary(o.getSelf(), [](float x) { return vector_math::rsqrt(x); }); })
      .Case([&](NegOp o) { return unary(o.getSelf(), [](float x) { return -x; }); })
      .Case([&](ExpOp o) { return unary(o.getSelf(), [](float x) { return vector_math::exp(x); }); })
      .Case([&](Log1pOp o) { return unary(o.getSelf(), [](float x) { return vector_math::log1p(x); }); })
      .Case([&](ReluOp o) { return unary(o.getSelf(), [](float x) { return std::max(x, 0.0f); }); })
      .Case([&](SigmoidOp o) { return unary(o.getSelf(), [](float x) { return vector_math::sigmoid(x); }); })
      .Case([&](TanhOp o) { return unary(o.getSelf(), [](float x) { return vector_math::tanh(x); }); })
      .Case([&](ClampOp o) -> R { // Swin V2's logit scale: clamp(weight, max=log 100)
        FailureOr<HostTensor> out = unary(o.getSelf(), [](float x) { return x; });
        if (failed(out))
          return failure();
        float lo = o.getMin() ? float(o.getMin()->convertToDouble()) : -INFINITY;
        float hi = o.getMax() ? float(o.getMax()->convertToDouble()) : INFINITY;
        for (float &v : out->data)
          v = std::min(std::max(v, lo), hi);
        return out;
      })
      .Case([&](PowOp o) -> R {
        FailureOr<HostTensor> out = unary(o.getSelf(), [](float x) { return x; });
        if (failed(out))
          return failure();
        float e = float(o.getExponent().convertToDouble());
        for (float &v : out->data)
          v = vector_math::pow(v, e);
        return out;
      })
      .Case([&](LinearOp o) -> R { // Swin V2's position-bias MLP over a constant coordinate table
        FailureOr<Weighted> ops = weighted(o.getInput(), o.getWeight(), o.getBias());
        if (failed(ops))
          return failure();
        auto [x, w, bias] = *ops;
        bool vector = w->shape.size() == 1;
        int64_t in = w->shape.back(), outs = vector ? 1 : w->shape[0];
        int64_t rows = x->numel() / in;
        HostTensor out{outShape, std::vector<float>(size_t(rows * outs))};
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < outs; ++j) {
            double acc = bias ? bias->data[size_t(bias->numel() == 1 ? 0 : j)] : 0.0;
            for (int64_t i = 0; i < in; ++i)
              acc += double(x->data[size_t(r * in + i)]) * w->data[size_t(j * in + i)];
            out.data[size_t(r * outs + j)] = float(acc);
          }
        return out;
      })
      .Case([&](ConvolutionOp o) -> R { // EdgeNeXt's Fourier positional encoding, projected by a 1 x 1 convolution
        if (o.getTransposed())
          return failure();
        FailureOr<Weighted> ops = weighted(o.getInput(), o.getWeight(), o.getBias());
        if (failed(ops))
          return failure();
        auto [x, w, bias] = *ops;
        const std::vector<int64_t> &xs = x->shape, &ws = w->shape;
        size_t nd = xs.size() - 2;
        // (torch's per-dimension lists; one value stands for every dimension)
        auto along = [](ArrayRef<int64_t> list, size_t d, int64_t otherwise) {
          return list.empty() ? otherwise : list[list.size() == 1 ? 0 : d];
        };
        int64_t groups = std::max<int64_t>(1, o.getGroups()), perGroup = ws[1], outsPerGroup = ws[0] / groups;
        int64_t outPositions = 1, kernelPositions = 1;
        for (size_t d = 0; d < nd; ++d) {
          outPositions *= outShape[2 + d];
          kernelPositions *= ws[2 + d];
        }
        HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()))};
        std::vector<int64_t> position(nd), tap(nd);
        // The multi-index of a row-major flat index over `sizes` (spatial).
        auto unflatten = [&](int64_t flat, auto sizeOf, std::vector<int64_t> &into) {
          for (size_t d = nd; d-- > 0;) {
            into[d] = flat % sizeOf(d);
            flat /= sizeOf(d);
          }
        };
        for (int64_t n = 0; n < xs[0]; ++n)
          for (int64_t oc = 0; oc < ws[0]; ++oc)
            for (int64_t p = 0; p < outPositions; ++p) {
              unflatten(p, [&](size_t d) { return outShape[2 + d]; }, position);
              double acc = bias ? bias->data[size_t(oc)] : 0.0;
              for (int64_t ci = 0; ci < perGroup; ++ci) {
                int64_t c = (oc / outsPerGroup) * perGroup + ci;
                for (int64_t q = 0; q < kernelPositions; ++q) {
                  unflatten(q, [&](size_t d) { return ws[2 + d]; }, tap);
                  int64_t flat = n * xs[1] + c;
                  bool inside = true;
                  for (size_t d = 0; d < nd && inside; ++d) {
                    int64_t i = position[d] * along(o.getStride(), d, 1) - along(o.getPadding(), d, 0) +
                                tap[d] * along(o.getDilation(), d, 1);
                    inside = i >= 0 && i < xs[2 + d];
                    flat = flat * xs[2 + d] + i;
                  }
                  if (inside)
                    acc += double(x->data[size_t(flat)]) * w->data[size_t((oc * perGroup + ci) * kernelPositions + q)];
                }
              }
              out.data[size_t((n * ws[0] + oc) * outPositions + p)] = float(acc);
            }
        return out;
      })
      .Case([&](LayerNormOp o) -> R { // Perceiver's learned latents, normalized before their queries
        FailureOr<const HostTensor *> x = operand(o.getInput());
        if (failed(x))
          return failure();
        const HostTensor *gamma = nullptr, *beta = nullptr;
        for (auto [v, into] : {std::pair{o.getWeight(), &gamma}, std::pair{o.getBias(), &beta}})
          if (v) {
            FailureOr<const HostTensor *> t = operand(v);
            if (failed(t))
              return failure();
            *into = *t;
          }
        int64_t row = 1;
        for (int64_t d : o.getNormalizedShape())
          row *= d;
        HostTensor out = **x;
        double eps = o.getEps().convertToDouble();
        for (int64_t r = 0; r * row < out.numel(); ++r) {
          float *v = out.data.data() + r * row;
          double mean = 0, var = 0;
          for (int64_t i = 0; i < row; ++i)
            mean += v[i];
          mean /= double(row);
          for (int64_t i = 0; i < row; ++i)
            var += (v[i] - mean) * (v[i] - mean);
          double scale = 1.0 / std::sqrt(var / double(row) + eps);
          for (int64_t i = 0; i < row; ++i)
            v[i] = float((v[i] - mean) * scale * (gamma ? gamma->data[size_t(i)] : 1.0f) +
                         (beta ? beta->data[size_t(i)] : 0.0f));
        }
        return out;
      })
      .Case([&](SoftmaxOp o) -> R { // ConViT's positional attention: a softmax of weights and constants
        FailureOr<const HostTensor *> x = operand(o.getSelf());
        if (failed(x))
          return failure();
        HostTensor out = **x;
        int64_t rank = int64_t(out.shape.size());
        // raptor-normalize-row-ops moves any other dimension last first.
        if (rank && o.getDim() != -1 && o.getDim() != rank - 1)
          return o.emitOpError("the compiler computes softmaxes over the last dimension (raptor-normalize-row-ops "
                               "moves the others there)");
        int64_t n = rank ? out.shape.back() : 1;
        // In double, shifted by the row's maximum: torch's float32 softmax
        // within its rounding.
        for (float *row = out.data.data(), *end = row + out.numel(); row < end; row += n) {
          double top = -INFINITY, sum = 0;
          for (int64_t i = 0; i < n; ++i)
            top = std::max(top, double(row[i]));
          for (int64_t i = 0; i < n; ++i)
            sum += std::exp(double(row[i]) - top);
          for (int64_t i = 0; i < n; ++i)
            row[i] = float(std::exp(double(row[i]) - top) / sum);
        }
        return out;
      })
      .Case([&](MatmulOp o) -> R { // Funnel's relative positions: sinusoids times a projection
        FailureOr<const HostTensor *> x = operand(o.getSelf()), y = operand(o.getOther());
        if (failed(x) || failed(y))
          return failure();
        // torch.matmul: a vector is a one-row (left) or one-column (right)
        // matrix whose dimension the result drops; batch dimensions broadcast.
        std::vector<int64_t> a = (*x)->shape, b = (*y)->shape;
        if (a.size() == 1)
          a.insert(a.begin(), 1);
        if (b.size() == 1)
          b.push_back(1);
        int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
        std::vector<int64_t> aBatch(a.begin(), a.end() - 2), bBatch(b.begin(), b.end() - 2);
        std::vector<int64_t> batch(std::max(aBatch.size(), bBatch.size()), 1);
        for (size_t i = 0; i < batch.size(); ++i) {
          int64_t da = i + aBatch.size() >= batch.size() ? aBatch[i + aBatch.size() - batch.size()] : 1;
          int64_t db = i + bBatch.size() >= batch.size() ? bBatch[i + bBatch.size() - batch.size()] : 1;
          batch[i] = std::max(da, db);
        }
        int64_t batches = HostTensor{batch, {}}.numel();
        std::vector<int64_t> aAt(static_cast<size_t>(batches)), bAt(static_cast<size_t>(batches));
        broadcast(batch, aBatch, [&](int64_t q, int64_t i) { aAt[size_t(q)] = i; });
        broadcast(batch, bBatch, [&](int64_t q, int64_t i) { bAt[size_t(q)] = i; });
        HostTensor out{outShape, std::vector<float>(size_t(batches * m * n))};
        for (int64_t q = 0; q < batches; ++q)
          for (int64_t r = 0; r < m; ++r)
            for (int64_t c = 0; c < n; ++c) {
              double acc = 0;
              for (int64_t i = 0; i < k; ++i)
                acc += double((*x)->data[size_t((aAt[size_t(q)] * m + r) * k + i)]) *
                       (*y)->data[size_t((bAt[size_t(q)] * k + i) * n + c)];
              out.data[size_t((q * m + r) * n + c)] = float(acc);
            }
        return out;
      })
      .Case([&](CloneOp o) { return unary(o.getSelf(), [](float x) { return x; }); })
      // A weight's codecs: the source view's values (matrix lowerings
      // quantize encoded weights per channel themselves).
      .Case<codec::EncodeOp, codec::DecodeOp, codec::ObserveOp>(
          [&](Operation *o) { return unary(o->getOperand(0), [](float x) { return x; }); })
      .Case([&](ViewOp o) { return reshaped(o.getSelf()); })
      .Case([&](ExpandOp o) -> R {
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()))};
        broadcast(outShape, (*a)->shape, [&](int64_t k, int64_t i) { out.data[size_t(k)] = (*a)->data[size_t(i)]; });
        return out;
      })
      .Case([&](PermuteOp o) -> R {
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        ArrayRef<int64_t> dims = o.getDims();
        std::vector<int64_t> inStrides = rowMajorStrides((*a)->shape), permuted;
        for (int64_t d : dims)
          permuted.push_back(inStrides[size_t(d < 0 ? d + int64_t(dims.size()) : d)]);
        HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()))};
        std::vector<int64_t> index(outShape.size(), 0);
        for (size_t k = 0; k < out.data.size(); ++k) {
          int64_t src = 0, rest = int64_t(k);
          for (int d = int(outShape.size()) - 1; d >= 0; --d) {
            src += (rest % outShape[d]) * permuted[d];
            rest /= outShape[d];
          }
          out.data[k] = (*a)->data[size_t(src)];
        }
        return out;
      })
      .Case([&](SliceOp o) -> R {
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        const std::vector<int64_t> &in = (*a)->shape;
        int64_t rank = int64_t(in.size()), dim = normalizedDim(int64_t(o.getDim()), rank);
        int64_t start = o.getStart() ? int64_t(*o.getStart()) : 0;
        if (start < 0)
          start += in[size_t(dim)];
        start = std::clamp<int64_t>(start, 0, in[size_t(dim)]);
        int64_t step = o.getStep();
        return strided(**a, outShape, dim, start, step);
      })
      .Case([&](CatOp o) -> R {
        int64_t rank = int64_t(outShape.size()), dim = normalizedDim(int64_t(o.getDim()), rank);
        HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()))};
        int64_t inner = 1, outer = 1;
        for (int64_t d = dim + 1; d < rank; ++d)
          inner *= outShape[d];
        for (int64_t d = 0; d < dim; ++d)
          outer *= outShape[d];
        int64_t at = 0;
        for (Value t : o.getTensors()) {
          FailureOr<const HostTensor *> a = operand(t);
          if (failed(a))
            return failure();
          int64_t n = (*a)->shape[size_t(dim)];
          for (int64_t p = 0; p < outer; ++p)
            std::copy_n((*a)->data.begin() + p * n * inner, n * inner,
                        out.data.begin() + (p * outShape[dim] + at) * inner);
          at += n;
        }
        return out;
      })
      .Case([&](EmbeddingOp o) -> R {
        FailureOr<const HostTensor *> w = operand(o.getWeight());
        if (failed(w))
          return failure();
        FailureOr<const HostTensor *> ids = operand(o.getIndices());
        if (failed(ids))
          return failure();
        int64_t rows = (*w)->shape[0], dim = (*w)->shape[1];
        HostTensor out{outShape, {}};
        out.data.reserve(size_t(out.numel()));
        for (float id : (*ids)->data) {
          int64_t r = int64_t(id);
          if (r < 0 || r >= rows)
            return o.emitOpError() << "index " << r << " is outside the table's " << rows << " rows";
          out.data.insert(out.data.end(), (*w)->data.begin() + r * dim, (*w)->data.begin() + (r + 1) * dim);
        }
        return out;
      })
      .Case([&](IndexOp o) -> R { // Swin's relative-position bias: a table indexed by a constant
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        const std::vector<int64_t> &shape = (*a)->shape;
        size_t k = o.getIndices().size(), rank = shape.size();
        int64_t inner = 1;
        for (size_t d = k; d < rank; ++d)
          inner *= shape[d];
        // The indices' broadcast shape leads the result's.
        std::vector<int64_t> lead(outShape.begin(), outShape.end() - int64_t(rank - k));
        int64_t count = HostTensor{lead, {}}.numel();
        std::vector<int64_t> row(size_t(count), 0);
        int64_t stride = 1;
        for (size_t d = k; d-- > 0;) {
          FailureOr<const HostTensor *> ids = operand(o.getIndices()[d]);
          if (failed(ids))
            return failure();
          bool inside = true;
          broadcast(lead, (*ids)->shape, [&](int64_t at, int64_t i) {
            int64_t id = int64_t((*ids)->data[size_t(i)]);
            id += id < 0 ? shape[d] : 0;
            inside = inside && id >= 0 && id < shape[d];
            row[size_t(at)] += id * stride;
          });
          if (!inside)
            return o.emitOpError() << "index " << d << " holds a value outside dimension " << d << "'s "
                                   << shape[d] << " elements";
          stride *= shape[d];
        }
        HostTensor out{outShape, {}};
        out.data.reserve(size_t(count * inner));
        for (int64_t r : row)
          out.data.insert(out.data.end(), (*a)->data.begin() + r * inner, (*a)->data.begin() + (r + 1) * inner);
        return out;
      })
      .Case([&](SelectOp o) -> R { // a slice of one position, its dimension dropped
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        std::vector<int64_t> kept = (*a)->shape;
        int64_t dim = normalizedDim(int64_t(o.getDim()), int64_t(kept.size()));
        int64_t index = int64_t(o.getIndex());
        if (index < 0)
          index += kept[size_t(dim)];
        if (index < 0 || index >= kept[size_t(dim)])
          return o.emitOpError() << "selects position " << o.getIndex() << " of a dimension of "
                                 << kept[size_t(dim)];
        kept[size_t(dim)] = 1;
        HostTensor out = strided(**a, kept, dim, index, 1);
        out.shape = outShape;
        return out;
      })
      .Case([&](ConstantPadNdOp o) -> R { // a transposed convolution's kernel padded to whole phases
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        const std::vector<int64_t> &in = (*a)->shape;
        ArrayRef<int64_t> pad = o.getPad();
        std::vector<int64_t> before(in.size(), 0);
        for (size_t i = 0; 2 * i + 1 < pad.size() && i < in.size(); ++i) {
          if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
            return o.emitOpError("negative padding (cropping) of a weight is not computed at compile time");
          before[in.size() - 1 - i] = pad[2 * i];
        }
        HostTensor out{outShape, std::vector<float>(size_t(HostTensor{outShape, {}}.numel()),
                                                     float(o.getValue().convertToDouble()))};
        std::vector<int64_t> outStrides = rowMajorStrides(outShape);
        for (size_t k = 0; k < (*a)->data.size(); ++k) {
          int64_t at = 0, rest = int64_t(k);
          for (int d = int(in.size()) - 1; d >= 0; --d) {
            at += (rest % in[size_t(d)] + before[size_t(d)]) * outStrides[size_t(d)];
            rest /= in[size_t(d)];
          }
          out.data[size_t(at)] = (*a)->data[k];
        }
        return out;
      })
      .Case([&](SplitWithSizesOp o) -> R {
        FailureOr<const HostTensor *> a = operand(o.getSelf());
        if (failed(a))
          return failure();
        int64_t rank = int64_t(outShape.size()), dim = normalizedDim(int64_t(o.getDim()), rank);
        int64_t start = 0;
        for (unsigned i = 0; i < resultIndex; ++i)
          start += o.getSplitSizes()[i];
        return strided(**a, outShape, dim, start, 1);
      })
      .Default([&](Operation *o) -> R {
        return o->emitOpError("cannot be computed at compile time (its operands are all weights, but the "
                              "compiler has no host implementation of this op)");
      });
}

} // namespace raptor::nn
