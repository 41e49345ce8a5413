//===- CodecOps.cpp - Codecs of int8 subgraphs on the vector unit -*- C++ -*-===//
//
// Under an int8 policy the codec placement decides where data changes
// number format; each materialized codec becomes one conversion kernel at
// exactly that position: codec.encode an ext.vquant (f32 to i8 with the
// subgraph's calibrated scale), codec.decode an ext.vdequant (i8 or the
// i32 sums of an int8 matrix operator back to f32). codec.observe, the
// calibration point, is an identity once calibrated. The numbers follow
// passes/codec/Quantization.h.
//
//===----------------------------------------------------------------------===//
#include "passes/codec/EncodedValues.h"
#include "passes/conversion/SpatialToPim/Lowering.h"

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

} // namespace

bool Lowering::isEncoded(Value v) { return codec::isEncoded(v); }

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

FailureOr<Piece> Lowering::widened(const Piece &p, int32_t zero) {
  FailureOr<Piece> wide = fresh(p.sizes, compactLike(p.layout));
  if (failed(wide))
    return failure();
  temporary(wide->buffer);
  std::vector<float> one{1.0f};
  CoreEmitter &e = here();
  ElementType type = typeOf(p);
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
  FailureOr<Piece> sums = fresh(p.sizes, compactLike(p.layout), ElementType::I32);
  if (failed(sums) || failed(quantizeInto(*this, operand(*sums), operand(p), 1.0f, ElementType::I32)))
    return failure();
  temporary(p.buffer); // the f32 source is done with
  sums->origin = p.origin;
  return sums;
}

/// `v`'s pieces on the current core, each whole box once: partial sums
/// are added first (a codec converts values, not addends).
FailureOr<TensorValue> Lowering::codecInput(Value v) {
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
  if (typeOf(*x) != ElementType::F32)
    return op.emitOpError("encodes data that is encoded already");
  // Piece by piece: the encoded value keeps the pieces (rows of copies,
  // columns of lanes) in place of one gathered copy.
  TensorValue out;
  out.shape = shapeOf(op.getOutput());
  CoreEmitter &e = here();
  // An offset encoding computes x / s + zero in f32 first: in one scratch
  // buffer of at most kBlockBytes, reused block after block of each piece's
  // outermost dimension (a whole f32 copy of a large map would not fit).
  constexpr int64_t kBlockBytes = 1 << 20;
  std::vector<float> scaled{1.0f / encoding->scale}, zero{float(encoding->zero)};
  // Each piece's outermost dimension in storage (the largest stride: H of
  // a channels-last map, so that blocks are contiguous) and rows per block.
  std::vector<std::pair<size_t, int64_t>> blocks;
  int64_t scratchBytes = 0;
  for (const Piece &p : x->pieces) {
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
    int64_t rows = std::clamp<int64_t>(kBlockBytes / std::max<int64_t>(4 * perRow, 1), 1, p.sizes[outer]);
    blocks.push_back({outer, rows});
    scratchBytes = std::max(scratchBytes, 4 * perRow * rows);
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
    if (encoding->zero == 0) {
      if (failed(quantizeInto(*this, operand(*result), operand(p), scaled[0], ElementType::I8)))
        return failure();
      continue;
    }
    auto [outer, rows] = block;
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
  define(op.getOutput(), out);
  return success();
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
  define(op.getOutput(), out);
  return success();
}

} // namespace raptor::pim
