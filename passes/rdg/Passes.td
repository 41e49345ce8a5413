//===- Passes.td - Reduced dependency graphs (shared seed 003) ---*- tablegen -*-===//
//
// Recurrence systems of nn operators and their reduced dependency graphs.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_RDG_PASSES
#define RAPTOR_PASSES_RDG_PASSES

include "mlir/Pass/PassBase.td"

def ExtractRdg : Pass<"raptor-extract-rdg", "mlir::ModuleOp"> {
  let summary = "Write the reduced dependency graph of each sure.system as JSON";
  let description = [{
    One node per variable, one arc per tap with its map A p + b (uniform arcs
    carry theta = -b). `form=dfactl` writes what `dfactl --emit-rdg` writes,
    byte for byte (parameter values folded, branches merged);
    `form=extended` keeps parameters symbolic and branches apart.
  }];
  let dependentDialects = ["::raptor::sure::SureDialect"];
  let options = [
    Option<"form", "form", "std::string", /*default=*/"\"dfactl\"", "'dfactl' or 'extended'">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"", "Where to write ('-': stdout)">,
  ];
}

def DeriveRecurrences : Pass<"raptor-derive-recurrences", "mlir::ModuleOp"> {
  let summary = "Give nn matmul, linear and 2-D convolution ops their recurrence systems";
  let description = [{
    Adds to the module, for each static-shape `nn.matmul` (2-d), `nn.linear`
    and ungrouped 2-D `nn.convolution`, a `sure.system` in the standard
    uniformized form (gemm over (i, j, k); convolution over
    (o, h, w, c, r, s) with a piecewise accumulation) with the op's sizes as
    parameter values, and names it on the op as `sure.recurrence = @name`.
    `raptor-extract-rdg` then gives each op its RDG.
  }];
  let dependentDialects = ["::raptor::sure::SureDialect"];
}

#endif // RAPTOR_PASSES_RDG_PASSES
