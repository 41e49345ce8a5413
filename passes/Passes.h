//===- Passes.h - Raptor passes ---------------------------------*- C++ -*-===//
#ifndef RAPTOR_PASSES_PASSES_H
#define RAPTOR_PASSES_PASSES_H

#include "dialects/codec/CodecDialect.h"
#include "dialects/layout/LayoutDialect.h"
#include "dialects/nn/NNDialect.h"
#include "dialects/pim/PimDialect.h"
#include "dialects/spatial/SpatialDialect.h"
#include "dialects/sure/SureDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace raptor {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace raptor

#endif // RAPTOR_PASSES_PASSES_H
