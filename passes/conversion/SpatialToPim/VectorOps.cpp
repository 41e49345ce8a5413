//===- VectorOps.cpp - Element-wise, pooling and reductions -----*- C++ -*-===//
//
// Operators without resident weights run on the vector unit, each as one or
// a few layout-driven kernels (Kernels.h): activations, broadcasting
// arithmetic, depthwise convolutions and pooling (a multiply-add or max
// per kernel tap over whole rows), means, padding and concatenation (the
// latter only gathers pieces: no data moves until a consumer needs it).
//
//===----------------------------------------------------------------------===//
#include "simulator/FixedPoint.h"
#include "passes/conversion/SpatialToPim/Lowering.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <deque>

using namespace mlir;

namespace raptor::pim {

using layout::IntTuple;
using layout::Layout;

Layout broadcastLayout(ArrayRef<int64_t> from, ArrayRef<int64_t> shape) {
  SmallVector<Layout> modes;
  size_t rank = shape.size(), offset = rank - from.size();
  SmallVector<int64_t> strides(from.size(), 1);
  for (int i = int(from.size()) - 2; i >= 0; --i)
    strides[size_t(i)] = strides[size_t(i) + 1] * from[size_t(i) + 1];
  for (size_t d = 0; d < rank; ++d) {
    if (d < offset || from[d - offset] == 1)
      modes.push_back(Layout(shape[d], 0));
    else
      modes.push_back(Layout(shape[d], strides[d - offset]));
  }
  return fromTorchModes(modes);
}

FailureOr<KernelOperand> Lowering::broadcastOperand(Value v, ArrayRef<int64_t> shape,
                                                   std::deque<std::vector<float>> &keep) {
  SmallVector<int64_t, 4> from = shapeOf(v);
  if (known.contains(v)) {
    FailureOr<const nn::HostTensor *> t = constantOf(v);
    if (failed(t))
      return failure();
    keep.push_back((*t)->data);
    return KernelOperand{Address(), broadcastLayout(from, shape), &keep.back()};
  }
  FailureOr<Piece> p = materializeAny(v);
  if (failed(p))
    return failure();
  return operand(expanded(*p, shape));
}

namespace {

/// One step of an element-wise program: rd <- op(a, b).
enum class Src { Input, Other, Out };
struct Step {
  Opcode op;
  Src a;
  std::optional<Src> b;
  std::optional<float> constant; // b as a broadcast scalar
};

/// max(x, lo), then min(., hi) as -max(-., -hi): the vector unit has a
/// max but no min.
SmallVector<Step> clampSteps(std::optional<double> lo, std::optional<double> hi) {
  SmallVector<Step> steps;
  Src x = Src::Input;
  if (lo) {
    steps.push_back({Opcode::Vvmax, Src::Input, std::nullopt, float(*lo)});
    x = Src::Out;
  }
  if (hi) {
    steps.push_back({Opcode::Vvmul, x, std::nullopt, -1.0f});
    steps.push_back({Opcode::Vvmax, Src::Out, std::nullopt, float(-*hi)});
    steps.push_back({Opcode::Vvmul, Src::Out, std::nullopt, -1.0f});
  }
  return steps;
}

} // namespace

LogicalResult Lowering::lowerElementwise(Operation *op) {
  Value out = op->getResult(0);
  SmallVector<int64_t, 4> shape = shapeOf(out);
  // A copy (rows [r0, r1) of an (N, C, H, W) result) computes those rows
  // from the same rows of its operands.
  std::optional<std::pair<int64_t, int64_t>> rows;
  int64_t fullRows = shape.size() == 4 ? shape[2] : 1;
  if (task.getRows()) {
    if (shape.size() != 4)
      return taskError() << "computes rows of an element-wise result that is not (N, C, H, W)";
    FailureOr<std::pair<int64_t, int64_t>> r = rowsOfTask(fullRows);
    if (failed(r))
      return failure();
    rows = *r;
    shape[2] = r->second - r->first;
  }
  // Operands as kernel operands over the output's shape (or rows).
  std::deque<std::vector<float>> keep; // constant data the operands point at (stable addresses)
  auto operandOf = [&](Value v) -> FailureOr<KernelOperand> {
    SmallVector<int64_t, 4> from = shapeOf(v);
    int64_t h = int64_t(from.size()) - 2; // the operand's dimension aligned with the rows
    if (rows && h >= 0 && from.size() <= 4 && from[size_t(h)] == fullRows && fullRows > 1) {
      if (known.contains(v))
        return taskError() << "computes rows of an operator with a constant operand spanning the rows";
      if (from.size() != 4)
        return taskError() << "computes rows of an operator whose operand is not (N, C, H, W)";
      FailureOr<Piece> p = padded(v, {0, 0}, {0, 0}, 0, rows);
      if (failed(p))
        return failure();
      return operand(expanded(*p, shape)); // broadcast along the other dimensions
    }
    return broadcastOperand(v, shape, keep);
  };
  auto scalar = [&](double value) {
    keep.push_back({float(value)});
    return KernelOperand{Address(), broadcastLayout({}, shape), &keep.back()};
  };
  SmallVector<Step> program;
  std::optional<KernelOperand> input, other;
  Value first;
  auto binary = [&](Value self, Value rhs, Attribute s, double alpha, Opcode code) -> LogicalResult {
    FailureOr<KernelOperand> a = operandOf(self);
    if (failed(a))
      return failure();
    input = *a;
    first = self;
    double value = 0;
    if (rhs) {
      FailureOr<KernelOperand> b = operandOf(rhs);
      if (failed(b))
        return failure();
      other = *b;
    } else {
      if (auto f = dyn_cast_or_null<FloatAttr>(s))
        value = f.getValueAsDouble();
      else if (auto i = dyn_cast_or_null<IntegerAttr>(s))
        value = double(i.getInt());
      other = scalar(value);
    }
    // alpha scales the other operand; a constant divisor becomes a product.
    bool otherConstant = other->constant != nullptr;
    if (otherConstant && (alpha != 1.0 || code == Opcode::ExtVvdiv)) {
      keep.push_back(*other->constant);
      for (float &x : keep.back())
        x = code == Opcode::ExtVvdiv ? float(1.0 / double(x)) : float(x * alpha);
      other->constant = &keep.back();
      if (code == Opcode::ExtVvdiv)
        code = Opcode::Vvmul;
    } else if (alpha != 1.0) {
      program.push_back({Opcode::Vvmul, Src::Other, std::nullopt, float(alpha)});
      program.push_back({code, Src::Input, Src::Out, std::nullopt});
      return success();
    }
    program.push_back({code, Src::Input, Src::Other, std::nullopt});
    return success();
  };
  auto unary = [&](Value self, ArrayRef<Step> steps) -> LogicalResult {
    FailureOr<KernelOperand> a = operandOf(self);
    if (failed(a))
      return failure();
    input = *a;
    first = self;
    program.append(steps.begin(), steps.end());
    return success();
  };
  using O = Opcode;
  // Integer-only programs: these are instruction sequences of their own
  // (FixedPointOps.cpp), emitted once the result exists.
  std::optional<Opcode> activation;
  bool product = false, silu = false;
  if (integerOnly()) {
    LogicalResult fixed = llvm::TypeSwitch<Operation *, LogicalResult>(op)
                              .Case([&](nn::SigmoidOp o) { activation = O::Vsigm; return unary(o.getSelf(), {}); })
                              .Case([&](nn::TanhOp o) { activation = O::Vtanh; return unary(o.getSelf(), {}); })
                              .Case([&](nn::SiluOp o) {
                                activation = O::Vsigm, silu = true;
                                return unary(o.getSelf(), {});
                              })
                              .Case([&](nn::MulOp o) {
                                product = true;
                                LogicalResult r = binary(o.getSelf(), o.getOther(), o.getScalarAttr(), 1.0, O::Vvmul);
                                program.clear();
                                return r;
                              })
                              .Case([&](nn::DivOp o) { // (by a scalar: binary() takes its reciprocal)
                                product = true;
                                LogicalResult r =
                                    binary(o.getSelf(), o.getOther(), o.getScalarAttr(), 1.0, O::ExtVvdiv);
                                program.clear();
                                return r;
                              })
                              .Default([](Operation *) { return success(); });
    if (failed(fixed))
      return failure();
  }
  const float sqrt2OverPi = float(std::sqrt(2.0 / M_PI)), rsqrt2 = float(1.0 / std::sqrt(2.0));
  LogicalResult built =
      activation || product ? success() :
      llvm::TypeSwitch<Operation *, LogicalResult>(op)
          .Case([&](nn::AddOp o) {
            return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), o.getAlpha().convertToDouble(), O::Vvadd);
          })
          .Case([&](nn::SubOp o) {
            return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), o.getAlpha().convertToDouble(), O::Vvsub);
          })
          .Case([&](nn::MulOp o) { return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), 1.0, O::Vvmul); })
          .Case([&](nn::DivOp o) { return binary(o.getSelf(), o.getOther(), o.getScalarAttr(), 1.0, O::ExtVvdiv); })
          .Case([&](nn::ReluOp o) { return unary(o.getSelf(), {{O::Vrelu, Src::Input}}); })
          .Case([&](nn::SigmoidOp o) { return unary(o.getSelf(), {{O::Vsigm, Src::Input}}); })
          .Case([&](nn::TanhOp o) { return unary(o.getSelf(), {{O::Vtanh, Src::Input}}); })
          .Case([&](nn::NegOp o) { return unary(o.getSelf(), {{O::Vvmul, Src::Input, std::nullopt, -1.0f}}); })
          .Case([&](nn::RsqrtOp o) { return unary(o.getSelf(), {{O::ExtVrsqrt, Src::Input}}); })
          .Case([&](nn::ExpOp o) { return unary(o.getSelf(), {{O::ExtVexp, Src::Input}}); })
          .Case([&](nn::Log1pOp o) { return unary(o.getSelf(), {{O::ExtVlog1p, Src::Input}}); })
          .Case([&](nn::HardtanhOp o) {
            return unary(o.getSelf(), clampSteps(o.getMinVal().convertToDouble(), o.getMaxVal().convertToDouble()));
          })
          .Case([&](nn::ClampOp o) {
            std::optional<double> lo, hi;
            if (o.getMin())
              lo = o.getMin()->convertToDouble();
            if (o.getMax())
              hi = o.getMax()->convertToDouble();
            return unary(o.getSelf(), clampSteps(lo, hi));
          })
          .Case([&](nn::SiluOp o) {
            return unary(o.getSelf(), {{O::Vsigm, Src::Input}, {O::Vvmul, Src::Out, Src::Input}});
          })
          .Case([&](nn::GeluOp o) {
            if (o.getApproximate() == "tanh") // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
              return unary(o.getSelf(), {{O::Vvmul, Src::Input, Src::Input},
                                         {O::Vvmul, Src::Out, Src::Input},
                                         {O::Vvmul, Src::Out, std::nullopt, 0.044715f},
                                         {O::Vvadd, Src::Out, Src::Input},
                                         {O::Vvmul, Src::Out, std::nullopt, sqrt2OverPi},
                                         {O::Vtanh, Src::Out},
                                         {O::Vvadd, Src::Out, std::nullopt, 1.0f},
                                         {O::Vvmul, Src::Out, Src::Input},
                                         {O::Vvmul, Src::Out, std::nullopt, 0.5f}});
            // 0.5 x (1 + erf(x / sqrt 2))
            return unary(o.getSelf(), {{O::Vvmul, Src::Input, std::nullopt, rsqrt2},
                                       {O::ExtVerf, Src::Out},
                                       {O::Vvadd, Src::Out, std::nullopt, 1.0f},
                                       {O::Vvmul, Src::Out, Src::Input},
                                       {O::Vvmul, Src::Out, std::nullopt, 0.5f}});
          })
          .Default([](Operation *o) { return o->emitOpError("is not element-wise"); });
  if (failed(built))
    return failure();
  // Integer-only: real constants in fixed point, either operand (a
  // negation's -1, a step constant, stays -1).
  if (integerOnly())
    for (std::optional<KernelOperand> *o : {&input, &other})
      if (*o && (*o)->constant) {
        keep.push_back(*(*o)->constant);
        for (float &x : keep.back())
          x = fixedPoint(x);
        (*o)->constant = &keep.back();
      }
  // The result takes the storage order of an operand of the result's shape
  // (an upsampled view is one: compactLike keeps its channels-last order),
  // not of one broadcast along a whole dimension.
  Layout like = rowMajor(shape);
  for (const std::optional<KernelOperand> &o : {input, other})
    if (o && !o->constant) {
      bool broadcast = llvm::any_of(o->layout.modes(), [](const Layout &mode) {
        std::vector<int64_t> d = mode.stride.flatten(), s = mode.shape.flatten();
        bool spans = false, moves = false;
        for (size_t i = 0; i < d.size(); ++i)
          if (s[i] > 1)
            (d[i] == 0 ? spans : moves) = true;
        return spans && !moves;
      });
      if (!broadcast) {
        like = compactLike(o->layout);
        break;
      }
    }
  FailureOr<Piece> result = fresh(shape, like);
  if (failed(result))
    return failure();
  KernelOperand dst = operand(*result);
  CoreEmitter &e = here();
  if (activation && (failed(fixedActivation(dst, *input, result->sizes, *activation)) ||
                     (silu && failed(fixedProduct(dst, *input, dst, result->sizes)))))
    return failure();
  if (product && failed(fixedProduct(dst, *input, *other, result->sizes)))
    return failure();
  for (const Step &step : program) {
    auto pick = [&](Src s) { return s == Src::Input ? *input : s == Src::Other ? *other : dst; };
    SmallVector<KernelOperand> ops{dst, pick(step.a)};
    if (step.constant)
      ops.push_back(scalar(step.op == Opcode::Vvmul ? double(*step.constant) : fixedPoint(*step.constant)));
    else if (step.b)
      ops.push_back(pick(*step.b));
    bool two = ops.size() == 3;
    Opcode code = step.op;
    if (failed(kernel(ops, [&](ArrayRef<Address> a, int64_t run) {
          e.vector(code, a[0], a[1], two ? std::optional<Address>(a[2]) : std::nullopt, run);
        })))
      return failure();
  }
  if (rows) {
    result->origin[2] = rows->first;
    definePiece(out, *result);
  } else {
    define(out, shape, *result);
  }
  return success();
}

