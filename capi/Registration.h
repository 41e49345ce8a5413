//===- Registration.h - Register Raptor with MLIR ---------------*- C++ -*-===//
//
// The single entry point that both raptor-opt and the Python extension use,
// so the two always offer the same dialects and passes.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_CAPI_REGISTRATION_H
#define RAPTOR_CAPI_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace raptor {
/// Adds every Raptor dialect to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers every Raptor pass (and pass pipeline) globally. Idempotent.
void registerAllPasses();
} // namespace raptor

#endif // RAPTOR_CAPI_REGISTRATION_H
