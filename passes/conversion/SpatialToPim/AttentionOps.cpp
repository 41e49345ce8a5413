//===- AttentionOps.cpp - Row-wise transformer operators --------*- C++ -*-===//
//
// Softmax, layer and RMS norms, attention, activation matmuls and rotary
// embeddings work row by row on the vector unit: a loop over the rows
// whose body is a short sequence of instructions, with Raptor's extension
// instructions where pimsim-nn has none (exp, division, reciprocal square
// root, row max, broadcast, matrix-vector products on local memory).
//
//===----------------------------------------------------------------------===//
#include "passes/conversion/SpatialToPim/Lowering.h"

#include <cmath>
#include <deque>

using namespace mlir;

namespace raptor::pim {

using layout::Layout;

/// `v` on the current core, row-major (its last dimension contiguous).
static FailureOr<Piece> rows(Lowering &l, Value v) { return l.materializeAs(v, rowMajor(shapeOf(v))); }

LogicalResult Lowering::lowerSoftmax(nn::SoftmaxOp op) {
  SmallVector<int64_t, 4> shape = shapeOf(op.getOut());
  int64_t rank = int64_t(shape.size()), dim = int64_t(op.getDim());
  if (dim < 0)
    dim += rank;
  if (dim != rank - 1)
    return op.emitOpError("the PIM lowering supports softmax over the last dimension");
  int64_t n = shape.back(), count = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    count *= shape[size_t(d)];
  FailureOr<Piece> x = rows(*this, op.getSelf());
  FailureOr<Piece> result = fresh(shape, rowMajor(shape));
  FailureOr<int> wide = scratch(4 * n), one = scratch(4);
  if (failed(x) || failed(result) || failed(wide) || failed(one))
    return failure();
  Address ones = placeConstant(std::vector<float>(size_t(n), 1.0f));
  Address t = Address::at(addressOfBuffer(*wide)), s = Address::at(addressOfBuffer(*one));
  CoreEmitter &e = here();
  // Scratch and constants walk with stride 0: their addresses are set once.
  e.nest({count},
         {Walk{addressOf(*x), {n * 4}}, Walk{addressOf(*result), {n * 4}}, Walk{s, {0}}, Walk{t, {0}},
          Walk{ones, {0}}},
         [&](ArrayRef<Address> a) {
           Address s = a[2], t = a[3], ones = a[4];
           e.vector(Opcode::ExtVredmax, s, a[0], std::nullopt, n);
           e.vector(Opcode::ExtVbcast, t, s, std::nullopt, n);
           e.vector(Opcode::Vvsub, a[1], a[0], t, n);
           e.vector(Opcode::ExtVexp, a[1], a[1], std::nullopt, n);
           e.vector(Opcode::Vvdmul, s, a[1], ones, n);
           e.vector(Opcode::ExtVbcast, t, s, std::nullopt, n);
           e.vector(Opcode::ExtVvdiv, a[1], a[1], t, n);
         });
  define(op.getOut(), shape, *result);
  return success();
}

/// Above this many elements a norm sums pairwise. A dot product adds in
/// order and loses about sqrt(n) ulps of float32: a group norm, one layer
/// norm over C/G x H x W elements, read 2.6e-5 of its output off over
/// 64 x 56 x 56 (torch: 8e-8). Up to this many the ordered sum stays within
/// about 2e-6 in one instruction, as transformers' hidden sizes need.
constexpr int64_t kOrderedSumLimit = 4096;

/// t[0] = the sum of the n floats at src, added pairwise: src's halves into
/// t, then t's halves in place (log2 n vector adds of n elements in all,
/// within a few ulps). t has room for n / 2 floats; src may be t.
static void sumPairwise(CoreEmitter &e, Address t, Address src, int64_t n) {
  for (Address from = src; n > 1; from = t) {
    int64_t half = n / 2;
    e.vector(Opcode::Vvadd, t, from, from.plus(4 * half), half);
    if (n % 2) // the odd one out, which no pair holds
      e.vector(Opcode::Vvadd, t, t, from.plus(4 * (n - 1)), 1);
    n = half;
  }
}

LogicalResult Lowering::lowerNorm(Operation *op) {
  auto layer = dyn_cast<nn::LayerNormOp>(op);
  auto rms = dyn_cast<nn::RMSNormOp>(op);
  Value input = layer ? layer.getInput() : rms.getInput();
  Value weight = layer ? layer.getWeight() : rms.getWeight();
  Value bias = layer ? layer.getBias() : Value();
  ArrayRef<int64_t> normalized = layer ? layer.getNormalizedShape() : rms.getNormalizedShape();
  double eps = layer ? layer.getEps().convertToDouble()
                     : (rms.getEps() ? rms.getEps()->convertToDouble() : double(std::numeric_limits<float>::epsilon()));
  SmallVector<int64_t, 4> shape = shapeOf(op->getResult(0));
  int64_t n = 1, count = 1;
  for (int64_t d : normalized)
    n *= d;
  for (int64_t d : shape)
    count *= d;
  count /= n;
  FailureOr<Piece> x = rows(*this, input);
  FailureOr<Piece> result = fresh(shape, rowMajor(shape));
  FailureOr<int> wide = scratch(4 * n), one = scratch(4);
  if (failed(x) || failed(result) || failed(wide) || failed(one))
    return failure();
  std::optional<Address> gamma, beta;
  for (auto [value, slot] : {std::pair{weight, &gamma}, std::pair{bias, &beta}}) {
    if (!value)
      continue;
    if (!known.contains(value))
      return op->emitOpError("the PIM lowering needs compile-time norm weights");
    FailureOr<const nn::HostTensor *> c = constantOf(value);
    if (failed(c))
      return failure();
    *slot = placeConstant((*c)->data);
  }
  bool pairwise = n > kOrderedSumLimit;
  Address inverse = placeConstant(std::vector<float>(size_t(pairwise ? 1 : n), float(1.0 / double(n))));
  Address epsilon = placeConstant({float(eps)});
  Address t = Address::at(addressOfBuffer(*wide)), s = Address::at(addressOfBuffer(*one));
  CoreEmitter &e = here();
  SmallVector<Walk> walks{Walk{addressOf(*x), {n * 4}}, Walk{addressOf(*result), {n * 4}}, Walk{s, {0}},
                          Walk{t, {0}}, Walk{inverse, {0}}, Walk{epsilon, {0}}};
  if (gamma)
    walks.push_back(Walk{*gamma, {0}});
  if (beta)
    walks.push_back(Walk{*beta, {0}});
  e.nest({count}, walks, [&](ArrayRef<Address> a) {
    Address s = a[2], t = a[3], inverse = a[4], epsilon = a[5];
    std::optional<Address> gamma2 = gamma ? std::optional<Address>(a[6]) : std::nullopt;
    std::optional<Address> beta2 = beta ? std::optional<Address>(a[gamma ? 7 : 6]) : std::nullopt;
    Address centered = a[0];
    if (layer) { // subtract the mean
      if (pairwise) {
        sumPairwise(e, t, a[0], n);
        e.vector(Opcode::Vvmul, s, t, inverse, 1);
      } else {
        e.vector(Opcode::Vvdmul, s, a[0], inverse, n);
      }
      e.vector(Opcode::ExtVbcast, t, s, std::nullopt, n);
      e.vector(Opcode::Vvsub, a[1], a[0], t, n);
      centered = a[1];
    }
    if (pairwise) { // sum of squares
      e.vector(Opcode::Vvmul, t, centered, centered, n);
      sumPairwise(e, t, t, n);
      e.vector(Opcode::Vvmul, s, t, inverse, 1);
    } else {
      e.vector(Opcode::Vvdmul, s, centered, centered, n);
      e.vector(Opcode::Vvmul, s, s, inverse, 1); // / n
    }
    e.vector(Opcode::Vvadd, s, s, epsilon, 1);
    e.vector(Opcode::ExtVrsqrt, s, s, std::nullopt, 1);
    e.vector(Opcode::ExtVbcast, t, s, std::nullopt, n);
    e.vector(Opcode::Vvmul, a[1], centered, t, n);
    if (gamma2)
      e.vector(Opcode::Vvmul, a[1], a[1], *gamma2, n);
    if (beta2)
      e.vector(Opcode::Vvadd, a[1], a[1], *beta2, n);
  });
  define(op->getResult(0), shape, *result);
  return success();
}

LogicalResult Lowering::lowerAttention(nn::ScaledDotProductAttentionOp op) {
  SmallVector<int64_t, 4> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey()), v = shapeOf(op.getValue());
  SmallVector<int64_t, 4> out = shapeOf(op.getOut());
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return op.emitOpError("the PIM lowering supports (batch, heads, length, dim) attention");
  if (op.getDropoutP().convertToDouble() != 0.0)
    return op.emitOpError("dropout is not supported by the PIM lowering");
  int64_t B = q[0], H = q[1], L = q[2], E = q[3], Hk = k[1], S = k[2], Ev = v[3];
  if (H % Hk)
    return op.emitOpError() << H << " query heads do not share " << Hk << " key heads evenly";
  int64_t group = H / Hk;
  if (k[0] != B || v[0] != B) // batch broadcasting of keys
    return op.emitOpError("the PIM lowering needs keys and values with the queries' batch");
  double scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0 / std::sqrt(double(E));
  // The additive mask: causal, a compile-time mask broadcast over
  // (B, H, L, S), or none. It is kept as (mb, mh, L, S), mb in {1, B} and mh
  // in {1, H}: the loops step over a broadcast batch or head with stride 0
  // (T5's per-head position bias has mh = H, a padding mask mb = B).
  std::vector<float> mask;
  int64_t mb = 1, mh = 1;
  std::optional<SmallVector<int64_t, 4>> maskShape;
  const nn::HostTensor *given = nullptr;
  if (Value m = op.getAttnMask()) {
    SmallVector<int64_t, 4> ms = shapeOf(m);
    int64_t full[4] = {B, H, L, S};
    bool fits = known.contains(m) && ms.size() <= 4;
    while (fits && ms.size() < 4)
      ms.insert(ms.begin(), 1);
    for (size_t d = 0; fits && d < 4; ++d)
      fits = ms[d] == 1 || ms[d] == full[d];
    if (!fits)
      return op.emitOpError() << "the PIM lowering needs a compile-time attention mask broadcastable to (" << B
                              << ", " << H << ", " << L << ", " << S << ")";
    FailureOr<const nn::HostTensor *> c = constantOf(m);
    if (failed(c))
      return failure();
    given = *c;
    maskShape = ms;
    mb = ms[0], mh = ms[1];
  }
  if (op.getIsCausal() || given) {
    mask.assign(size_t(mb * mh * L * S), 0.0f);
    bool boolean = given && cast<RankedTensorType>(op.getAttnMask().getType()).getElementType().isInteger(1);
    for (int64_t b = 0; b < mb; ++b)
      for (int64_t h = 0; h < mh; ++h)
        for (int64_t i = 0; i < L; ++i)
          for (int64_t j = 0; j < S; ++j) {
            float &x = mask[size_t(((b * mh + h) * L + i) * S + j)];
            if (op.getIsCausal() && j > i)
              x = -INFINITY;
            if (!given)
              continue;
            const SmallVector<int64_t, 4> &ms = *maskShape;
            int64_t at = ((b * ms[1] + h) * ms[2] + (ms[2] > 1 ? i : 0)) * ms[3] + (ms[3] > 1 ? j : 0);
            float v = given->data[size_t(at)];
            x += boolean ? (v != 0 ? 0.0f : -INFINITY) : v;
          }
  }
  // int8 (the placement encoded q, k and v): the codes are widened to
  // f32, exact integers, so that the products are exact sums of codes;
  // the scores are scaled by s_q s_k, the probabilities encoded as
  // round(32767 p) (i16, codec::kProbabilityLevels) and the output, sum of
  // their products with the value codes, leaves as i32 sums of scale
  // s_v / 32767 (CodecOps.cpp decodes it).
  bool integer = isEncoded(op.getQuery());
  if (integer != isEncoded(op.getKey()) || integer != isEncoded(op.getValue()))
    return op.emitOpError("the PIM lowering needs the query, key and value all encoded or all f32");
  float scoreScale = float(scale);
  if (integer) {
    FailureOr<codec::Encoding> sq = encodingOf(op.getQuery()), sk = encodingOf(op.getKey());
    if (failed(sq) || failed(sk))
      return failure();
    scoreScale = (sq->scale * sk->scale) * float(scale);
  }
  auto operandRows = [&](Value v) -> FailureOr<Piece> {
    FailureOr<Piece> p = rows(*this, v);
    if (failed(p) || !integer)
      return p;
    FailureOr<codec::Encoding> encoding = encodingOf(v);
    if (failed(encoding))
      return failure();
    return widened(*p, encoding->zero);
  };
  FailureOr<Piece> query = operandRows(op.getQuery()), key = operandRows(op.getKey()),
                   value = operandRows(op.getValue());
  FailureOr<Piece> result = fresh(out, rowMajor(out));
  FailureOr<int> scores = scratch(4 * S), wide = scratch(4 * S), one = scratch(4);
  FailureOr<int> codes = scratch(2 * S);
  if (failed(query) || failed(key) || failed(value) || failed(result) || failed(scores) || failed(wide) ||
      failed(one) || failed(codes))
    return failure();
  Address ones = placeConstant(std::vector<float>(size_t(S), 1.0f));
  Address scaled = placeConstant(std::vector<float>(size_t(S), scoreScale));
  Address levels = integer ? placeConstant(std::vector<float>{codec::kProbabilityLevels}) : Address();
  Address c = Address::at(addressOfBuffer(*codes));
  std::optional<Address> maskBase;
  if (!mask.empty())
    maskBase = placeConstant(mask);
  Address p = Address::at(addressOfBuffer(*scores)), t = Address::at(addressOfBuffer(*wide));
  Address s = Address::at(addressOfBuffer(*one));
  CoreEmitter &e = here();
  // Loops (batch, key head, query head of the group, query row).
  SmallVector<Walk> walks{
      Walk{addressOf(*query), {H * L * E * 4, group * L * E * 4, L * E * 4, E * 4}},
      Walk{addressOf(*result), {H * L * Ev * 4, group * L * Ev * 4, L * Ev * 4, Ev * 4}},
      Walk{addressOf(*key), {Hk * S * E * 4, S * E * 4, 0, 0}},
      Walk{addressOf(*value), {Hk * S * Ev * 4, S * Ev * 4, 0, 0}}};
  for (Address invariant : {p, t, s, ones, scaled, levels, c})
    walks.push_back(Walk{invariant, {0, 0, 0, 0}});
  if (maskBase)
    walks.push_back(Walk{*maskBase, {mb > 1 ? mh * L * S * 4 : 0, mh > 1 ? group * L * S * 4 : 0,
                                      mh > 1 ? L * S * 4 : 0, S * 4}});
  e.nest({B, Hk, group, L}, walks, [&](ArrayRef<Address> a) {
    Address p = a[4], t = a[5], s = a[6], ones = a[7], scaled = a[8], levels = a[9], c = a[10];
    e.matrixVector(Opcode::ExtVmatvec, p, a[2], a[0], S, E); // scores = K q
    e.vector(Opcode::Vvmul, p, p, scaled, S);
    if (maskBase)
      e.vector(Opcode::Vvadd, p, p, a[11], S);
    e.vector(Opcode::ExtVredmax, s, p, std::nullopt, S);
    e.vector(Opcode::ExtVbcast, t, s, std::nullopt, S);
    e.vector(Opcode::Vvsub, p, p, t, S);
    e.vector(Opcode::ExtVexp, p, p, std::nullopt, S);
    e.vector(Opcode::Vvdmul, s, p, ones, S);
    e.vector(Opcode::ExtVbcast, t, s, std::nullopt, S);
    e.vector(Opcode::ExtVvdiv, p, p, t, S);
    if (integer) { // p <- round(32767 p), as exact f32 integers
      e.vector(Opcode::ExtVquant, c, p, levels, S, ElementType::I16);
      e.vector(Opcode::ExtVdequant, p, c, ones, S, ElementType::I16);
    }
    e.matrixVector(Opcode::ExtVvecmat, a[1], a[3], p, S, Ev); // out = p^T V
  });
  if (integer && failed(result = narrowed(*result)))
    return failure();
  TensorValue r;
  r.shape = out;
  r.pieces.push_back(*result);
  define(op.getOut(), r);
  return success();
}

