//===- Quantization.cpp - The numbers of int8 codecs ------------*- C++ -*-===//
#include "passes/codec/Quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace raptor::codec {

float scaleOf(float amax) { return amax > 0 && std::isfinite(amax) ? amax / kInt8Max : 1.0f; }

float quantize(float x, float multiplier) {
  float v = std::nearbyint(x * multiplier); // the default rounding mode: half to even
  if (std::isnan(v))
    return 0;
  return std::clamp(v, -kInt8Max, kInt8Max);
}

ChannelQuantized quantizePerChannel(const std::vector<float> &values, int64_t perChannel) {
  ChannelQuantized q;
  q.codes.resize(values.size());
  size_t channels = perChannel > 0 ? values.size() / size_t(perChannel) : 0;
  for (size_t n = 0; n < channels; ++n) {
    const float *w = values.data() + n * size_t(perChannel);
    float amax = 0;
    for (int64_t i = 0; i < perChannel; ++i)
      amax = std::max(amax, std::fabs(w[i]));
    float s = scaleOf(amax);
    q.scales.push_back(s);
    for (int64_t i = 0; i < perChannel; ++i) {
      // Division, not a multiplication by 1 / s: the codes of the channel's
      // largest weights are then exactly +-127.
      float v = std::nearbyint(w[i] / s);
      q.codes[n * size_t(perChannel) + size_t(i)] = std::clamp(v, -kInt8Max, kInt8Max);
    }
  }
  return q;
}

std::vector<int32_t> quantizeBias(const std::vector<float> &bias, const std::vector<float> &scales,
                                  const std::vector<int64_t> &corrections) {
  std::vector<int32_t> out(bias.size());
  for (size_t n = 0; n < bias.size(); ++n) {
    float v = std::nearbyint(bias[n] / scales[n]);
    constexpr float lo = float(std::numeric_limits<int32_t>::min()), hi = 2147483520.0f; // the largest float below 2^31
    int64_t units = int64_t(std::clamp(std::isnan(v) ? 0.0f : v, lo, hi));
    if (n < corrections.size())
      units += corrections[n];
    out[n] = int32_t(std::clamp<int64_t>(units, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  }
  return out;
}

std::vector<std::vector<float>> sliceCodes(const std::vector<float> &codes, unsigned cellBits, unsigned slices) {
  std::vector<std::vector<float>> digits(slices, std::vector<float>(codes.size()));
  int64_t mask = (int64_t(1) << cellBits) - 1;
  for (size_t i = 0; i < codes.size(); ++i) {
    int64_t code = int64_t(codes[i]);
    for (unsigned s = 0; s < slices; ++s) {
      int64_t shifted = code >> (s * cellBits); // arithmetic: the top digit keeps the sign
      digits[s][i] = float(s + 1 == slices ? shifted : shifted & mask);
    }
  }
  return digits;
}

std::pair<int32_t, int32_t> codeBounds(std::optional<double> min, std::optional<double> max, Encoding e) {
  auto code = [&](double x) {
    return int32_t(std::clamp<double>(std::nearbyint(x / double(e.scale)) + e.zero, -kInt8Max, kInt8Max));
  };
  return {min ? code(*min) : -int32_t(kInt8Max), max ? code(*max) : int32_t(kInt8Max)};
}

} // namespace raptor::codec
