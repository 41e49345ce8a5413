//===- InsertFanOut.cpp - Explicit fan-out nodes ----------------*- C++ -*-===//
//
// raptor-insert-fan-out: in the codec-placement paper's graphs a value read
// by several operands is distributed by `xaten.fan_out`, whose input and
// output share one semantics (Table 5), so a single encoding can serve all
// readers (the paper's introduction: a residual block's input quantized
// once). Each such feature gets an `nn.fan_out {repeats = 1}`, an identity
// that moves no data, which all its readers then read.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/NNOps.h"
#include "passes/nn/Passes.h"
#include "passes/nn/CompileTime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"


namespace raptor {
#define GEN_PASS_DEF_INSERTFANOUT
#include "passes/nn/Passes.h.inc"
} // namespace raptor

using namespace mlir;
namespace nn = raptor::nn;

namespace {

/// A feature (a tensor of rank >= 1: the fan-out names a dimension) read
/// by more than one operand, not already a fan-out's output. Weights and
/// constants are encoded ahead of time: no fan-out.
bool needsFanOut(Value v, nn::CompileTimeValues &known) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() == 0 || v.use_empty() || v.hasOneUse())
    return false;
  Operation *def = v.getDefiningOp();
  if (!def) {
    auto arg = cast<BlockArgument>(v);
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    return func && !func.getArgAttr(arg.getArgNumber(), nn::NNDialect::kParamAttrName);
  }
  if (known.contains(v))
    return false;
  auto fanOut = dyn_cast<nn::FanOutOp>(def);
  return !fanOut || fanOut.getRepeats() != 1;
}

struct InsertFanOutPass : raptor::impl::InsertFanOutBase<InsertFanOutPass> {
  void runOnOperation() override {
    SmallVector<Value> values;
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        return;
      nn::CompileTimeValues known(func.front());
      for (BlockArgument arg : func.getArguments())
        if (needsFanOut(arg, known))
          values.push_back(arg);
      for (Operation &op : func.front())
        for (Value result : op.getResults())
          if (needsFanOut(result, known))
            values.push_back(result);
    });
    OpBuilder b(&getContext());
    for (Value v : values) {
      if (Operation *def = v.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
      auto fanOut = nn::FanOutOp::create(b, v.getLoc(), v, /*repeats=*/1, /*dim=*/0);
      v.replaceAllUsesExcept(fanOut.getOut(), fanOut);
    }
  }
};

} // namespace
