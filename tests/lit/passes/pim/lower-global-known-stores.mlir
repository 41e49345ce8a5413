// Latency mode's transfers through global memory, signals decided at the
// read (spatial::EventRegisters): a producer stores its output after its
// work, and each reader is signalled only when it reads, unless its vector
// clock shows the store done already. The two lanes of `fc` (cores 0 and 1)
// are read by the ReLU (core 2), which waits for both signals; the add
// (core 3) waits for the ReLU's signal only, which left core 2 after those
// waits: it loads the lanes' partial sums at once, and no lane signals
// core 3 (no event register of core 3 is taken for them). The schedule
// puts every task on the lanes' cores; sed moves the ReLU and the add.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json --raptor-schedule-spatial=transfers=global \
// RUN:   | sed -e 's/\(spatial.task "relu#0".*core = \)[0-9]*/\12/' -e 's/\(spatial.task "add#0".*core = \)[0-9]*/\13/' \
// RUN:   | %raptor-opt --raptor-lower-to-pim | FileCheck %s

// CHECK:       pim.core 0
// CHECK:         pim.mvmul
// CHECK:         pim.st r0, {{r[0-9]+}} size 32
// CHECK-NEXT:    pim.sync 2 event [[E0:[0-9]+]]
// CHECK-NOT:     pim.sync
// CHECK:       pim.core 1
// CHECK:         pim.st r0, {{r[0-9]+}} size 32
// CHECK-NEXT:    pim.sync 2 event [[E1:[0-9]+]]
// CHECK-NOT:     pim.sync
// CHECK:       pim.core 2
// CHECK:         pim.wait event [[E0]] value 1
// CHECK:         pim.ld {{r[0-9]+}}, r0 size 32
// CHECK:         pim.wait event [[E1]] value 1
// CHECK:         pim.ld {{r[0-9]+}}, r0 size 32
// CHECK:         pim.vrelu
// CHECK:         pim.st r0, {{r[0-9]+}} size 32
// CHECK-NEXT:    pim.sync 3 event [[E2:[0-9]+]]
// CHECK:       pim.core 3
// CHECK-NOT:     pim.ld
// CHECK:         pim.wait event [[E2]] value 1
// CHECK-NOT:     pim.wait
// CHECK:         pim.ld {{r[0-9]+}}, r0 size 32
// CHECK-NOT:     pim.wait
// CHECK:         pim.ld {{r[0-9]+}}, r0 size 32
// CHECK-NOT:     pim.wait
// CHECK:         pim.ld {{r[0-9]+}}, r0 size 32
// CHECK-NOT:     pim.wait
// CHECK:         pim.vvadd

func.func @main(%x: tensor<1x12xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x12xf32>
  %0 = nn.linear %x, %w : (tensor<1x12xf32>, tensor<8x12xf32>) -> tensor<1x8xf32> loc("fc")
  %1 = nn.relu %0 : tensor<1x8xf32> loc("relu")
  %2 = nn.add %1, %0 : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32> loc("add")
  return %2 : tensor<1x8xf32>
}
