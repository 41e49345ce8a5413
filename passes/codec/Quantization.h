//===- Quantization.h - The numbers of int8 codecs --------------*- C++ -*-===//
//
// int8 quantization as the back end executes it: an activation subgraph
// has one encoding (s, z), q = saturate(round_half_even(x * (1 / s)) + z)
// in [-127, 127]: symmetric (z = 0, s = absolute maximum / 127), or, for
// data calibration saw non-negative (after a ReLU), offset (z = -127,
// s = maximum / 254: all 255 codes for [0, max], twice the resolution);
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
#include <optional>
#include <utility>
#include <vector>

namespace raptor::codec {

/// The largest code of a symmetric int8 encoding.
constexpr float kInt8Max = 127.0f;

/// The codes of attention probabilities: round(32767 p) as i16. Softmax
/// rows over S keys hold values near 1 / S, which 127 levels would round
/// to 0 for S > 254; sums of 16-bit codes times int8 value codes stay
/// below 2^24 (the probabilities sum to 1), exact in f32.
constexpr float kProbabilityLevels = 32767.0f;

/// A subgraph's encoding: x ~ s * (q - zero).
struct Encoding {
  float scale = 1.0f;
  int32_t zero = 0; // 0 (symmetric) or -127 (offset, non-negative data)
};

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
/// round(b[n] / scale[n]) (scale = input scale times channel scale), plus
/// `corrections[n]` (-zero times the channel's sum of weight codes, which
/// removes an offset input's zero point; empty: none).
std::vector<int32_t> quantizeBias(const std::vector<float> &bias, const std::vector<float> &scales,
                                  const std::vector<int64_t> &corrections = {});

/// The codes a value clamped to [min, max] (either bound optional) encodes
/// to: round_half_even(bound / s) + zero, within [-127, 127] (encoding is
/// monotone, so the clamp of values is this clamp of codes).
std::pair<int32_t, int32_t> codeBounds(std::optional<double> min, std::optional<double> max, Encoding e);

/// The crossbar cells of int8 codes: `slices` digits of `cellBits` bits,
/// code = sum of digit[s] * 2^(s * cellBits); every digit but the last is
/// unsigned, the last carries the sign (two's complement).
std::vector<std::vector<float>> sliceCodes(const std::vector<float> &codes, unsigned cellBits, unsigned slices);

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_QUANTIZATION_H
