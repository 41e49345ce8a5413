//===- Passes.td - Codec placement (shared seed 000) -------*- tablegen -*-===//
//
// Placement of quantization codecs: markers, semantics, subgraphs with
// absolute dominators, coalescing, materialization, costs.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CODEC_PASSES
#define RAPTOR_PASSES_CODEC_PASSES

include "mlir/Pass/PassBase.td"

class CodecPass<string arg, string summaryText> : Pass<arg, "mlir::ModuleOp"> {
  let summary = summaryText;
  let dependentDialects = ["::raptor::codec::CodecDialect", "::raptor::nn::NNDialect"];
}

defvar CodecTableOption = Option<"table", "table", "std::string", /*default=*/"\"\"",
    "Commutation table file (docs/codec.md); default: the seed's Table 5">;

defvar CodecPolicyOption = Option<"policy", "policy", "::raptor::codec::PolicyChoice",
    /*default=*/"::raptor::codec::PolicyChoice::Function", "Compression policy",
    "::raptor::choicesOf(::raptor::codec::kPolicyChoices)">;

def InsertCodecMarkers : CodecPass<"raptor-insert-codec-markers",
    "Insert input and output codec markers around every operator (Algorithms 2-6)"> {
  let description = [{
    Puts a `codec.mark_input` on every in-edge of every operator and a
    `codec.mark_output` after every used result (and graph input), with port
    semantics from the commutation table under the policy: a port of an
    operator whose INT8 variant the policy selects has target type i8.
    Idempotent: markers already in place are kept. Adds at most |E| input
    markers and |E| output markers (Theorems 7 and 10).
  }];
  let options = [CodecPolicyOption, CodecTableOption];
}

def AssignCodecSemantics : CodecPass<"raptor-assign-codec-semantics",
    "Colour every edge of a marked graph with a semantics (Algorithms 7-11)"> {
  let description = [{
    Visits the graph in topological order: input markers forward a
    compatible upstream semantics or start their own, output markers forward
    theirs, and operators give each port block the single incoming semantics
    or a fresh one. Writes `edge_in`/`edge_out` on every marker.
  }];
  let options = [CodecPolicyOption, CodecTableOption];
}

def AssignLocalCodecSemantics : CodecPass<"raptor-assign-local-codec-semantics",
    "The local baseline: every marker keeps its own port semantics"> {
  let description = [{
    Each operator that needs encoded operands gets an encoder on each
    encoded input and a decoder on each encoded output, independently of its
    neighbours (the paper's local placement, Table 4). The ports of one
    port block share one semantics (a cat's inputs and output are encoded
    alike), as the table demands of any placement.
  }];
  let options = [CodecPolicyOption, CodecTableOption];
}

def InduceCodecSubgraphs : CodecPass<"raptor-induce-codec-subgraphs",
    "Partition edges into same-semantics subgraphs and mark absolute dominators (Algorithms 12-13)"> {
  let description = [{
    Every edge belongs to the subgraph of its semantics id. The absolute
    dominator of a subgraph (the last node on every entry-exit path) is
    found with the frontier method in linear time and marked with
    `codec.dominator_of = array<i64: id, ...>`.
  }];
}

def CoalesceCodecSubgraphs : CodecPass<"raptor-coalesce-codec-subgraphs",
    "Merge subgraphs through the meta-graph (Algorithms 14-15)"> {
  let description = [{
    Merges a subgraph into its only compatible downstream subgraph when
    every one of its exits is a codec marker on their common boundary; the
    merged subgraph keeps the downstream absolute dominator.
  }];
}

def MaterializeCodecs : CodecPass<"raptor-materialize-codecs",
    "Replace markers by encode/decode ops and add observation points"> {
  let description = [{
    The target view: a marker inside a subgraph disappears; one on a
    boundary decodes the upstream subgraph (if encoded) and encodes the
    downstream one (if encoded). A `codec.observe` is placed at each
    encoded subgraph's absolute dominator, where its codec is calibrated.
  }];
}

def FuseRescales : CodecPass<"raptor-fuse-rescales",
    "Requantize an int8 matrix operator's sums once in integer-only programs"> {
  let description = [{
    In a function that is an integer-only program (it carries
    `raptor.fixed_point_bits`, which calibration writes), each decoder of an
    int8 matrix operator's sums whose value reaches encoders alone, possibly
    through one ReLU and then one max pooling, becomes one `codec.rescale`
    per encoder: the sums requantized once, by s_x s_w[n] / s_out per
    channel, the ReLU the clamp at the code of 0, the pooling moved behind
    it onto the codes (encoding is monotone: the maximum commutes with it),
    where decoding to fixed point and encoding again would requantize twice
    (twice the vector work, two roundings). A decoder with other readers
    (a residual sum) stays. `raptor compile --precision int8` runs it after
    calibration.

    ```
    raptor-opt calibrated.mlir --raptor-fuse-rescales
    ```
  }];
}

def ExpandRequantizers : CodecPass<"raptor-expand-requantizers",
    "Apply each requantizer as a decode and an encode"> {
  let description = [{
    For a target without a code-to-code conversion (the PIM back end's
    vector unit dequantizes and quantizes): every `codec.requantize` becomes
    `codec.decode` from its `from` semantics followed by `codec.encode` to
    its `to` semantics, the same values. `raptor compile --precision int8`
    runs it after materialization.

    ```
    raptor-opt placed.mlir --raptor-expand-requantizers
    ```
  }];
}

def PlaceCodecs : CodecPass<"raptor-place-codecs",
    "Codec placement in one pass: markers, semantics, subgraphs, coalescing, materialization"> {
  let description = [{
    `placement=nonlocal-coalesced` (default) runs Algorithms 2-15;
    `nonlocal` skips coalescing; `local` is the local baseline. With
    `materialize=false` the marked graph is kept (for cost reports).
  }];
  let options = [CodecPolicyOption, CodecTableOption,
    Option<"placement", "placement", "::raptor::codec::Placement",
           /*default=*/"::raptor::codec::Placement::NonlocalCoalesced", "Placement algorithm",
           "::raptor::choicesOf(::raptor::codec::kPlacements)">,
    Option<"materialize", "materialize", "bool", /*default=*/"true",
           "Replace markers by codec ops">];
}

def ReportCodecCosts : CodecPass<"raptor-report-codec-costs",
    "Report storage, traffic and codec items of a placed graph"> {
  let description = [{
    The seed's cost model on a graph whose markers carry semantics: storage
    of the weights, traffic of every operand read by every operator (once
    per consumer), and array items crossing materialized codecs. See
    docs/codec.md for the counting conventions.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"table\"", "'table' or 'json'">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"", "Where to write ('-': stdout)">,
  ];
}

#endif // RAPTOR_PASSES_CODEC_PASSES
