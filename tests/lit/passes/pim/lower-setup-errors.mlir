// The lowering needs a scheduled compute graph and readable weights.
// RUN: not %raptor-opt %s --raptor-lower-to-pim -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOGRAPH
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-lower-to-pim -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%S/Inputs/missing.safetensors -o /dev/null 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// RUN: not %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%S/Inputs/tiny.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTWEIGHTS
// RUN: not %raptor-opt %s --raptor-emit-pim=output=%t -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHIP

// NOGRAPH: error: raptor-lower-to-pim needs exactly one scheduled spatial.graph (found 0); run raptor-build-compute-graph and raptor-schedule-spatial
// UNSCHEDULED: error: loc("relu"): raptor-lower-to-pim needs a scheduled compute graph (run raptor-schedule-spatial)
// WEIGHTS: error: cannot read weights '{{.*}}missing.safetensors': No such file or directory
// NOTWEIGHTS: error: '{{.*}}tiny.json' is not a safetensors file (its header runs past the end; truncated?)
// NOCHIP: error: raptor-emit-pim needs exactly one pim.chip

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %0 = nn.relu %x : tensor<1x8xf32> loc("relu")
  return %0 : tensor<1x8xf32>
}
