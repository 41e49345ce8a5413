//===- CodecDialect.cpp - The codec dialect ---------------------*- C++ -*-===//
#include "dialects/codec/CodecDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace raptor::codec;

#include "dialects/codec/CodecDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/codec/CodecAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/codec/CodecOps.cpp.inc"

void CodecDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/codec/CodecAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/codec/CodecOps.cpp.inc"
      >();
}

static LogicalResult verifyDominatorOf(Operation *op, NamedAttribute attr) {
  if (attr.getName() != CodecDialect::kDominatorOfAttrName &&
      attr.getName() != CodecDialect::kPolicyAttrName)
    return op->emitError() << "unknown codec attribute '" << attr.getName().getValue() << "'";
  if (attr.getName() == CodecDialect::kPolicyAttrName) {
    auto policy = dyn_cast<StringAttr>(attr.getValue());
    if (!policy || !llvm::is_contained({"Z", "Y", "X", "W", "local"}, policy.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be one of \"Z\", \"Y\", \"X\", \"W\", \"local\"";
    return success();
  }
  if (!isa<DenseI64ArrayAttr>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' must be an array<i64: ...> of subgraph ids";
  return success();
}

LogicalResult CodecDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  return verifyDominatorOf(op, attr);
}

LogicalResult CodecDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                     unsigned, NamedAttribute attr) {
  return verifyDominatorOf(op, attr);
}

/// A marker's port semantics relate the operator's port type (s, t) to the
/// identity side (s, s) of the marker.
template <typename Marker>
static LogicalResult verifyMarker(Marker op, bool input) {
  SemanticsAttr in = op.getPortIn(), out = op.getPortOut();
  Type element = op.getInput().getType().getElementType();
  if (in.getSource() != element || out.getSource() != element)
    return op.emitOpError() << "port semantics must have the tensor's element type "
                            << element << " as source";
  SemanticsAttr identity = input ? in : out;
  if (identity.isEncoded())
    return op.emitOpError() << "'" << (input ? "port_in" : "port_out")
                            << "' must be an identity semantics (source = target), got "
                            << identity;
  if (in.getId() == out.getId())
    return op.emitOpError() << "port semantics need distinct ids";
  if (bool(op.getEdgeInAttr()) != bool(op.getEdgeOutAttr()))
    return op.emitOpError() << "needs both or neither of edge_in and edge_out";
  return success();
}

LogicalResult MarkInputOp::verify() { return verifyMarker(*this, /*input=*/true); }
LogicalResult MarkOutputOp::verify() { return verifyMarker(*this, /*input=*/false); }

LogicalResult RescaleOp::verify() {
  SemanticsAttr from = getFrom(), to = getTo();
  if (!from.getTarget().isInteger(32) || !from.getSource().isF32())
    return emitOpError() << "reads the int32 sums of an int8 matrix operator (f32 -> i32), not " << from;
  if (!to.getTarget().isInteger(8) || !to.getSource().isF32())
    return emitOpError() << "writes int8 codes (f32 -> i8), not " << to;
  if (from.getId() == to.getId())
    return emitOpError() << "maps a subgraph onto itself (semantics " << from.getId() << " on both sides)";
  if (getMin() && getMax() && !(getMin()->convertToDouble() <= getMax()->convertToDouble()))
    return emitOpError() << "clamps to an empty range [" << getMin()->convertToDouble() << ", "
                         << getMax()->convertToDouble() << "]";
  return success();
}

LogicalResult RequantizeOp::verify() {
  SemanticsAttr from = getFrom(), to = getTo();
  if (!from.isEncoded() || !to.isEncoded())
    return emitOpError() << "maps codes to codes: both semantics must be encoded, got " << from << " and "
                         << to;
  if (from.getSource() != to.getSource() || from.getTarget() != to.getTarget())
    return emitOpError() << "needs compatible semantics (the same source and target types), got " << from
                         << " and " << to << "; a decode and an encode convert between others";
  if (from.getId() == to.getId())
    return emitOpError() << "maps a subgraph onto itself (semantics " << from.getId() << " on both sides)";
  return success();
}
