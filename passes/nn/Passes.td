//===- Passes.td - nn-to-nn transforms ---------------------*- tablegen -*-===//
//
// Rewrites of nn model graphs: batch-norm folding and the codec-placement
// paper's graph conventions.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_PASSES
#define RAPTOR_PASSES_NN_PASSES

include "mlir/Pass/PassBase.td"

def FoldBatchNorm : Pass<"raptor-fold-batch-norm", "mlir::ModuleOp"> {
  let summary = "Fold inference batch norms into the preceding convolution's weights";
  let description = [{
    An `nn.batch_norm` with weight statistics is the per-channel affine map
    `x * s + t`, `s = weight * rsqrt(running_var + eps)`,
    `t = bias - running_mean * s`. After an `nn.convolution` it is its only
    user of, it folds into that convolution (weights scaled per output
    channel, bias `b * s + t`); elsewhere it becomes an `nn.mul` and an
    `nn.add`. The weight expressions are nn ops on weights, which later
    stages compute at compile time.

    ```
    raptor-opt model.mlir --raptor-fold-batch-norm
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def FoldBatchIntoChannels : Pass<"raptor-fold-batch-into-channels", "mlir::ModuleOp"> {
  let summary = "Convolutions and poolings of a batch of N maps as one map of N x C channels";
  let description = [{
    The PIM lowering convolves and pools one map. An `nn.convolution`
    (not transposed) of a static (N, C, H, W) input with N > 1 becomes one
    convolution of the input viewed as (1, N C, H, W) in N times the
    groups, its weight and bias concatenated N times along their first
    dimension (sample n's channels meet only their own copy), its result
    viewed back to (N, O, OH, OW). `nn.max_pool2d`, `nn.avg_pool2d` and
    `nn.adaptive_avg_pool2d` pool per channel: the same views around them.
    MViTv2 pools each attention head by one depthwise convolution with the
    heads as the batch; models exported with a batch of 2 convolve both
    samples. Runs after `raptor-fold-batch-norm` (which folds into the
    convolution it finds) in the compile pipeline.

    ```
    raptor-opt model.mlir --raptor-fold-batch-into-channels
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def NormalizeRowOps : Pass<"raptor-normalize-row-ops", "mlir::ModuleOp"> {
  let summary = "Softmaxes over the last dimension, attention over (batch, heads, length, dim), maxima as pooling";
  let description = [{
    The PIM lowering normalizes rows and lowers attention of rank 4. This
    pass rewrites the other forms models write into those, between layout
    operators, with the same values:

    - `nn.softmax` over another dimension than the last (ConvBERT's span
      kernel softmaxes over its 9 offsets) becomes a permutation moving that
      dimension last, the softmax over it, and the inverse permutation.
    - `nn.scaled_dot_product_attention` of rank 5 and more (timm's NesT
      attends within blocks: (batch, heads, blocks, length, dim)) folds the
      dimensions between the batch and the rows into the heads by views;
      rank 3 gains a head dimension of 1, rank 2 a batch and a head. Keys
      and values must have the queries' leading dimensions (an error on the
      attention otherwise); a mask is padded to the queries' rank and, when
      it varies along a folded dimension, expanded over all of them first.
    - `nn.amax` (VOLO's head: the maximum over tokens) becomes a max
      pooling: the reduced dimensions moved last, the input viewed as
      (1, kept, reduced, 1), pooled by a (reduced, 1) window and viewed to
      the maximum's shape.

    Both frontends emit a model's softmaxes, attention and maxima as they
    are; the compile pipeline runs this pass first.

    ```
    raptor-opt model.mlir --raptor-normalize-row-ops
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def FoldTokenArithmetic : Pass<"raptor-fold-token-arithmetic", "mlir::ModuleOp"> {
  let summary = "Arithmetic on token ids at run time as the nn operators the back end computes";
  let description = [{
    What a model computes from its token ids reaches the graph as generic
    `nn.aten` comparisons, casts and cumulative sums, which no back end
    lowers one by one. This pass states the computations models make as
    operators:

    - RoBERTa's position ids from its padding (transformers'
      `create_position_ids_from_input_ids`, shared by XLM-R, CamemBERT,
      MPNet, Longformer, ESM):
      `(cumsum(ids != pad, -1) + offset) * (ids != pad) + pad`, through any
      integer casts, becomes `nn.token_positions %ids {padding_idx = pad,
      offset}`; integers added after the product other than `pad` are its
      `base`, an offset may be -1, and OPT's positions from its mask of 0s
      and 1s, `cumsum(mask) * mask - 1 + 2`, are `nn.token_positions %mask
      {padding_idx = 0, base = 1}` (Bloom's `(cumsum(mask) - 1) * mask`:
      offset -1); positions read as reals are the lookup of 0, 1, ..., n
      by them;
    - a gather from a compile-time tensor that holds one value (the buffer
      of zero token-type ids those models gather by their position ids)
      becomes a constant of that value;
    - a sequence classifier's pick of the last token that is not padding
      (transformers' GPT-2, LLaMA, Mistral, Qwen2... `ForSequenceClassification`):
      `x[arange(B), argmax(arange(L) * (ids != pad), -1)]`, or the ONNX
      exporter's gather of x flattened at the argmax plus `L arange(B)`,
      becomes `nn.last_token %x, %ids {padding_idx = pad}`;
    - a function of the ids (data movement, broadcasts, permutations,
      constant padding, ONNX `ScatterND` by constant indices, comparisons,
      bitwise and logical operators, casts, integer arithmetic, clamps,
      torch's floor and truncating division, remainder and fmod, ONNX Mod)
      read as embedding indices (BART's, Marian's and T5's decoder ids,
      Canine's hashed buckets) becomes slices of lookups by the ids in
      tables `embedding(W, f)` and rows of `W`, concatenated; a gather of
      such a function along the ids' length at the count of ids that are
      not padding, less one (MBart's and PLBart's decoder start token;
      torch's `gather`, ONNX's `GatherElements`), is the row of that lookup
      `nn.last_token {counted}` picks; a select by a constant condition
      takes each element from one operand; rows looked up (an embedding,
      an `index_select` of a table's rows) by RoBERTa's positions of ids
      shifted right behind a start token (M2M100's and NLLB's decoder
      positions) become the start's row and the rows of the ids' own
      positions, their offset raised by one, shifted; rows selected by the
      ids or their positions become an `nn.embedding`; one read as
      numbers (a float cast, the condition of an `nn.where` of floats, an
      operand of float arithmetic, a float cast of a sum of it: ESM's token
      dropout; through views and broadcasts) becomes an
      `nn.embedding` of a column table of the vocabulary's rows (the
      smallest embedding table the ids index), computed by the compiler
      (`TokenTables.h`);
    - an integer input read as booleans (cast to i1: transformers'
      `attention_mask.bool()`; OPT's positions), through integer
      element-wise operators, and otherwise only as reals (a cast, an
      operand of float arithmetic), is a mask
      of 0s and 1s, its tables of two rows: the keys' mask broadcast
      against every query becomes the lookup viewed and expanded (times a
      constant 0/1 triangle under a causal mask); an element-wise function
      of values at different positions (DeBERTa's pairs `m_i m_j`) read
      as numbers is the sum, over its operands' value combinations (at
      most 4 values each), of products of their indicators' lookups;
      float32 arithmetic, casts, selects and comparisons of reals are
      functions too (MPT's mask made reals and cast back to booleans), a
      chain read where it ends; and ONNX's guarded attention
      `nan_to_num(softmax(s + where(mask, 0, -inf)))` the softmax of
      `s` plus the lookup of `mask ? 0 : -FLT_MAX`, times
      `min(mean(mask) * 2S, 1)` over the S keys (torch's zero row for a
      query keeping no key; no infinity, no NaN).

    Ops the match leaves unused are erased; anything else is left as it
    was (and a compile then names it). A function that reads an embedding
    outside its table for an id of the vocabulary is an error on that
    embedding (torch would raise on that id). Both importers run it on what they
    emit (`raptor.frontend`), so that such models import strictly.

    ```
    raptor-opt model.mlir --raptor-fold-token-arithmetic
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def ExpandPowers : Pass<"raptor-expand-powers", "mlir::ModuleOp"> {
  let summary = "Small whole powers as products, quotients by square roots as products by reciprocal roots";
  let description = [{
    L2 norms reach the graph as powers (`x ** 2`, `sqrt(s)` as
    `nn.pow {exponent = 0.5}`), which the PIM lowering does not compute.
    This pass rewrites `nn.pow(x, 2)` as `nn.mul(x, x)` (3 and 4 as products
    too, in torch's order: GPT-2's tanh GELU cubes; whole exponents 5 to 64,
    Yoso's `** 9`, by repeated squaring), `nn.pow(x, -0.5)` as
    `nn.rsqrt(x)`, and a quotient by a
    square root, `a / sqrt(b)`, as `a * rsqrt(b)`, also when the root is
    clamped below (`F.normalize`'s `norm.clamp_min(eps)`, as
    `rsqrt(clamp(b, min = eps^2))`: the root is monotone) or broadcast by
    `nn.expand` on its way to the quotient. A root computed at run time
    that is not a divisor (ConvNeXt V2's global response norm) becomes
    `1 / rsqrt(x)` (0 at 0: the reciprocal of infinity); a known one stays
    a power, which the compiler computes. Same values up to float rounding.

    ```
    raptor-opt model.mlir --raptor-expand-powers
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def ExpandSelects : Pass<"raptor-expand-selects", "mlir::ModuleOp"> {
  let summary = "Selections by a mask the compiler knows as products by the mask and a sum; NaN guards that guard nothing removed";
  let description = [{
    Eager attention masks its scores with `where(mask, scores, min)`, the
    mask a causal triangle sliced from a constant buffer (GPT-Neo, GPT-J,
    CodeGen), while the vector unit has no select. Each `nn.where` of f32
    values whose condition the compiler computes (from constants or weights)
    and whose operands are not both known becomes arithmetic on the mask
    `m = where(c, 1, 0)` (1 where `self` is picked): `self * m + B` when
    `other` is known, `B = where(c, 0, other)`; `other * (1 - m) + A` when
    `self` is, `A = where(c, self, 0)`; `self * m + other * (1 - m)` when
    neither is. The masks, `A` and `B` are selections of compile-time values,
    which the compiler computes as data. The result equals the
    selection for finite operands (a product by 0 of an infinity would be
    NaN); a sum of a broadcast smaller than the result is expanded to it. A
    condition computed at run time stays a where, which the PIM lowering
    refuses in one line.

    The NaN guard ONNX exporters write after a decoder's softmax
    (`Where(IsNaN(p), 0, p)`: an `nn.nan_to_num` replacing NaN only) is
    its input when the softmax is of attention scores (a matrix product of
    run-time values, scaled by constants) plus a constant mask with a
    finite value in every row along the softmax's dimension and no NaN or
    +inf (a causal triangle of 0 and -inf): for finite inputs no row is
    all -inf, so the softmax is NaN nowhere.

    ```
    raptor-opt model.mlir --raptor-expand-selects
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def ConvertWeightProducts : Pass<"raptor-convert-weight-products", "mlir::ModuleOp"> {
  let summary = "Matrix products by a weight as linear layers";
  let description = [{
    `einsum("bi,ij->bj", x, w)` and `x @ w` with a weight `w` reach the
    graph as `nn.matmul` whose right operand is computed at compile time
    (a parameter through views and permutations). Such a product, with a
    right operand of rank 2 (or rank 3 with a batch of 1), becomes
    `nn.linear(x, w^T)`: the weight expression `w^T` is computed by the
    compiler, and the layer gets crossbars (a matrix product of two
    activations stays on the vector unit) and, in int8, its INT8 variant
    under every policy that encodes linear layers. A product whose left
    operand is the weight (`w @ r`, Perceiver's learned latents against the
    inputs: rank 2, or 3 with a batch of 1) becomes the same layer on the
    transposed right operand, transposed back: `(linear(r^T, w))^T`. A
    batch of weight matrices (one per attention head, with any batch
    dimensions: ONNX keeps `(1, heads, ...)`) against a batch of
    activations becomes a layer per batch entry (slices of both, the batch
    flattened), concatenated and viewed back. Same values.

    ```
    raptor-opt model.mlir --raptor-convert-weight-products
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def MaterializePadding : Pass<"raptor-materialize-padding", "mlir::ModuleOp"> {
  let summary = "Pad explicitly before padded convolutions and max-pools";
  let description = [{
    The paper's graphs read padding as an operator of its own
    (`aten.constant_pad_nd`, a W-policy INT8 operator in Table 5) while
    torch.export folds it into convolutions and pools. This pass gives every
    padded (non-transposed) `nn.convolution` an `nn.constant_pad_nd` of
    zeros in front and every padded `nn.max_pool2d` one of -inf, and clears
    their `padding`. A pool whose output shape would change (ceil mode with
    windows that start in the padding) keeps its padding. Same values.

    ```
    raptor-opt model.mlir --raptor-materialize-padding
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def UnfuseFanOut : Pass<"raptor-unfuse-fan-out", "mlir::ModuleOp"> {
  let summary = "Expand KV-head fan-outs into view, expand, clone and view";
  let description = [{
    Undoes the importer's `repeat_kv` fusion: an `nn.fan_out` with
    `repeats` > 1 becomes Llama's own form, `view` (a unit dimension after
    `dim`), `expand`, `clone`, `view`, whose reads the paper's SmolLM2 graph
    counts. Fan-outs with `repeats` = 1 (explicit fan-out nodes) stay.

    ```
    raptor-opt model.mlir --raptor-unfuse-fan-out
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def PackRotaryHeads : Pass<"raptor-pack-rotary-heads", "mlir::ModuleOp"> {
  let summary = "Rotate a projection's output before its head split";
  let description = [{
    Llama rotates queries and keys after splitting them into heads (a
    `view`, then a `permute` of the sequence and head axes). This pass
    moves each such `nn.rotary_embedding` before the split, onto the
    projection's output, with `head_dim` set and tables without their head
    axis, as the codec-placement paper's SmolLM2 graph evidently has it (the
    layout operators are INT8 at policy W, the rotation FP32 only, so a
    rotation after them decodes and re-encodes each query and key). A split
    read by anything else, or tables that differ between heads, stay as
    they are. Same values.

    ```
    raptor-opt model.mlir --raptor-pack-rotary-heads
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

def InsertFanOut : Pass<"raptor-insert-fan-out", "mlir::ModuleOp"> {
  let summary = "An explicit fan-out node after every feature with several readers";
  let description = [{
    The paper's graphs distribute a value read by more than one operand
    through `xaten.fan_out` (Table 5: its input and output share one
    semantics, INT8 from policy X), so that one encoding can serve every
    reader, as in the paper's introduction. This pass puts an
    `nn.fan_out {repeats = 1}` (an identity) after every operator result
    and user input read by more than one operand and lets all of them read
    it. Weights (`nn.param`) and `nn.constant` data are left alone: they are
    encoded ahead of time.

    ```
    raptor-opt model.mlir --raptor-insert-fan-out
    ```
  }];
  let dependentDialects = ["::raptor::nn::NNDialect"];
}

#endif // RAPTOR_PASSES_NN_PASSES
