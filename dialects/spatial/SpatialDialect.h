//===- SpatialDialect.h - The spatial dialect -------------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_SPATIAL_SPATIALDIALECT_H
#define RAPTOR_DIALECTS_SPATIAL_SPATIALDIALECT_H

#include "dialects/pim/PimDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"

#include "dialects/spatial/SpatialDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/spatial/SpatialTypes.h.inc"

#define GET_OP_CLASSES
#include "dialects/spatial/SpatialOps.h.inc"

#endif // RAPTOR_DIALECTS_SPATIAL_SPATIALDIALECT_H
