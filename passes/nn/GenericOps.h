//===- GenericOps.h - Reading and pruning generic nn.aten ops ---*- C++ -*-===//
//
// What the importers keep as generic `nn.aten` ops (an aten overload or an
// ONNX operator without a typed nn op) is matched by target name; the
// rewrites of run-time id arithmetic (FoldTokenArithmetic, TokenTables)
// share these helpers.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_GENERICOPS_H
#define RAPTOR_PASSES_NN_GENERICOPS_H

#include "dialects/nn/NNOps.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace raptor::nn {

/// Whether `v` is a tensor of integers (booleans included).
bool isIntegerTensor(mlir::Value v);
/// Whether a generic op is a cast (aten's `_to_copy` and `to`, ONNX's Cast).
bool isCast(AtenOp op);
/// The generic op of target `target` defining `v`, if any.
AtenOp atenOf(mlir::Value v, llvm::StringRef target);
/// An integer attribute of a generic op's `params` (a boolean as 0 or 1).
std::optional<int64_t> intParam(AtenOp op, llvm::StringRef name);
/// The one integer a compile-time constant holds everywhere (a scalar
/// operand the frontend kept as a tensor: ONNX's Equal and CumSum axis);
/// booleans are 0 and 1, unsigned integers read unsigned.
std::optional<int64_t> splatInteger(mlir::Value v);
/// `v` before the views (nn.view) that reshape it.
mlir::Value beforeViews(mlir::Value v);
/// Erases `op` and then each operand's definition left without uses.
void eraseDead(mlir::Operation *op);

} // namespace raptor::nn

#endif // RAPTOR_PASSES_NN_GENERICOPS_H
