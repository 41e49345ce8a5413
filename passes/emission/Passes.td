//===- Passes.td - Emission --------------------------------*- tablegen -*-===//
//
// Writing a pim.chip out as a program directory.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_EMISSION_PASSES
#define RAPTOR_PASSES_EMISSION_PASSES

include "mlir/Pass/PassBase.td"

def EmitPim : Pass<"raptor-emit-pim", "mlir::ModuleOp"> {
  let summary = "Write a pim.chip as a program directory (pimsim-nn's format and Raptor's)";
  let description = [{
    Writes config.json, core_<i>.pim (or .json), chip.json and network.json
    for pimsim-nn (loops unrolled; only when every instruction is in its
    set), and Raptor's manifest.json, memory.bin, weights/ and the compact
    programs raptor/c<i>.rpim that Raptor's simulators run. See docs/pim.md.

    ```
    raptor-opt compiled.mlir --raptor-emit-pim="output=out pimsim=json" -o /dev/null
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"\"", "The directory to write (created)">,
    Option<"pimsim", "pimsim", "::raptor::pim::PimsimFiles", /*default=*/"::raptor::pim::PimsimFiles::Binary",
           "pimsim-nn program files", "::raptor::choicesOf(::raptor::pim::kPimsimFiles)">,
    Option<"source", "source", "std::string", /*default=*/"\"\"",
           "The model the program was compiled from (the manifest's `source`: `raptor simulate --check` "
           "compares with it)">,
    Option<"unrollLimit", "unroll-limit", "int64_t", /*default=*/"16000000",
           "Skip pimsim-nn files whose unrolled program exceeds this many instructions (0: no limit)">,
  ];
}

#endif // RAPTOR_PASSES_EMISSION_PASSES
