//===- Passes.h - Every Raptor pass -----------------------------*- C++ -*-===//
//
// One include for the registration and the bindings: the declarations of
// every stage's passes (each stage declares its own in passes/<stage>/).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_PASSES_H
#define RAPTOR_PASSES_PASSES_H

#include "passes/codec/Passes.h"
#include "passes/conversion/Passes.h"
#include "passes/emission/Passes.h"
#include "passes/graph/Passes.h"
#include "passes/nn/Passes.h"
#include "passes/rdg/Passes.h"
#include "passes/spatial/Passes.h"

namespace raptor {
/// Registers the passes of every stage.
inline void registerAllRaptorPasses() {
  registerRaptorCodecPasses();
  registerRaptorConversionPasses();
  registerRaptorEmissionPasses();
  registerRaptorGraphPasses();
  registerRaptorNNPasses();
  registerRaptorRdgPasses();
  registerRaptorSpatialPasses();
}
} // namespace raptor

#endif // RAPTOR_PASSES_PASSES_H
