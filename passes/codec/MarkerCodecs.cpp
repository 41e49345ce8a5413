//===- MarkerCodecs.cpp - What each codec marker materializes to -*- C++ -*-===//
#include "passes/codec/MarkerCodecs.h"

#include "dialects/nn/NNOps.h"

#include <map>
#include <tuple>

using namespace mlir;

namespace raptor::codec {

/// The marker's data comes from a weight (a graph argument marked nn.param)
/// or an nn.constant, possibly through markers: known before run time.
static bool isAheadOfTime(CodecGraph &g, unsigned node) {
  while (g.kind(node) == NodeKind::MarkInput || g.kind(node) == NodeKind::MarkOutput)
    node = g.getEdges()[g.inEdges(node).front()].tail;
  if (g.kind(node) == NodeKind::Input)
    return bool(g.function().getArgAttr(node, nn::NNDialect::kParamAttrName));
  return isa<nn::ConstantOp>(g.op(node));
}

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
  // decoder's output does not depend on the semantics after it.
  std::map<std::tuple<void *, int64_t, int64_t>, unsigned> first;
  for (unsigned v = 0, n = g.numNodes(); v < n; ++v) {
    if (g.kind(v) != NodeKind::MarkInput && g.kind(v) != NodeKind::MarkOutput)
      continue;
    if (g.inEdges(v).empty())
      continue;
    MarkerCodec c{v, edges[g.inEdges(v).front()].sem, {}, CodecKind::None, false, std::nullopt};
    c.to = g.outEdges(v).empty() ? c.from : edges[g.outEdges(v).front()].sem;
    c.kind = kindOf(c.from, c.to);
    if (c.kind != CodecKind::None) {
      c.aheadOfTime = isAheadOfTime(g, v);
      Value input = g.op(v)->getOperand(0);
      auto key = std::make_tuple(input.getAsOpaquePointer(), c.from.id,
                                 c.kind == CodecKind::Decode ? int64_t(-1) : c.to.id);
      auto [it, inserted] = first.try_emplace(key, v);
      if (!inserted)
        c.sharedWith = it->second;
    }
    codecs.push_back(c);
  }
  return codecs;
}

} // namespace raptor::codec
