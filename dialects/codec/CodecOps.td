//===- CodecOps.td - Operations of the codec dialect -------*- tablegen -*-===//
#ifndef RAPTOR_CODEC_OPS
#define RAPTOR_CODEC_OPS

include "dialects/codec/CodecBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Codec_Op<string mnemonic, list<Trait> traits = []>
    : Op<Codec_Dialect, mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType])>;

// Markers: identities in the source view that delimit where codecs commute.
class Codec_MarkerOp<string mnemonic, string what> : Codec_Op<mnemonic> {
  let summary = what;
  let arguments = (ins AnyRankedTensor:$input,
                       Codec_SemanticsAttr:$port_in, Codec_SemanticsAttr:$port_out,
                       OptionalAttr<Codec_SemanticsAttr>:$edge_in,
                       OptionalAttr<Codec_SemanticsAttr>:$edge_out);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $input `ports` `(` $port_in `,` $port_out `)`
    (`edges` `(` $edge_in^ `,` $edge_out `)`)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Codec_MarkInputOp : Codec_MarkerOp<"mark_input", "Input codec marker"> {
  let description = [{
    Placed on one in-edge of an operator. `port_in` is `(id, s, s)` and
    `port_out` `(id, s, t)` for the operator's port type `(s, t)`: in the
    target view it is the encoder in front of the port. `edge_in` and
    `edge_out` are the semantics of its in- and out-edge once assigned.
  }];
}

def Codec_MarkOutputOp : Codec_MarkerOp<"mark_output", "Output codec marker"> {
  let description = [{
    Placed after one used result of an operator, taking over all its uses.
    `port_in` is `(id, s, t)` and `port_out` `(id, s, s)`: in the target
    view it is the decoder after the port.
  }];
}

def Codec_EncodeOp : Codec_Op<"encode"> {
  let summary = "Encodes data into a subgraph's target type";
  let arguments = (ins AnyRankedTensor:$input, Codec_SemanticsAttr:$semantics);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `to` $semantics attr-dict `:` type($input)";
}

def Codec_DecodeOp : Codec_Op<"decode"> {
  let summary = "Decodes data of a subgraph back to its source type";
  let arguments = (ins AnyRankedTensor:$input, Codec_SemanticsAttr:$semantics);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `from` $semantics attr-dict `:` type($input)";
}

def Codec_RequantizeOp : Codec_Op<"requantize"> {
  let summary = "Maps the codes of one subgraph to those of a compatible one";
  let description = [{
    Where two compatible encoded subgraphs (the same source and target
    types, different parameters) meet, one codec maps codes to codes: it
    reads the encoded data once. Its value is that of decoding from `from`
    and encoding to `to`; a target without such a conversion applies the
    two (`raptor-expand-requantizers`).

    ```mlir
    %1 = codec.requantize %0 from <3 : f32 -> i8> to <7 : f32 -> i8> : tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Codec_SemanticsAttr:$from,
                       Codec_SemanticsAttr:$to);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `from` $from `to` $to attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Codec_RescaleOp : Codec_Op<"rescale"> {
  let summary = "Maps an int8 matrix operator's sums to the codes of a subgraph";
  let description = [{
    The value of decoding the int32 sums of an int8 matrix operator
    (`from`), clamping it to [`min`, `max`] (a ReLU, a ReLU6, a hardtanh;
    either bound optional) and encoding the result to `to`, in one step: an
    integer-only program requantizes the sums once, by one multiplier per
    channel (the clamp is one of codes: encoding is monotone), where the
    decoder, the clamp and the encoder would requantize twice through fixed
    point. `raptor-fuse-rescales` makes them in integer-only programs.

    ```mlir
    %1 = codec.rescale %0 from <3 : f32 -> i32> to <7 : f32 -> i8> min 0.0 max 6.0 : tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Codec_SemanticsAttr:$from, Codec_SemanticsAttr:$to,
                       OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `from` $from `to` $to (`min` $min^)? (`max` $max^)? attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Codec_ObserveOp : Codec_Op<"observe"> {
  let summary = "Observation point where a subgraph's codec is calibrated";
  let description = [{
    Placed at the absolute dominator of a subgraph: all of the subgraph's
    traffic passes there, so its codec parameters are learnt from the data
    seen here. An identity on the data.
  }];
  let arguments = (ins AnyRankedTensor:$input, Codec_SemanticsAttr:$semantics);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `for` $semantics attr-dict `:` type($input)";
}

#endif // RAPTOR_CODEC_OPS
