//===- FixedPoint.h - Integer-only requantization ---------------*- C++ -*-===//
//
// int8 programs run on pimsim-nn's own instruction set, whose vector unit
// has 32-bit integer add, subtract, multiply (the low 32 bits of the
// product), max and shifts, but no float and no 64-bit product. Every real
// number of such a program is an integer: int8 codes, the int32 sums of the
// crossbars, and fixed-point values (x = y 2^-F, one F per program) for the
// data between a decoder and an encoder. A change of scale multiplies by a
// real m, approximated as M 2^-shift with a 30-bit M = high 2^15 + low (the
// integer-only scheme of Jacob et al., CVPR 2018, as gemmlowp runs it, with
// its 64-bit product replaced by four 32-bit ones, since a 15-bit M alone
// errs by 3e-5 relative: enough to move one code in a few hundred):
//
//   hi = x >> 16, lo = x - (hi << 16)             lo in [0, 2^16)
//   x M 2^-s' = hi high 2^(31-s') + hi low 2^(16-s')
//             + lo high 2^(15-s') + lo low 2^-s'  with s' = min(shift, 31)
//
// Each product fits 31 bits; each term is shifted to the unit 2^-s' (left,
// or right with rounding half up: a floor pre-shift first when the shift
// exceeds 16, so that the rounding constant cannot overflow), the four are
// added (X), and y = (X + 2^(r-1)) >> r with r = shift - s', then the
// offset (a code's zero point) is added. Shifts are arithmetic (floor),
// arithmetic wraps at 32 bits, as the vector unit does. The functional
// simulator runs the instructions; requantize() below is the same
// arithmetic on one element (the oracle of the Python reference).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_FIXEDPOINT_H
#define RAPTOR_SIMULATOR_FIXEDPOINT_H

#include <array>
#include <cstdint>
#include <optional>

namespace raptor::pim {

/// m ~ (high 2^15 + low) 2^-shift with high in [2^14, 2^15), low in
/// [0, 2^15), shift in [0, kMaxFixedShift]; all zero for m = 0 or a
/// multiplier too small to move any int32 by half a unit.
struct FixedMultiplier {
  int32_t high = 0, low = 0, shift = 31;
};

/// The largest shift: the final rounding constant 2^(r-1) plus the sum of
/// the terms (below 2^30 + 2^17) must fit 31 bits.
constexpr int32_t kMaxFixedShift = 31 + 30;

/// The fixed multiplier of a real m (nothing when m is negative, not
/// finite, or 2^30 or more).
std::optional<FixedMultiplier> fixedMultiplier(double m);

/// How one term (a 31-bit product) reaches the unit 2^-s': shifted left,
/// or floor-shifted by `pre`, then by `right` with rounding half up; or
/// not at all (`used` false: lo low 2^-31 is below one unit of X when
/// s' = 31, and skipping it saves five instructions of every encoder).
struct TermShift {
  int32_t left = 0, pre = 0, rounding = 0, right = 0;
  bool used = true;
};

/// The constants one element's instructions use (see the file comment).
struct FixedSteps {
  int32_t high = 0, low = 0;
  int32_t highLeft = 0;              // hi high << (31 - s')
  std::array<TermShift, 3> terms;    // hi low, lo high, lo low
  int32_t rounding = 0, right = 0;   // the final (X + rounding) >> right
};
FixedSteps fixedSteps(FixedMultiplier f);

/// round(x m) + offset as the vector program computes it.
int32_t requantize(int32_t x, FixedMultiplier f, int32_t offset = 0);

/// How a product term of exponent `e` (relative to the result's unit)
/// reaches it: a left shift for e >= 0, else a rounded right shift.
TermShift termShift(int32_t e);

/// The product of two fixed-point values of unit 2^-bits, in that unit:
/// with x = xh 2^15 + xl and y = yh 2^15 + yl (xl, yl in [0, 2^15)), the
/// four products xh yh, xh yl, xl yh, xl yl fit 31 bits wherever the
/// result fits 32; each is shifted to the unit by its exponent (30, 15,
/// 15 and 0 less `bits`) and the four are added. `bits` in 0..29.
int32_t fixedProduct(int32_t x, int32_t y, int32_t bits);

/// Bits of headroom an integer program's fixed point leaves above the
/// calibrated range (calibration chooses F so): sums of up to 2^8 values
/// at the range stay inside int32. A mean over more values shifts each
/// right by sumShift(count) first (rounding half up).
constexpr int32_t kFixedPointHeadroom = 8;
int32_t sumShift(int64_t count);

/// The fraction bits of the values pimsim-nn's vsigm and vtanh take and
/// give in integer programs (Q15: 1.0 is 32768), and the functions
/// themselves: round half to even of f(x / 2^15) 2^15.
constexpr int32_t kActivationBits = 15;
int32_t fixedSigmoid(int32_t x);
int32_t fixedTanh(int32_t x);

/// sigmoid (or tanh) of a fixed-point value of unit 2^-bits, in that unit,
/// as integer programs compute it: clamped to +-activationBound(bits)
/// (+-32, where both functions are flat to below 2^-15, so that Q15 holds
/// it), shifted to Q15 (rounded), vsigm (vtanh), shifted back.
int32_t fixedActivation(int32_t x, int32_t bits, bool tanh);
int32_t activationBound(int32_t bits);

/// The shift of a term (a left shift, or a rounded right one) applied to
/// one element, as the instructions do.
int32_t applyTerm(int32_t p, const TermShift &t);

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_FIXEDPOINT_H