LogicalResult Lowering::lowerDepthwise(nn::ConvolutionOp op) {
  SmallVector<int64_t, 4> in = shapeOf(op.getInput()), out = shapeOf(op.getOut()), w = shapeOf(op.getWeight());
  if (in.size() != 4 || in[0] != 1)
    return op.emitOpError("the PIM lowering supports 2-d convolutions of batch 1 (raptor-fold-batch-into-channels "
                          "folds a batch into channels)");
  ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(), dilation = op.getDilation();
  int64_t C = in[1], W = in[3], OH = out[2], OW = out[3], KH = w[2], KW = w[3];
  int64_t ph = padding.size() > 0 ? padding[0] : 0, pw = padding.size() > 1 ? padding[1] : ph;
  int64_t sh = stride[0], sw = stride.size() > 1 ? stride[1] : sh;
  int64_t dh = dilation.empty() ? 1 : dilation[0], dw = dilation.size() > 1 ? dilation[1] : dh;
  int64_t Wp = W + 2 * pw;
  // int8: the vector unit multiplies f32, so the codes are widened to f32
  // (exact integers, q - zero) and the sums, exact below 2^24, narrowed to
  // i32 at the end; padding holds the code of 0.
  bool integer = isEncoded(op.getInput());
  codec::Encoding encoding;
  if (integer) {
    FailureOr<codec::Encoding> e = encodingOf(op.getInput());
    if (failed(e))
      return failure();
    encoding = *e;
  }
  // A copy computes output rows [row0, row1) from the padded rows its
  // windows read.
  FailureOr<WindowRows> taskRows = windowRowsOfTask(OH, sh, KH, dh);
  if (failed(taskRows))
    return failure();
  int64_t row0 = taskRows->first, R = taskRows->last - taskRows->first;
  FailureOr<Piece> x =
      padded(op.getInput(), {ph, pw}, {ph, pw}, uint8_t(int8_t(encoding.zero)), taskRows->paddedRows);
  FailureOr<const nn::HostTensor *> weight = constantOf(op.getWeight());
  if (failed(x) || failed(weight))
    return failure();
  CoreEmitter &e = here();
  const QuantizedMatrix *codes = nullptr;
  if (integer) {
    FailureOr<const QuantizedMatrix *> q = quantizedMatrix(op);
    if (failed(q))
      return failure();
    codes = *q;
    x = widened(*x, encoding.zero);
    if (failed(x))
      return failure();
  }
  const std::vector<float> &taps = integer ? codes->codes : (*weight)->data;
  SmallVector<int64_t, 4> box{1, C, R, OW};
  FailureOr<Piece> result = fresh(box, channelsLast(box));
  FailureOr<Piece> product = fresh(box, channelsLast(box));
  if (failed(result) || failed(product))
    return failure();
  result->origin = {0, 0, row0, 0};
  temporary(product->buffer);
  std::vector<float> tap(static_cast<size_t>(C));
  Layout perChannel = fromTorchModes({Layout(1, 0), Layout(C, 1), Layout(R, 0), Layout(OW, 0)});
  // The padded piece starts at padded row x->origin[2].
  int64_t firstRow = (row0 * sh - x->origin[2]) * Wp * C * 4;
  for (int64_t kh = 0; kh < KH; ++kh)
    for (int64_t kw = 0; kw < KW; ++kw) {
      for (int64_t c = 0; c < C; ++c)
        tap[size_t(c)] = taps[size_t((c * KH + kh) * KW + kw)];
      Layout window = fromTorchModes({Layout(1, 0), Layout(C, 1), Layout(R, sh * Wp * C), Layout(OW, sw * C)});
      KernelOperand src{addressOf(*x).plus(firstRow + (kh * dh * Wp + kw * dw) * C * 4), window, nullptr};
      KernelOperand weights{Address(), perChannel, &tap};
      bool firstTap = kh == 0 && kw == 0;
      KernelOperand into = firstTap ? operand(*result) : operand(*product);
      if (failed(kernel({into, src, weights}, [&](ArrayRef<Address> a, int64_t run) {
            e.vector(Opcode::Vvmul, a[0], a[1], a[2], run);
          })))
        return failure();
      if (!firstTap && failed(copy(operand(*result), operand(*product), /*accumulate=*/true)))
        return failure();
    }
  if (op.getBias()) {
    FailureOr<const nn::HostTensor *> bias = constantOf(op.getBias());
    if (failed(bias))
      return failure();
    std::vector<float> b = (*bias)->data;
    if (integer) { // (the widened inputs are q - zero: no correction)
      std::vector<int32_t> units = codec::quantizeBias(b, codes->scales);
      b.assign(units.begin(), units.end());
    }
    KernelOperand dst = operand(*result);
    if (failed(kernel({dst, dst, KernelOperand{Address(), perChannel, &b}}, [&](ArrayRef<Address> a, int64_t run) {
          e.vector(Opcode::Vvadd, a[0], a[1], a[2], run);
        })))
      return failure();
  }
  if (integer && failed(result = narrowed(*result)))
    return failure();
  defineResult(op.getOut(), TensorValue{SmallVector<int64_t, 4>(out), {*result}});
  return success();
}

