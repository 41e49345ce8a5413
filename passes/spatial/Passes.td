//===- Passes.td - Spatial scheduling (shared seed 002) ----*- tablegen -*-===//
//
// Schedules of spatial compute graphs: latency (PEFT, HEFT) and pipeline
// mode.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_PASSES
#define RAPTOR_PASSES_SPATIAL_PASSES

include "mlir/Pass/PassBase.td"

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

    Pipeline mode costs each candidate in every crossing form it can be
    lowered in and writes the graph's `crossing`: `local` (at the iteration
    boundary in local memory, where a core's boundary data and its work's
    values are estimated to fit; not with `local-boundaries=false`),
    `global` (through
    global-memory regions handed over by tokens), `interleaved` (no
    stages) or `skewed` (no stages: a task of level l works on inference
    f - l in pass f, data crossing levels through double-buffered regions;
    the chip's `frames` passes make the first inference). `crossing=`
    fixes the form; under `auto` a skewed cost counts 1/0.9 of itself in
    every comparison, its first inference being a pass per level.

    Latency mode also writes each task's `position`, the lowering's global
    order: by start time, or transfer-first (each task where its first
    receive begins), and the graph's `transfers`: `rendezvous` (send and
    receive) or `global` (each producer stores its output to global memory
    after its work and signals the readers that need it, who load it: no
    sender waits),
    the pair whose programs the queue model finds fastest, global memory
    only when predicted at least 5% faster (`transfers=` fixes the
    second). A
    graph that is the `alternative_of` another (raptor-build-compute-graph
    `row-block-alternative`: whole tensors beside streamed rows) is kept
    unless the other is predicted at least 5% faster; the one dropped stays
    as the kept one's `fallback_of`, for raptor-lower-to-pim. Of the graphs that are
    the `challenger_of` another (the streamed graph with blocks of half the
    rows, graphs of shorter lanes) the fastest replaces it, taking its
    name, only when predicted at least 5% faster; the graph replaced and
    the other challengers stay as its `fallback_of`. Challengers are
    settled first.

    Example: `raptor-opt m.mlir --raptor-build-compute-graph=target=t.json
    '--raptor-schedule-spatial=mode=pipeline depth=8'`
  }];
  let dependentDialects = ["::raptor::spatial::SpatialDialect"];
  let options = [Option<"algorithm", "algorithm", "::raptor::spatial::ListAlgorithm",
                        /*default=*/"::raptor::spatial::ListAlgorithm::PEFT",
                        "latency mode's list scheduler",
                        "::raptor::choicesOf(::raptor::spatial::kListAlgorithms)">,
                 Option<"mode", "mode", "::raptor::spatial::ScheduleMode",
                        /*default=*/"::raptor::spatial::ScheduleMode::Latency", "what the schedule optimizes",
                        "::raptor::choicesOf(::raptor::spatial::kScheduleModes)">,
                 Option<"depth", "depth", "int64_t", /*default=*/"4",
                        "pipeline mode: the most stages">,
                 Option<"transfers", "transfers", "::raptor::spatial::TransferMode",
                        /*default=*/"::raptor::spatial::TransferMode::Auto",
                        "latency mode: how data goes to other cores",
                        "::raptor::choicesOf(::raptor::spatial::kTransferModes)">,
                 Option<"crossing", "crossing", "::raptor::spatial::CrossingMode",
                        /*default=*/"::raptor::spatial::CrossingMode::Auto",
                        "pipeline mode: how data crosses to later stages",
                        "::raptor::choicesOf(::raptor::spatial::kCrossingModes)">,
                 Option<"localBoundaries", "local-boundaries", "bool", /*default=*/"true",
                        "pipeline mode under crossing=auto: also cost the forms that hold the iteration "
                        "boundary in local memory (local, skewed), where estimated to fit">,
                 Option<"report", "report", "std::string", /*default=*/"\"\"",
                        "pipeline mode: where to write the selection report (JSON; empty: nowhere)">,
                 Option<"periodicAttribute", "periodic-attribute", "bool", /*default=*/"false",
                        "keep the periodic diagnostic of the schedule as the graph's `periodic` attribute">,
                 Option<"periodic", "periodic", "std::string", /*default=*/"\"\"",
                        "where to write the periodic diagnostic of the schedule (the event graph of its "
                        "cores run as loop bodies, its maximum cycle ratio and critical cycle; JSON)">];
}

#endif // RAPTOR_PASSES_SPATIAL_PASSES
