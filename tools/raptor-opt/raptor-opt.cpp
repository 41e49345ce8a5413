//===- raptor-opt.cpp - Raptor's optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt with Raptor's dialects and passes, plus the upstream dialects a
// model graph sits beside (builtin, func, arith, tensor, quant) and the
// generic upstream transforms (canonicalize, cse, ...), and cf for control
// flow that graph passes must reject.
//
//===----------------------------------------------------------------------===//
#include "capi/Registration.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"

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

int main(int argc, char **argv) {
  hideLibraryOptions();
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect,
                  mlir::func::FuncDialect,
                  mlir::quant::QuantDialect, mlir::tensor::TensorDialect>();
  raptor::registerAllDialects(registry);
  mlir::registerTransformsPasses();
  raptor::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Raptor optimizer: model graphs to processing-in-memory\n",
      registry));
}
