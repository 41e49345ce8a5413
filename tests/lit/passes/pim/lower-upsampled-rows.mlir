// An upsampled map read in row blocks: each piece of the source (a row
// block of `a`, 4 rows of 4 x 2 floats) is upsampled where it is, and a
// block of `b`, whose padded rows start at an odd upsampled row, receives
// runs of source rows: 2 rows (64 bytes) for the aligned run and 1 row (32
// bytes) for each row peeled off its ends, never 100 bytes or more: not the
// upsampled rows (320 or 960 bytes) of a map gathered on the view's core
// first, which had put U-Net's decoder behind one core per upsampling
// (int8 simulated 1319 ms, now 891).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/tiny.json replicate=none row-block=4" --raptor-schedule-spatial=transfers=rendezvous --raptor-lower-to-pim | FileCheck %s

// CHECK:      spatial.task "a#0/0" {{.*}}core = [[A:[0-9]+]] : i64
// CHECK:      spatial.task "b#0/0" {{.*}}core = [[B:[0-9]+]] : i64
// CHECK-NOT:  {{(send|recv) .* size [0-9]{3,} tag}}
// CHECK:      pim.core [[B]]
// CHECK:        pim.recv {{r[0-9]+}} from [[A]] size 64 tag
// CHECK:        pim.recv {{r[0-9]+}} from [[A]] size 32 tag
// CHECK-NOT:  {{(send|recv) .* size [0-9]{3,} tag}}

func.func @main(%x: tensor<1x2x12x4xf32> {nn.input = "x"}) -> tensor<1x2x24x8xf32> {
  %w = nn.constant dense<0.5> : tensor<2x2x3x3xf32>
  %v = nn.constant dense<0.25> : tensor<2x2x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x12x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x12x4xf32> loc("a")
  %1 = nn.upsample_nearest2d %0 {output_size = array<i64: 24, 8>} : (tensor<1x2x12x4xf32>) -> tensor<1x2x24x8xf32> loc("up")
  %2 = nn.convolution %1, %v {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x24x8xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x24x8xf32> loc("b")
  return %2 : tensor<1x2x24x8xf32>
}
