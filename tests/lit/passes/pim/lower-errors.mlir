// Inputs the PIM lowering refuses, each with a diagnostic at the operator.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-build-compute-graph=target=%S/Inputs/tiny-memory.json --raptor-schedule-spatial --raptor-lower-to-pim -o /dev/null

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  // expected-error @+1 {{aten.hardswish.default has no PIM lowering (the importer kept it as the generic nn.aten op)}}
  %0 = nn.aten "aten.hardswish.default"(%x) {input_ports = ["self"]} : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// 1024 floats do not fit a 2 KiB local memory.
func.func @main(%x: tensor<1x1024xf32> {nn.input = "x"}) -> tensor<1x1024xf32> {
  // expected-error @+1 {{task 'relu#0' on core 0: core 0 needs 4096 more bytes of local memory (0 of 2048 in use); choose a target with more local memory (memory.local_bytes)}}
  %0 = nn.relu %x : tensor<1x1024xf32>
  return %0 : tensor<1x1024xf32>
}

// -----

// expected-error @+1 {{weight 'fc.weight' has no data: give the compiler a weights file (weights=FILE.safetensors)}}
func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}, %w: tensor<4x8xf32> {nn.param = "fc.weight"}) -> tensor<1x4xf32> {
  %0 = nn.linear %x, %w : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @main(%x: tensor<1x2x2x2xf32> {nn.input = "x"}, %mean: tensor<2xf32> {nn.input = "m"}) -> tensor<1x2x2x2xf32> {
  %g = nn.constant dense<1.0> : tensor<2xf32>
  // Statistics computed at run time: not an inference norm to fold.
  // expected-error @+1 {{reaches the PIM lowering: run raptor-fold-batch-norm first}}
  %out, %m, %v = nn.batch_norm %x, %g, %g, %mean, %g : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<0xf32>, tensor<0xf32>)
  return %out : tensor<1x2x2x2xf32>
}

// -----

func.func @main(%x: tensor<1x1x1x8xf32> {nn.input = "x"}) -> tensor<1x1x5x8xf32> {
  // expected-error @+1 {{with past_length > 0 needs the cache contents as model inputs}}
  %k, %v = nn.kv_cache %x, %x {past_length = 4 : i64} : (tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>) -> (tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>)
  %0 = nn.relu %k : tensor<1x1x5x8xf32>
  return %0 : tensor<1x1x5x8xf32>
}

// -----

// Packed heads come from the codec paper's graph conventions only.
func.func @main(%x: tensor<1x4x16xf32> {nn.input = "x"}, %c: tensor<1x4x8xf32> {nn.input = "c"}) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{over packed heads (head_dim) is not lowered to PIM programs; compile the graph without the codec paper's conventions}}
  %0 = nn.rotary_embedding %x, %c, %c {head_dim = 8 : i64} : (tensor<1x4x16xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x16xf32>
  return %0 : tensor<1x4x16xf32>
}

// -----

// A batch of 2 reaches the lowering when raptor-fold-batch-into-channels
// (a step of raptor-prepare-model) did not run.
func.func @main(%x: tensor<2x2x4x4xf32> {nn.input = "x"}) -> tensor<2x2x2x2xf32> {
  // expected-error @+1 {{the PIM lowering supports 2-d pooling of batch 1 (raptor-fold-batch-into-channels folds a batch into channels)}}
  %out, %idx = nn.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x2x4x4xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x2x2x2xi64>)
  return %out : tensor<2x2x2x2xf32>
}