namespace {

/// A 2-d pooling window in torch's conventions: an empty stride is the
/// kernel size, a one-entry list serves both dimensions.
struct PoolWindow {
  int64_t KH, KW, sh, sw, ph, pw, dh, dw;

  PoolWindow(ArrayRef<int64_t> k, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation) {
    if (stride.empty())
      stride = k;
    KH = k[0], KW = k.size() > 1 ? k[1] : KH, sh = stride[0], sw = stride.size() > 1 ? stride[1] : sh;
    ph = padding.empty() ? 0 : padding[0], pw = padding.size() > 1 ? padding[1] : ph;
    dh = dilation.empty() ? 1 : dilation[0], dw = dilation.size() > 1 ? dilation[1] : dh;
  }
};

/// Combines the taps of every window of the (1, C, H, W) `input` into a
/// fresh channels-last piece of shape `out`: the first tap copied, then
/// `combine` with each other tap, one vector per output position. The
/// input is padded with `fill` bytes as far as the last window reaches
/// (ceil_mode windows may reach past the padding).
FailureOr<Piece> reduceWindows(Lowering &l, Value input, ArrayRef<int64_t> out, const PoolWindow &w, uint8_t fill,
                               Opcode combine, std::pair<int64_t, int64_t> rows) {
  SmallVector<int64_t, 4> in = shapeOf(input);
  int64_t C = in[1], H = in[2], W = in[3], OH = out[2], OW = out[3];
  int64_t bottom = std::max<int64_t>(w.ph, (OH - 1) * w.sh + (w.KH - 1) * w.dh + 1 - H - w.ph);
  int64_t right = std::max<int64_t>(w.pw, (OW - 1) * w.sw + (w.KW - 1) * w.dw + 1 - W - w.pw);
  int64_t Wp = W + w.pw + right;
  // Output rows [r0, r1) read padded rows [r0 sh, (r1 - 1) sh + (KH - 1) dh + 1).
  int64_t r0 = rows.first, R = rows.second - rows.first;
  int64_t first = r0 * w.sh, last = (rows.second - 1) * w.sh + (w.KH - 1) * w.dh + 1;
  bool all = r0 == 0 && R == OH;
  FailureOr<Piece> x = all ? l.padded(input, {w.ph, w.pw}, {bottom, right}, fill)
                           : l.padded(input, {w.ph, w.pw}, {bottom, right}, fill,
                                      std::pair<int64_t, int64_t>{first, last});
  if (failed(x))
    return failure();
  int64_t skip = all ? 0 : first - x->origin[2]; // padded rows before the first read
  SmallVector<int64_t, 4> box{out[0], C, R, OW};
  ElementType type = l.typeOf(*x);
  int64_t eb = bytesOf(type);
  FailureOr<Piece> result = l.fresh(box, channelsLast(box), type);
  if (failed(result))
    return failure();
  result->origin[2] = r0;
  CoreEmitter &e = l.here();
  Layout window = fromTorchModes({Layout(1, 0), Layout(C, 1), Layout(R, w.sh * Wp * C), Layout(OW, w.sw * C)});
  KernelOperand dst = l.operand(*result);
  for (int64_t kh = 0; kh < w.KH; ++kh)
    for (int64_t kw = 0; kw < w.KW; ++kw) {
      KernelOperand src{l.addressOf(*x).plus(((skip + kh * w.dh) * Wp + kw * w.dw) * C * eb), window, nullptr, type};
      LogicalResult r = kh == 0 && kw == 0 ? l.copy(dst, src)
                                           : l.kernel({dst, dst, src}, [&](ArrayRef<Address> a, int64_t run) {
                                               e.vector(combine, a[0], a[1], a[2], run, type);
                                             });
      if (failed(r))
        return failure();
    }
  return result;
}

} // namespace

