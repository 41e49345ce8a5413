//===- ExtractRdg.cpp - The raptor-extract-rdg pass -------------*- C++ -*-===//
#include "passes/rdg/Passes.h"
#include "passes/rdg/ReducedDependenceGraph.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace raptor {
#define GEN_PASS_DEF_EXTRACTRDG
#include "passes/rdg/Passes.h.inc"
} // namespace raptor

using namespace mlir;

namespace {
struct ExtractRdgPass : raptor::impl::ExtractRdgBase<ExtractRdgPass> {
  using Base::Base;
  void runOnOperation() override {
    if (form != "dfactl" && form != "extended") {
      getOperation().emitError() << "unknown RDG form '" << form
                                 << "' (expected 'dfactl' or 'extended')";
      return signalPassFailure();
    }
    std::vector<raptor::rdg::Graph> graphs;
    for (auto system : getOperation().getOps<raptor::sure::SystemOp>()) {
      FailureOr<raptor::rdg::Graph> g = raptor::rdg::extract(system, form == "dfactl");
      if (failed(g))
        return signalPassFailure();
      graphs.push_back(std::move(*g));
    }
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError() << error;
      return signalPassFailure();
    }
    for (const raptor::rdg::Graph &g : graphs) {
      if (form == "dfactl")
        raptor::rdg::writeDfactlJSON(g, file->os());
      else
        raptor::rdg::writeExtendedJSON(g, file->os());
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
