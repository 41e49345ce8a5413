//===- FixedPoint.cpp - Integer-only requantization -------------*- C++ -*-===//
#include "simulator/FixedPoint.h"

#include <algorithm>
#include <cmath>

namespace raptor::pim {

namespace {

/// 32-bit two's complement arithmetic, as the vector unit wraps.
int32_t wrap(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }
int32_t shiftLeft(int32_t v, int32_t n) { return wrap(int64_t(uint64_t(int64_t(v)) << n)); }

} // namespace

/// A term of exponent `e` relative to the unit: a left shift, or a
/// rounded right shift whose rounding constant stays below 2^16.
TermShift termShift(int32_t e) {
  TermShift t;
  if (e >= 0) {
    t.left = e;
    return t;
  }
  t.pre = std::max(-e - 16, 0);
  t.right = -e - t.pre;
  t.rounding = int32_t(1) << (t.right - 1);
  return t;
}

int32_t applyTerm(int32_t p, const TermShift &t) {
  p = shiftLeft(p, t.left);
  p >>= t.pre;
  return wrap(int64_t(p) + t.rounding) >> t.right;
}

std::optional<FixedMultiplier> fixedMultiplier(double m) {
  if (!(m >= 0) || !std::isfinite(m))
    return std::nullopt;
  if (m == 0)
    return FixedMultiplier{};
  int exponent = 0;
  std::frexp(m, &exponent); // m = f 2^exponent, f in [0.5, 1)
  int32_t shift = 30 - exponent;
  double scaled = std::nearbyint(std::ldexp(m, shift)); // in [2^29, 2^30]
  if (scaled >= 1073741824.0)                          // rounded up to 2^30
    scaled = 536870912.0, --shift;
  if (shift < 0)
    return std::nullopt;
  if (shift > kMaxFixedShift)
    return FixedMultiplier{};
  int32_t value = int32_t(scaled);
  return FixedMultiplier{value >> 15, value & 0x7FFF, shift};
}

FixedSteps fixedSteps(FixedMultiplier f) {
  FixedSteps s;
  s.high = f.high, s.low = f.low;
  int32_t unit = std::min(f.shift, 31);
  s.highLeft = 31 - unit;
  s.terms = {termShift(16 - unit), termShift(15 - unit), termShift(-unit)};
  s.terms[2].used = unit < 31;
  s.right = f.shift - unit;
  s.rounding = s.right > 0 ? int32_t(1) << (s.right - 1) : 0;
  return s;
}

int32_t requantize(int32_t x, FixedMultiplier f, int32_t offset) {
  FixedSteps s = fixedSteps(f);
  int32_t hi = x >> 16;
  int32_t lo = wrap(int64_t(x) - shiftLeft(hi, 16));
  int32_t sum = shiftLeft(wrap(int64_t(hi) * s.high), s.highLeft);
  sum = wrap(int64_t(sum) + applyTerm(wrap(int64_t(hi) * s.low), s.terms[0]));
  sum = wrap(int64_t(sum) + applyTerm(wrap(int64_t(lo) * s.high), s.terms[1]));
  if (s.terms[2].used)
    sum = wrap(int64_t(sum) + applyTerm(wrap(int64_t(lo) * s.low), s.terms[2]));
  return wrap(int64_t(wrap(int64_t(sum) + s.rounding) >> s.right) + offset);
}

int32_t fixedProduct(int32_t x, int32_t y, int32_t bits) {
  int32_t xh = x >> 15, yh = y >> 15;
  int32_t xl = wrap(int64_t(x) - shiftLeft(xh, 15)), yl = wrap(int64_t(y) - shiftLeft(yh, 15));
  int32_t sum = applyTerm(wrap(int64_t(xh) * yh), termShift(30 - bits));
  sum = wrap(int64_t(sum) + applyTerm(wrap(int64_t(xh) * yl), termShift(15 - bits)));
  sum = wrap(int64_t(sum) + applyTerm(wrap(int64_t(xl) * yh), termShift(15 - bits)));
  return wrap(int64_t(sum) + applyTerm(wrap(int64_t(xl) * yl), termShift(-bits)));
}

namespace {
int32_t activation(int32_t x, double (*f)(double)) {
  double one = double(int32_t(1) << kActivationBits);
  return int32_t(std::nearbyint(f(double(x) / one) * one)); // |f| <= 1: no overflow
}
double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double hyperbolicTangent(double v) { return std::tanh(v); }
} // namespace

int32_t fixedSigmoid(int32_t x) { return activation(x, sigmoid); }
int32_t fixedTanh(int32_t x) { return activation(x, hyperbolicTangent); }

int32_t activationBound(int32_t bits) { return bits >= 26 ? INT32_MAX : int32_t(32) << bits; }

int32_t fixedActivation(int32_t x, int32_t bits, bool tanh) {
  int32_t bound = activationBound(bits);
  int32_t q = applyTerm(std::clamp(x, -bound, bound), termShift(kActivationBits - bits));
  return applyTerm(tanh ? fixedTanh(q) : fixedSigmoid(q), termShift(bits - kActivationBits));
}

int32_t sumShift(int64_t count) {
  int32_t bits = 0;
  while ((int64_t(1) << bits) < count)
    ++bits;
  return std::max(bits - kFixedPointHeadroom, 0);
}

} // namespace raptor::pim
