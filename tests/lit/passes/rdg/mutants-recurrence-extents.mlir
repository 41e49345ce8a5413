// The extents of the derived systems, from the ops' shapes by the rules of
// DeriveRecurrences.cpp's header: a convolution's (O, H, W) are its output
// channels, height and width, (C, R, S) its input channels, kernel height
// and kernel width (weight O x C x R x S); a linear layer's M is the number
// of rows of its input, every dimension but the last (2 x 3 = 6 here), N its
// output features, K its input features. Non-square kernels and a 3-d
// input tell apart what the square and 2-d cases of derive-recurrences.mlir
// cannot (hand-made C++ mutants of 2026-12-06, docs/mutation.md: R and S
// swapped, M taken from the first dimension).
// RUN: %raptor-opt %s --raptor-derive-recurrences | FileCheck %s

// CHECK: sure.system @convolution_0 indices ["o", "h", "w", "c", "r", "s"] parameters ["O", "H", "W", "C", "R", "S"] values [4, 4, 6, 2, 3, 2]
// CHECK: sure.system @linear_1 indices ["i", "j", "k"] parameters ["M", "N", "K"] values [6, 7, 5]
// CHECK: sure.system @matmul_2 indices ["i", "j", "k"] parameters ["M", "N", "K"] values [3, 2, 9]

func.func @extents(%x: tensor<1x2x6x7xf32>, %w: tensor<4x2x3x2xf32>, %l: tensor<2x3x5xf32>, %lw: tensor<7x5xf32>,
                   %a: tensor<3x9xf32>, %b: tensor<9x2xf32>) {
  // 6 - 3 + 1 = 4 rows, 7 - 2 + 1 = 6 columns.
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x2x6x7xf32>, tensor<4x2x3x2xf32>) -> tensor<1x4x4x6xf32>
  %1 = nn.linear %l, %lw : (tensor<2x3x5xf32>, tensor<7x5xf32>) -> tensor<2x3x7xf32>
  %2 = nn.matmul %a, %b : (tensor<3x9xf32>, tensor<9x2xf32>) -> tensor<3x2xf32>
  return
}
