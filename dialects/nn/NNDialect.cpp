//===- NNDialect.cpp - The nn dialect ---------------------------*- C++ -*-===//
#include "dialects/nn/NNDialect.h"
#include "dialects/nn/NNOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace raptor::nn;

#include "dialects/nn/NNDialect.cpp.inc"

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/nn/NNOps.cpp.inc"
      >();
}

LogicalResult NNDialect::verifyRegionArgAttribute(Operation *op,
                                                  unsigned regionIndex,
                                                  unsigned argIndex,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kParamAttrName && name != kInputAttrName)
    return op->emitError() << "unknown nn argument attribute '" << name
                           << "' on argument #" << argIndex;
  auto str = dyn_cast<StringAttr>(attr.getValue());
  if (!str || str.getValue().empty())
    return op->emitError() << "'" << name << "' on argument #" << argIndex
                           << " must be a non-empty string naming the "
                           << (name == kParamAttrName ? "weight" : "input");
  // Declarations have no body: take the type from the function signature.
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    type = fn.getArgumentTypes()[argIndex];
  else
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!isa<RankedTensorType>(type))
    return op->emitError() << "argument #" << argIndex << " marked '" << name
                           << "' must be a ranked tensor, got " << type;
  return success();
}
