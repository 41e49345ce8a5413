// The text summary's table: names left-justified to 40 columns, counts
// right-justified to 8 (make mutate's survivors, docs/mutation.md).
// RUN: %raptor-opt %s --raptor-summarize-graph -o /dev/null | FileCheck %s --strict-whitespace

// CHECK:      graph @f: 2 ops, 0 weights (0 elements, 0.00 MiB fp32), 0 constants (0 bytes)
// CHECK-NEXT: {{^}}  input  x : tensor<2xf32>{{$}}
// CHECK-NEXT: {{^}}  output out0 : tensor<2xf32>{{$}}
// CHECK-NEXT: {{^}}  operator                                   count{{$}}
// CHECK-NEXT: {{^}}  nn.relu                                        2{{$}}

func.func @f(%x: tensor<2xf32> {nn.input = "x"}) -> tensor<2xf32> {
  %0 = nn.relu %x : tensor<2xf32>
  %1 = nn.relu %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