LogicalResult Lowering::lowerMatmul(nn::MatmulOp op) {
  SmallVector<int64_t, 4> a = shapeOf(op.getSelf()), b = shapeOf(op.getOther()), out = shapeOf(op.getOut());
  if (a.size() < 2 || b.size() < 2)
    return op.emitOpError("the PIM lowering supports matrix (not vector) operands of matmul");
  int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  // Batch dimensions: both operands broadcast to the result's.
  SmallVector<int64_t, 4> batch(out.begin(), out.end() - 2);
  int64_t batches = elementCount(batch);
  SmallVector<int64_t, 4> aFull(batch), bFull(batch);
  aFull.append({M, K});
  bFull.append({K, N});
  std::deque<std::vector<float>> keep;
  FailureOr<Piece> left = rows(*this, op.getSelf());
  if (failed(left))
    return failure();
  Piece right;
  if (known.contains(op.getOther())) {
    FailureOr<const nn::HostTensor *> c = constantOf(op.getOther());
    FailureOr<Piece> p = fresh(b, rowMajor(b));
    if (failed(c) || failed(p))
      return failure();
    here().lmv(addressOf(*p), placeConstant((*c)->data), 4 * int64_t((*c)->data.size()));
    temporary(p->buffer);
    right = *p;
  } else {
    FailureOr<Piece> p = rows(*this, op.getOther());
    if (failed(p))
      return failure();
    right = *p;
  }
  FailureOr<Piece> result = fresh(out, rowMajor(out));
  if (failed(result))
    return failure();
  // Per batch strides (0 where an operand is broadcast), then rows.
  auto batchStride = [&](ArrayRef<int64_t> shape, int64_t matrix) {
    // Only an operand with all batch dimensions or none is walked here.
    int64_t own = elementCount(shape.drop_back(2));
    return own == batches ? matrix : 0;
  };
  CoreEmitter &e = here();
  e.nest({batches, M},
         {Walk{addressOf(*left), {batchStride(a, M * K) * 4, K * 4}},
          Walk{addressOf(right), {batchStride(b, K * N) * 4, 0}},
          Walk{addressOf(*result), {M * N * 4, N * 4}}},
         [&](ArrayRef<Address> x) { e.matrixVector(Opcode::ExtVvecmat, x[2], x[1], x[0], K, N); });
  TensorValue r;
  r.shape = out;
  r.pieces.push_back(*result);
  define(op.getOut(), r);
  return success();
}

