// Pipeline mode's global crossings (spatial::Crossing::Global) on a chain
// of three operators, one per core (one 8x8 crossbar per core): the
// schedule is forced to cross through global memory, then lowered. Each
// transfer to a later stage is a store where the send would be and a load
// where the receive would be, through a region of its own; the tokens hand
// the region over: the receiver signals FREE (event 1) to its sender and
// waits READY (event 0) before its first instruction, the sender waits FREE
// before its first such store and signals READY after its last instruction.
// RUN: %raptor-opt %s --raptor-build-compute-graph=target=%S/Inputs/one-crossbar.json "--raptor-schedule-spatial=mode=pipeline depth=3" \
// RUN:   | sed -e 's/crossing = "[a-z]*"/crossing = "global"/' | %raptor-opt --raptor-lower-to-pim | FileCheck %s

// CHECK:       spatial.graph {{.*}}boundaries = true{{.*}}crossing = "global"
// CHECK:       spatial.task "fc1#0" {{.*}}core = 0
// CHECK:       spatial.task "relu#0" {{.*}}core = 2
// CHECK:       spatial.task "fc2#0" {{.*}}core = 3
// CHECK:       pim.chip @main_chip {{.*}}global_bytes = {{[0-9]+}}
// CHECK:       pim.io @out0 "output" name "out0" at [[OUT:[0-9]+]]

// fc1 (stage 0): its result stored to region A after the FREE wait, READY
// to core 2 last.
// CHECK:       pim.core 0
// CHECK-NOT:     pim.wait
// CHECK:         pim.mvmul [[Y:r[0-9]+]]
// CHECK-NEXT:    pim.vvadd [[Y]], [[Y]], {{r[0-9]+}} len 8 : f32
// CHECK-NEXT:    pim.sldi r1, [[A:[0-9]+]]
// CHECK-NEXT:    pim.wait event 1 value 1
// CHECK-NEXT:    pim.st r0, [[Y]] size 32
// CHECK-NEXT:    pim.sync 2 event 0
// CHECK-NEXT:  }

// relu (stage 1): the tokens first, region A loaded before the relu, its
// result stored to region B for core 3.
// CHECK:       pim.core 2
// CHECK-NEXT:    pim.sync 0 event 1
// CHECK-NEXT:    pim.wait event 0 value 1
// CHECK-NOT:     pim.vrelu
// CHECK:         pim.sldi r1, [[A]]
// CHECK-NEXT:    pim.sldi [[X:r[0-9]+]], 0
// CHECK-NEXT:    pim.ld [[X]], r0 size 32
// CHECK-NEXT:    pim.sldi [[R:r[0-9]+]], {{[0-9]+}}
// CHECK-NEXT:    pim.vrelu [[R]], [[X]] len 8 : f32
// CHECK-NEXT:    pim.sldi r1, [[B:[0-9]+]]
// CHECK-NEXT:    pim.wait event 1 value 1
// CHECK-NEXT:    pim.st r0, [[R]] size 32
// CHECK-NEXT:    pim.sync 3 event 0
// CHECK-NEXT:  }

// fc2 (stage 2): region B loaded before the MVM; the model output stored
// as in latency mode (no tokens for it).
// CHECK:       pim.core 3
// CHECK-NEXT:    pim.group 0
// CHECK-NEXT:    pim.sync 2 event 1
// CHECK-NEXT:    pim.wait event 0 value 1
// CHECK:         pim.sldi r1, [[B]]
// CHECK-NEXT:    pim.sldi [[I:r[0-9]+]], 0
// CHECK-NEXT:    pim.ld [[I]], r0 size 32
// CHECK:         pim.mvmul {{r[0-9]+}}, [[I]], group 0 mbiw 8
// CHECK:         pim.sldi r1, [[OUT]]
// CHECK-NEXT:    pim.st r0, {{r[0-9]+}} size 32
// CHECK-NOT:     pim.sync
// CHECK-NEXT:  }

func.func @main(%x: tensor<1x8xf32> {nn.input = "x"}) -> tensor<1x8xf32> {
  %w = nn.constant dense<0.5> : tensor<8x8xf32>
  %b = nn.constant dense<1.0> : tensor<8xf32>
  %0 = nn.linear %x, %w, %b : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc1")
  %1 = nn.relu %0 : tensor<1x8xf32> loc("relu")
  %2 = nn.linear %1, %w, %b : (tensor<1x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<1x8xf32> loc("fc2")
  return %2 : tensor<1x8xf32>
}
