// Operators on the vector unit, each a few layout-driven kernels: one
// instruction per contiguous run, loops for the rest. Constants broadcast
// over the run are laid out along it (the per-channel bias becomes a
// 64-element vector), so an activation or a broadcasting add over the
// whole channels-last tensor is one instruction.
// RUN: %raptor-opt %s --mlir-print-elementsattrs-with-hex-if-larger=4096 --raptor-build-compute-graph=target=%S/Inputs/tiny.json --raptor-schedule-spatial --raptor-lower-to-pim | FileCheck %s

// CHECK-DAG:  pim.data @[[BIAS:.*]] at [[BA:[0-9]+]] dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 1.000000e+00, {{.*}}]> : tensor<64xf32>
// CHECK-DAG:  pim.data @{{.*}} at {{[0-9]+}} dense<[{{(0\.000000e\+00, ){64}(-1\.000000e\+00, ){64}(-6\.000000e\+00, ){63}-6\.000000e\+00}}]> : tensor<192xf32>
// CHECK-DAG:  pim.data @{{.*}} at {{[0-9]+}} dense<2.500000e-01> : tensor<4xf32>
// A depthwise identity convolution makes the input channels-last.
// CHECK:      pim.vvmul [[X:r[0-9]+]], {{r[0-9]+}}, {{r[0-9]+}} len 64 : f32
// relu: one instruction.
// CHECK-NEXT: pim.vrelu [[A:r[0-9]+]], [[X]] len 64 : f32
// The bias add reads the laid-out bias from global memory.
// CHECK-NEXT: pim.sldi r1, [[BA]]
// CHECK-NEXT: pim.sldi [[B:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT: pim.ld [[B]], r0 size 256
// CHECK-NEXT: pim.vvadd [[S:r[0-9]+]], [[A]], [[B]] len 64 : f32
// hardtanh(0, 6) = -max(-max(x, 0), -6): two maxima, two negations.
// CHECK:      pim.vvmax [[H:r[0-9]+]], [[S]], {{r[0-9]+}} len 64 : f32
// CHECK:      pim.vvmul [[H]], [[H]], {{r[0-9]+}} len 64 : f32
// CHECK:      pim.vvmax [[H]], [[H]], {{r[0-9]+}} len 64 : f32
// CHECK:      pim.vvmul [[H]], [[H]], {{r[0-9]+}} len 64 : f32
// Max pooling 2x2/2: the first tap copied, three maxima, per output
// position (4 channels contiguous).
// CHECK:      pim.repeat 2 [{{r[0-9]+}} += 32, {{r[0-9]+}} += 128]
// CHECK-NEXT:   pim.repeat 2 [{{r[0-9]+}} += 16, {{r[0-9]+}} += 32]
// CHECK-NEXT:     pim.lmv {{r[0-9]+}}, {{r[0-9]+}} len 16
// CHECK-COUNT-3: pim.vvmax {{r[0-9]+}}, {{r[0-9]+}}, {{r[0-9]+}} len 4 : f32
// The mean over (H, W): zeroed, four positions accumulated, scaled by 1/4.
// CHECK:      pim.lldi [[M:r[0-9]+]], 0 len 16
// CHECK:      pim.repeat 4 [{{r[0-9]+}} += 16]
// CHECK-NEXT:   pim.vvadd [[ACC:r[0-9]+]], [[ACC]], {{r[0-9]+}} len 4 : f32
// CHECK-NEXT: }
// CHECK:      pim.vvmul [[OUT:r[0-9]+]], [[OUT]], {{r[0-9]+}} len 4 : f32
// CHECK:      pim.st r0, [[OUT]] size 16

func.func @main(%in: tensor<1x4x4x4xf32> {nn.input = "x"}) -> tensor<1x4xf32> {
  %w = nn.constant dense<1.0> : tensor<4x1x1x1xf32>
  %x = nn.convolution %in, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x4x4xf32> loc("identity")
  %bias = nn.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %0 = nn.relu %x : tensor<1x4x4x4xf32> loc("relu")
  %1 = nn.add %0, %bias : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32> loc("add")
  %2 = nn.hardtanh %1 {min_val = 0.0 : f64, max_val = 6.0 : f64} : tensor<1x4x4x4xf32> loc("relu6")
  %3, %i = nn.max_pool2d %2 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xi64>) loc("pool")
  %4 = nn.mean %3 {dim = array<i64: 2, 3>} : (tensor<1x4x2x2xf32>) -> tensor<1x4xf32> loc("mean")
  return %4 : tensor<1x4xf32>
}
