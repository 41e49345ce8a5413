//===- CompileTime.cpp - Values known before a model runs -------*- C++ -*-===//
#include "passes/nn/CompileTime.h"

#include "dialects/codec/CodecDialect.h"
#include "dialects/nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace raptor::nn {

CompileTimeValues::CompileTimeValues(Block &block) {
  for (BlockArgument arg : block.getArguments())
    contains(arg);
  for (Operation &op : block)
    for (Value result : op.getResults())
      contains(result); // operands are classified already: no deep recursion
}

bool CompileTimeValues::contains(Value value) {
  auto it = known.find(value);
  if (it != known.end())
    return it->second;
  bool result = false;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    result = func && func.getArgAttr(arg.getArgNumber(), NNDialect::kParamAttrName);
  } else if (Operation *op = value.getDefiningOp()) {
    if (isa<ConstantOp>(op)) {
      result = true;
    } else if ((isa<NNDialect>(op->getDialect()) || isa<codec::EncodeOp, codec::DecodeOp, codec::RequantizeOp, codec::RescaleOp, codec::ObserveOp,
                                                           codec::MarkInputOp, codec::MarkOutputOp>(op)) &&
               !isa<AtenOp>(op) && op->getNumRegions() == 0 && op->getNumOperands() > 0) {
      result = true;
      for (Value operand : op->getOperands())
        result = result && contains(operand);
    }
  }
  known[value] = result;
  return result;
}

} // namespace raptor::nn
