//===- MarkerCodecs.cpp - What each codec marker materializes to -*- C++ -*-===//
#include "passes/codec/MarkerCodecs.h"

#include "dialects/nn/NNOps.h"
#include "passes/nn/CompileTime.h"

#include "llvm/ADT/DenseMap.h"

#include <tuple>

using namespace mlir;

namespace raptor::codec {

static CodecKind kindOf(const Sem &from, const Sem &to) {
  if (from.id == to.id)
    return CodecKind::None;
  if (from.encoded() && to.encoded())
    return from.compatible(to) ? CodecKind::Requantize : CodecKind::DecodeEncode;
  if (from.encoded())
    return CodecKind::Decode;
  return to.encoded() ? CodecKind::Encode : CodecKind::None;
}

std::vector<MarkerCodec> markerCodecs(CodecGraph &g) {
  std::vector<MarkerCodec> codecs;
  std::vector<Edge> &edges = g.getEdges();
  // (input value, from id, to id or -1 for a plain decoder) -> marker: a
  // decoder's output does not depend on the semantics after it. Hashed:
  // materialization stays linear in the graph, as placement is.
  llvm::DenseMap<std::tuple<void *, int64_t, int64_t>, unsigned> first;
  // Data known before run time (weights, constants, what is computed from
  // them alone: a view of a RoPE table) is encoded ahead of time.
  nn::CompileTimeValues known(g.function().front());
  for (unsigned v = 0, n = g.numNodes(); v < n; ++v) {
    if (g.kind(v) != NodeKind::MarkInput && g.kind(v) != NodeKind::MarkOutput)
      continue;
    if (g.inEdges(v).empty())
      continue;
    MarkerCodec c{v, edges[g.inEdges(v).front()].sem, {}, CodecKind::None, false, std::nullopt,
                  std::nullopt};
    c.to = g.outEdges(v).empty() ? c.from : edges[g.outEdges(v).front()].sem;
    c.kind = kindOf(c.from, c.to);
    if (c.kind != CodecKind::None) {
      c.aheadOfTime = known.contains(g.op(v)->getOperand(0));
      Value input = g.op(v)->getOperand(0);
      auto key = std::make_tuple(input.getAsOpaquePointer(), c.from.id,
                                 c.kind == CodecKind::Decode ? int64_t(-1) : c.to.id);
      auto [it, inserted] = first.try_emplace(key, v);
      if (!inserted) {
        c.sharedWith = it->second;
      } else if (c.kind == CodecKind::DecodeEncode) {
        // Its decoder is the plain decoder of the value: shared both ways.
        auto [dit, decoderInserted] =
            first.try_emplace(std::make_tuple(input.getAsOpaquePointer(), c.from.id, int64_t(-1)), v);
        if (!decoderInserted)
          c.decoderSharedWith = dit->second;
      }
    }
    codecs.push_back(c);
  }
  return codecs;
}

} // namespace raptor::codec
