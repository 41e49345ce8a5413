//===- Passes.td - Raptor pass declarations ----------------*- tablegen -*-===//
#ifndef RAPTOR_PASSES
#define RAPTOR_PASSES

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

def FoldBatchNorm : Pass<"raptor-fold-batch-norm", "mlir::ModuleOp"> {
  let summary = "Fold inference batch norms into the preceding convolution's weights";
  let description = [{
    An `nn.batch_norm` with weight statistics is the per-channel affine map
    `x * s + t`, `s = weight * rsqrt(running_var + eps)`,
    `t = bias - running_mean * s`. After an `nn.convolution` it is its only
    user of, it folds into that convolution (weights scaled per output
    channel, bias `b * s + t`); elsewhere it becomes an `nn.mul` and an
    `nn.add`. The weight expressions are nn ops on weights, which later
    stages compute at compile time.

    ```
    raptor-opt model.mlir --raptor-fold-batch-norm
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

//===----------------------------------------------------------------------===//
// Graph conventions of the codec-placement paper (shared seed 000, Table 5)
//===----------------------------------------------------------------------===//

def MaterializePadding : Pass<"raptor-materialize-padding", "mlir::ModuleOp"> {
  let summary = "Pad explicitly before padded convolutions and max-pools";
  let description = [{
    The paper's graphs read padding as an operator of its own
    (`aten.constant_pad_nd`, a W-policy INT8 operator in Table 5) while
    torch.export folds it into convolutions and pools. This pass gives every
    padded (non-transposed) `nn.convolution` an `nn.constant_pad_nd` of
    zeros in front and every padded `nn.max_pool2d` one of -inf, and clears
    their `padding`. A pool whose output shape would change (ceil mode with
    windows that start in the padding) keeps its padding. Same values.

    ```
    raptor-opt model.mlir --raptor-materialize-padding
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def UnfuseFanOut : Pass<"raptor-unfuse-fan-out", "mlir::ModuleOp"> {
  let summary = "Expand KV-head fan-outs into view, expand, clone and view";
  let description = [{
    Undoes the importer's `repeat_kv` fusion: an `nn.fan_out` with
    `repeats` > 1 becomes Llama's own form, `view` (a unit dimension after
    `dim`), `expand`, `clone`, `view`, whose reads the paper's SmolLM2 graph
    counts. Fan-outs with `repeats` = 1 (explicit fan-out nodes) stay.

    ```
    raptor-opt model.mlir --raptor-unfuse-fan-out
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def PackRotaryHeads : Pass<"raptor-pack-rotary-heads", "mlir::ModuleOp"> {
  let summary = "Rotate a projection's output before its head split";
  let description = [{
    Llama rotates queries and keys after splitting them into heads (a
    `view`, then a `permute` of the sequence and head axes). This pass
    moves each such `nn.rotary_embedding` before the split, onto the
    projection's output, with `head_dim` set and tables without their head
    axis, as the codec-placement paper's SmolLM2 graph evidently has it (the
    layout operators are INT8 at policy W, the rotation FP32 only, so a
    rotation after them decodes and re-encodes each query and key). A split
    read by anything else, or tables that differ between heads, stay as
    they are. Same values.

    ```
    raptor-opt model.mlir --raptor-pack-rotary-heads
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def InsertFanOut : Pass<"raptor-insert-fan-out", "mlir::ModuleOp"> {
  let summary = "An explicit fan-out node after every feature with several readers";
  let description = [{
    The paper's graphs distribute a value read by more than one operand
    through `xaten.fan_out` (Table 5: its input and output share one
    semantics, INT8 from policy X), so that one encoding can serve every
    reader, as in the paper's introduction. This pass puts an
    `nn.fan_out {repeats = 1}` (an identity) after every operator result
    and user input read by more than one operand and lets all of them read
    it. Weights (`nn.param`) and `nn.constant` data are left alone: they are
    encoded ahead of time.

    ```
    raptor-opt model.mlir --raptor-insert-fan-out
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

//===----------------------------------------------------------------------===//
// Codec placement (shared seed 000)
//===----------------------------------------------------------------------===//

class CodecPass<string arg, string summaryText> : Pass<arg, "mlir::ModuleOp"> {
  let summary = summaryText;
  let dependentDialects = ["::raptor::codec::CodecDialect", "::raptor::nn::NNDialect"];
}

defvar CodecTableOption = Option<"table", "table", "std::string", /*default=*/"\"\"",
    "Commutation table file (docs/codec.md); default: the seed's Table 5">;
defvar CodecPolicyOption = Option<"policy", "policy", "std::string", /*default=*/"\"\"",
    "Compression policy Z, Y, X or W (default: the function's codec.policy, else W)">;

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
    Option<"placement", "placement", "std::string", /*default=*/"\"nonlocal-coalesced\"",
           "local, nonlocal or nonlocal-coalesced">,
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

//===----------------------------------------------------------------------===//
// Reduced dependency graphs (shared seed 003)
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Spatial scheduling (shared seed 002), latency mode
//===----------------------------------------------------------------------===//

def BuildComputeGraph : Pass<"raptor-build-compute-graph", "mlir::ModuleOp"> {
  let summary = "Turn nn graphs into spatial compute instances for a PIM target";
  let description = [{
    Each function becomes a `spatial.graph @<name>_tasks`: convolutions and
    linear layers are split into lanes whose weight tiles fit one core's
    crossbars (column groups of weight tiles, bit slices counted), other
    operators are one lane; each task costs the time of the instructions the
    PIM lowering emits for it under the target's timing rules
    (passes/spatial/CostModel); dependencies carry transfer sizes.

    `replicate` copies the lanes of convolutions and linear layers onto
    spare crossbars, each copy computing a range of output rows: `time`
    adds the copy that saves the most time per crossbar (net of bringing
    the input to it) while it saves any; `windows` is PIMCOMP's rule, the
    operator with the most output windows per copy; `none` keeps one copy.
    Copies use at most `replication-budget` of the chip's crossbars in all.

    A tile column taller than a core, or a model larger than the chip, is
    an error naming the op or function.

    Example: `raptor-opt m.mlir --raptor-build-compute-graph="target=chip.json replicate=time"`.
  }];
  let dependentDialects = ["::raptor::spatial::SpatialDialect"];
  let options = [Option<"targetPath", "target", "std::string", /*default=*/"\"\"",
                        "Target description (JSON, docs/scheduling.md)">,
                 Option<"replicate", "replicate", "std::string", /*default=*/"\"none\"",
                        "Replication of weight lanes: none, time or windows">,
                 Option<"replicationBudget", "replication-budget", "double", /*default=*/"0.5",
                        "Fraction of the chip's crossbars the lanes and their copies may use">,
                 Option<"followRows", "follow-rows", "bool", /*default=*/"true",
                        "Element-wise and pooling operators follow their input's row copies with copies "
                        "of their own (docs/scheduling.md)">];
}

def ScheduleSpatial : Pass<"raptor-schedule-spatial", "mlir::ModuleOp"> {
  let summary = "Schedule spatial compute graphs for latency (PEFT or HEFT) or throughput (pipeline)";
  let description = [{
    Latency mode: list scheduling on the target's cores with link costs by
    mesh distance, crossbar capacity per core, and a largest-weight-first
    best-fit retry. Pipeline mode (`mode=pipeline depth=N`): the operators
    cut into at most N contiguous stages on contiguous core ranges by a
    prefix DP, packed, and refined by a bounded beam search over boundary
    and core moves whose cost is the queue model (at most 32 evaluations,
    128 packings; the 2.1% rule keeps the initial schedule unless a
    candidate is clearly better); `report=FILE` writes the selection.
    Writes `core`, `start_ns`, `slot` (per-core order) and `last` on tasks,
    and `makespan_ns`, `algorithm`, `strategy`, `mode` and the queue
    model's `predicted_latency_ns`, `predicted_interval_ns` and
    `alternative_tie_interval_ns` on the graph (pipeline mode also
    `stages`, the cores of each stage, and `stage_starts`).

    Example: `raptor-opt m.mlir --raptor-build-compute-graph=target=t.json
    '--raptor-schedule-spatial=mode=pipeline depth=8'`
  }];
  let dependentDialects = ["::raptor::spatial::SpatialDialect"];
  let options = [Option<"algorithm", "algorithm", "std::string", /*default=*/"\"peft\"",
                        "latency mode's list scheduler: peft or heft">,
                 Option<"mode", "mode", "std::string", /*default=*/"\"latency\"",
                        "latency (one inference as fast as possible) or pipeline (inferences streamed "
                        "through at most `depth` stages)">,
                 Option<"depth", "depth", "int64_t", /*default=*/"4",
                        "pipeline mode: the most stages">,
                 Option<"report", "report", "std::string", /*default=*/"\"\"",
                        "pipeline mode: where to write the selection report (JSON; empty: nowhere)">,
                 Option<"periodic", "periodic", "std::string", /*default=*/"\"\"",
                        "where to write the periodic diagnostic of the schedule (the event graph of its "
                        "cores run as loop bodies, its maximum cycle ratio and critical cycle; JSON)">];
}

//===----------------------------------------------------------------------===//
// The PIM back end (shared seed 002)
//===----------------------------------------------------------------------===//

def LowerToPim : Pass<"raptor-lower-to-pim", "mlir::ModuleOp"> {
  let summary = "Lower a scheduled compute graph and its nn ops to per-core pim programs";
  let description = [{
    Follows the schedule of the module's `spatial.graph`: each task becomes
    code on its core, in one global order of start times, so that sends and
    receives cannot deadlock. Convolutions and linear layers become array
    groups bound to tiles of their (compile-time computed) weights and one
    MVM per output position and row tile over im2col windows, with partial
    sums added; depthwise convolutions, pooling, activations and
    element-wise arithmetic run as vector instructions over whole rows;
    views are layout algebra on the values' buffers. Data movement is
    planned from `#layout.layout`s; local memory is allocated per core with
    reuse (a task that does not fit is an error naming it). Model inputs and
    outputs live in global memory (`pim.io`), constants in `pim.data`.

    ```
    raptor-opt model.mlir --raptor-fold-batch-norm \
      --raptor-build-compute-graph=target=isaac168.json --raptor-schedule-spatial \
      --raptor-lower-to-pim=weights=model.safetensors
    ```
  }];
  let dependentDialects = ["::raptor::pim::PimDialect", "::raptor::layout::LayoutDialect"];
  let options = [Option<"weightsPath", "weights", "std::string", /*default=*/"\"\"",
                        "The model's weights (.safetensors, keyed by nn.param names)">];
}

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
    Option<"pimsim", "pimsim", "std::string", /*default=*/"\"binary\"",
           "pimsim-nn program files: binary, json, both or none">,
    Option<"unrollLimit", "unroll-limit", "int64_t", /*default=*/"16000000",
           "Skip pimsim-nn files whose unrolled program exceeds this many instructions (0: no limit)">,
  ];
}

#endif // RAPTOR_PASSES
