//===- Passes.td - Conversions between dialects ------------*- tablegen -*-===//
//
// nn to spatial (compute graphs for a target) and spatial to pim (per-core
// programs).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CONVERSION_PASSES
#define RAPTOR_PASSES_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

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
    adds the copies that shorten an operator's longest copy most per
    crossbar (copies hold whole rows; net of the input each then brings)
    while any saves time; `windows` is PIMCOMP's rule, the
    operator with the most output windows per copy; `none` keeps one copy.
    Copies use at most `replication-budget` of the chip's crossbars in all.

    `row-block=R` (latency mode) streams rows within one inference: each
    copy of a convolution's lane becomes tasks of about R output rows (row
    blocks, on one core and its crossbars, in order), element-wise and
    pooling operators follow with blocks of their own (also through a
    nearest upsampling, whose map is its producer's pieces upsampled where
    they are), and each block depends on the producer blocks holding the
    input rows its windows read.
    With `row-block-alternative` the whole-tensor graph is built beside it
    (`@<name>_tasks_whole`, `alternative_of` the streamed one), and, when
    R > 1 and it differs, a graph of blocks of R / 2 rows
    (`@<name>_tasks_half`, `challenger_of` the streamed one);
    raptor-schedule-spatial keeps whichever its queue model predicts faster.

    `lane-tiles=T` (latency mode) cuts every MVM operator's tile columns
    into lanes of at most about T row tiles (balanced), whose partial sums
    their readers add: a lane runs one MVM per row tile for each output
    position, one after the other, so shorter lanes on more cores shorten
    a copy's time when its rows cannot be split further (each copy already
    computes one row). The graph records it as `lane_tiles`, which the
    lowering tiles by.
    With `lane-tiles-challengers` (and T > 1) a graph with lanes of each
    shorter height is built beside it (`@<name>_tasks_lanes<H>`, H = T - 1
    down to 1, `challenger_of` the first graph) when its tasks differ:
    shorter lanes add cores, partial sums and transfers, which pays on some
    models and not on others (SqueezeNet 1.1 f32 takes 11.2 ms with lanes of
    one row tile against 17.0 with 3; ResNet-18 int8 12.3 against 9.1).

    `replicate=balance` copies the operator whose copies are slowest while a
    copy takes more than half the work per core (copies then pack two to a
    core), weighing a copy by its MVMs. With `balance-followers-challenger`
    a graph whose copies are weighed also with their share of the work of
    the operators that follow their rows (codecs, element-wise operators,
    pooling: the vector work each copy takes to its core) is built beside it
    (`@<name>_tasks_followers`, `challenger_of` the first) when its tasks
    differ: more copies balance the cores where followers are heavy (int8
    MobileNetV2) and bring more input rows where they are not (ResNet-18).

    The target comes from `target=FILE.json` (read once, then kept as the
    module's `pim.target` and the graph's `target`, a `#pim.target`) or,
    without the option, from the module's `pim.target`.

    A tile column taller than a core, or a model larger than the chip, is
    an error naming the op or function.

    Example: `raptor-opt m.mlir --raptor-build-compute-graph="target=chip.json replicate=time"`.
  }];
  let dependentDialects = ["::raptor::spatial::SpatialDialect"];
  let options = [Option<"targetPath", "target", "std::string", /*default=*/"\"\"",
                        "Target file (JSON, docs/scheduling.md), read once: the module's and each graph's "
                        "#pim.target from then on (default: the module's pim.target)">,
                 Option<"replicate", "replicate", "::raptor::spatial::ReplicationRule",
                        /*default=*/"::raptor::spatial::ReplicationRule::None",
                        "Replication of weight lanes onto spare crossbars",
                        "::raptor::choicesOf(::raptor::spatial::kReplicationRules)">,
                 Option<"mode", "mode", "::raptor::spatial::ScheduleMode",
                        /*default=*/"::raptor::spatial::ScheduleMode::Latency",
                        "The schedule the graph is built for (replicate=auto: time for latency, balance for "
                        "pipeline)", "::raptor::choicesOf(::raptor::spatial::kScheduleModes)">,
                 Option<"replicationBudget", "replication-budget", "double", /*default=*/"0.5",
                        "Fraction of the chip's crossbars the lanes and their copies may use">,
                 Option<"followRows", "follow-rows", "bool", /*default=*/"true",
                        "Element-wise and pooling operators follow their input's row copies with copies "
                        "of their own (docs/scheduling.md)">,
                 Option<"rowBlock", "row-block", "int64_t", /*default=*/"0",
                        "Latency mode: convolutions compute their output rows in blocks of about this many "
                        "rows, one task each, and the operators after them follow, so that a layer starts on "
                        "its input's first rows (0: whole tensors)">,
                 Option<"rowBlockAlternative", "row-block-alternative", "bool", /*default=*/"false",
                        "With row-block: also build the whole-tensor graph and one of half the row block, for "
                        "raptor-schedule-spatial to keep the one whose programs its queue model finds faster">,
                 Option<"laneTiles", "lane-tiles", "int64_t", /*default=*/"0",
                        "Latency mode: the most row tiles (crossbar-high slices of a weight matrix) one lane "
                        "stacks; taller columns become lanes of partial sums, added by their readers, that run "
                        "on other cores (0: as many as a core holds)">,
                 Option<"laneTilesChallengers", "lane-tiles-challengers", "bool", /*default=*/"false",
                        "With lane-tiles=T > 1: also build graphs with lanes of each shorter height, for "
                        "raptor-schedule-spatial to keep the one whose programs its queue model finds clearly "
                        "faster">,
                 Option<"balanceFollowersChallenger", "balance-followers-challenger", "bool", /*default=*/"false",
                        "With replicate=balance: also build a graph whose copies are weighed with the work of "
                        "the operators that follow them, for raptor-schedule-spatial to keep the one whose "
                        "programs its queue model finds clearly faster">];
}

def LowerToPim : Pass<"raptor-lower-to-pim", "mlir::ModuleOp"> {
  let summary = "Lower a scheduled compute graph and its nn ops to per-core pim programs";
  let description = [{
    Follows the schedule of the module's `spatial.graph`: each task becomes
    code on its core, in one global order of start times, so that sends and
    receives cannot deadlock. With the graph's `transfers = "global"`
    (latency mode), data goes to other cores through global memory: each
    producer stores its output to a region right after its work; a reader
    whose vector clock shows that store done loads what it reads at once,
    any other is signalled from right after the store (a sync put back
    there when the reader is lowered; an event register per sender, 32 per
    reader, handed between senders where provably safe; beyond them,
    rendezvous) and waits for it. Convolutions and linear layers become array
    groups bound to tiles of their (compile-time computed) weights and one
    MVM per output position and row tile over im2col windows, with partial
    sums added (a matrix that fits its crossbar p times sits there p times
    block-diagonally and one MVM serves p positions of a row); depthwise convolutions, pooling, activations and
    element-wise arithmetic run as vector instructions over whole rows;
    views are layout algebra on the values' buffers. Data movement is
    planned from `#layout.layout`s; local memory is allocated per core with
    reuse (a task that does not fit is an error naming it). Model inputs and
    outputs live in global memory (`pim.io`), constants in `pim.data`.
    When the graph's programs do not fit (a core's local memory), the
    graphs that are its `fallback_of` (raptor-schedule-spatial's losers:
    whole tensors per task, taller lanes) are lowered instead, the fastest
    predicted first, with the reason as the graph's `row_block_fallback`
    (it streams no longer) or `lane_tiles_fallback` (its lanes are taller).

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

#endif // RAPTOR_PASSES_CONVERSION_PASSES
