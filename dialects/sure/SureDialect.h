//===- SureDialect.h - The sure dialect -------------------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_SURE_SUREDIALECT_H
#define RAPTOR_DIALECTS_SURE_SUREDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/sure/SureDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/sure/SureOps.h.inc"

#endif // RAPTOR_DIALECTS_SURE_SUREDIALECT_H
