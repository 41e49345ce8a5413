// The compile pipelines (passes/pipeline/CompilePipeline.h): raptor-compile
// is raptor-prepare-model then raptor-compile-backend with raptor compile's
// defaults; the target file is read once into #pim.target, which the graph
// and the chip carry; the emitter writes the whole manifest.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %raptor-opt %s --raptor-compile="target=%S/../pim/Inputs/tiny.json output=%t/out source=tiny.mlir" | FileCheck %s
// RUN: cat %t/out/manifest.json | FileCheck %s --check-prefix=MANIFEST
// The same pipeline over the same input writes the same directory, and
// replaces its own program directory.
// RUN: %raptor-opt %s --raptor-compile="target=%S/../pim/Inputs/tiny.json output=%t/again source=tiny.mlir" -o /dev/null
// RUN: diff -r %t/out %t/again
// A relative output is staged beside it too.
// RUN: cd %t && %raptor-opt %s --raptor-compile="target=%S/../pim/Inputs/tiny.json output=rel/out source=tiny.mlir" -o /dev/null
// RUN: diff -r %t/out %t/rel/out
// RUN: %raptor-opt %s --raptor-compile="target=%S/../pim/Inputs/tiny.json output=%t/out source=tiny.mlir pipeline=2" -o /dev/null
// RUN: cat %t/out/manifest.json | FileCheck %s --check-prefix=PIPELINE
// RUN: cat %t/out/reports/pipeline_selection.json | FileCheck %s --check-prefix=SELECTION
// A directory Raptor did not write is refused, and left alone: a web app's
// manifest.json, or a program directory holding a user's file.
// RUN: mkdir -p %t/app && echo '{"name": "a web app"}' > %t/app/manifest.json
// RUN: not %raptor-opt %s --raptor-compile="target=%S/../pim/Inputs/tiny.json output=%t/app" -o /dev/null 2>&1 | FileCheck %s --check-prefix=APP
// RUN: cat %t/app/manifest.json | FileCheck %s --check-prefix=APP-KEPT
// RUN: cp -r %t/again %t/mine && echo notes > %t/mine/notes.txt
// RUN: not %raptor-opt %s --raptor-compile="target=%S/../pim/Inputs/tiny.json output=%t/mine" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: cat %t/mine/notes.txt | FileCheck %s --check-prefix=KEPT
// The first phase alone; an option's spelling checked against its vocabulary.
// RUN: %raptor-opt %s --raptor-prepare-model="precision=int8 policy=Y" | FileCheck %s --check-prefix=INT8
// RUN: not %raptor-opt %s --raptor-compile="replicate=all" 2>&1 | FileCheck %s --check-prefix=SPELLING
// The target file is read once: after raptor-build-compute-graph the IR
// carries it, and the other phases run with the file gone.
// RUN: cp %S/../pim/Inputs/tiny.json %t/gone.json
// RUN: %raptor-opt %s --raptor-fold-batch-norm --raptor-build-compute-graph=target=%t/gone.json -o %t/graph.mlir
// RUN: rm %t/gone.json
// RUN: %raptor-opt %t/graph.mlir --raptor-schedule-spatial --raptor-lower-to-pim --raptor-emit-pim="output=%t/later" -o /dev/null
// RUN: cat %t/later/chip.json | FileCheck %s --check-prefix=LATER
// Without a target file and without a pim.target there is nothing to compile for.
// RUN: not %raptor-opt %s --raptor-compile="output=%t/none" 2>&1 | FileCheck %s --check-prefix=NOTARGET

// CHECK:       module attributes {pim.target = #pim.target<"tests: 4 cores x 4 crossbars of 8x8, 1 MiB local memory", cores = 4, mesh = [2, 2], crossbars = 4, crossbar = [8, 8], cell_bits = 8, weight_bits = 8, clock_ns = 1.0, link_bytes_per_cycle = 4.0, hop_latency_cycles = 1.0, local_memory_bytes = 1048576>}
// CHECK:       spatial.graph @main_tasks for #pim.target<"tests: 4 cores
// CHECK:       pim.chip @main_chip cores 4 crossbars 4 of [8, 8] memory 1048576 attributes {{{.*}}target = #pim.target<"tests: 4 cores

// MANIFEST:    "source": "tiny.mlir",
// MANIFEST:    "target": "tests: 4 cores x 4 crossbars of 8x8, 1 MiB local memory",
// MANIFEST-NOT: compile_seconds

// PIPELINE:    "mode": "pipeline",
// SELECTION:   "depth": 2,
// SELECTION-NOT: phase_seconds

// APP:         error: '{{.*}}app' exists and is not a program directory (its manifest.json is not a Raptor manifest): choose another output
// APP-KEPT:    a web app
// FOREIGN:     error: '{{.*}}mine' holds 'notes.txt', which Raptor did not write: move it or choose another output
// KEPT:        notes

// INT8:        codec.encode
// INT8:        nn.linear
// INT8:        codec.decode

// LATER:       "core_cnt": 4,
// SPELLING:    for the --replicate option: unknown value 'all' (expected none, time, windows, balance or auto)
// NOTARGET:    error: raptor-build-compute-graph needs target=FILE.json or a module with a pim.target attribute

func.func @main(%x: tensor<1x12xf32> {nn.input = "x"}) -> tensor<1x10xf32> {
  %w = nn.constant dense<0.5> : tensor<10x12xf32>
  %b = nn.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x12xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<1x10xf32> loc("fc")
  %1 = nn.relu %0 : tensor<1x10xf32> loc("relu")
  return %1 : tensor<1x10xf32>
}
