//===- EncodedValues.cpp - Which values a codec placement encoded -*- C++ -*-===//
#include "passes/codec/EncodedValues.h"

#include "dialects/nn/NNOps.h"

using namespace mlir;

namespace raptor::codec {

std::optional<SemanticsAttr> subgraphOf(Value v) {
  for (int depth = 0; depth < 100000; ++depth) { // (bounded: graphs are acyclic, but IR may be hostile)
    Operation *d = v.getDefiningOp();
    if (!d)
      return std::nullopt;
    if (auto e = dyn_cast<EncodeOp>(d))
      return e.getSemantics();
    if (auto o = dyn_cast<ObserveOp>(d))
      return o.getSemantics();
    if (auto r = dyn_cast<RescaleOp>(d))
      return r.getTo();
    if (isa<DecodeOp, nn::ConvolutionOp, nn::LinearOp, nn::MatmulOp, nn::ScaledDotProductAttentionOp>(d) ||
        !isa<nn::NNDialect>(d->getDialect()) || d->getNumOperands() == 0)
      return std::nullopt;
    v = d->getOperand(0);
  }
  return std::nullopt;
}

} // namespace raptor::codec
