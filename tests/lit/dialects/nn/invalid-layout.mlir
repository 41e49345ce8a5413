// Shape-inference diagnostics of the data layout and routing operators:
// cat, split_with_sizes, slice, view, permute, expand, constant_pad_nd and
// embedding.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

func.func @cat_no_operands() {
  // expected-error @+2 {{cat needs at least one tensor}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat : () -> tensor<2x3xf32>
  return
}

// -----

func.func @cat_dim_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat %a, %a {dim = 2} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @cat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+2 {{cat operands must share rank and element type: 'tensor<2x3xf32>' vs 'tensor<2x3x1xf32>'}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat %a, %b : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{cat operands must share rank and element type: 'tensor<2x3xf32>' vs 'tensor<2x3xf16>'}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_other_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{cat operands differ in dim 1: 'tensor<2x3xf32>' vs 'tensor<2x4xf32>'}}
  // expected-error @+1 {{'nn.cat' op failed to infer returned types}}
  %0 = nn.cat %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @split_dim_range(%x: tensor<10x4xf32>) {
  // expected-error @+2 {{dim -3 is out of range for rank 2}}
  // expected-error @+1 {{'nn.split_with_sizes' op failed to infer returned types}}
  %0:2 = nn.split_with_sizes %x {split_sizes = array<i64: 5, 5>, dim = -3} : (tensor<10x4xf32>) -> (tensor<5x4xf32>, tensor<5x4xf32>)
  return
}

// -----

func.func @split_negative_size(%x: tensor<10x4xf32>) {
  // expected-error @+2 {{split sizes must be non-negative}}
  // expected-error @+1 {{'nn.split_with_sizes' op failed to infer returned types}}
  %0:2 = nn.split_with_sizes %x {split_sizes = array<i64: 12, -2>} : (tensor<10x4xf32>) -> (tensor<10x4xf32>, tensor<0x4xf32>)
  return
}

// -----

// The message names the normalized dimension.
func.func @split_sum(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{split sizes sum to 6 but dim 1 has size 8}}
  // expected-error @+1 {{'nn.split_with_sizes' op failed to infer returned types}}
  %0:2 = nn.split_with_sizes %x {split_sizes = array<i64: 3, 3>, dim = -1} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// -----

func.func @split_result_count(%x: tensor<10x4xf32>) {
  // expected-error @+2 {{'nn.split_with_sizes' op inferred type(s) 'tensor<3x4xf32>', 'tensor<7x4xf32>' are incompatible with return type(s) of operation 'tensor<10x4xf32>'}}
  // expected-error @+1 {{'nn.split_with_sizes' op failed to infer returned types}}
  %0 = nn.split_with_sizes %x {split_sizes = array<i64: 3, 7>} : (tensor<10x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @slice_dim_range(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{dim 2 is out of range for rank 2}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %x {dim = 2, start = 1} : (tensor<2x10xf32>) -> tensor<2x9xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{slice step must be positive, got 0}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %x {dim = 1, step = 0} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @slice_negative_step(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{slice step must be positive, got -1}}
  // expected-error @+1 {{'nn.slice' op failed to infer returned types}}
  %0 = nn.slice %x {dim = 1, step = -1} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  return
}

// -----

func.func @view_two_inferred(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{only one dimension of size may be -1}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @view_invalid_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{invalid view size -2}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: -2, 12>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return
}

// -----

func.func @view_not_divisible(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot view 'tensor<2x3x4xf32>' as [5, -1]}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: 5, -1>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return
}

// -----

// -1 next to a 0 size is ambiguous.
func.func @view_inferred_with_zero(%x: tensor<0x4xf32>) {
  // expected-error @+2 {{cannot view 'tensor<0x4xf32>' as [0, -1]}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: 0, -1>} : (tensor<0x4xf32>) -> tensor<0x4xf32>
  return
}

// -----

func.func @view_element_count(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{cannot view 'tensor<2x3x4xf32>' (24 elements) as [5, 5] (25 elements)}}
  // expected-error @+1 {{'nn.view' op failed to infer returned types}}
  %0 = nn.view %x {size = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return
}

// -----

func.func @permute_rank(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{permutation [1, 0] does not match rank 3}}
  // expected-error @+1 {{'nn.permute' op failed to infer returned types}}
  %0 = nn.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @permute_dim_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{dim 3 is out of range for rank 3}}
  // expected-error @+1 {{'nn.permute' op failed to infer returned types}}
  %0 = nn.permute %x {dims = array<i64: 0, 1, 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// -1 and 2 name the same dimension.
func.func @permute_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{[2, 0, -1] is not a permutation}}
  // expected-error @+1 {{'nn.permute' op failed to infer returned types}}
  %0 = nn.permute %x {dims = array<i64: 2, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<4x2x4xf32>
  return
}

// -----

func.func @permute_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'nn.permute' op inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x4x2xf32>'}}
  // expected-error @+1 {{'nn.permute' op failed to infer returned types}}
  %0 = nn.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @expand_fewer_dims(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{expand size [4] has fewer dims than 'tensor<3x1xf32>'}}
  // expected-error @+1 {{'nn.expand' op failed to infer returned types}}
  %0 = nn.expand %x {size = array<i64: 4>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @expand_new_dim_inferred(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{-1 is not allowed for a new leading dimension}}
  // expected-error @+1 {{'nn.expand' op failed to infer returned types}}
  %0 = nn.expand %x {size = array<i64: -1, 3, 4>} : (tensor<3x1xf32>) -> tensor<1x3x4xf32>
  return
}

// -----

func.func @expand_non_singleton(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{cannot expand dim 0 of size 3 to 4}}
  // expected-error @+1 {{'nn.expand' op failed to infer returned types}}
  %0 = nn.expand %x {size = array<i64: 4, 4>} : (tensor<3x1xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @pad_odd(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad must hold (before, after) pairs for at most 2 dims, got [1, 1, 1]}}
  // expected-error @+1 {{'nn.constant_pad_nd' op failed to infer returned types}}
  %0 = nn.constant_pad_nd %x {pad = array<i64: 1, 1, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @pad_too_many_dims(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{pad must hold (before, after) pairs for at most 2 dims, got [0, 0, 0, 0, 1, 1]}}
  // expected-error @+1 {{'nn.constant_pad_nd' op failed to infer returned types}}
  %0 = nn.constant_pad_nd %x {pad = array<i64: 0, 0, 0, 0, 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_negative_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{padding makes dim 1 negative}}
  // expected-error @+1 {{'nn.constant_pad_nd' op failed to infer returned types}}
  %0 = nn.constant_pad_nd %x {pad = array<i64: -2, -2>} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return
}

// -----

func.func @embedding_weight_rank(%w: tensor<10xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{embedding weight must be 2-d, got 'tensor<10xf32>'}}
  // expected-error @+1 {{'nn.embedding' op failed to infer returned types}}
  %0 = nn.embedding %w, %i : (tensor<10xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @embedding_float_indices(%w: tensor<10x4xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{'nn.embedding' op operand #1 must be ranked tensor of signless integer values, but got 'tensor<4xf32>'}}
  %0 = nn.embedding %w, %i : (tensor<10x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return
}
