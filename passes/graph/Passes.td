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

#endif // RAPTOR_PASSES_GRAPH_PASSES
