//===- ConstantEvaluator.h - Computing compile-time values ------*- C++ -*-===//
//
// The values of CompileTimeValues: weights read from a safetensors file (by
// nn.param name) or nn.constant data, and the nn ops on them (batch norm
// folding, views, element-wise arithmetic and activations, linear layers,
// embedding lookups of constant indices), computed in float32 on the host.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_CONSTANTEVALUATOR_H
#define RAPTOR_PASSES_NN_CONSTANTEVALUATOR_H

#include "passes/nn/SafeTensors.h"

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <vector>

namespace raptor::nn {

/// A dense row-major float32 tensor.
struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  int64_t numel() const;
};

class ConstantEvaluator {
public:
  /// `weights` (may be null) supplies nn.param arguments.
  explicit ConstantEvaluator(const SafeTensorsFile *weights) : weights(weights) {}

  /// The value of `value`, computed once; failure after a diagnostic at the
  /// op (or argument) that cannot be computed.
  mlir::FailureOr<const HostTensor *> evaluate(mlir::Value value);
  /// Drops a cached value that is no longer needed (memory).
  void forget(mlir::Value value) { cache.erase(value); }

private:
  const SafeTensorsFile *weights;
  llvm::DenseMap<mlir::Value, std::unique_ptr<HostTensor>> cache;

  mlir::FailureOr<HostTensor> compute(mlir::Value value);
};

} // namespace raptor::nn

#endif // RAPTOR_PASSES_NN_CONSTANTEVALUATOR_H
