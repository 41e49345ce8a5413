//===- Passes.td - Graph reports ---------------------------*- tablegen -*-===//
//
// Reports on nn model graphs.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_GRAPH_PASSES
#define RAPTOR_PASSES_GRAPH_PASSES

include "mlir/Pass/PassBase.td"

def SummarizeGraph : Pass<"raptor-summarize-graph", "mlir::ModuleOp"> {
  let summary = "Report operator counts and weight storage of nn model graphs";
  let description = [{
    For every function of the module, counts its operators by name (with the
    aten targets of generic `nn.aten` ops listed apart), its user inputs and
    weights (`nn.param` arguments and `nn.constant` ops), and the fp32 storage
    of its floating-point weights. The report is a table for people or JSON
    for tools, written to stdout or to `output`. The IR is not changed.

    ```
    raptor-opt model.mlir --raptor-summarize-graph=format=json -o /dev/null
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"table\"",
           "Report format: 'table' or 'json'">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' for stdout)">,
  ];
}

def VerifyTensorSizes : Pass<"raptor-verify-tensor-sizes"> {
  let summary = "Refuse shaped types whose element count overflows int64";
  let description = [{
    Walks every type of the IR once (results, region arguments, attributes
    such as a function's signature, nested types included) and fails, with
    the error at the op holding it, on the first tensor, memref or vector
    type whose static sizes multiply, or at 8 bytes per element, past
    int64. MLIR's own element counts assert on such a type; passes that
    count elements or bytes can then rely on every count fitting.
    `raptor-opt` runs it before any pipeline it is given, as the Python
    entry points do after parsing.

    ```
    raptor-opt model.mlir --raptor-verify-tensor-sizes
    ```
  }];
}

#endif // RAPTOR_PASSES_GRAPH_PASSES