LogicalResult Lowering::lowerPooling(nn::MaxPool2dOp op) {
  if (!op.getIndices().use_empty())
    return op.emitOpError("the PIM lowering does not produce max-pooling indices");
  SmallVector<int64_t, 4> in = shapeOf(op.getSelf()), out = shapeOf(op.getOut());
  if (in.size() != 4 || in[0] != 1)
    return op.emitOpError("the PIM lowering supports 2-d pooling of batch 1 (raptor-fold-batch-into-channels folds a "
                          "batch into channels)");
  FailureOr<std::pair<int64_t, int64_t>> rows = rowsOfTask(out[2]);
  if (failed(rows))
    return failure();
  // Padding reads 0xFEFEFEFE = -1.7e38, below any f32 value; -128 below
  // any code of a symmetric int8 encoding, 0x80808080 below any fixed-point
  // value an integer-only program's range allows.
  uint8_t fill = typeOfValue(op.getSelf()) == ElementType::F32 ? 0xFE : 0x80;
  FailureOr<Piece> result =
      reduceWindows(*this, op.getSelf(), out,
                    PoolWindow(op.getKernelSize(), op.getStride(), op.getPadding(), op.getDilation()), fill,
                    Opcode::Vvmax, *rows);
  if (failed(result))
    return failure();
  defineResult(op.getOut(), TensorValue{SmallVector<int64_t, 4>(out), {*result}});
  return success();
}

