//===- SeedTable.cpp - The seed's commutation table (Table 5) ---*- C++ -*-===//
#include "passes/codec/CommutationTable.h"

// Table 5 of shared seed 000 in the format of docs/codec.md, plus the
// selections and views of models outside the paper. The INT8
// variants keep biases and attention masks in FP32: the paper's storage
// figures count only the matrix weights at one byte.
static const char kSeedTable[] = R"(# Commutation table of the codec placement paper (Table 5).
operator aten._native_batch_norm_legit_no_training.default
operator aten.add.Tensor
operator aten.cat.default int8 X
  block tensors[*] -> out
operator aten.clone.default int8 W
  block self -> out
operator aten.constant_pad_nd.default int8 W
  block self -> out
operator aten.convolution.default int8 Y
  fp32 bias
  type out i32
operator aten.embedding.default
  block weight -> out
operator aten.expand.default int8 W
  block self -> out
operator aten.gelu.default
operator aten.layer_norm.default
operator aten.linear.default int8 Y
  fp32 bias
  type out i32
operator aten.max_pool2d_with_indices.default int8 W
  block self -> out[0]
operator aten.mean.dim
operator aten.mul.Tensor
operator aten.permute.default int8 W
  block self -> out
operator aten.relu.default
operator aten.rms_norm.default
operator aten.scaled_dot_product_attention.default int8 Y
  fp32 attn_mask
  type out i32
operator aten.silu.default
operator aten.slice.Tensor int8 W
  block self -> out
operator aten.split_with_sizes.default int8 X
  block self -> out[*]
operator aten.upsample_nearest2d.vec int8 W
  block input -> out
operator aten.view.default int8 W
  block self -> out
operator xaten.fan_out.Tensor int8 X
  block input -> out
operator xaten.kv_cache.default int8 X
  block key -> out[0]
  block value -> out[1]
operator xaten.rotary_positional_embeddings.default
# Beyond Table 5: the selections and views the frontends emit for models
# outside the paper commute with codecs as slice and view do (they move
# elements without computing on them).
operator aten.alias.default int8 W
  block self -> out
operator aten.as_strided.default int8 W
  block self -> out
operator aten.index.Tensor int8 W
  block self -> out
operator aten.index_select.default int8 W
  block self -> out
operator aten.select.int int8 W
  block self -> out
)";

llvm::StringRef raptor::codec::CommutationTable::seedText() { return kSeedTable; }
