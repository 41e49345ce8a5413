//===- ElementCount.h - Element counts that cannot overflow -----*- C++ -*-===//
//
// MLIR's ShapedType::getNumElements asserts when a shape's product
// overflows int64 (tensor<4x9223372036854775807xf32> parses fine). Passes
// that count elements or bytes first check the module with
// verifyTensorSizes, which reports such a type at its value instead.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_DIALECTS_NN_ELEMENTCOUNT_H
#define RAPTOR_DIALECTS_NN_ELEMENTCOUNT_H

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/MathExtras.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>

namespace raptor::nn {

/// The product of a static shape; none when a dimension is dynamic or the
/// product overflows int64.
inline std::optional<int64_t> elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::nullopt;
  return n;
}

/// The first shaped type (tensor, memref, vector) anywhere in `root` whose
/// static dimensions multiply, or at 8 bytes per element, past int64: in a
/// result, a block argument of a region, or an attribute (a function's
/// signature, a type attribute), nested types included. Returns the op
/// holding it and a one-line description. Every entry point that reads IR
/// screens it here once, before any pass counts elements.
inline std::optional<std::pair<mlir::Operation *, std::string>> oversizedTensor(mlir::Operation *root) {
  mlir::Type found;
  mlir::AttrTypeWalker walker;
  walker.addWalk([&](mlir::Type type) {
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      return mlir::WalkResult::advance();
    int64_t n = 1;
    for (int64_t d : shaped.getShape())
      if (!mlir::ShapedType::isDynamic(d) && (d < 0 || llvm::MulOverflow(n, d, n))) {
        found = type;
        return mlir::WalkResult::interrupt();
      }
    int64_t bytes;
    if (llvm::MulOverflow(n, int64_t(8), bytes)) {
      found = type;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  auto describe = [&](llvm::StringRef what) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " of type " << found << " has more elements than int64 counts";
    return std::make_pair(static_cast<mlir::Operation *>(nullptr), text);
  };
  std::optional<std::pair<mlir::Operation *, std::string>> result;
  root->walk([&](mlir::Operation *op) {
    auto report = [&](std::string what) {
      result = describe(what);
      result->first = op;
      return mlir::WalkResult::interrupt();
    };
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          if (walker.walk(arg.getType()).wasInterrupted())
            return report("argument " + std::to_string(arg.getArgNumber()));
    for (mlir::Value r : op->getResults())
      if (walker.walk(r.getType()).wasInterrupted())
        return report("result " + std::to_string(llvm::cast<mlir::OpResult>(r).getResultNumber()));
    for (mlir::NamedAttribute a : op->getAttrDictionary())
      if (walker.walk(a.getValue()).wasInterrupted())
        return report(("attribute '" + a.getName().getValue() + "'").str());
    return mlir::WalkResult::advance();
  });
  return result;
}

/// Fails, with the error at the op, when oversizedTensor finds one.
inline mlir::LogicalResult verifyTensorSizes(mlir::Operation *root) {
  if (auto found = oversizedTensor(root)) {
    found->first->emitError() << found->second;
    return mlir::failure();
  }
  return mlir::success();
}

} // namespace raptor::nn

#endif // RAPTOR_DIALECTS_NN_ELEMENTCOUNT_H