LogicalResult Lowering::lowerAvgPool(Value input, Value output, ArrayRef<int64_t> windowSize,
                                    ArrayRef<int64_t> strideList, ArrayRef<int64_t> padding, bool countPad,
                                    std::optional<int64_t> divisor) {
  SmallVector<int64_t, 4> in = shapeOf(input), out = shapeOf(output);
  if (in.size() != 4 || in[0] != 1)
    return taskError() << "the PIM lowering supports 2-d pooling of batch 1 (raptor-fold-batch-into-channels "
                          "folds a batch into channels)";
  PoolWindow window(windowSize, strideList, padding, {});
  FailureOr<std::pair<int64_t, int64_t>> rows = rowsOfTask(out[2]);
  if (failed(rows))
    return failure();
  if (isEncoded(input) || holdsSums(input))
    return taskError() << "average pooling of encoded data (decode it first)";
  FailureOr<Piece> result = reduceWindows(*this, input, out, window, 0, Opcode::Vvadd, *rows);
  if (failed(result))
    return failure();
  CoreEmitter &e = here();
  int64_t C = in[1], H = in[2], W = in[3], OW = out[3], R = rows->second - rows->first;
  int64_t KH = window.KH, KW = window.KW, sh = window.sh, sw = window.sw, ph = window.ph, pw = window.pw;
  // Each output's divisor, as torch's avg_pool2d counts it (rows [r0, r1)).
  std::vector<float> scale(size_t(R * OW));
  for (int64_t oh = rows->first; oh < rows->second; ++oh)
    for (int64_t ow = 0; ow < OW; ++ow) {
      int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
      int64_t h1 = std::min(h0 + KH, H + ph), w1 = std::min(w0 + KW, W + pw);
      int64_t size = (h1 - h0) * (w1 - w0);
      h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
      h1 = std::min(h1, H), w1 = std::min(w1, W);
      int64_t count = divisor ? *divisor : countPad ? size : (h1 - h0) * (w1 - w0);
      scale[size_t((oh - rows->first) * OW + ow)] = float(1.0 / double(count));
    }
  KernelOperand dst = operand(*result);
  Layout perPosition = fromTorchModes({Layout(1, 0), Layout(C, 0), Layout(R, OW), Layout(OW, 1)});
  if (integerOnly()) { // the fixed-point sums times 1 / count, rounded
    if (KH * KW > (int64_t(1) << kFixedPointHeadroom))
      return taskError() << "average pooling over " << KH * KW << " positions: an integer-only program sums at most "
                         << (int64_t(1) << kFixedPointHeadroom) << " (its fixed point's headroom)";
    std::vector<double> multipliers;
    for (float s : scale)
      multipliers.push_back(1.0 / double(std::lround(1.0 / double(s))));
    if (failed(requantize(dst, dst, result->sizes, multipliers, perPosition)))
      return failure();
    defineResult(output, TensorValue{SmallVector<int64_t, 4>(out), {*result}});
    return success();
  }
  if (failed(kernel({dst, dst, KernelOperand{Address(), perPosition, &scale}},
                    [&](ArrayRef<Address> a, int64_t run) { e.vector(Opcode::Vvmul, a[0], a[1], a[2], run); })))
    return failure();
  defineResult(output, TensorValue{SmallVector<int64_t, 4>(out), {*result}});
  return success();
}

