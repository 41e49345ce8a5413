// A rotation of split heads (view, then the sequence and head axes
// swapped) moves onto the projection's output with head_dim set; tables
// lose their head axis (the view that added it goes when unread).
// RUN: %raptor-opt %s --raptor-pack-rotary-heads | FileCheck %s
// RUN: %raptor-opt %s --raptor-pack-rotary-heads --raptor-pack-rotary-heads | FileCheck %s

// CHECK-LABEL: func.func @llama
// CHECK-NOT:  nn.view %arg2
// CHECK:      %[[Q:.*]] = nn.rotary_embedding %arg0, %arg2, %arg3 {head_dim = 8 : i64} : (tensor<1x5x32xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>) -> tensor<1x5x32xf32>
// CHECK-NEXT: %[[QV:.*]] = nn.view %[[Q]] {size = array<i64: 1, 5, -1, 8>} : (tensor<1x5x32xf32>) -> tensor<1x5x4x8xf32>
// CHECK-NEXT: %[[QP:.*]] = nn.permute %[[QV]] {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x4x5x8xf32>
// CHECK-NEXT: %[[K:.*]] = nn.rotary_embedding %arg1, %arg2, %arg3 {head_dim = 8 : i64} : (tensor<1x5x16xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>) -> tensor<1x5x16xf32>
// CHECK-NEXT: %[[KV:.*]] = nn.view %[[K]]
// CHECK-NEXT: %[[KP:.*]] = nn.permute %[[KV]]
// CHECK-NEXT: return %[[QP]], %[[KP]]
func.func @llama(%q: tensor<1x5x32xf32> {nn.input = "q"}, %k: tensor<1x5x16xf32> {nn.input = "k"},
                 %cos: tensor<1x5x8xf32> {nn.input = "cos"}, %sin: tensor<1x5x8xf32> {nn.input = "sin"})
    -> (tensor<1x4x5x8xf32>, tensor<1x2x5x8xf32>) {
  %qv = nn.view %q {size = array<i64: 1, 5, -1, 8>} : (tensor<1x5x32xf32>) -> tensor<1x5x4x8xf32>
  %qp = nn.permute %qv {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x4x5x8xf32>
  %kv = nn.view %k {size = array<i64: 1, 5, -1, 8>} : (tensor<1x5x16xf32>) -> tensor<1x5x2x8xf32>
  %kp = nn.permute %kv {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x2x8xf32>) -> tensor<1x2x5x8xf32>
  %c = nn.view %cos {size = array<i64: 1, 1, 5, 8>} : (tensor<1x5x8xf32>) -> tensor<1x1x5x8xf32>
  %s = nn.view %sin {size = array<i64: 1, 1, 5, 8>} : (tensor<1x5x8xf32>) -> tensor<1x1x5x8xf32>
  %rq = nn.rotary_embedding %qp, %c, %s : (tensor<1x4x5x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>) -> tensor<1x4x5x8xf32>
  %rk = nn.rotary_embedding %kp, %c, %s : (tensor<1x2x5x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>) -> tensor<1x2x5x8xf32>
  return %rq, %rk : tensor<1x4x5x8xf32>, tensor<1x2x5x8xf32>
}

// Tables given with their head axis get a view without it; tables of
// rank 2 already broadcast to one head.
// CHECK-LABEL: func.func @tables
// CHECK:      %[[C:.*]] = nn.view %arg1 {size = array<i64: 1, 5, 8>} : (tensor<1x1x5x8xf32>) -> tensor<1x5x8xf32>
// CHECK-NEXT: nn.rotary_embedding %arg0, %[[C]], %arg2 {head_dim = 8 : i64} : (tensor<1x5x32xf32>, tensor<1x5x8xf32>, tensor<5x8xf32>) -> tensor<1x5x32xf32>
func.func @tables(%q: tensor<1x5x32xf32> {nn.input = "q"}, %cos: tensor<1x1x5x8xf32> {nn.input = "cos"},
                  %sin: tensor<5x8xf32> {nn.input = "sin"}) -> tensor<1x4x5x8xf32> {
  %qv = nn.view %q {size = array<i64: 1, 5, 4, 8>} : (tensor<1x5x32xf32>) -> tensor<1x5x4x8xf32>
  %qp = nn.permute %qv {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x4x5x8xf32>
  %r = nn.rotary_embedding %qp, %cos, %sin : (tensor<1x4x5x8xf32>, tensor<1x1x5x8xf32>, tensor<5x8xf32>) -> tensor<1x4x5x8xf32>
  return %r : tensor<1x4x5x8xf32>
}

// Left alone: tables that differ between heads, a split read by something
// else, a permutation other than the sequence/head swap, a view that does
// not split the last dimension.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:  head_dim
// CHECK:      return
func.func @unchanged(%q: tensor<1x5x32xf32> {nn.input = "q"}, %t: tensor<1x4x5x8xf32> {nn.input = "t"},
                     %c: tensor<1x1x5x8xf32> {nn.input = "c"}, %m: tensor<1x20x8xf32> {nn.input = "m"},
                     %d: tensor<5x1x8xf32> {nn.input = "d"})
    -> (tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>, tensor<1x5x4x8xf32>, tensor<1x4x5x8xf32>) {
  %v = nn.view %q {size = array<i64: 1, 5, 4, 8>} : (tensor<1x5x32xf32>) -> tensor<1x5x4x8xf32>
  %p = nn.permute %v {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x4x5x8xf32>
  %per_head = nn.rotary_embedding %p, %t, %t : (tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>) -> tensor<1x4x5x8xf32>
  %v2 = nn.view %q {size = array<i64: 1, 5, 4, 8>} : (tensor<1x5x32xf32>) -> tensor<1x5x4x8xf32>
  %p2 = nn.permute %v2 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x4x5x8xf32>
  %shared = nn.rotary_embedding %p2, %c, %c : (tensor<1x4x5x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>) -> tensor<1x4x5x8xf32>
  %v3 = nn.view %q {size = array<i64: 1, 5, 4, 8>} : (tensor<1x5x32xf32>) -> tensor<1x5x4x8xf32>
  %p3 = nn.permute %v3 {dims = array<i64: 0, 1, 2, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x5x4x8xf32>
  %r3 = nn.rotary_embedding %p3, %d, %d : (tensor<1x5x4x8xf32>, tensor<5x1x8xf32>, tensor<5x1x8xf32>) -> tensor<1x5x4x8xf32>
  %v4 = nn.view %m {size = array<i64: 1, 5, 4, 8>} : (tensor<1x20x8xf32>) -> tensor<1x5x4x8xf32>
  %p4 = nn.permute %v4 {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x8xf32>) -> tensor<1x4x5x8xf32>
  %r4 = nn.rotary_embedding %p4, %c, %c : (tensor<1x4x5x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>) -> tensor<1x4x5x8xf32>
  return %per_head, %shared, %p2, %r3, %r4 : tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>, tensor<1x5x4x8xf32>, tensor<1x4x5x8xf32>
}

// Heads of no features are no split to pack (found by review: the packed
// rotation's head_dim would be 0).
// CHECK-LABEL: func.func @empty_heads
// CHECK-NOT:  head_dim
// CHECK:      return
func.func @empty_heads(%q: tensor<1x5x0xf32> {nn.input = "q"}, %c: tensor<1x1x5x0xf32> {nn.input = "c"}) -> tensor<1x4x5x0xf32> {
  %v = nn.view %q {size = array<i64: 1, 5, 4, 0>} : (tensor<1x5x0xf32>) -> tensor<1x5x4x0xf32>
  %p = nn.permute %v {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x5x4x0xf32>) -> tensor<1x4x5x0xf32>
  %r = nn.rotary_embedding %p, %c, %c : (tensor<1x4x5x0xf32>, tensor<1x1x5x0xf32>, tensor<1x1x5x0xf32>) -> tensor<1x4x5x0xf32>
  return %r : tensor<1x4x5x0xf32>
}
