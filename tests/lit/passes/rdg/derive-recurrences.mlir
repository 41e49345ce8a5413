// RUN: %raptor-opt %s --raptor-derive-recurrences | FileCheck %s
// RUN: %raptor-opt %s --raptor-derive-recurrences --raptor-extract-rdg -o /dev/null | FileCheck %s --check-prefix=RDG

// CHECK-LABEL: func.func @layers
// CHECK:       nn.convolution {{.*}} {{{.*}}sure.recurrence = @convolution_0{{.*}}}
// CHECK:       nn.matmul {{.*}} {sure.recurrence = @matmul_1}
// CHECK:       nn.linear {{.*}} {sure.recurrence = @linear_2}
// CHECK-NOT:   sure.recurrence
// CHECK:       sure.system @convolution_0 indices ["o", "h", "w", "c", "r", "s"] parameters ["O", "H", "W", "C", "R", "S"] values [3, 3, 3, 2, 3, 3]
// CHECK-COUNT-4: sure.equation "acc" where
// CHECK:       sure.system @matmul_1 indices ["i", "j", "k"] parameters ["M", "N", "K"] values [4, 5, 6]
// CHECK:       sure.system @linear_2 indices ["i", "j", "k"] parameters ["M", "N", "K"] values [4, 3, 5]

// The matmul is gemm's uniformized system: a along j, b along i, c along k.
// RDG: "operator":"matmul_1"
// RDG-SAME: "kind":"SURE","variables":["a","b","c"]
// RDG: {"from":"c","to":"c","kind":"uniform","theta":[0,0,1]
// RDG-NEXT: {"from":"a","to":"c","kind":"uniform","theta":[0,1,0]
// RDG-NEXT: {"from":"b","to":"c","kind":"uniform","theta":[1,0,0]

func.func @layers(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %a: tensor<4x6xf32>,
                  %b: tensor<6x5xf32>, %dw: tensor<2x1x3x3xf32>, %lw: tensor<3x5xf32>) {
  %0 = nn.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>}
      : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  %1 = nn.matmul %a, %b : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %2 = nn.linear %1, %lw : (tensor<4x5xf32>, tensor<3x5xf32>) -> tensor<4x3xf32>
  // Grouped (depthwise) convolutions have no recurrence here.
  %3 = nn.convolution %x, %dw {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 2 : i64}
      : (tensor<1x2x5x5xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x3x3xf32>
  return
}