LogicalResult Lowering::lowerMean(nn::MeanOp op) {
  SmallVector<int64_t, 4> in = shapeOf(op.getSelf()), out = shapeOf(op.getOut());
  size_t rank = in.size();
  SmallVector<bool> reduced(rank, !op.getDim());
  if (auto dims = op.getDim())
    for (int64_t d : *dims)
      reduced[size_t(d < 0 ? d + int64_t(rank) : d)] = true;
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d)
    if (reduced[d])
      count *= in[d];
  FailureOr<Piece> x = materializeAny(op.getSelf());
  if (failed(x))
    return failure();
  FailureOr<Piece> result = fresh(out, rowMajor(out));
  if (failed(result))
    return failure();
  // The result seen over the input's domain: stride 0 along reduced dimensions.
  std::vector<Layout> resultModes;
  {
    size_t k = 0;
    bool keep = op.getKeepdim();
    for (size_t d = 0; d < rank; ++d) {
      if (reduced[d]) {
        resultModes.push_back(Layout(in[d], 0));
        if (keep)
          ++k;
      } else {
        resultModes.push_back(modeOf(result->layout, k++, out.size()));
      }
    }
  }
  KernelOperand acc{addressOf(*result), fromTorchModes(resultModes), nullptr};
  CoreEmitter &e = here();
  // Integer-only: more values than the fixed point's headroom sums are
  // shifted right (rounded) first, so that the int32 sum cannot wrap.
  int32_t shift = integerOnly() ? sumShift(count) : 0;
  KernelOperand addend = operand(*x);
  if (shift > 0) {
    FailureOr<Piece> shifted = fresh(x->sizes, compactLike(x->layout));
    if (failed(shifted))
      return failure();
    temporary(shifted->buffer);
    std::vector<float> half{float(int64_t(1) << (shift - 1))}, bits{float(shift)};
    Layout everywhere = broadcastLayout({}, x->sizes);
    KernelOperand s = operand(*shifted);
    if (failed(kernel({s, addend, KernelOperand{Address(), everywhere, &half}}, [&](ArrayRef<Address> a, int64_t run) {
          e.vector(Opcode::Vvadd, a[0], a[1], a[2], run);
        })) ||
        failed(kernel({s, s, KernelOperand{Address(), everywhere, &bits}}, [&](ArrayRef<Address> a, int64_t run) {
          e.vector(Opcode::Vvsra, a[0], a[1], a[2], run);
        })))
      return failure();
    addend = s;
  }
  here().lldi(addressOf(*result), 0, 4 * result->layout.cosize());
  if (failed(kernel({acc, acc, addend}, [&](ArrayRef<Address> a, int64_t run) {
        e.vector(Opcode::Vvadd, a[0], a[1], a[2], run);
      })))
    return failure();
  std::vector<float> scale{float(1.0 / double(count))};
  KernelOperand dst = operand(*result);
  if (integerOnly()) { // the fixed-point sum times 2^shift / count, rounded
    if (failed(requantize(dst, dst, out, {std::ldexp(1.0, shift) / double(count)}, broadcastLayout({}, out))))
      return failure();
    define(op.getOut(), out, *result);
    return success();
  }
  if (failed(kernel({dst, dst, KernelOperand{Address(), broadcastLayout({}, out), &scale}},
                    [&](ArrayRef<Address> a, int64_t run) { e.vector(Opcode::Vvmul, a[0], a[1], a[2], run); })))
    return failure();
  define(op.getOut(), out, *result);
  return success();
}

