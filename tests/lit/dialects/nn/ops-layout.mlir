// Round-trip of the data layout and routing operators: cat,
// split_with_sizes, slice, view, permute, expand, constant_pad_nd and
// embedding. Declared result types are checked by shape inference.
// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s
// RUN: %raptor-opt %s --mlir-print-op-generic | %raptor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// cat
//===----------------------------------------------------------------------===//

// The default dim 0 is elided.
// CHECK-LABEL: func.func @cat
// CHECK: nn.cat %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK: nn.cat %arg0, %arg2, %arg0 {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
// CHECK: nn.cat %arg2 {dim = 1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
func.func @cat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x5xf32>) -> (tensor<6x3xf32>, tensor<2x11xf32>, tensor<2x5xf32>) {
  %0 = nn.cat %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %1 = nn.cat %a, %c, %a {dim = -1} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  %2 = nn.cat %c {dim = 1} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1, %2 : tensor<6x3xf32>, tensor<2x11xf32>, tensor<2x5xf32>
}

// A dynamic size along dim makes the sum dynamic; other dims stay compatible.
// CHECK-LABEL: func.func @cat_dynamic
// CHECK: nn.cat %arg0, %arg1 : (tensor<?x3xi64>, tensor<4x3xi64>) -> tensor<?x3xi64>
// CHECK: nn.cat %arg2, %arg3 : (tensor<2x?xi64>, tensor<2x5xi64>) -> tensor<4x?xi64>
func.func @cat_dynamic(%a: tensor<?x3xi64>, %b: tensor<4x3xi64>, %c: tensor<2x?xi64>, %d: tensor<2x5xi64>)
    -> (tensor<?x3xi64>, tensor<4x?xi64>) {
  %0 = nn.cat %a, %b : (tensor<?x3xi64>, tensor<4x3xi64>) -> tensor<?x3xi64>
  %1 = nn.cat %c, %d : (tensor<2x?xi64>, tensor<2x5xi64>) -> tensor<4x?xi64>
  return %0, %1 : tensor<?x3xi64>, tensor<4x?xi64>
}

//===----------------------------------------------------------------------===//
// split_with_sizes
//===----------------------------------------------------------------------===//

// A variadic result list, one result per size.
// CHECK-LABEL: func.func @split_with_sizes
// CHECK: %[[S:.*]]:2 = nn.split_with_sizes %arg0 {split_sizes = array<i64: 3, 7>} : (tensor<10x4xf32>) -> (tensor<3x4xf32>, tensor<7x4xf32>)
// CHECK: %[[T:.*]]:3 = nn.split_with_sizes %arg1 {dim = -1 : i64, split_sizes = array<i64: 2, 2, 4>} : (tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>)
// CHECK: return %[[S]]#0, %[[S]]#1, %[[T]]#2 :
func.func @split_with_sizes(%x: tensor<10x4xf32>, %y: tensor<2x8xf32>) -> (tensor<3x4xf32>, tensor<7x4xf32>, tensor<2x4xf32>) {
  %0:2 = nn.split_with_sizes %x {split_sizes = array<i64: 3, 7>} : (tensor<10x4xf32>) -> (tensor<3x4xf32>, tensor<7x4xf32>)
  %1:3 = nn.split_with_sizes %y {split_sizes = array<i64: 2, 2, 4>, dim = -1} : (tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>)
  return %0#0, %0#1, %1#2 : tensor<3x4xf32>, tensor<7x4xf32>, tensor<2x4xf32>
}

