//===- LayoutDialect.h - The layout dialect ---------------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_LAYOUT_LAYOUTDIALECT_H
#define RAPTOR_DIALECTS_LAYOUT_LAYOUTDIALECT_H

#include "algebra/LayoutAlgebra.h"
#include "algebra/Morphism.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/layout/LayoutDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/layout/LayoutAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/layout/LayoutTypes.h.inc"

#define GET_OP_CLASSES
#include "dialects/layout/LayoutOps.h.inc"

#endif // RAPTOR_DIALECTS_LAYOUT_LAYOUTDIALECT_H
