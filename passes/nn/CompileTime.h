//===- CompileTime.h - Values known before a model runs ---------*- C++ -*-===//
//
// Weights (nn.param arguments), nn.constant results and the results of nn
// ops whose operands are all such values can be computed by the compiler:
// a folded batch norm's scaled weights, a position embedding of constant
// positions. Codecs and codec markers pass the property on (a weight's
// encoder runs ahead of time). Later stages treat them as data, not as work.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_COMPILETIME_H
#define RAPTOR_PASSES_NN_COMPILETIME_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace raptor::nn {

class CompileTimeValues {
public:
  /// Classifies every value of `block` in one forward walk.
  explicit CompileTimeValues(mlir::Block &block);

  /// True if `value` can be computed at compile time (memoized; ops created
  /// after earlier queries are classified when first asked about).
  bool contains(mlir::Value value);

private:
  llvm::DenseMap<mlir::Value, bool> known;
};

} // namespace raptor::nn

#endif // RAPTOR_PASSES_NN_COMPILETIME_H