LogicalResult Lowering::lowerRotary(nn::RotaryEmbeddingOp op) {
  // Packed heads come only from the codec paper's graph conventions
  // (raptor-pack-rotary-heads), which the compiler's input does not need.
  if (op.getHeadDim())
    return op.emitOpError("over packed heads (head_dim) is not lowered to PIM programs; "
                          "compile the graph without the codec paper's conventions");
  SmallVector<int64_t, 4> shape = shapeOf(op.getOut());
  int64_t D = shape.back(), half = D / 2;
  std::deque<std::vector<float>> keep;
  FailureOr<KernelOperand> x = broadcastOperand(op.getInput(), shape, keep);
  FailureOr<KernelOperand> cos = broadcastOperand(op.getCos(), shape, keep);
  FailureOr<KernelOperand> sin = broadcastOperand(op.getSin(), shape, keep);
  FailureOr<Piece> result = fresh(shape, rowMajor(shape));
  FailureOr<Piece> tmp = fresh(shape, rowMajor(shape));
  if (failed(x) || failed(cos) || failed(sin) || failed(result) || failed(tmp))
    return failure();
  temporary(tmp->buffer);
  size_t last = shape.size() - 1;
  // The halves of an operand: its last mode restricted to [0, half) or [half, D).
  auto halfOf = [&](const KernelOperand &o, bool upper) -> std::optional<KernelOperand> {
    Piece p;
    p.origin.assign(shape.size(), 0);
    p.sizes.assign(shape.begin(), shape.end());
    p.layout = o.layout;
    std::optional<Piece> h = sliced(p, last, upper ? half : 0, half, 1);
    if (!h)
      return std::nullopt;
    KernelOperand r = o;
    r.layout = h->layout;
    if (o.constant) { // constants have no base address: shift their data
      keep.push_back(std::vector<float>(o.constant->begin() + h->offset, o.constant->end()));
      r.constant = &keep.back();
    } else {
      r.base = o.base.plus(4 * h->offset);
    }
    return r;
  };
  KernelOperand out = operand(*result), t = operand(*tmp);
  auto x1 = halfOf(*x, false), x2 = halfOf(*x, true), c1 = halfOf(*cos, false), c2 = halfOf(*cos, true);
  auto s1 = halfOf(*sin, false), s2 = halfOf(*sin, true), o1 = halfOf(out, false), o2 = halfOf(out, true);
  auto t1 = halfOf(t, false), t2 = halfOf(t, true);
  if (!x1 || !x2 || !c1 || !c2 || !s1 || !s2 || !o1 || !o2 || !t1 || !t2)
    return op.emitOpError("cannot split the rotary operands into halves");
  CoreEmitter &e = here();
  auto step = [&](Opcode code, const KernelOperand &d, const KernelOperand &a, const KernelOperand &b) {
    return kernel({d, a, b}, [&](ArrayRef<Address> r, int64_t run) { e.vector(code, r[0], r[1], r[2], run); });
  };
  // out1 = x1 cos1 - x2 sin1; out2 = x2 cos2 + x1 sin2.
  if (failed(step(Opcode::Vvmul, *o1, *x1, *c1)) || failed(step(Opcode::Vvmul, *t1, *x2, *s1)) ||
      failed(step(Opcode::Vvsub, *o1, *o1, *t1)) || failed(step(Opcode::Vvmul, *o2, *x2, *c2)) ||
      failed(step(Opcode::Vvmul, *t2, *x1, *s2)) || failed(step(Opcode::Vvadd, *o2, *o2, *t2)))
    return failure();
  TensorValue r;
  r.shape = shape;
  r.pieces.push_back(*result);
  define(op.getOut(), r);
  return success();
}

} // namespace raptor::pim
