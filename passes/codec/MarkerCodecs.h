//===- MarkerCodecs.h - What each codec marker materializes to --*- C++ -*-===//
//
// One answer, read by the cost model and by materialization alike: a
// marker between two subgraphs becomes a decoder (leaving an encoded
// subgraph), an encoder (entering one), both, or one requantizer (between
// two compatible encoded subgraphs: one codec that maps codes to codes).
// Identical codecs of one value (same input, same semantics on both sides:
// `nn.mul %a, %a`, or the readers of a fan-out) are one codec, and so are
// the decoders of one value, whether alone or before an encoder (a sum read
// by a residual add and, re-encoded, by the next block is decoded once). A weight or
// an `nn.constant` is encoded ahead of time: no codec at run time.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_MARKERCODECS_H
#define RAPTOR_PASSES_CODEC_MARKERCODECS_H

#include "passes/codec/CodecGraph.h"

#include <optional>
#include <vector>

namespace raptor::codec {

enum class CodecKind { None, Decode, Encode, DecodeEncode, Requantize };

struct MarkerCodec {
  unsigned marker;       // node index
  Sem from, to;          // semantics of the marker's in- and out-edge
  CodecKind kind = CodecKind::None;
  bool aheadOfTime = false; // of a weight or constant: no run-time codec
  /// Another marker (earlier in block order) whose identical codec this
  /// one reuses; unset for the codec that is materialized.
  std::optional<unsigned> sharedWith;
  /// For a decode-encode not shared whole: another marker (earlier) whose
  /// decoder of the same value this one's encoder reads.
  std::optional<unsigned> decoderSharedWith;
};

/// The markers of `graph` (block order) with their codecs.
std::vector<MarkerCodec> markerCodecs(CodecGraph &graph);

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_MARKERCODECS_H
