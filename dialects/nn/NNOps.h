//===- NNOps.h - Operators of the nn dialect --------------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_NN_NNOPS_H
#define RAPTOR_DIALECTS_NN_NNOPS_H

// MLIR 22's generated `create` builders need the full OpBuilder.
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/nn/NNDialect.h"

#include <functional>
#include <string>
#include <utility>

namespace raptor::nn::detail {
/// Port name of operand `index` given the op's operand groups (aten names,
/// `[*]` for variadic ones) and its ODS group-to-operand-range mapping.
std::string inputPortName(
    llvm::ArrayRef<llvm::StringLiteral> groups, unsigned index,
    llvm::function_ref<std::pair<unsigned, unsigned>(unsigned)> groupRange);
/// Port name of result `index`: `out`, `out[i]`, or `out[*]`.
std::string outputPortName(unsigned numResults, bool variadic, unsigned index);
} // namespace raptor::nn::detail

#include "dialects/nn/NNInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/nn/NNOps.h.inc"

#endif // RAPTOR_DIALECTS_NN_NNOPS_H
