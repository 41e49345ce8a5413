// An upsampled map is its producer's pieces, each upsampled where it is:
// the element-wise operator reading it follows the producer's row blocks
// (three blocks of 8 upsampled rows, each reading the 4 rows of one block
// of `a`), instead of one task holding the whole upsampled map (U-Net
// int8's last encoder held 18 MiB on one core that way).
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/../pim/Inputs/tiny.json replicate=none row-block=4" | FileCheck %s

// CHECK: spatial.task "a#0/0" {{.*}}rows = array<i64: 0, 4>
// CHECK: spatial.task "a#0/2" {{.*}}rows = array<i64: 8, 12>
// CHECK: spatial.task "up#0" after
// CHECK: spatial.task "r#0/0" {{.*}}rows = array<i64: 0, 8>
// CHECK: spatial.task "r#0/1" {{.*}}rows = array<i64: 8, 16>
// CHECK: spatial.task "r#0/2" {{.*}}rows = array<i64: 16, 24>
// CHECK-NOT: spatial.task "r#0"
func.func @main(%x: tensor<1x2x12x4xf32> {nn.input = "x"}) -> tensor<1x2x24x8xf32> {
  %w = nn.constant dense<0.5> : tensor<2x2x3x3xf32>
  %0 = nn.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x12x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x12x4xf32> loc("a")
  %1 = nn.upsample_nearest2d %0 {output_size = array<i64: 24, 8>} : (tensor<1x2x12x4xf32>) -> tensor<1x2x24x8xf32> loc("up")
  %2 = nn.relu %1 : tensor<1x2x24x8xf32> loc("r")
  return %2 : tensor<1x2x24x8xf32>
}
