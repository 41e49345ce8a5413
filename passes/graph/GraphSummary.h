//===- GraphSummary.h - Operator and weight statistics ----------*- C++ -*-===//
//
// The one implementation of the graph summary: the raptor-summarize-graph
// pass prints it and the Python binding returns it as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_GRAPH_GRAPHSUMMARY_H
#define RAPTOR_PASSES_GRAPH_GRAPHSUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace raptor {

struct TensorInfo {
  std::string name;
  std::string type;
};

/// Statistics of one function (one model graph).
struct FunctionSummary {
  std::string name;
  uint64_t numOps = 0; // excluding the terminator
  llvm::MapVector<llvm::StringRef, uint64_t> opCounts;
  llvm::MapVector<llvm::StringRef, uint64_t> genericTargets; // nn.aten targets
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  uint64_t numWeights = 0;        // nn.param arguments
  uint64_t weightElements = 0;    // elements of floating-point weights
  uint64_t fp32StorageBytes = 0;  // those elements at 4 bytes each
  uint64_t numConstants = 0;      // nn.constant ops (derived data)
  uint64_t constantBytes = 0;     // their data at its own element width
};

/// Summarizes every function of `module` that holds nn ops or nn arguments.
std::vector<FunctionSummary> summarizeModule(mlir::ModuleOp module);

llvm::json::Value toJSON(const std::vector<FunctionSummary> &summaries);
void printTable(const std::vector<FunctionSummary> &summaries,
                llvm::raw_ostream &os);

} // namespace raptor

#endif // RAPTOR_PASSES_GRAPH_GRAPHSUMMARY_H
