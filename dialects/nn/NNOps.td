//===- NNOps.td - Operators of the nn dialect --------------*- tablegen -*-===//
//
// One op per aten operator. Operand names are aten's argument names (later
// passes key rules on them); the summary of each op names the aten overload
// it stands for. Result types are inferred where aten defines them, and the
// verifier reports any disagreement with the declared types.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_NN_OPS
#define RAPTOR_NN_OPS

include "dialects/nn/NNBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

// An op whose result types follow from its operands and attributes.
// Compatibility is shape compatibility: a dynamic dimension matches any size.
class NN_InferOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptorWithIsCompatible])>;

// The common textual form: operands, attributes, functional type.
defvar NN_FunctionalFormat =
    "operands attr-dict `:` functional-type(operands, results)";

//===----------------------------------------------------------------------===//
// Graph values
//===----------------------------------------------------------------------===//

def NN_ConstantOp : NN_InferOp<"constant", [ConstantLike]> {
  let summary = "A tensor constant (a weight whose data is present)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def NN_AtenOp : NN_Op<"aten"> {
  let summary = "Any aten operator without a dedicated nn op";
  let description = [{
    Keeps an operator the dialect has no typed op for, so that every model
    imports. `target` is the aten overload (`aten.sub.Tensor`), `args` the
    tensor operands in schema order, `input_ports` (optional) their aten
    argument names and `params` the non-tensor arguments.

    ```mlir
    %0 = nn.aten "aten.sub.Tensor"(%a, %b) {input_ports = ["self", "other"]}
           : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$target, Variadic<AnyType>:$args,
                       OptionalAttr<StrArrayAttr>:$input_ports,
                       OptionalAttr<DictionaryAttr>:$params);
  let results = (outs Variadic<AnyType>:$out);
  let nnVariadicResults = 1;
  let assemblyFormat =
      "$target `(` $args `)` attr-dict `:` functional-type($args, results)";
  let hasVerifier = 1;
  let nnExtraClassDeclaration = [{
    // Port names come from `input_ports` when present.
    ::llvm::StringRef getAtenName() { return getTarget(); }
    ::std::string getInputPortName(unsigned index);
    ::std::string getOutputPortName(unsigned index);
  }];
}

//===----------------------------------------------------------------------===//
// Matrix operators
//===----------------------------------------------------------------------===//

def NN_ConvolutionOp : NN_InferOp<"convolution"> {
  let summary = "N-d convolution (aten.convolution.default)";
  let nnAtenName = "aten.convolution.default";
  let description = [{
    N-d convolution (N = rank - 2) of `input` (N, C, spatial...) with
    `weight` (O, C/groups, kernel...), plus an optional per-channel `bias`.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$transposed,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_LinearOp : NN_InferOp<"linear"> {
  let summary = "Fully connected layer (aten.linear.default)";
  let nnAtenName = "aten.linear.default";
  let description = "`out = input @ weight^T + bias`; weight is (out, in).";
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_MatmulOp : NN_InferOp<"matmul"> {
  let summary = "Matrix product (aten.matmul.default, aten.mm, aten.bmm)";
  let nnAtenName = "aten.matmul.default";
  let description = "Batched matrix product with torch.matmul's broadcasting.";
  let arguments = (ins NN_FloatTensor:$self, NN_FloatTensor:$other);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_ScaledDotProductAttentionOp
    : NN_InferOp<"scaled_dot_product_attention"> {
  let summary = "Scaled dot-product attention (aten.scaled_dot_product_attention.default)";
  let nnAtenName = "aten.scaled_dot_product_attention.default";
  let description = [{
    softmax(query @ key^T * scale + mask) @ value over (..., L, E) queries and
    (..., S, E) keys. `is_causal` applies a causal mask; with `enable_gqa`
    the key/value heads (dim -3) may divide the query heads (grouped-query
    attention).
  }];
  let arguments = (ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                       NN_FloatTensor:$value, Optional<NN_Tensor>:$attn_mask,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       OptionalAttr<F64Attr>:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$enable_gqa);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

def NN_BatchNormOp : NN_InferOp<"batch_norm"> {
  let summary = "Inference batch normalization (aten._native_batch_norm_legit_no_training.default)";
  let nnAtenName = "aten._native_batch_norm_legit_no_training.default";
  let description = [{
    Inference-mode batch normalization over channel dim 1. Results: the
    normalized tensor and aten's two (empty) saved statistics.
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       NN_FloatTensor:$bias, NN_FloatTensor:$running_mean,
                       NN_FloatTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs NN_FloatTensor:$out, NN_FloatTensor:$save_mean,
                      NN_FloatTensor:$save_invstd);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_LayerNormOp : NN_InferOp<"layer_norm", [AttrSizedOperandSegments]> {
  let summary = "Layer normalization (aten.layer_norm.default)";
  let nnAtenName = "aten.layer_norm.default";
  let arguments = (ins NN_FloatTensor:$input,
                       DenseI64ArrayAttr:$normalized_shape,
                       Optional<NN_FloatTensor>:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$eps);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def NN_RMSNormOp : NN_InferOp<"rms_norm"> {
  let summary = "Root-mean-square normalization (aten.rms_norm.default)";
  let nnAtenName = "aten.rms_norm.default";
  let arguments = (ins NN_FloatTensor:$input,
                       DenseI64ArrayAttr:$normalized_shape,
                       Optional<NN_FloatTensor>:$weight,
                       OptionalAttr<F64Attr>:$eps);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = [{
    $input (`weight` $weight^)? attr-dict `:` functional-type(operands, results)
  }];
}

def NN_RotaryEmbeddingOp : NN_InferOp<"rotary_embedding"> {
  let summary = "Rotary positional embedding (xaten.rotary_positional_embeddings.default)";
  let nnAtenName = "xaten.rotary_positional_embeddings.default";
  let description = [{
    Rotary positional embedding, `input * cos + rotate_half(input) * sin`,
    where `cos` and `sin` broadcast to `input` (half-split rotation over the
    last dimension, as in Llama).

    With `head_dim`, the last dimension of `input` packs heads of
    `head_dim` features each (a projection's output before the head split,
    as fused rotary kernels take it): every head is rotated on its own, and
    `cos` and `sin` broadcast to the input with its last dimension replaced
    by `head_dim`.

    ```mlir
    %q = nn.rotary_embedding %x, %cos, %sin {head_dim = 64 : i64}
           : (tensor<1x128x576xf32>, tensor<1x128x64xf32>, tensor<1x128x64xf32>)
             -> tensor<1x128x576xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$cos,
                       NN_FloatTensor:$sin,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$head_dim);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

//===----------------------------------------------------------------------===//
// Element-wise operators
//===----------------------------------------------------------------------===//

// aten's Tensor overloads take a tensor or a Python scalar as `other`; the
// scalar is kept as the `scalar` attribute.
class NN_BinaryOp<string mnemonic, string what, string aten,
                  dag extraArgs = (ins)>
    : NN_InferOp<mnemonic> {
  let summary = what # " (" # aten # ")";
  let nnAtenName = aten;
  let description = [{
    Element-wise with numpy broadcasting. Exactly one of the tensor `other`
    and the attribute `scalar` is present.
  }];
  let arguments = !con((ins NN_Tensor:$self, Optional<NN_Tensor>:$other,
                            OptionalAttr<AnyAttrOf<[F64Attr, I64Attr]>>:$scalar),
                       extraArgs);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = [{
    $self (`,` $other^)? (`scalar` `(` $scalar^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NN_AddOp : NN_BinaryOp<"add", "Element-wise addition", "aten.add.Tensor",
                           (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def NN_SubOp : NN_BinaryOp<"sub", "Element-wise subtraction", "aten.sub.Tensor",
                           (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def NN_MulOp : NN_BinaryOp<"mul", "Element-wise multiplication", "aten.mul.Tensor">;
def NN_DivOp : NN_BinaryOp<"div", "Element-wise division", "aten.div.Tensor">;

def NN_WhereOp : NN_InferOp<"where"> {
  let summary = "Element-wise selection (aten.where.self)";
  let nnAtenName = "aten.where.self";
  let description = [{
    `self` where the boolean `condition` holds, else `other`, the three
    broadcast with numpy's rules (T5's relative-position bias over its mask,
    a decomposed `nan_to_num`). The PIM lowering computes it at compile
    time.
  }];
  let arguments = (ins NN_Tensor:$condition, NN_Tensor:$self, NN_Tensor:$other);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

class NN_UnaryOp<string mnemonic, string what, string aten,
                 dag extraArgs = (ins)>
    : NN_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = what # " (" # aten # ")";
  let nnAtenName = aten;
  let arguments = !con((ins NN_Tensor:$self), extraArgs);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = "$self attr-dict `:` type($self)";
}

def NN_ReluOp : NN_UnaryOp<"relu", "Rectified linear unit", "aten.relu.default">;
def NN_GeluOp : NN_UnaryOp<"gelu", "Gaussian error linear unit", "aten.gelu.default",
    (ins DefaultValuedAttr<StrAttr, "\"none\"">:$approximate)> {
  let hasVerifier = 1;
}
def NN_SiluOp : NN_UnaryOp<"silu", "Sigmoid linear unit", "aten.silu.default">;
def NN_SigmoidOp : NN_UnaryOp<"sigmoid", "Logistic sigmoid", "aten.sigmoid.default">;
def NN_TanhOp : NN_UnaryOp<"tanh", "Hyperbolic tangent", "aten.tanh.default">;
def NN_NegOp : NN_UnaryOp<"neg", "Negation", "aten.neg.default">;
def NN_RsqrtOp : NN_UnaryOp<"rsqrt", "Reciprocal square root", "aten.rsqrt.default">;
def NN_ExpOp : NN_UnaryOp<"exp", "Exponential", "aten.exp.default"> {
  let description = [{
    pimsim-nn's ISA has no exponential: the compiler computes it when its
    operand is known (Swin V2's clamped `logit_scale`, a weight); on
    activations (Mamba's discretized state matrix) it is the extension
    instruction `pim.ext.vexp`, so an integer-only program refuses it.
  }];
}
def NN_Log1pOp : NN_UnaryOp<"log1p", "log(1 + x)", "aten.log1p.default"> {
  let description = [{
    softplus (Mamba's step sizes, after torch's or Raptor's decomposition)
    on activations: the extension instruction `pim.ext.vlog1p`.
  }];
}
def NN_CloneOp : NN_UnaryOp<"clone", "Copy", "aten.clone.default">;
// Rotary tables a model computes from a persistent buffer (ESM): the
// compiler computes them; the PIM lowering has no cosine or sine.
def NN_CosOp : NN_UnaryOp<"cos", "Cosine", "aten.cos.default">;
def NN_SinOp : NN_UnaryOp<"sin", "Sine", "aten.sin.default">;
def NN_HardtanhOp : NN_UnaryOp<"hardtanh", "Clamp to [min_val, max_val] (ReLU6 is 0, 6)",
    "aten.hardtanh.default",
    (ins DefaultValuedAttr<F64Attr, "-1.0">:$min_val, DefaultValuedAttr<F64Attr, "1.0">:$max_val)> {
  let hasVerifier = 1;
}
def NN_ClampOp : NN_UnaryOp<"clamp", "Clamp to [min, max], either bound optional", "aten.clamp.default",
    (ins OptionalAttr<F64Attr>:$min, OptionalAttr<F64Attr>:$max)> {
  let hasVerifier = 1;
}
def NN_AliasOp : NN_UnaryOp<"alias", "The same tensor under another name (a view)",
    "aten.alias.default">;
def NN_PowOp : NN_UnaryOp<"pow", "Power by a scalar exponent", "aten.pow.Tensor_Scalar",
    (ins F64Attr:$exponent)> {
  let hasVerifier = 1;
}
def NN_NanToNumOp : NN_UnaryOp<"nan_to_num", "Replace NaN (and, when given, infinities)",
    "aten.nan_to_num.default",
    (ins DefaultValuedAttr<F64Attr, "0.0">:$nan, OptionalAttr<F64Attr>:$posinf,
         OptionalAttr<F64Attr>:$neginf)> {
  let description = [{
    NaN becomes `nan`; +inf and -inf become `posinf` and `neginf`, or, when
    absent, the element type's largest and lowest finite values (aten's
    defaults). `posinf = inf, neginf = -inf` replaces NaN only (the NaN
    guard ONNX exporters write after a softmax).
  }];
  let hasVerifier = 1;
}
def NN_SoftmaxOp : NN_UnaryOp<"softmax", "Softmax", "aten._softmax.default",
    (ins I64Attr:$dim, DefaultValuedAttr<BoolAttr, "false">:$half_to_float)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and pooling
//===----------------------------------------------------------------------===//

def NN_MeanOp : NN_InferOp<"mean"> {
  let summary = "Mean reduction (aten.mean.dim)";
  let nnAtenName = "aten.mean.dim";
  let description = "Mean over `dim` (all dimensions when absent).";
  let arguments = (ins NN_FloatTensor:$self,
                       OptionalAttr<DenseI64ArrayAttr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_AmaxOp : NN_InferOp<"amax"> {
  let summary = "Maximum reduction (aten.amax.default; the values of aten.max.dim)";
  let nnAtenName = "aten.amax.default";
  let description = [{
    Maximum over `dim` (all dimensions when absent), keeping them as size 1
    with `keepdim`. `raptor-normalize-row-ops` computes it as a max pooling.
  }];
  let arguments = (ins NN_FloatTensor:$self,
                       OptionalAttr<DenseI64ArrayAttr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_MaxPool2dOp : NN_InferOp<"max_pool2d"> {
  let summary = "2-d max pooling (aten.max_pool2d_with_indices.default)";
  let nnAtenName = "aten.max_pool2d_with_indices.default";
  let description = "2-d max pooling; results are the pooled values and indices.";
  let arguments = (ins NN_FloatTensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs NN_FloatTensor:$out, NN_IntTensor:$indices);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_AvgPool2dOp : NN_InferOp<"avg_pool2d"> {
  let summary = "2-d average pooling (aten.avg_pool2d.default)";
  let nnAtenName = "aten.avg_pool2d.default";
  let description = [{
    The mean of each window; with `count_include_pad` padded positions count
    (as zeros), and `divisor_override` replaces the element count.
  }];
  let arguments = (ins NN_FloatTensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$stride,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor_override);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_AdaptiveAvgPool2dOp : NN_InferOp<"adaptive_avg_pool2d"> {
  let summary = "2-d adaptive average pooling (aten._adaptive_avg_pool2d.default)";
  let nnAtenName = "aten._adaptive_avg_pool2d.default";
  let description = [{
    Averages (N, C, H, W) to (N, C, output_size): output cell i covers input
    rows floor(i H / oh) to ceil((i + 1) H / oh).
  }];
  let arguments = (ins NN_FloatTensor:$self, DenseI64ArrayAttr:$output_size);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_UpsampleNearest2dOp : NN_InferOp<"upsample_nearest2d"> {
  let summary = "Nearest-neighbour upsampling (aten.upsample_nearest2d.vec)";
  let nnAtenName = "aten.upsample_nearest2d.vec";
  let description = "Nearest upsampling of (N, C, H, W) to `output_size` or by `scale_factors`.";
  let arguments = (ins NN_Tensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$output_size,
                       OptionalAttr<DenseF64ArrayAttr>:$scale_factors);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

//===----------------------------------------------------------------------===//
// Data layout and routing
//===----------------------------------------------------------------------===//

def NN_CatOp : NN_InferOp<"cat"> {
  let summary = "Concatenation (aten.cat.default)";
  let nnAtenName = "aten.cat.default";
  let arguments = (ins Variadic<NN_Tensor>:$tensors,
                       DefaultValuedAttr<I64Attr, "0">:$dim);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_SplitWithSizesOp : NN_InferOp<"split_with_sizes"> {
  let summary = "Split into pieces of given sizes (aten.split_with_sizes.default)";
  let nnAtenName = "aten.split_with_sizes.default";
  let arguments = (ins NN_Tensor:$self, DenseI64ArrayAttr:$split_sizes,
                       DefaultValuedAttr<I64Attr, "0">:$dim);
  let results = (outs Variadic<NN_Tensor>:$out);
  let nnVariadicResults = 1;
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_SliceOp : NN_InferOp<"slice"> {
  let summary = "Strided slice along one dimension (aten.slice.Tensor)";
  let nnAtenName = "aten.slice.Tensor";
  let description = "`self[start:end:step]` along `dim` (Python slice bounds).";
  let arguments = (ins NN_Tensor:$self, DefaultValuedAttr<I64Attr, "0">:$dim,
                       OptionalAttr<I64Attr>:$start, OptionalAttr<I64Attr>:$end,
                       DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_SelectOp : NN_InferOp<"select"> {
  let summary = "One position of a dimension, which is dropped (aten.select.int)";
  let nnAtenName = "aten.select.int";
  let description = [{
    `self[..., index, ...]` along `dim`: the result has one dimension fewer.
    A negative `index` counts from the end, as in Python.

    ```mlir
    %cls = nn.select %x {dim = 1, index = 0} : (tensor<1x197x768xf32>) -> tensor<1x768xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$self, I64Attr:$dim, I64Attr:$index);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_IndexSelectOp : NN_InferOp<"index_select"> {
  let summary = "Positions of a dimension picked by a 1-d index tensor (aten.index_select.default)";
  let nnAtenName = "aten.index_select.default";
  let description = [{
    Gathers the entries `index[i]` of `self` along `dim`; the result's `dim`
    has the index tensor's length. `index` is a 0-d or 1-d integer tensor,
    usually an `nn.constant`.
  }];
  let arguments = (ins NN_Tensor:$self, I64Attr:$dim, NN_IntTensor:$index);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_IndexOp : NN_InferOp<"index"> {
  let summary = "Advanced indexing of the leading dimensions (aten.index.Tensor)";
  let nnAtenName = "aten.index.Tensor";
  let description = [{
    `self[indices[0], ..., indices[k-1]]`: the k integer index tensors index
    dimensions 0 to k-1 of `self` and broadcast together; the result's shape
    is their broadcast shape followed by the remaining dimensions of `self`.
    (An aten call with an unindexed dimension before an indexed one stays
    generic.)
  }];
  let arguments = (ins NN_Tensor:$self, Variadic<NN_IntTensor>:$indices);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_AsStridedOp : NN_InferOp<"as_strided"> {
  let summary = "A strided view of a contiguous tensor (aten.as_strided.default)";
  let nnAtenName = "aten.as_strided.default";
  let description = [{
    Reads `self` as its row-major (contiguous) element sequence: result
    element (i0, ..., in) is element `storage_offset + sum(ik * stride[k])` of
    that sequence. Only plain views are valid: every element read lies
    inside `self`, sizes and strides are non-negative. (The importer emits
    this op only for a contiguous `self` at offset 0, where this is aten's
    meaning.)
  }];
  let arguments = (ins NN_Tensor:$self, DenseI64ArrayAttr:$size,
                       DenseI64ArrayAttr:$stride,
                       DefaultValuedAttr<I64Attr, "0">:$storage_offset);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_ViewOp : NN_InferOp<"view"> {
  let summary = "Reshape (aten.view.default, reshape, unsqueeze, squeeze)";
  let nnAtenName = "aten.view.default";
  let description = "Reshape to `size`; one entry may be -1.";
  let arguments = (ins NN_Tensor:$self, DenseI64ArrayAttr:$size);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_PermuteOp : NN_InferOp<"permute"> {
  let summary = "Dimension permutation (aten.permute.default)";
  let nnAtenName = "aten.permute.default";
  let arguments = (ins NN_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_ExpandOp : NN_InferOp<"expand"> {
  let summary = "Broadcast to a larger shape (aten.expand.default)";
  let nnAtenName = "aten.expand.default";
  let description = "Broadcast to `size`; -1 keeps a dimension.";
  let arguments = (ins NN_Tensor:$self, DenseI64ArrayAttr:$size);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_ConstantPadNdOp : NN_InferOp<"constant_pad_nd"> {
  let summary = "Constant padding (aten.constant_pad_nd.default)";
  let nnAtenName = "aten.constant_pad_nd.default";
  let description = [{
    Pads with `value`; `pad` lists (before, after) pairs from the last
    dimension backwards, as torch.nn.functional.pad does.
  }];
  let arguments = (ins NN_Tensor:$self, DenseI64ArrayAttr:$pad,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_EmbeddingOp : NN_InferOp<"embedding"> {
  let summary = "Embedding lookup (aten.embedding.default)";
  let nnAtenName = "aten.embedding.default";
  let description = "Rows of `weight` (num, dim) gathered by integer `indices`.";
  let arguments = (ins NN_FloatTensor:$weight, NN_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "-1">:$padding_idx);
  let results = (outs NN_FloatTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_TokenPositionsOp : NN_Op<"token_positions", [Pure]> {
  let summary = "Position ids numbered over the tokens that are not padding (xaten.token_positions.default)";
  let nnAtenName = "xaten.token_positions.default";
  let description = [{
    RoBERTa's position ids, derived from its token ids at run time
    (transformers' `create_position_ids_from_input_ids`): along the last
    dimension, the tokens other than `padding_idx` are numbered from
    `base + offset + 1` on, and padding holds `base`, which is
    `padding_idx` unless given:

    ```
    mask = ids != padding_idx
    out = (cumsum(mask, dim = -1) + offset) * mask + base
    ```

    OPT numbers its positions so from its attention mask of 0s and 1s
    (`cumsum(mask) * mask - 1`, then its table's offset of 2): ids are the
    mask, `padding_idx` 0 and `base` 1; Bloom's ALiBi positions,
    `(cumsum(mask) - 1) * mask`, have `offset` -1 (the least: no position
    is below the base).

    `raptor-fold-token-arithmetic` finds this computation among the generic
    `nn.aten` ops it is imported as; the PIM lowering computes it with
    integer vector instructions.

    ```mlir
    %pos = nn.token_positions %ids {padding_idx = 1 : i64} : (tensor<1x12xi64>) -> tensor<1x12xi64>
    ```

    The result has the shape of the ids, in any integer type.
  }];
  let arguments = (ins NN_IntTensor:$ids, I64Attr:$padding_idx,
                       DefaultValuedAttr<I64Attr, "0">:$offset,
                       OptionalAttr<I64Attr>:$base);
  let results = (outs NN_IntTensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
  let hasVerifier = 1;
  let nnExtraClassDeclaration = [{
    /// The value padding holds, added to every position: `base`, else
    /// `padding_idx`.
    int64_t getStart() { return getBase().value_or(getPaddingIdx()); }
  }];
}

def NN_LastTokenOp : NN_Op<"last_token", [Pure]> {
  let summary = "The rows at each sequence's last token that is not padding (xaten.last_token.default)";
  let nnAtenName = "xaten.last_token.default";
  let description = [{
    transformers' sequence classifiers (GPT-2, LLaMA, Mistral, Qwen2, ...)
    score every position and keep the last one that is not padding:

    ```
    last[b] = argmax_i(i * (ids[b, i] != padding_idx))   (0 if all padding)
    out[b, ...] = input[b, last[b], ...]
    ```

    With `counted`, the position is the count of ids that are not padding,
    less one, as MBart's and PLBart's decoder start token (the ids' last
    before right padding, wherever padding lies) is picked:

    ```
    last[b] = max(0, sum_i(ids[b, i] != padding_idx) - 1)
    ```

    (torch's gather raises on -1 for a row of padding alone; here it is 0.)
    `input` is (B, L, ...), `ids` (B, L); the result is (B, ...).
    `raptor-fold-token-arithmetic` finds this among the generic `nn.aten`
    ops it is imported as (an `nn.index` by an `aten.argmax`; with
    `counted`, an `aten.gather` of the ids at the count, looked up in an
    embedding); the PIM lowering computes the position with integer vector
    instructions and copies the row at an address it computes.

    ```mlir
    %y = nn.last_token %logits, %ids {padding_idx = 0 : i64} : (tensor<1x12x3xf32>, tensor<1x12xi64>) -> tensor<1x3xf32>
    %s = nn.last_token %rows, %ids {padding_idx = 1 : i64, counted} : (tensor<1x12x64xf32>, tensor<1x12xi64>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins NN_Tensor:$input, NN_IntTensor:$ids, I64Attr:$padding_idx, UnitAttr:$counted);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Decoder-specific operators
//===----------------------------------------------------------------------===//

def NN_KVCacheOp : NN_InferOp<"kv_cache"> {
  let summary = "KV-cache update (xaten.kv_cache.default)";
  let nnAtenName = "xaten.kv_cache.default";
  let description = [{
    KV-cache update: appends this step's `key` and `value` (B, H, S, D) to a
    cache holding `past_length` earlier positions along dim -2 and returns
    the full keys and values (B, H, past_length + S, D).
  }];
  let arguments = (ins NN_FloatTensor:$key, NN_FloatTensor:$value,
                       DefaultValuedAttr<I64Attr, "0">:$past_length);
  let results = (outs NN_FloatTensor:$keys, NN_FloatTensor:$values);
  let assemblyFormat = NN_FunctionalFormat;
}

def NN_FanOutOp : NN_InferOp<"fan_out"> {
  let summary = "KV-head fan-out (xaten.fan_out.Tensor)";
  let nnAtenName = "xaten.fan_out.Tensor";
  let description = [{
    Head fan-out for grouped-query attention: repeats each of the KV heads
    (dim `dim` of `input`) `repeats` times, as Llama's repeat_kv does.
  }];
  let arguments = (ins NN_Tensor:$input, I64Attr:$repeats,
                       DefaultValuedAttr<I64Attr, "1">:$dim);
  let results = (outs NN_Tensor:$out);
  let assemblyFormat = NN_FunctionalFormat;
}

#endif // RAPTOR_NN_OPS
