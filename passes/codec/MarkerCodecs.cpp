//===- MarkerCodecs.cpp - What each codec marker materializes to -*- C++ -*-===//
#include "passes/codec/MarkerCodecs.h"

#include "dialects/nn/NNOps.h"

#include "llvm/ADT/DenseMap.h"

#include <tuple>

using namespace mlir;

namespace raptor::codec {

/// Nodes whose data is known before run time: weights (graph arguments
/// marked nn.param), nn.constant results, and nn operators (or markers)
/// that read only such data, like a view of a RoPE table. Their codecs
/// run ahead of time, as the compiler computes such values (nn/CompileTime).
static std::vector<bool> aheadOfTimeNodes(CodecGraph &g) {
  std::vector<bool> known(g.numNodes(), false);
  for (unsigned v = 0, n = g.numNodes(); v < n; ++v) { // block order: operands first
    if (g.kind(v) == NodeKind::Input) {
      known[v] = bool(g.function().getArgAttr(v, nn::NNDialect::kParamAttrName));
      continue;
    }
    Operation *op = g.op(v);
    if (isa<nn::ConstantOp>(op)) {
      known[v] = true;
      continue;
    }
    bool computable = g.kind(v) != NodeKind::Operator || isa<nn::NNDialect>(op->getDialect());
    known[v] = computable && !g.inEdges(v).empty() &&
               llvm::all_of(g.inEdges(v), [&](unsigned e) { return known[g.getEdges()[e].tail]; });
  }
  return known;
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
  // decoder's output does not depend on the semantics after it. Hashed:
  // materialization stays linear in the graph, as placement is.
  llvm::DenseMap<std::tuple<void *, int64_t, int64_t>, unsigned> first;
  std::vector<bool> aheadOfTime = aheadOfTimeNodes(g);
  for (unsigned v = 0, n = g.numNodes(); v < n; ++v) {
    if (g.kind(v) != NodeKind::MarkInput && g.kind(v) != NodeKind::MarkOutput)
      continue;
    if (g.inEdges(v).empty())
      continue;
    MarkerCodec c{v, edges[g.inEdges(v).front()].sem, {}, CodecKind::None, false, std::nullopt};
    c.to = g.outEdges(v).empty() ? c.from : edges[g.outEdges(v).front()].sem;
    c.kind = kindOf(c.from, c.to);
    if (c.kind != CodecKind::None) {
      c.aheadOfTime = aheadOfTime[v];
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
