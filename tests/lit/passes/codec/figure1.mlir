// The seed's Figure 1: two reshapes feed a concatenate; the right one also
// feeds a downstream reshape. Policy W (views and cat use INT8 operands).
// RUN: %raptor-opt %s --raptor-insert-codec-markers --raptor-assign-codec-semantics --raptor-induce-codec-subgraphs | FileCheck %s --check-prefix=SUB
// RUN: %raptor-opt %s --raptor-insert-codec-markers --raptor-assign-codec-semantics --raptor-coalesce-codec-subgraphs | FileCheck %s --check-prefix=MERGE
// RUN: %raptor-opt %s --raptor-place-codecs | FileCheck %s --check-prefix=CODEC
// RUN: %raptor-opt %s --raptor-place-codecs=placement=nonlocal | FileCheck %s --check-prefix=NOMERGE

// Subgraphs: P1/P2 (fp32, from the inputs), Q1 (R1), Q2 (R2 and R3, which
// fans out), K (the concatenate), and the two fp32 output edges.
// SUB:      %[[MO1:.*]] = codec.mark_output %arg0 {{.*}} edges(<[[P1:[0-9]+]] : f32 -> f32>, <[[P1]] : f32 -> f32>)
// SUB:      %[[MO2:.*]] = codec.mark_output %arg1 {{.*}} edges(<[[P2:[0-9]+]] : f32 -> f32>, <[[P2]] : f32 -> f32>)
// SUB:      codec.mark_input %[[MO1]] {{.*}} edges(<[[P1]] : f32 -> f32>, <[[Q1:[0-9]+]] : f32 -> i8>) {codec.dominator_of = array<i64: [[P1]]>}
// SUB:      nn.view
// SUB:      codec.mark_output {{.*}} edges(<[[Q1]] : f32 -> i8>, <[[Q1]] : f32 -> i8>) :
// SUB:      codec.mark_input %[[MO2]] {{.*}} edges(<[[P2]] : f32 -> f32>, <[[Q2:[0-9]+]] : f32 -> i8>) {codec.dominator_of = array<i64: [[P2]]>}
// SUB:      nn.view
// Q2's absolute dominator is the fan-out point, R2's output marker.
// SUB:      codec.mark_output {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[Q2]] : f32 -> i8>) {codec.dominator_of = array<i64: [[Q2]]>}
// The concatenate saw two colours and starts its own, K.
// SUB:      codec.mark_input {{.*}} edges(<[[Q1]] : f32 -> i8>, <[[K:[0-9]+]] : f32 -> i8>) {codec.dominator_of = array<i64: [[Q1]]>}
// SUB:      codec.mark_input {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[K]] : f32 -> i8>) :
// SUB:      nn.cat
// SUB:      codec.mark_output {{.*}} edges(<[[K]] : f32 -> i8>, <[[K]] : f32 -> i8>) :
// SUB:      codec.mark_input {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[Q2]] : f32 -> i8>) :
// SUB:      nn.view
// SUB:      codec.mark_output {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[Q2]] : f32 -> i8>) :
// K's absolute dominator: the last node on every entry-exit path.
// SUB:      codec.mark_input {{.*}} edges(<[[K]] : f32 -> i8>, <[[O1:[0-9]+]] : f32 -> f32>) {codec.dominator_of = array<i64: [[K]]>}
// SUB:      codec.mark_input {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[O2:[0-9]+]] : f32 -> f32>) :
// SUB:      return {codec.dominator_of = array<i64: [[O1]], [[O2]]>}

