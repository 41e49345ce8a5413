//===- GenericOps.cpp - Reading and pruning generic nn.aten ops -*- C++ -*-===//
#include "passes/nn/GenericOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace raptor::nn {

bool isIntegerTensor(Value v) {
  auto type = dyn_cast<ShapedType>(v.getType());
  return type && isa<IntegerType>(type.getElementType());
}

bool isCast(AtenOp op) {
  StringRef t = op.getTarget();
  return t == "onnx.Cast" || t == "aten._to_copy.default" || t.starts_with("aten.to.");
}

AtenOp atenOf(Value v, StringRef target) {
  auto aten = v.getDefiningOp<AtenOp>();
  return aten && aten.getTarget() == target ? aten : AtenOp();
}

std::optional<int64_t> intParam(AtenOp op, StringRef name) {
  DictionaryAttr params = op.getParamsAttr();
  auto value = params ? dyn_cast_or_null<IntegerAttr>(params.get(name)) : IntegerAttr();
  if (!value)
    return std::nullopt;
  // (a boolean is 0 or 1: torch's `x == True`; read signed, true is -1)
  return value.getType().isInteger(1) ? int64_t(value.getValue().getZExtValue()) : value.getInt();
}

std::optional<int64_t> splatInteger(Value v) {
  DenseIntElementsAttr data;
  if (!matchPattern(v, m_Constant(&data)) || !data.isSplat())
    return std::nullopt;
  APInt value = data.getSplatValue<APInt>();
  bool unsignedType = data.getElementType().isUnsignedInteger() || value.getBitWidth() == 1; // (true is 1)
  return unsignedType ? int64_t(value.getZExtValue()) : value.getSExtValue();
}

Value beforeViews(Value v) {
  while (auto view = v.getDefiningOp<ViewOp>())
    v = view.getSelf();
  return v;
}

void eraseDead(Operation *op) {
  SmallVector<Operation *> work{op};
  while (!work.empty()) {
    Operation *dead = work.pop_back_val();
    if (!dead->use_empty())
      continue;
    SmallVector<Operation *> operands;
    for (Value v : dead->getOperands())
      if (Operation *def = v.getDefiningOp())
        operands.push_back(def);
    dead->erase();
    for (Operation *def : operands)
      if (llvm::find(work, def) == work.end())
        work.push_back(def);
  }
}

} // namespace raptor::nn
