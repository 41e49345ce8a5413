//===- CodecDialect.h - The codec dialect -----------------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_CODEC_CODECDIALECT_H
#define RAPTOR_DIALECTS_CODEC_CODECDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/codec/CodecDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/codec/CodecAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/codec/CodecOps.h.inc"

#endif // RAPTOR_DIALECTS_CODEC_CODECDIALECT_H