// The one merge: Q1 into K (Q2 fans out to two subgraphs and stays).
// MERGE:     codec.mark_input {{.*}} edges(<{{[0-9]+}} : f32 -> f32>, <[[K:[0-9]+]] : f32 -> i8>) {codec.dominator_of
// MERGE-NEXT: nn.view
// MERGE-NEXT: codec.mark_output {{.*}} edges(<[[K]] : f32 -> i8>, <[[K]] : f32 -> i8>) :
// MERGE:      codec.mark_output {{.*}} edges(<[[Q2:[0-9]+]] : f32 -> i8>, <[[Q2]] : f32 -> i8>) {codec.dominator_of = array<i64: [[Q2]]>}
// R1's marker in front of the concatenate is now inside K.
// MERGE-NEXT: codec.mark_input {{.*}} edges(<[[K]] : f32 -> i8>, <[[K]] : f32 -> i8>) :
// MERGE-NEXT: codec.mark_input {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[K]] : f32 -> i8>) :
// MERGE-NEXT: nn.cat
// MERGE-NEXT: codec.mark_output {{.*}} edges(<[[K]] : f32 -> i8>, <[[K]] : f32 -> i8>) :
// MERGE-NEXT: codec.mark_input {{.*}} edges(<[[Q2]] : f32 -> i8>, <[[Q2]] : f32 -> i8>) :
// MERGE:      codec.mark_input {{.*}} edges(<[[K]] : f32 -> i8>, <{{[0-9]+}} : f32 -> f32>) {codec.dominator_of = array<i64: [[K]]>}

// Target view after the merge: R1's data is encoded once with K's codec;
// R2's is requantized into K (one codec, codes to codes) and decoded for the output.
// CODEC-LABEL: func.func @figure1
// CODEC:       %[[E1:.*]] = codec.encode %arg0 to <[[K:[0-9]+]] : f32 -> i8>
// CODEC-NEXT:  %[[V1:.*]] = nn.view %[[E1]]
// CODEC-NEXT:  %[[E2:.*]] = codec.encode %arg1 to <[[Q2:[0-9]+]] : f32 -> i8>
// CODEC-NEXT:  %[[V2:.*]] = nn.view %[[E2]]
// CODEC-NEXT:  %[[OBS:.*]] = codec.observe %[[V2]] for <[[Q2]] : f32 -> i8>
// CODEC-NEXT:  %[[R2:.*]] = codec.requantize %[[OBS]] from <[[Q2]] : f32 -> i8> to <[[K]] : f32 -> i8>
// CODEC-NEXT:  %[[C:.*]] = nn.cat %[[V1]], %[[R2]]
// CODEC-NEXT:  %[[V3:.*]] = nn.view %[[OBS]]
// CODEC-NEXT:  %[[OC:.*]] = codec.observe %[[C]] for <[[K]] : f32 -> i8>
// CODEC-NEXT:  %[[DC:.*]] = codec.decode %[[OC]] from <[[K]] : f32 -> i8>
// CODEC-NEXT:  %[[D3:.*]] = codec.decode %[[V3]] from <[[Q2]] : f32 -> i8>
// CODEC-NEXT:  return %[[DC]], %[[D3]]

// Without coalescing R1's data is requantized into K as well.
// NOMERGE:      %[[RA:.*]] = codec.requantize %{{.*}} from <[[A:[0-9]+]] : f32 -> i8> to <[[CAT:[0-9]+]] : f32 -> i8> : tensor<16xf32>
// NOMERGE-NEXT: %[[RB:.*]] = codec.requantize %{{.*}} from <[[B:[0-9]+]] : f32 -> i8> to <[[CAT]] : f32 -> i8> : tensor<16xf32>
// NOMERGE-NEXT: nn.cat %[[RA]], %[[RB]]

func.func @figure1(%x1: tensor<2x8xf32> {nn.input = "x1"}, %x2: tensor<2x8xf32> {nn.input = "x2"})
    -> (tensor<32xf32>, tensor<16xf32>) {
  %r1 = nn.view %x1 {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %r2 = nn.view %x2 {size = array<i64: 16>} : (tensor<2x8xf32>) -> tensor<16xf32>
  %c = nn.cat %r1, %r2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %r3 = nn.view %r2 {size = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  return %c, %r3 : tensor<32xf32>, tensor<16xf32>
}
