//===- NNOps.cpp - Operators of the nn dialect ------------------*- C++ -*-===//
#include "dialects/nn/NNOps.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace raptor::nn;

#include "dialects/nn/NNInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Port names
//===----------------------------------------------------------------------===//

std::string raptor::nn::detail::inputPortName(
    ArrayRef<llvm::StringLiteral> groups, unsigned index,
    llvm::function_ref<std::pair<unsigned, unsigned>(unsigned)> groupRange) {
  for (auto [g, name] : llvm::enumerate(groups)) {
    auto [start, length] = groupRange(g);
    if (index >= start && index < start + length)
      return name.str();
  }
  return ("operand" + llvm::Twine(index)).str();
}

std::string raptor::nn::detail::outputPortName(unsigned numResults,
                                               bool variadic, unsigned index) {
  if (variadic)
    return "out[*]";
  if (numResults == 1)
    return "out";
  return ("out[" + llvm::Twine(index) + "]").str();
}

std::string AtenOp::getInputPortName(unsigned index) {
  if (std::optional<ArrayAttr> ports = getInputPorts())
    if (index < ports->size())
      return cast<StringAttr>((*ports)[index]).getValue().str();
  return ("args[" + llvm::Twine(index) + "]").str();
}

std::string AtenOp::getOutputPortName(unsigned index) {
  return detail::outputPortName(getNumResults(), /*variadic=*/false, index);
}

//===----------------------------------------------------------------------===//
// Verifiers and folders
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult AtenOp::verify() {
  StringRef target = getTarget();
  if (target.count('.') < 1 || target.front() == '.' || target.back() == '.')
    return emitOpError() << "target '" << target
                         << "' is not an operator name like 'aten.sub.Tensor'";
  if (std::optional<ArrayAttr> ports = getInputPorts())
    if (ports->size() != getArgs().size())
      return emitOpError() << "has " << getArgs().size() << " operands but "
                           << ports->size() << " input_ports";
  return success();
}

/// Exactly one of the tensor `other` and the `scalar` attribute.
template <typename BinaryOp>
static LogicalResult verifyBinary(BinaryOp op) {
  if (bool(op.getOther()) == bool(op.getScalarAttr()))
    return op.emitOpError()
           << "needs exactly one of a tensor 'other' and a 'scalar' attribute";
  return success();
}

LogicalResult AddOp::verify() { return verifyBinary(*this); }
LogicalResult SubOp::verify() { return verifyBinary(*this); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }
LogicalResult DivOp::verify() { return verifyBinary(*this); }

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError() << "approximate must be \"none\" or \"tanh\", got \""
                         << getApproximate() << "\"";
  if (!isa<FloatType>(getSelf().getType().getElementType()))
    return emitOpError() << "expects a floating-point tensor";
  return success();
}

LogicalResult HardtanhOp::verify() {
  if (!isa<FloatType>(getSelf().getType().getElementType()))
    return emitOpError() << "expects a floating-point tensor";
  if (getMinVal().convertToDouble() > getMaxVal().convertToDouble())
    return emitOpError() << "min_val " << getMinVal().convertToDouble() << " exceeds max_val "
                         << getMaxVal().convertToDouble();
  return success();
}

LogicalResult PowOp::verify() {
  if (!isa<FloatType>(getSelf().getType().getElementType()))
    return emitOpError() << "expects a floating-point tensor";
  return success();
}

LogicalResult TokenPositionsOp::verify() {
  if (getIds().getType().getRank() == 0)
    return emitOpError() << "numbers positions along the last dimension: ids need rank >= 1";
  if (getIds().getType().getShape() != getOut().getType().getShape())
    return emitOpError() << "result shape must be the ids' shape";
  int64_t pad = getPaddingIdxAttr().getInt(), offset = getOffsetAttr().getInt();
  if (pad < 0 || offset < -1)
    return emitOpError() << "padding_idx must be >= 0 and offset >= -1 (positions below the base), got " << pad
                         << " and " << offset;
  if (getStart() < 0)
    return emitOpError() << "base must be >= 0, got " << getStart();
  return success();
}

LogicalResult LastTokenOp::verify() {
  auto ids = getIds().getType();
  auto input = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getOut().getType());
  if (ids.getRank() != 2)
    return emitOpError() << "needs ids of rank 2 (batch, length), got " << ids;
  if (input.getRank() < 2 || input.getShape().take_front(2) != ids.getShape())
    return emitOpError() << "needs an input (batch, length, ...) of the ids' (batch, length), got " << input;
  SmallVector<int64_t> shape{input.getDimSize(0)};
  llvm::append_range(shape, input.getShape().drop_front(2));
  if (out.getShape() != ArrayRef<int64_t>(shape) || out.getElementType() != input.getElementType())
    return emitOpError() << "result must be the input without its length dimension, "
                         << RankedTensorType::get(shape, input.getElementType());
  return success();
}

LogicalResult NanToNumOp::verify() {
  if (!isa<FloatType>(getSelf().getType().getElementType()))
    return emitOpError() << "expects a floating-point tensor";
  if (getNan().isNaN())
    return emitOpError() << "nan replacement must not be NaN";
  return success();
}

LogicalResult ClampOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError() << "needs at least one of min and max";
  if (getMin() && getMax() && getMin()->convertToDouble() > getMax()->convertToDouble())
    return emitOpError() << "min " << getMin()->convertToDouble() << " exceeds max "
                         << getMax()->convertToDouble();
  return success();
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getSelf().getType().getRank();
  int64_t dim = static_cast<int64_t>(getDim());
  if (dim < -std::max<int64_t>(rank, 1) || dim >= std::max<int64_t>(rank, 1))
    return emitOpError() << "dim " << dim << " is out of range for rank " << rank;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/nn/NNOps.cpp.inc"
