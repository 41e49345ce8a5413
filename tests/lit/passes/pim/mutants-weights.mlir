// Weights of every integer and float dtype of safetensors reach the chip as
// float32 (make mutate's survivors, docs/mutation.md): the bias [7, -2, 5]
// and the matrix of halves, written by numpy in each dtype.
// RUN: %python -c "import sys, numpy as np; from safetensors.numpy import save_file; save_file({'w': np.full((3, 4), 0.5, sys.argv[2]), 'b': np.array([7, -2, 5], sys.argv[2])}, sys.argv[1])" %t.i32.safetensors int32
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%t.i32.safetensors | FileCheck %s --check-prefixes=CHECK,MATRIX0
// RUN: %python -c "import sys, numpy as np; from safetensors.numpy import save_file; save_file({'w': np.full((3, 4), 0.5, sys.argv[2]), 'b': np.array([7, -2, 5], sys.argv[2])}, sys.argv[1])" %t.i64.safetensors int64
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%t.i64.safetensors | FileCheck %s --check-prefixes=CHECK,MATRIX0
// RUN: %python -c "import sys, numpy as np; from safetensors.numpy import save_file; save_file({'w': np.full((3, 4), 0.5, sys.argv[2]), 'b': np.array([7, -2, 5], sys.argv[2])}, sys.argv[1])" %t.i16.safetensors int16
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%t.i16.safetensors | FileCheck %s --check-prefixes=CHECK,MATRIX0
// RUN: %python -c "import sys, numpy as np; from safetensors.numpy import save_file; save_file({'w': np.full((3, 4), 0.5, sys.argv[2]), 'b': np.array([7, -2, 5], sys.argv[2])}, sys.argv[1])" %t.i8.safetensors int8
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%t.i8.safetensors | FileCheck %s --check-prefixes=CHECK,MATRIX0
// RUN: %python -c "import sys, numpy as np; from safetensors.numpy import save_file; save_file({'w': np.full((3, 4), 0.5, sys.argv[2]), 'b': np.array([7, -2, 5], sys.argv[2])}, sys.argv[1])" %t.f64.safetensors float64
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%t.f64.safetensors | FileCheck %s --check-prefixes=CHECK,HALVES
// RUN: %python -c "import sys, numpy as np; from safetensors.numpy import save_file; save_file({'w': np.full((3, 4), 0.5, sys.argv[2]), 'b': np.array([7, -2, 5], sys.argv[2])}, sys.argv[1])" %t.f16.safetensors float16
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial --raptor-lower-to-pim=weights=%t.f16.safetensors | FileCheck %s --check-prefixes=CHECK,HALVES

// CHECK-LABEL: pim.chip @main_chip
// CHECK-DAG:   pim.data @{{.*}} at {{[0-9]+}} dense<[7.000000e+00, -2.000000e+00, 5.000000e+00]> : tensor<3xf32>
// An integer dtype holds 0.5 as 0.
// MATRIX0-DAG: pim.weight @{{.*}} dense<0.000000e+00> : tensor<3x4xf32>
// HALVES-DAG:  pim.weight @{{.*}} dense<5.000000e-01> : tensor<3x4xf32>

func.func @main(%x: tensor<1x4xf32> {nn.input = "x"}, %w: tensor<3x4xf32> {nn.param = "w"},
                %b: tensor<3xf32> {nn.param = "b"}) -> tensor<1x3xf32> {
  %0 = nn.linear %x, %w, %b : (tensor<1x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<1x3xf32> loc("fc")
  return %0 : tensor<1x3xf32>
}
