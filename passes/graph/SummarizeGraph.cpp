//===- SummarizeGraph.cpp - The raptor-summarize-graph pass -----*- C++ -*-===//
#include "passes/graph/Passes.h"
#include "passes/graph/GraphSummary.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "dialects/nn/ElementCount.h"

namespace raptor {
#define GEN_PASS_DEF_SUMMARIZEGRAPH
#include "passes/graph/Passes.h.inc"
} // namespace raptor

using namespace mlir;

namespace {
struct SummarizeGraphPass
    : public raptor::impl::SummarizeGraphBase<SummarizeGraphPass> {
  using SummarizeGraphBase::SummarizeGraphBase;

  void runOnOperation() override {
    if (format != "table" && format != "json") {
      getOperation().emitError() << "raptor-summarize-graph: unknown format '"
                                 << format << "' (expected 'table' or 'json')";
      return signalPassFailure();
    }
    if (failed(raptor::nn::verifyTensorSizes(getOperation())))
      return signalPassFailure();
    std::vector<raptor::FunctionSummary> summaries =
        raptor::summarizeModule(getOperation());
    std::string error;
    // ToolOutputFile removes a partially written file unless keep() is called.
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << "raptor-summarize-graph: " << error;
      return signalPassFailure();
    }
    if (format == "json")
      file->os() << llvm::formatv("{0:2}", raptor::toJSON(summaries)) << "\n";
    else
      raptor::printTable(summaries, file->os());
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