LogicalResult Lowering::lowerCat(nn::CatOp op) {
  SmallVector<int64_t, 4> shape = shapeOf(op.getOut());
  int64_t rank = int64_t(shape.size()), dim = int64_t(op.getDim());
  if (dim < 0)
    dim += rank;
  TensorValue out;
  out.shape = shape;
  // A row copy under global crossings gathers its own rows only, and defines
  // them alone: each copy localizes what it reads on its own core, so a
  // copy's whole-value definition would replace the others' with pieces on
  // its core, which readers on other cores fetch against the stage order.
  std::optional<std::pair<int64_t, int64_t>> rows;
  if (globalCrossing && task && task.getRows() && rank >= 2 && dim != rank - 2 &&
      llvm::none_of(op.getTensors(), [&](Value t) { return known.contains(t); }))
    rows = std::pair<int64_t, int64_t>{(*task.getRows())[0], (*task.getRows())[1]};
  int64_t at = 0;
  for (Value t : op.getTensors()) {
    SmallVector<int64_t, 4> s = shapeOf(t);
    TensorValue part;
    if (rows) {
      FailureOr<std::optional<TensorValue>> range = rangeOfValue(t, size_t(rank - 2), rows->first, rows->second);
      if (failed(range))
        return failure();
      if (!*range)
        return taskError() << "cannot take rows [" << rows->first << ", " << rows->second
                           << ") of a concatenated value";
      part = **range;
    } else if (known.contains(t)) {
      FailureOr<const nn::HostTensor *> c = constantOf(t);
      FailureOr<Piece> p = fresh(s, rowMajor(s));
      if (failed(c) || failed(p))
        return failure();
      std::vector<float> data = (*c)->data;
      for (float &x : data) // (fixed point in integer-only programs)
        x = fixedPoint(x);
      Address values = placeConstant(std::move(data));
      here().lmv(addressOf(*p), values, int64_t((*c)->data.size()) * 4);
      part.shape = s;
      part.pieces.push_back(*p);
    } else {
      auto it = values.find(t);
      if (it == values.end())
        return taskError() << "concatenates a value no earlier task produced";
      part = it->second;
    }
    for (Piece p : part.pieces) {
      // Global crossings: pieces from an earlier level come to this core
      // (as the queue model has the concatenation gather them) rather than
      // travel to every reader of the result, each copy through global
      // memory's one controller. (A row copy of the concatenation sees all
      // pieces, also those of stages of its own level, which no region
      // joins: their readers fetch them.)
      int64_t from = buffers[p.buffer].core;
      if (globalCrossing && from >= 0 && stages.crosses(from, core) && stages.levelOf(from) < stages.levelOf(core)) {
        FailureOr<Piece> local = localize(p, core);
        if (failed(local))
          return failure();
        p = *local;
      }
      p.origin[size_t(dim)] += at;
      if (rows)
        p.origin[size_t(rank - 2)] += rows->first;
      out.pieces.push_back(p);
    }
    at += s[size_t(dim)];
  }
  if (!rows) {
    define(op.getOut(), out);
    return success();
  }
  for (Piece &p : out.pieces)
    definePiece(op.getOut(), std::move(p));
  return success();
}

