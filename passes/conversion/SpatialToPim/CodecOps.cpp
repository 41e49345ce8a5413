//===- CodecOps.cpp - Codecs of int8 subgraphs on the vector unit -*- C++ -*-===//
//
// Under an int8 policy the codec placement decides where data changes
// number format; each materialized codec becomes one conversion kernel at
// exactly that position. In an integer-only program (the function carries
// `raptor.fixed_point_bits`) real values are int32 fixed point and a codec
// is a requantization in pimsim-nn's own instructions (dialects/pim/
// FixedPoint.h): codec.encode multiplies fixed point by 2^-F / s, adds the
// zero point, clamps and narrows to i8; codec.decode multiplies codes (or
// an int8 matrix operator's i32 sums) by s 2^F (s_x s_w[n] 2^F). Otherwise
// codec.encode is an ext.vquant (f32 to i8) and codec.decode an
// ext.vdequant (back to f32), extension instructions. codec.observe, the
// calibration point, is an identity once calibrated. The numbers follow
// passes/codec/Quantization.h.
//
//===----------------------------------------------------------------------===//
#include "passes/codec/EncodedValues.h"
#include "simulator/FixedPoint.h"
#include "passes/conversion/SpatialToPim/Lowering.h"

#include <cmath>
#include <deque>

using namespace mlir;

