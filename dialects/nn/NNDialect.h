//===- NNDialect.h - The nn model-graph dialect -----------------*- C++ -*-===//
#ifndef RAPTOR_DIALECTS_NN_NNDIALECT_H
#define RAPTOR_DIALECTS_NN_NNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/nn/NNDialect.h.inc"

#endif // RAPTOR_DIALECTS_NN_NNDIALECT_H
