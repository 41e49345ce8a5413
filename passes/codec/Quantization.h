//===- Quantization.h - The numbers of int8 codecs --------------*- C++ -*-===//
//
// Symmetric int8 quantization as the back end executes it: an activation
// subgraph has one scale s (its calibrated absolute maximum over 127),
// encoded as q = saturate(round_half_even(x * (1 / s))) in [-127, 127];
// a weight has one scale per output channel (dimension 0); an int8 matrix
// operator sums q_x * q_w exactly in int32, with its bias in the same units
// (round(b / (s_x * s_w))), and its decoder multiplies by s_x * s_w. Every
// step is one IEEE float32 operation, so a numpy reference doing the same
// operations (python/raptor/quant) reproduces the programs bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_QUANTIZATION_H
#define RAPTOR_PASSES_CODEC_QUANTIZATION_H

#include <cstdint>
#include <vector>

namespace raptor::codec {

/// The largest code of a symmetric int8 encoding.
constexpr float kInt8Max = 127.0f;

/// The scale of data whose absolute maximum is `amax` (1 when it is 0).
float scaleOf(float amax);

/// q = saturate(round_half_even(x * multiplier)) to [-127, 127].
float quantize(float x, float multiplier);

/// A weight quantized per output channel: integer codes (held as floats,
/// exactly) and one scale per channel.
struct ChannelQuantized {
  std::vector<float> codes;
  std::vector<float> scales;
};

/// Quantizes `values` (channels of `perChannel` consecutive elements each).
ChannelQuantized quantizePerChannel(const std::vector<float> &values, int64_t perChannel);

/// An int8 matrix operator's bias in its accumulator's units:
/// round(b[n] / scale[n]) (scale = input scale times channel scale).
std::vector<int32_t> quantizeBias(const std::vector<float> &bias, const std::vector<float> &scales);

/// The crossbar cells of int8 codes: `slices` digits of `cellBits` bits,
/// code = sum of digit[s] * 2^(s * cellBits); every digit but the last is
/// unsigned, the last carries the sign (two's complement).
std::vector<std::vector<float>> sliceCodes(const std::vector<float> &codes, unsigned cellBits, unsigned slices);

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_QUANTIZATION_H