namespace raptor::pim {

using layout::Layout;

namespace {

/// The matrix operator whose sums `v` holds (through calibration points).
Operation *matrixProducer(Value v) {
  Operation *d = v.getDefiningOp();
  while (auto o = dyn_cast_or_null<codec::ObserveOp>(d))
    d = o.getInput().getDefiningOp();
  return isa_and_nonnull<nn::ConvolutionOp, nn::LinearOp, nn::ScaledDotProductAttentionOp>(d) ? d : nullptr;
}

/// The outermost dimension of `p` in storage (the largest stride: H of a
/// channels-last map, so that blocks are contiguous) and how many of its
/// indices a block of at most `budget` bytes of 4-byte elements holds.
std::pair<size_t, int64_t> blocksOf(const Piece &p, int64_t budget) {
  size_t outer = 0;
  int64_t widest = -1;
  for (size_t d = 0; d < p.sizes.size(); ++d) {
    if (p.sizes[d] == 1)
      continue;
    std::vector<int64_t> strides = modeOf(p.layout, d, p.sizes.size()).stride.flatten();
    int64_t stride = *std::max_element(strides.begin(), strides.end());
    if (stride > widest)
      widest = stride, outer = d;
  }
  int64_t perRow = elementCount(p.sizes) / std::max<int64_t>(p.sizes[outer], 1);
  return {outer, std::clamp<int64_t>(budget / std::max<int64_t>(4 * perRow, 1), 1, p.sizes[outer])};
}

/// A codec's scratch space per block (a whole f32 or int32 copy of a large
/// map would not fit local memory).
constexpr int64_t kBlockBytes = 1 << 20;
/// The int32 copies of a block a requantization works in.
constexpr int64_t kRequantizeBuffers = 4;

/// Values per channel `channelDim` of a box of `sizes` (stride 0 elsewhere),
/// or one value everywhere.
Layout scaleLayoutOf(ArrayRef<int64_t> sizes, std::optional<size_t> channelDim) {
  if (!channelDim)
    return broadcastLayout({}, sizes);
  SmallVector<Layout> modes;
  for (size_t d = 0; d < sizes.size(); ++d)
    modes.push_back(Layout(sizes[d], d == *channelDim ? 1 : 0));
  return fromTorchModes(modes);
}

} // namespace

bool Lowering::isEncoded(Value v) { return codec::isEncoded(v); }

bool Lowering::holdsSums(Value v) {
  // (through views too: in an integer-only program sums and fixed point
  // are both int32, so the type cannot tell them apart)
  for (int depth = 0; depth < 100000; ++depth) {
    Operation *d = v.getDefiningOp();
    if (isa_and_nonnull<nn::ConvolutionOp, nn::LinearOp, nn::ScaledDotProductAttentionOp>(d))
      return isEncoded(d->getOperand(0));
    if (!isa_and_nonnull<codec::ObserveOp, nn::ViewOp, nn::PermuteOp, nn::ExpandOp, nn::SliceOp,
                         nn::SplitWithSizesOp, nn::CloneOp, nn::FanOutOp, nn::UpsampleNearest2dOp>(d))
      return false;
    v = d->getOperand(0);
  }
  return false;
}

float Lowering::fixedPoint(double x) const {
  return integerOnly() ? float(std::nearbyint(std::ldexp(x, int(*fixedPointBits)))) : float(x);
}

/// The positions an average pooling sums for one output.
static int64_t poolWindow(Operation *op) {
  if (auto pool = dyn_cast<nn::AvgPool2dOp>(op)) {
    ArrayRef<int64_t> k = pool.getKernelSize();
    return k.size() == 1 ? k[0] * k[0] : k[0] * k[1];
  }
  auto in = cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
  auto out = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  int64_t n = 1;
  for (size_t d = in.size() - 2; d < in.size(); ++d)
    n *= out[d] > 0 ? in[d] / out[d] : 1;
  return n;
}

bool hasIntegerLowering(Operation *op) {
  // An average pooling's int32 sum holds 2^headroom values of the range
  // (a mean shifts larger counts first; a pooling window cannot).
  if (isa<nn::AvgPool2dOp, nn::AdaptiveAvgPool2dOp>(op))
    return poolWindow(op) <= (int64_t(1) << kFixedPointHeadroom);
  if (isa<codec::EncodeOp, codec::DecodeOp, codec::RescaleOp, codec::ObserveOp, nn::ReluOp, nn::HardtanhOp, nn::ClampOp, nn::NegOp,
          nn::SigmoidOp, nn::TanhOp, nn::SiluOp, nn::MulOp,
          nn::MaxPool2dOp, nn::MeanOp, nn::CatOp, nn::ConstantPadNdOp, nn::AsStridedOp, nn::EmbeddingOp,
          nn::TokenPositionsOp, nn::LastTokenOp,
          func::ReturnOp>(op))
    return true;
  if (isa<nn::ConvolutionOp, nn::LinearOp>(op)) // int8 matrix operators (a float one has no integer MVM)
    return codec::isEncoded(op->getOperand(0));
  if (auto add = dyn_cast<nn::AddOp>(op))
    return add.getAlpha().convertToDouble() == 1.0;
  if (auto div = dyn_cast<nn::DivOp>(op)) // by a scalar: a product by its reciprocal
    return !div.getOther();
  if (auto sub = dyn_cast<nn::SubOp>(op))
    return sub.getAlpha().convertToDouble() == 1.0;
  return false;
}

LogicalResult Lowering::requantize(const KernelOperand &dst, const KernelOperand &src, ArrayRef<int64_t> sizes,
                                   const std::vector<double> &multipliers, const Layout &multiplierLayout,
                                   Address scratchBase, int32_t zeroIn, int32_t offset, int32_t floor,
                                   int32_t ceiling) {
  // Each element's constants (FixedPoint.h), one vector per field.
  std::vector<pim::FixedSteps> steps;
  for (double m : multipliers) {
    std::optional<pim::FixedMultiplier> f = pim::fixedMultiplier(m);
    if (!f)
      return taskError() << "a requantization multiplier " << m
                         << " has no fixed-point form (2^30 or more; --arithmetic float requantizes in float32)";
    steps.push_back(pim::fixedSteps(*f));
  }
  Layout everywhere = broadcastLayout({}, sizes);
  std::deque<std::vector<float>> keep; // constant data the operands point at
  // A constant field: one value everywhere when every element agrees, else
  // one per multiplier; nothing when it is 0 everywhere (an instruction
  // skipped).
  auto field = [&](auto get) -> std::optional<KernelOperand> {
    std::vector<float> v;
    for (const pim::FixedSteps &st : steps)
      v.push_back(float(get(st)));
    if (llvm::all_of(v, [](float x) { return x == 0; }))
      return std::nullopt;
    bool uniform = llvm::all_equal(v);
    keep.push_back(uniform ? std::vector<float>{v[0]} : v);
    return KernelOperand{Address(), uniform ? everywhere : multiplierLayout, &keep.back(), ElementType::I32};
  };
  auto scalar = [&](float x) {
    keep.push_back({x});
    return KernelOperand{Address(), everywhere, &keep.back(), ElementType::I32};
  };
  Layout compact = compactLike(dst.layout);
  int64_t bytes = 4 * compact.cosize();
  auto scratchOperand = [&](int i) {
    return KernelOperand{scratchBase.plus(i * bytes), compact, nullptr, ElementType::I32};
  };
  KernelOperand hi = scratchOperand(0), lo = scratchOperand(1), b = scratchOperand(2), c = scratchOperand(3);
  CoreEmitter &e = here();
  using O = Opcode;
  auto step = [&](O code, const KernelOperand &d, const KernelOperand &a, std::optional<KernelOperand> rhs) {
    SmallVector<KernelOperand, 3> ops{d, a};
    if (rhs)
      ops.push_back(*rhs);
    bool two = ops.size() == 3;
    return kernel(ops, [&](ArrayRef<Address> addr, int64_t run) {
      e.vector(code, addr[0], addr[1], two ? std::optional<Address>(addr[2]) : std::nullopt, run, d.type,
               code == O::Vmv && a.type != d.type ? std::optional<ElementType>(a.type) : std::nullopt);
    });
  };
  // An optional step (its constant is 0 everywhere: skipped).
  auto maybe = [&](O code, const KernelOperand &d, const KernelOperand &a, std::optional<KernelOperand> k) {
    return k ? step(code, d, a, k) : success();
  };
  // x: the int32 source, or the codes sign-extended minus their zero point.
  KernelOperand x = src;
  if (src.type != ElementType::I32) {
    x = b;
    if (failed(step(O::Vmv, b, src, std::nullopt)) ||
        (zeroIn != 0 && failed(step(O::Vvadd, b, b, scalar(float(-zeroIn))))))
      return failure();
  }
  std::optional<KernelOperand> high = field([](auto &s) { return s.high; });
  std::optional<KernelOperand> low = field([](auto &s) { return s.low; });
  if (!high) // every multiplier 0
    high = scalar(0.0f);
  // hi, lo; the four products (hi high in hi, hi low in b, lo high in c,
  // lo low in lo).
  if (failed(step(O::Vvsra, hi, x, scalar(16.0f))) || failed(step(O::Vvsll, lo, hi, scalar(16.0f))) ||
      failed(step(O::Vvsub, lo, x, lo)) || failed(step(O::Vvmul, b, hi, low ? *low : scalar(0.0f))) ||
      failed(step(O::Vvmul, hi, hi, *high)) || failed(step(O::Vvmul, c, lo, *high)) ||
      (llvm::any_of(steps, [](const pim::FixedSteps &s) { return s.terms[2].used; }) &&
       failed(step(O::Vvmul, lo, lo, low ? *low : scalar(0.0f)))) ||
      failed(maybe(O::Vvsll, hi, hi, field([](auto &s) { return s.highLeft; }))))
    return failure();
  // Each other term to the unit, then added.
  for (auto [t, term] : llvm::zip(std::array<size_t, 3>{0, 1, 2}, std::array<KernelOperand, 3>{b, c, lo})) {
    size_t i = t;
    auto used = [&](const pim::FixedSteps &s) { return s.terms[i].used; };
    if (llvm::none_of(steps, used))
      continue;
    // Channels whose plans differ: the term masked where it is unused.
    bool mixed = !llvm::all_of(steps, used);
    if (failed(maybe(O::Vvsll, term, term, field([&](auto &s) { return s.terms[i].left; }))) ||
        failed(maybe(O::Vvsra, term, term, field([&](auto &s) { return s.terms[i].pre; }))) ||
        failed(maybe(O::Vvadd, term, term, field([&](auto &s) { return s.terms[i].rounding; }))) ||
        failed(maybe(O::Vvsra, term, term, field([&](auto &s) { return s.terms[i].right; }))) ||
        (mixed && failed(step(O::Vvmul, term, term, *field([&](auto &s) { return int32_t(s.terms[i].used); })))) ||
        failed(step(O::Vvadd, hi, hi, term)))
      return failure();
  }
  // The final rounding shift and offset: into dst, or clamped to
  // [-127, 127] (min as -max(-x, -127): the unit has no min) and narrowed
  // to codes.
  bool toCode = dst.type == ElementType::I8;
  KernelOperand out = toCode ? hi : dst;
  std::optional<KernelOperand> right = field([](auto &s) { return s.right; });
  if (failed(maybe(O::Vvadd, hi, hi, field([](auto &s) { return s.rounding; }))) ||
      failed(step(O::Vvsra, out, hi, right ? *right : scalar(0.0f))) ||
      (offset != 0 && failed(step(O::Vvadd, out, out, scalar(float(offset))))))
    return failure();
  if (!toCode)
    return success();
  KernelOperand lowest = scalar(float(floor)), highest = scalar(float(-ceiling)), minusOne = scalar(-1.0f);
  if (failed(step(O::Vvmax, hi, hi, lowest)) || failed(step(O::Vvmul, hi, hi, minusOne)) ||
      failed(step(O::Vvmax, hi, hi, highest)) || failed(step(O::Vvmul, hi, hi, minusOne)))
    return failure();
  return step(O::Vmv, dst, hi, std::nullopt);
}

FailureOr<codec::Encoding> Lowering::encodingOf(Value v) {
  std::optional<codec::SemanticsAttr> s = codec::subgraphOf(v);
  if (!s)
    return emitError(v.getLoc()) << "raptor-lower-to-pim: this value belongs to no encoded subgraph";
  auto it = subgraphEncodings.find(s->getId());
  if (it == subgraphEncodings.end())
    return emitError(v.getLoc()) << "raptor-lower-to-pim: encoded subgraph " << s->getId()
                                 << " has no calibrated scale (its codec.observe needs a `scale`; "
                                    "`raptor compile --precision int8` calibrates)";
  return it->second;
}

ElementType Lowering::typeOfValue(Value v) {
  auto it = values.find(v);
  return it == values.end() || it->second.pieces.empty() ? ElementType::F32 : typeOf(it->second);
}

FailureOr<const Lowering::QuantizedMatrix *> Lowering::quantizedMatrix(Operation *op) {
  if (auto it = quantized.find(op); it != quantized.end())
    return &it->second;
  Value input = op->getOperand(0), weight = op->getOperand(1);
  if (!isEncoded(weight))
    return op->emitOpError("reads encoded data but its weight is not encoded (the placement gave it no "
                           "INT8 variant)");
  FailureOr<codec::Encoding> x = encodingOf(input);
  FailureOr<const nn::HostTensor *> w = constantOf(weight);
  if (failed(x) || failed(w))
    return failure();
  int64_t channels = (*w)->shape.empty() ? 1 : (*w)->shape[0];
  int64_t perChannel = (*w)->numel() / std::max<int64_t>(channels, 1);
  codec::ChannelQuantized q = codec::quantizePerChannel((*w)->data, perChannel);
  QuantizedMatrix m;
  for (float s : q.scales)
    m.scales.push_back(x->scale * s);
  // An offset input reads (q - zero): its sums carry -zero * sum of codes.
  if (x->zero != 0)
    for (int64_t n = 0; n < channels; ++n) {
      int64_t sum = 0;
      for (int64_t k = 0; k < perChannel; ++k)
        sum += int64_t(q.codes[size_t(n * perChannel + k)]);
      m.corrections.push_back(-int64_t(x->zero) * sum);
    }
  m.codes = std::move(q.codes);
  return &quantized.emplace(op, std::move(m)).first->second;
}

/// Encodes `from` into `to` (ext.vquant of integer `type`, one multiplier
/// in local memory: a scale register, not a vector).
static LogicalResult quantizeInto(Lowering &l, const KernelOperand &to, const KernelOperand &from, float multiplier,
                                  ElementType type) {
  Address m = l.placeConstant(std::vector<float>{multiplier});
  CoreEmitter &e = l.here();
  return l.kernel({to, from}, [&](ArrayRef<Address> a, int64_t run) {
    e.vector(Opcode::ExtVquant, a[0], a[1], m, run, type);
  });
}

LogicalResult Lowering::requantize(const KernelOperand &dst, const KernelOperand &src, ArrayRef<int64_t> sizes,
                                   const std::vector<double> &multipliers, const Layout &multiplierLayout) {
  FailureOr<int> buffer = scratch(kRequantizeBuffers * 4 * elementCount(sizes));
  if (failed(buffer))
    return failure();
  return requantize(dst, src, sizes, multipliers, multiplierLayout, Address::at(addressOfBuffer(*buffer)));
}

FailureOr<Piece> Lowering::widened(const Piece &p, int32_t zero) {
  FailureOr<Piece> wide = fresh(p.sizes, compactLike(p.layout));
  if (failed(wide))
    return failure();
  temporary(wide->buffer);
  std::vector<float> one{1.0f};
  CoreEmitter &e = here();
  ElementType type = typeOf(p);
  if (integerOnly()) { // i8 codes sign-extended to int32, minus their zero point
    KernelOperand w = operand(*wide);
    std::vector<float> offset{float(-zero)};
    if (failed(kernel({w, operand(p)}, [&](ArrayRef<Address> a, int64_t run) {
          e.vector(Opcode::Vmv, a[0], a[1], std::nullopt, run, ElementType::I32, type);
        })) ||
        (zero != 0 && failed(kernel({w, w, KernelOperand{Address(), broadcastLayout({}, p.sizes), &offset}},
                                    [&](ArrayRef<Address> a, int64_t run) {
                                      e.vector(Opcode::Vvadd, a[0], a[1], a[2], run, ElementType::I32);
                                    }))))
      return failure();
    wide->origin = p.origin;
    return wide;
  }
  if (failed(kernel({operand(*wide), operand(p), KernelOperand{Address(), broadcastLayout({}, p.sizes), &one}},
                    [&](ArrayRef<Address> a, int64_t run) {
                      e.vector(Opcode::ExtVdequant, a[0], a[1], a[2], run, type);
                    })))
    return failure();
  if (zero != 0) { // q - zero: what the codes stand for, in units of the scale
    std::vector<float> offset{float(-zero)};
    KernelOperand w = operand(*wide);
    if (failed(kernel({w, w, KernelOperand{Address(), broadcastLayout({}, p.sizes), &offset}},
                      [&](ArrayRef<Address> a, int64_t run) { e.vector(Opcode::Vvadd, a[0], a[1], a[2], run); })))
      return failure();
  }
  wide->origin = p.origin;
  return wide;
}

FailureOr<Piece> Lowering::narrowed(const Piece &p) {
  if (integerOnly()) // the sums are int32 already
    return p;
  FailureOr<Piece> sums = fresh(p.sizes, compactLike(p.layout), ElementType::I32);
  if (failed(sums) || failed(quantizeInto(*this, operand(*sums), operand(p), 1.0f, ElementType::I32)))
    return failure();
  temporary(p.buffer); // the f32 source is done with
  sums->origin = p.origin;
  return sums;
}

/// `v`'s pieces on the current core, each whole box once: partial sums
/// are added first (a codec converts values, not addends). A copy of the
/// codec (rows [r0, r1) of an (N, C, H, W) map, a follower of its input's
/// row copies) takes those rows alone.
FailureOr<TensorValue> Lowering::codecInput(Value v) {
  if (task.getRows()) {
    SmallVector<int64_t, 4> shape = shapeOf(v);
    if (shape.size() != 4)
      return taskError() << "computes rows of a codec whose input is not (N, C, H, W)";
    FailureOr<std::pair<int64_t, int64_t>> rows = rowsOfTask(shape[2]);
    if (failed(rows))
      return failure();
    FailureOr<Piece> part = padded(v, {0, 0}, {0, 0}, 0, *rows);
    if (failed(part))
      return failure();
    return TensorValue{SmallVector<int64_t, 4>(shape), {*part}};
  }
  FailureOr<TensorValue> value = localValue(v);
  if (failed(value))
    return failure();
  if (llvm::none_of(value->pieces, [](const Piece &p) { return p.partial; }))
    return value;
  FailureOr<Piece> whole = materializeAny(v);
  if (failed(whole))
    return failure();
  TensorValue out;
  out.shape = value->shape;
  out.pieces.push_back(*whole);
  return out;
}

LogicalResult Lowering::lowerEncode(codec::EncodeOp op) {
  auto sem = op.getSemantics();
  if (!sem.getTarget().isInteger(8) || !sem.getSource().isF32())
    return op.emitOpError() << "the PIM lowering encodes f32 data as i8 only, not " << sem.getSource() << " as "
                            << sem.getTarget();
  FailureOr<codec::Encoding> encoding = encodingOf(op.getOutput());
  FailureOr<TensorValue> x = codecInput(op.getInput());
  if (failed(encoding) || failed(x))
    return failure();
  if (isEncoded(op.getInput()) || holdsSums(op.getInput()))
    return op.emitOpError("encodes data that is encoded already");
  // Piece by piece: the encoded value keeps the pieces (rows of copies,
  // columns of lanes) in place of one gathered copy.
  TensorValue out;
  out.shape = shapeOf(op.getOutput());
  if (integerOnly()) // fixed point times 2^-F / s, plus the zero point
    return requantizeValue(op.getOutput(), *x, {std::ldexp(1.0, -int(*fixedPointBits)) / double(encoding->scale)},
                           std::nullopt, ElementType::I8, 0, encoding->zero);
  CoreEmitter &e = here();
  // An offset encoding computes x / s + zero in f32 first: in one scratch
  // buffer of at most kBlockBytes, reused block after block of each piece's
  // outermost dimension.
  std::vector<float> scaled{1.0f / encoding->scale}, zero{float(encoding->zero)};
  std::vector<std::pair<size_t, int64_t>> blocks;
  int64_t scratchBytes = 0;
  for (const Piece &p : x->pieces) {
    auto [outer, rows] = blocksOf(p, kBlockBytes);
    blocks.push_back({outer, rows});
    scratchBytes = std::max(scratchBytes, 4 * rows * elementCount(p.sizes) / std::max<int64_t>(p.sizes[outer], 1));
  }
  Address scratchBase;
  if (encoding->zero != 0) {
    FailureOr<int> buffer = scratch(scratchBytes);
    if (failed(buffer))
      return failure();
    scratchBase = Address::at(addressOfBuffer(*buffer));
  }
  for (auto [p, block] : llvm::zip(x->pieces, blocks)) {
    FailureOr<Piece> result = fresh(p.sizes, compactLike(p.layout), ElementType::I8);
    if (failed(result))
      return failure();
    result->origin = p.origin;
    out.pieces.push_back(*result);
    auto [outer, rows] = block;
    if (encoding->zero == 0) {
      if (failed(quantizeInto(*this, operand(*result), operand(p), scaled[0], ElementType::I8)))
        return failure();
      continue;
    }
    for (int64_t r = 0; r < p.sizes[outer]; r += rows) {
      int64_t count = std::min(rows, p.sizes[outer] - r);
      std::optional<Piece> from = sliced(p, outer, r, count, 1), to = sliced(*result, outer, r, count, 1);
      if (!from || !to)
        return taskError() << "cannot split an encoder's input of layout " << p.layout.str() << " into blocks";
      KernelOperand shifted{scratchBase, compactLike(from->layout), nullptr, ElementType::F32};
      Layout everywhere = broadcastLayout({}, from->sizes);
      if (failed(kernel({shifted, operand(*from), KernelOperand{Address(), everywhere, &scaled}},
                        [&](ArrayRef<Address> a, int64_t run) { e.vector(Opcode::Vvmul, a[0], a[1], a[2], run); })) ||
          failed(kernel({shifted, shifted, KernelOperand{Address(), everywhere, &zero}},
                        [&](ArrayRef<Address> a, int64_t run) { e.vector(Opcode::Vvadd, a[0], a[1], a[2], run); })) ||
          failed(quantizeInto(*this, operand(*to), shifted, 1.0f, ElementType::I8)))
        return failure();
    }
  }
  defineResult(op.getOutput(), out);
  return success();
}

LogicalResult Lowering::requantizeValue(Value result, const TensorValue &x, const std::vector<double> &multipliers,
                                        std::optional<size_t> channelDim, ElementType type, int32_t zeroIn,
                                        int32_t offset, int32_t floor, int32_t ceiling) {
  // Block after block of each piece's outermost dimension, in one scratch
  // space for all of them.
  int64_t scratchBytes = 0;
  for (const Piece &p : x.pieces) {
    auto [outer, rows] = blocksOf(p, kBlockBytes);
    scratchBytes = std::max(scratchBytes, kRequantizeBuffers * 4 * rows * elementCount(p.sizes) /
                                              std::max<int64_t>(p.sizes[outer], 1));
  }
  FailureOr<int> buffer = scratch(scratchBytes);
  if (failed(buffer))
    return failure();
  Address scratchBase = Address::at(addressOfBuffer(*buffer));
  TensorValue out;
  out.shape = shapeOf(result);
  for (const Piece &p : x.pieces) {
    FailureOr<Piece> piece = fresh(p.sizes, compactLike(p.layout), type);
    if (failed(piece))
      return failure();
    piece->origin = p.origin;
    auto [outer, rows] = blocksOf(p, kBlockBytes);
    for (int64_t r = 0; r < p.sizes[outer]; r += rows) {
      int64_t count = std::min(rows, p.sizes[outer] - r);
      std::optional<Piece> from = sliced(p, outer, r, count, 1), to = sliced(*piece, outer, r, count, 1);
      if (!from || !to)
        return taskError() << "cannot split a codec's input of layout " << p.layout.str() << " into blocks";
      // The multipliers of the block's channels.
      std::vector<double> own = multipliers;
      if (channelDim) {
        int64_t first = p.origin[*channelDim] + (outer == *channelDim ? r : 0);
        own.assign(multipliers.begin() + first, multipliers.begin() + first + from->sizes[*channelDim]);
      }
      if (failed(requantize(operand(*to), operand(*from), from->sizes, own, scaleLayoutOf(from->sizes, channelDim),
                            scratchBase, zeroIn, offset, floor, ceiling)))
        return failure();
    }
    out.pieces.push_back(*piece);
  }
  defineResult(result, out);
  return success();
}

LogicalResult Lowering::lowerRescale(codec::RescaleOp op) {
  if (!integerOnly())
    return op.emitOpError("rescales sums in integer-only programs only (the function needs raptor.fixed_point_bits)");
  Operation *producer = matrixProducer(op.getInput());
  if (!isa_and_nonnull<nn::ConvolutionOp, nn::LinearOp>(producer))
    return op.emitOpError("rescales the sums of an int8 convolution or linear layer only");
  FailureOr<const QuantizedMatrix *> m = quantizedMatrix(producer);
  FailureOr<codec::Encoding> to = encodingOf(op.getOutput());
  FailureOr<TensorValue> x = codecInput(op.getInput());
  if (failed(m) || failed(to) || failed(x))
    return failure();
  // Sums times s_x s_w[n] / s_out, plus the zero point; the real clamp is
  // one of codes (encoding is monotone).
  std::vector<double> multipliers;
  for (float s : (*m)->scales)
    multipliers.push_back(double(s) / double(to->scale));
  size_t channelDim = isa<nn::ConvolutionOp>(producer) ? 1 : shapeOf(op.getOutput()).size() - 1;
  std::optional<double> min, max;
  if (op.getMin())
    min = op.getMin()->convertToDouble();
  if (op.getMax())
    max = op.getMax()->convertToDouble();
  auto [low, high] = codec::codeBounds(min, max, *to);
  return requantizeValue(op.getOutput(), *x, multipliers, channelDim, ElementType::I8, 0, to->zero, low, high);
}

LogicalResult Lowering::lowerDecode(codec::DecodeOp op) {
  auto sem = op.getSemantics();
  if (!sem.getSource().isF32() || !isa<IntegerType>(sem.getTarget()))
    return op.emitOpError() << "the PIM lowering decodes integers to f32 only, not " << sem.getTarget() << " to "
                            << sem.getSource();
  SmallVector<int64_t, 4> shape = shapeOf(op.getOutput());
  // Scales: per output channel for a matrix operator's sums (dimension 1
  // of a convolution's map, the last one of a linear layer's), else the
  // subgraph's one scale.
  std::vector<float> scales, offset;
  std::optional<size_t> channelDim;
  int32_t codeZero = 0;
  Operation *producer = matrixProducer(op.getInput());
  if (auto sdpa = dyn_cast_or_null<nn::ScaledDotProductAttentionOp>(producer)) {
    // Sums of round(32767 p) times value codes.
    FailureOr<codec::Encoding> v = encodingOf(sdpa.getValue());
    if (failed(v))
      return failure();
    scales = {v->scale * (1.0f / codec::kProbabilityLevels)};
  } else if (producer) {
    FailureOr<const QuantizedMatrix *> m = quantizedMatrix(producer);
    if (failed(m))
      return failure();
    scales = (*m)->scales;
    channelDim = isa<nn::ConvolutionOp>(producer) ? 1 : shape.size() - 1;
  } else {
    FailureOr<codec::Encoding> in = encodingOf(op.getInput());
    if (failed(in))
      return failure();
    scales = {in->scale};
    codeZero = in->zero;
    if (in->zero != 0) // s q + (-zero s): the offset removed after scaling
      offset = {float(-in->zero) * in->scale};
  }
  FailureOr<TensorValue> x = codecInput(op.getInput());
  if (failed(x))
    return failure();
  ElementType from = typeOf(*x);
  if (from == ElementType::F32 || from != elementTypeOf(sem.getTarget()))
    return op.emitOpError() << "decodes " << nameOf(from) << " data as " << sem.getTarget();
  TensorValue out;
  out.shape = shape;
  if (integerOnly()) { // codes (minus their zero point) or sums, times s 2^F
    double one = std::ldexp(1.0, int(*fixedPointBits));
    std::vector<double> multipliers;
    for (float s : scales)
      multipliers.push_back(double(s) * one);
    return requantizeValue(op.getOutput(), *x, multipliers, channelDim, ElementType::I32, codeZero, 0);
  }
  CoreEmitter &e = here();
  for (const Piece &p : x->pieces) {
    FailureOr<Piece> result = fresh(p.sizes, compactLike(p.layout));
    if (failed(result))
      return failure();
    result->origin = p.origin;
    // The scales of the piece's channels.
    std::vector<float> own = scales;
    Layout scaleLayout = broadcastLayout({}, p.sizes);
    if (channelDim) {
      int64_t first = p.origin[*channelDim], count = p.sizes[*channelDim];
      own.assign(scales.begin() + first, scales.begin() + first + count);
      SmallVector<Layout> modes;
      for (size_t d = 0; d < p.sizes.size(); ++d)
        modes.push_back(Layout(p.sizes[d], d == *channelDim ? 1 : 0));
      scaleLayout = fromTorchModes(modes);
    }
    if (failed(kernel({operand(*result), operand(p), KernelOperand{Address(), scaleLayout, &own}},
                      [&](ArrayRef<Address> a, int64_t run) {
                        e.vector(Opcode::ExtVdequant, a[0], a[1], a[2], run, from);
                      })))
      return failure();
    if (!offset.empty()) {
      KernelOperand y = operand(*result);
      if (failed(kernel({y, y, KernelOperand{Address(), broadcastLayout({}, p.sizes), &offset}},
                        [&](ArrayRef<Address> a, int64_t run) { e.vector(Opcode::Vvadd, a[0], a[1], a[2], run); })))
        return failure();
    }
    out.pieces.push_back(*result);
  }
  defineResult(op.getOutput(), out);
  return success();
}

} // namespace raptor::pim
