//===- JsonAttributes.h - JSON values as attributes and back ----*- C++ -*-===//
//
// Reports that travel in the IR between phases (a pipeline schedule's
// selection, a quantized model's calibration) are attributes, so that IR
// saved between phases carries them; the emitter writes them back as the
// JSON of the program directory. Objects are dictionaries, arrays arrays,
// integers i64, other numbers f64, strings, booleans, and null a unit.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_JSONATTRIBUTES_H
#define RAPTOR_PASSES_JSONATTRIBUTES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"

namespace raptor {

mlir::Attribute attributeOfJson(mlir::MLIRContext *context, const llvm::json::Value &value);
/// The JSON of an attribute built by attributeOfJson; other attributes
/// become their printed form (a string).
llvm::json::Value jsonOfAttribute(mlir::Attribute attribute);

} // namespace raptor

#endif // RAPTOR_PASSES_JSONATTRIBUTES_H