LogicalResult Lowering::lowerAsStrided(nn::AsStridedOp op) {
  // The operand's row-major element sequence read through the op's sizes
  // and strides: a layout over a row-major copy of it, copied into a fresh
  // row-major result (a copy, not a view: its elements may repeat, as
  // DeBERTa's relative positions read each score of a row for several
  // keys, and its readers may sit on other cores).
  SmallVector<int64_t, 4> in = shapeOf(op.getSelf()), out = shapeOf(op.getOut());
  FailureOr<Piece> source = materializeAs(op.getSelf(), rowMajor(in));
  if (failed(source))
    return failure();
  std::vector<Layout> modes;
  for (auto [size, stride] : llvm::zip(op.getSize(), op.getStride()))
    modes.push_back(Layout(size, stride));
  Piece strided = *source;
  strided.layout = fromTorchModes(modes);
  strided.offset += op.getStorageOffset();
  strided.origin.assign(out.size(), 0);
  strided.sizes.assign(out.begin(), out.end());
  TensorValue view;
  view.shape = out;
  view.pieces.push_back(strided);
  FailureOr<Piece> result = materialize(view, [](const Piece &) { return false; }, rowMajor(out));
  if (failed(result))
    return failure();
  TensorValue value;
  value.shape = out;
  value.pieces.push_back(*result);
  define(op.getOut(), value);
  return success();
}

LogicalResult Lowering::lowerPad(nn::ConstantPadNdOp op) {
  SmallVector<int64_t, 4> in = shapeOf(op.getSelf()), out = shapeOf(op.getOut());
  ArrayRef<int64_t> pad = op.getPad();
  size_t rank = in.size();
  SmallVector<int64_t, 4> before(rank, 0);
  for (size_t i = 0; 2 * i + 1 < pad.size(); ++i) {
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0)
      return op.emitOpError("negative padding (cropping) is not supported by the PIM lowering");
    before[rank - 1 - i] = pad[2 * i];
  }
  ElementType type = typeOfValue(op.getSelf());
  FailureOr<Piece> result = fresh(out, rank == 4 ? channelsLast(out) : rowMajor(out), type);
  if (failed(result))
    return failure();
  bool encoded = isEncoded(op.getSelf());
  float value = fixedPoint(op.getValue().convertToDouble());
  if (encoded && value != 0)
    return op.emitOpError("pads encoded data with a value other than 0 (its code is not known)");
  uint32_t bits;
  if (integerOnly()) { // int32 fixed point (saturated: -inf pads a max)
    int32_t v = std::isnan(value) ? 0 : int32_t(std::clamp<double>(value, INT32_MIN, INT32_MAX));
    std::memcpy(&bits, &v, 4);
  } else {
    std::memcpy(&bits, &value, 4);
  }
  uint8_t byte = uint8_t(bits);
  if (encoded) { // the code of 0
    FailureOr<codec::Encoding> encoding = encodingOf(op.getSelf());
    if (failed(encoding))
      return failure();
    bits = byte = uint8_t(int8_t(encoding->zero));
  }
  CoreEmitter &e = here();
  if (encoded || bits == byte * 0x01010101u) {
    e.lldi(addressOf(*result), byte, int64_t(bytesOf(type)) * result->layout.cosize());
  } else {
    std::vector<float> fill{value};
    KernelOperand dst = operand(*result);
    if (failed(kernel({dst, KernelOperand{Address(), broadcastLayout({}, out), &fill}},
                      [&](ArrayRef<Address> a, int64_t run) { e.lmv(a[0], a[1], 4 * run); })))
      return failure();
  }
  auto it = values.find(op.getSelf());
  if (it == values.end())
    return taskError() << "pads a value no earlier task produced";
  if (failed(place(it->second, *result, before)))
    return failure();
  define(op.getOut(), out, *result);
  return success();
}

} // namespace raptor::pim
