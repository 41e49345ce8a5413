//===- EncodedValues.h - Which values a codec placement encoded -*- C++ -*-===//
//
// After raptor-materialize-codecs, a value belongs to an encoded subgraph
// when a codec.encode or codec.observe starts it or an int8 operator that
// keeps its input's encoding (views, pooling, concatenation) carries it on.
// The lowering (its number formats) and the cost model (int8 MVMs and
// byte-wide gathers) both ask.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_ENCODEDVALUES_H
#define RAPTOR_PASSES_CODEC_ENCODEDVALUES_H

#include "dialects/codec/CodecDialect.h"

#include "mlir/IR/Value.h"

#include <optional>

namespace raptor::codec {

/// The semantics of the subgraph `v` belongs to; nothing for f32 data and
/// for the i32 sums of a matrix operator.
std::optional<SemanticsAttr> subgraphOf(mlir::Value v);

/// Whether `v` holds encoded data.
inline bool isEncoded(mlir::Value v) {
  std::optional<SemanticsAttr> s = subgraphOf(v);
  return s && s->isEncoded();
}

} // namespace raptor::codec

#endif // RAPTOR_PASSES_CODEC_ENCODEDVALUES_H
