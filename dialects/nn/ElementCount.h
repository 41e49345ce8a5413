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

/// The first statically shaped tensor of `root` with more elements, or
/// bytes at 8 per element, than int64 counts: the op holding it (as a
/// result or a block argument of its regions) and a one-line description.
inline std::optional<std::pair<mlir::Operation *, std::string>> oversizedTensor(mlir::Operation *root) {
  auto tooLarge = [](mlir::Type type) {
    auto t = llvm::dyn_cast<mlir::RankedTensorType>(type);
    if (!t || !t.hasStaticShape())
      return false;
    std::optional<int64_t> n = elementCount(t.getShape());
    int64_t bytes;
    return !n || llvm::MulOverflow(*n, int64_t(8), bytes);
  };
  auto describe = [](llvm::StringRef what, mlir::Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " of type " << type << " has more elements than int64 counts";
    return text;
  };
  std::optional<std::pair<mlir::Operation *, std::string>> found;
  root->walk([&](mlir::Operation *op) {
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          if (tooLarge(arg.getType())) {
            found = {op, describe("argument " + std::to_string(arg.getArgNumber()), arg.getType())};
            return mlir::WalkResult::interrupt();
          }
    for (mlir::Value r : op->getResults())
      if (tooLarge(r.getType())) {
        found = {op, describe("result", r.getType())};
        return mlir::WalkResult::interrupt();
      }
    return mlir::WalkResult::advance();
  });
  return found;
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