// A single piece, an empty piece, and a dynamic split dimension.
// CHECK-LABEL: func.func @split_with_sizes_edge
// CHECK: nn.split_with_sizes %arg0 {dim = 1 : i64, split_sizes = array<i64: 4>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: nn.split_with_sizes %arg0 {dim = 1 : i64, split_sizes = array<i64: 0, 4>} : (tensor<2x4xf32>) -> (tensor<2x0xf32>, tensor<2x4xf32>)
// CHECK: nn.split_with_sizes %arg1 {split_sizes = array<i64: 3, 5>} : (tensor<?x4xf32>) -> (tensor<3x4xf32>, tensor<5x4xf32>)
func.func @split_with_sizes_edge(%x: tensor<2x4xf32>, %d: tensor<?x4xf32>) {
  %0 = nn.split_with_sizes %x {split_sizes = array<i64: 4>, dim = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1:2 = nn.split_with_sizes %x {split_sizes = array<i64: 0, 4>, dim = 1} : (tensor<2x4xf32>) -> (tensor<2x0xf32>, tensor<2x4xf32>)
  %2:2 = nn.split_with_sizes %d {split_sizes = array<i64: 3, 5>} : (tensor<?x4xf32>) -> (tensor<3x4xf32>, tensor<5x4xf32>)
  return
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// Python slice bounds: negative bounds count from the end, omitted bounds are
// the ends of the dimension, and bounds clamp to [0, size].
// CHECK-LABEL: func.func @slice
// CHECK: nn.slice %arg0 {dim = 1 : i64, end = 8 : i64, start = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x6xf32>
// CHECK: nn.slice %arg0 {dim = 1 : i64, start = -3 : i64} : (tensor<2x10xf32>) -> tensor<2x3xf32>
// CHECK: nn.slice %arg0 {dim = -1 : i64, end = -1 : i64} : (tensor<2x10xf32>) -> tensor<2x9xf32>
// CHECK: nn.slice %arg0 {dim = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
// CHECK: nn.slice %arg0 {dim = 1 : i64, end = 9223372036854775807 : i64, start = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x8xf32>
// CHECK: nn.slice %arg0 {dim = 1 : i64, end = 5 : i64, start = -100 : i64} : (tensor<2x10xf32>) -> tensor<2x5xf32>
// CHECK: nn.slice %arg0 {dim = 1 : i64, end = 3 : i64, start = 7 : i64} : (tensor<2x10xf32>) -> tensor<2x0xf32>
// CHECK: nn.slice %arg0 {end = 1 : i64} : (tensor<2x10xf32>) -> tensor<1x10xf32>
func.func @slice(%x: tensor<2x10xf32>) {
  %0 = nn.slice %x {dim = 1, start = 2, end = 8} : (tensor<2x10xf32>) -> tensor<2x6xf32>
  %1 = nn.slice %x {dim = 1, start = -3} : (tensor<2x10xf32>) -> tensor<2x3xf32>
  %2 = nn.slice %x {dim = -1, end = -1} : (tensor<2x10xf32>) -> tensor<2x9xf32>
  %3 = nn.slice %x {dim = 1, step = 1} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  // torch.export writes x[:, 2:] with end = INT64_MAX.
  %4 = nn.slice %x {dim = 1, start = 2, end = 9223372036854775807} : (tensor<2x10xf32>) -> tensor<2x8xf32>
  %5 = nn.slice %x {dim = 1, start = -100, end = 5} : (tensor<2x10xf32>) -> tensor<2x5xf32>
  %6 = nn.slice %x {dim = 1, start = 7, end = 3} : (tensor<2x10xf32>) -> tensor<2x0xf32>
  %7 = nn.slice %x {dim = 0, end = 1} : (tensor<2x10xf32>) -> tensor<1x10xf32>
  return
}

// Steps round up: [1:10:3] keeps 1, 4, 7; [::2] of 10 keeps 5.
// CHECK-LABEL: func.func @slice_step
// CHECK: nn.slice %arg0 {dim = 1 : i64, end = 10 : i64, start = 1 : i64, step = 3 : i64} : (tensor<2x10xf32>) -> tensor<2x3xf32>
// CHECK: nn.slice %arg0 {dim = 1 : i64, step = 2 : i64} : (tensor<2x10xf32>) -> tensor<2x5xf32>
// CHECK: nn.slice %arg1 {dim = 1 : i64, end = 4 : i64, start = 1 : i64, step = 2 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
func.func @slice_step(%x: tensor<2x10xf32>, %d: tensor<2x?xf32>) {
  %0 = nn.slice %x {dim = 1, start = 1, end = 10, step = 3} : (tensor<2x10xf32>) -> tensor<2x3xf32>
  %1 = nn.slice %x {dim = 1, step = 2} : (tensor<2x10xf32>) -> tensor<2x5xf32>
  // A dynamic dimension stays dynamic.
  %2 = nn.slice %d {dim = 1, start = 1, end = 4, step = 2} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

//===----------------------------------------------------------------------===//
// view
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @view
// CHECK: nn.view %arg0 {size = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: nn.view %arg0 {size = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: nn.view %arg0 {size = array<i64: 2, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK: nn.view %arg0 {size = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK: nn.view %arg0 {size = array<i64: 1, 2, 3, 1, 4>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x1x4xf32>
func.func @view(%x: tensor<2x3x4xf32>) {
  %0 = nn.view %x {size = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = nn.view %x {size = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %2 = nn.view %x {size = array<i64: 2, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %3 = nn.view %x {size = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %4 = nn.view %x {size = array<i64: 1, 2, 3, 1, 4>} : (tensor<2x3x4xf32>) -> tensor<1x2x3x1x4xf32>
  return
}

// 0-d views; with a dynamic input, -1 becomes a dynamic size.
// CHECK-LABEL: func.func @view_edge
// CHECK: nn.view %arg0 {size = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
// CHECK: nn.view %arg1 {size = array<i64: 1>} : (tensor<f32>) -> tensor<1xf32>
// CHECK: nn.view %arg2 {size = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK: nn.view %arg2 {size = array<i64: 2, 3, 2, 4>} : (tensor<?x3x4xf32>) -> tensor<2x3x2x4xf32>
func.func @view_edge(%x: tensor<1x1xf32>, %s: tensor<f32>, %d: tensor<?x3x4xf32>) {
  %0 = nn.view %x {size = array<i64>} : (tensor<1x1xf32>) -> tensor<f32>
  %1 = nn.view %s {size = array<i64: 1>} : (tensor<f32>) -> tensor<1xf32>
  %2 = nn.view %d {size = array<i64: -1, 12>} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %3 = nn.view %d {size = array<i64: 2, 3, 2, 4>} : (tensor<?x3x4xf32>) -> tensor<2x3x2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// permute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @permute
// CHECK: nn.permute %arg0 {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK: nn.permute %arg0 {dims = array<i64: -1, -2, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK: nn.permute %arg1 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x8x64xbf16>) -> tensor<1x8x?x64xbf16>
// CHECK: nn.permute %arg2 {dims = array<i64>} : (tensor<f32>) -> tensor<f32>
func.func @permute(%x: tensor<2x3x4xf32>, %d: tensor<1x?x8x64xbf16>, %s: tensor<f32>) {
  %0 = nn.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = nn.permute %x {dims = array<i64: -1, -2, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %2 = nn.permute %d {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x?x8x64xbf16>) -> tensor<1x8x?x64xbf16>
  %3 = nn.permute %s {dims = array<i64>} : (tensor<f32>) -> tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// expand
//===----------------------------------------------------------------------===//

// -1 keeps a dimension; new leading dimensions may be added.
// CHECK-LABEL: func.func @expand
// CHECK: nn.expand %arg0 {size = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
// CHECK: nn.expand %arg0 {size = array<i64: -1, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
// CHECK: nn.expand %arg0 {size = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: nn.expand %arg0 {size = array<i64: 5, 2, -1, -1>} : (tensor<3x1xf32>) -> tensor<5x2x3x1xf32>
// CHECK: nn.expand %arg0 {size = array<i64: 3, 1>} : (tensor<3x1xf32>) -> tensor<3x1xf32>
// CHECK: nn.expand %arg1 {size = array<i64: -1, 8>} : (tensor<?x1xf32>) -> tensor<?x8xf32>
// CHECK: nn.expand %arg1 {size = array<i64: 4, 8>} : (tensor<?x1xf32>) -> tensor<4x8xf32>
// CHECK: nn.expand %arg2 {size = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
func.func @expand(%x: tensor<3x1xf32>, %d: tensor<?x1xf32>, %s: tensor<f32>) {
  %0 = nn.expand %x {size = array<i64: 3, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  %1 = nn.expand %x {size = array<i64: -1, 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  %2 = nn.expand %x {size = array<i64: 2, 3, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %3 = nn.expand %x {size = array<i64: 5, 2, -1, -1>} : (tensor<3x1xf32>) -> tensor<5x2x3x1xf32>
  %4 = nn.expand %x {size = array<i64: 3, 1>} : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %5 = nn.expand %d {size = array<i64: -1, 8>} : (tensor<?x1xf32>) -> tensor<?x8xf32>
  %6 = nn.expand %d {size = array<i64: 4, 8>} : (tensor<?x1xf32>) -> tensor<4x8xf32>
  %7 = nn.expand %s {size = array<i64: 2, 3>} : (tensor<f32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// constant_pad_nd
//===----------------------------------------------------------------------===//

// `pad` lists (before, after) pairs from the last dimension backwards.
// CHECK-LABEL: func.func @constant_pad_nd
// CHECK: nn.constant_pad_nd %arg0 {pad = array<i64: 1, 1, 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x6xf32>
// CHECK: nn.constant_pad_nd %arg0 {pad = array<i64: 0, 2>, value = 5.000000e-01 : f64} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x6xf32>
// CHECK: nn.constant_pad_nd %arg0 {pad = array<i64: -1, -1, 0, 0, 1, 0>} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK: nn.constant_pad_nd %arg0 {pad = array<i64>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK: nn.constant_pad_nd %arg1 {pad = array<i64: 1, 2, 3, 4>, value = -1.000000e+00 : f64} : (tensor<?x5xi32>) -> tensor<?x8xi32>
func.func @constant_pad_nd(%x: tensor<1x3x4x4xf32>, %d: tensor<?x5xi32>) {
  %0 = nn.constant_pad_nd %x {pad = array<i64: 1, 1, 2, 2>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x6xf32>
  %1 = nn.constant_pad_nd %x {pad = array<i64: 0, 2>, value = 0.5} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x6xf32>
  // Negative padding crops.
  %2 = nn.constant_pad_nd %x {pad = array<i64: -1, -1, 0, 0, 1, 0>, value = 0.0} : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x2xf32>
  %3 = nn.constant_pad_nd %x {pad = array<i64>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  // A dynamic dimension stays dynamic.
  %4 = nn.constant_pad_nd %d {pad = array<i64: 1, 2, 3, 4>, value = -1.0} : (tensor<?x5xi32>) -> tensor<?x8xi32>
  return
}

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

// Result: indices.shape + [embedding dim], in the weight's element type.
// CHECK-LABEL: func.func @embedding
// CHECK: nn.embedding %arg0, %arg1 : (tensor<1000x64xf32>, tensor<2x7xi64>) -> tensor<2x7x64xf32>
// CHECK: nn.embedding %arg0, %arg2 {padding_idx = 0 : i64} : (tensor<1000x64xf32>, tensor<?xi32>) -> tensor<?x64xf32>
// CHECK: nn.embedding %arg3, %arg4 : (tensor<32x16xbf16>, tensor<i64>) -> tensor<16xbf16>
func.func @embedding(%w: tensor<1000x64xf32>, %i: tensor<2x7xi64>, %j: tensor<?xi32>,
                     %wb: tensor<32x16xbf16>, %k: tensor<i64>) {
  %0 = nn.embedding %w, %i {padding_idx = -1} : (tensor<1000x64xf32>, tensor<2x7xi64>) -> tensor<2x7x64xf32>
  %1 = nn.embedding %w, %j {padding_idx = 0} : (tensor<1000x64xf32>, tensor<?xi32>) -> tensor<?x64xf32>
  %2 = nn.embedding %wb, %k : (tensor<32x16xbf16>, tensor<i64>) -> tensor<16xbf16>
  return
}
