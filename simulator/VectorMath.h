//===- VectorMath.h - The float32 functions of Raptor's vector unit -*- C++ -*-===//
//
// The transcendental functions of the vector unit's float32 arithmetic
// (exp, erf, tanh, sigmoid, log1p, cos, sin, pow) and of the compiler's
// constant evaluation, one definition for both: each computed in double and
// rounded to float32 once. A float32 libm differs from another in the last
// bit (and from torch's), which after a codec can move an encoding by one
// code; the double function rounded once gives the same bits on every libm
// (but for inputs within 2^-29 of a rounding boundary), and the reference
// interpreter repeats it (python/raptor/quant/vector_unit.py).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_VECTORMATH_H
#define RAPTOR_SIMULATOR_VECTORMATH_H

#include <cmath>

namespace raptor::vector_math {

inline float exp(float x) { return float(std::exp(double(x))); }
inline float erf(float x) { return float(std::erf(double(x))); }
inline float tanh(float x) { return float(std::tanh(double(x))); }
inline float sigmoid(float x) { return float(1.0 / (1.0 + std::exp(-double(x)))); }
inline float log1p(float x) { return float(std::log1p(double(x))); }
inline float cos(float x) { return float(std::cos(double(x))); }
inline float sin(float x) { return float(std::sin(double(x))); }
inline float pow(float x, float e) { return float(std::pow(double(x), double(e))); }
/// 1 / sqrt(x): both steps correctly rounded float32 operations.
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }

} // namespace raptor::vector_math

#endif // RAPTOR_SIMULATOR_VECTORMATH_H
