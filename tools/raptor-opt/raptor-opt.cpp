//===- raptor-opt.cpp - Raptor's optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt with Raptor's dialects and passes, plus the upstream dialects a
// model graph sits beside (builtin, func, arith, tensor, quant) and the
// generic upstream transforms (canonicalize, cse, ...), and cf for control
// flow that graph passes must reject.
//
//===----------------------------------------------------------------------===//
#include "support/OversizedShapes.h"
#include "capi/Registration.h"
#include "passes/graph/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

/// The LLVM library's own options (code generation, profiling, back ends:
/// hundreds of them) are registered before main; MLIR's and Raptor's are
/// registered inside MlirOptMain. Hiding the former keeps --help to what
/// this tool is about (they still work; --help-hidden lists them).
static void hideLibraryOptions() {
  for (auto &[name, option] : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef key = name;
    if (key == "help" || key == "help-list" || key == "help-hidden" || key == "help-list-hidden" ||
        key == "version" || key == "color" || key == "print-options" || key == "print-all-options")
      continue;
    option->setHiddenFlag(llvm::cl::ReallyHidden);
  }
}

/// mlir-opt's driver, with the input screened before MLIR parses it: a
/// shaped type whose element count overflows int64 would abort MLIR's
/// parser (see support/OversizedShapes.h), so it is reported as a located error.
static mlir::LogicalResult runOptimizer(int argc, char **argv, mlir::DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Raptor optimizer: model graphs to processing-in-memory\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // These answer without reading any input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  if (std::optional<raptor::OversizedShape> oversized = raptor::findOversizedShape(input->getBuffer())) {
    llvm::SourceMgr sources;
    const char *where = input->getBufferStart() + oversized->offset;
    sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    sources.PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(where), llvm::SourceMgr::DK_Error,
                         oversized->message);
    return mlir::failure();
  }
  // The text screen sees what the parser would abort on; once parsed, every
  // type (signatures, attributes, nested types) is screened by the one type
  // walk the Python entry points use, before the user's pipeline runs.
  // A --pass-pipeline replaces the pass manager's passes, so the user's
  // pipeline is set up first and the screen put in front of its passes
  // (printed and parsed back into the same anchor, as MLIR's crash
  // reproducers do).
  config.setPassPipelineSetupFn([cli = mlir::MlirOptMainConfig::createFromCLOptions()](mlir::PassManager &pm) {
    if (mlir::failed(cli.setupPassPipeline(pm)))
      return mlir::failure();
    std::string user;
    llvm::raw_string_ostream os(user);
    pm.printAsTextualPipeline(os);
    llvm::StringRef text(user);
    size_t open = text.find('(');
    if (open == llvm::StringRef::npos || !text.ends_with(")"))
      return mlir::failure();
    llvm::StringRef inner = text.slice(open + 1, text.size() - 1).trim();
    std::string screened = ("raptor-verify-tensor-sizes" + llvm::Twine(inner.empty() ? "" : ",") + inner).str();
    pm.clear();
    return mlir::parsePassPipeline(screened, pm);
  });
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return mlir::failure();
  // Only a successful run leaves its output file behind.
  output->keep();
  return mlir::success();
}

int main(int argc, char **argv) {
  hideLibraryOptions();
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect,
                  mlir::quant::QuantDialect, mlir::tensor::TensorDialect>();
  raptor::registerAllDialects(registry);
  mlir::registerTransformsPasses();
  raptor::registerAllPasses();
  return mlir::asMainReturnCode(runOptimizer(argc, argv, registry));
}
