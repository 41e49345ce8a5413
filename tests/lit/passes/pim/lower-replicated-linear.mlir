// Copies of a linear layer's lane (replicate=time on the 4-core test chip)
// each compute a range of the token rows and receive only those rows of
// their input: one row of 8 floats, 32 bytes, never the whole 6 x 8 = 192
// bytes (a copy of ViT's query projection had received all 197 tokens to
// compute 8 of them, 3x the model's latency). By rendezvous, so that the
// bytes are the receive's.
// RUN: %raptor-opt %s --raptor-build-compute-graph="target=%S/Inputs/tiny.json replicate=time replication-budget=1" --raptor-schedule-spatial="transfers=rendezvous" --raptor-lower-to-pim | FileCheck %s

// CHECK:      spatial.task "r#0" {{.*}}core = [[R:[0-9]+]] : i64
// CHECK:      spatial.task "b#0@1" {{.*}}core = [[B1:[0-9]+]] : i64{{.*}}rows = array<i64: 1, 2>
// CHECK-NOT:  {{(send|recv) .* size 192}}
// CHECK:      pim.core [[B1]]
// CHECK:        pim.recv {{r[0-9]+}} from [[R]] size 32
// CHECK-NOT:  {{(send|recv) .* size 192}}

func.func @main(%x: tensor<1x6x8xf32> {nn.input = "x"}) -> tensor<1x6x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8xf32>
  %v = nn.constant dense<0.25> : tensor<8x8xf32>
  %0 = nn.linear %x, %w : (tensor<1x6x8xf32>, tensor<8x8xf32>) -> tensor<1x6x8xf32> loc("a")
  %1 = nn.relu %0 : tensor<1x6x8xf32> loc("r")
  %2 = nn.linear %1, %v : (tensor<1x6x8xf32>, tensor<8x8xf32>) -> tensor<1x6x8xf32> loc("b")
  return %2 : tensor<1x6x8xf32>
}
