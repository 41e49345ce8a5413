//===- TokenTables.h - Functions of token ids as lookups -------*- C++ -*-===//
//
// A model may compute on its token ids besides reading them as embedding
// indices: ESM zeroes the embeddings of its mask token,
// `where(ids == mask, 0, emb)`, and counts it, `sum(ids == mask)`; BART,
// Marian and T5 shift them right behind a start token into decoder ids
// (ONNX: two ScatterND), `-100` replaced by the padding. The ids index a
// vocabulary of K rows (the smallest embedding table they index). A value
// computed from them by data movement (views, slices, selections,
// concatenations, broadcasts, permutations, constant padding, clones,
// ScatterND by constant indices) and element-wise integer operators
// (comparisons, negations, bitwise and logical operators, casts, integer
// arithmetic, clamps, minimum and maximum, torch's floor and truncating
// division, remainder and fmod, ONNX Mod, selections) is, element by
// element, a function f of the id at a known
// position (a table of K entries the compiler computes) or a constant.
// One position may be computed: MBart gathers its decoder start token at
// the count of ids that are not padding, less one (torch's gather, ONNX's
// GatherElements), a function of the id there.
// Both importers run it on every imported graph
// (raptor-fold-token-arithmetic): the one implementation of token tables.
//
// Uses rewritten:
// - an embedding of such a value: in runs of positions, slices of the
//   lookup by the ids in the table W[f] (the embedding of W by f's values,
//   computed by the compiler; W for the identity) and rows of W at
//   constant indices, concatenated (an f reaching outside W for an id of
//   the vocabulary is an error: torch would raise on that id); at a
//   computed position, the row nn.last_token {counted} picks from the
//   lookup;
// - a lookup by nn.token_positions of ids shifted right behind a constant
//   start (M2M100's decoder positions): the start's row, then the lookup
//   by the ids' own positions (offset raised by one) shifted; an
//   index_select of rows by the ids or their positions, an embedding;
// - read as numbers (a float cast, a select's condition, an operand of
//   float arithmetic, which torch promotes), a function of the id at the
//   same position (its lookup m, 0 and 1 for a condition), moved by views,
//   broadcasts and permutations as the use reads it, or in runs of
//   positions (slices of lookups and constants) when positions differ:
//   its float cast becomes m;
//   nn.where(f(ids), a, b) of floats a * m + b * (1 - m), each product left
//   out where its operand is a constant zero (exact for finite a and b; a
//   constant that is not finite leaves the select as it was); the float
//   cast of a sum of it (ONNX's ReduceSum, aten's sum) the mean of m
//   times the count, as the importers state float sums (within float
//   rounding of the exact integer count: 3 mask tokens of 21 count
//   3.0000002).
// An integer input read as booleans (transformers' attention_mask.bool(),
// OPT's positions; through integer element-wise operators) and otherwise
// only as reals is a mask of 0s and 1s: its vocabulary is 2. A
// function broadcast by an element-wise op (its keys' mask against every
// query) is read as the lookup viewed and expanded, times a constant 0/1
// mask where constants hold places (a causal triangle), plus them; a
// function of values at several positions (DeBERTa's m_i m_j) as sums of
// products of the operands' indicators; positions numbered from the ids
// (nn.token_positions) as the lookup of their values by them. Reals
// computed from the ids (float32 arithmetic, casts, selects, comparisons:
// each value kept exactly, as its bits) are functions too, read where
// their chain ends (MPT casts its additive mask back to booleans); ONNX's
// nan_to_num(softmax(s + where(c, 0, -inf))) becomes the softmax of s plus
// the lookup of c ? 0 : -FLT_MAX, times min(mean(c) * 2S, 1) over the S
// keys (torch's zero row for a query keeping no key).
// Functions of the ids left without readers are erased; anything else
// computed from the ids is left as it was (and a compile names it).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_TOKENTABLES_H
#define RAPTOR_PASSES_NN_TOKENTABLES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace raptor::nn {

/// Rewrites the embeddings and float uses of functions of `func`'s token-id
/// arguments (integer arguments read as embedding indices) as lookups.
/// Fails, with an error on the embedding, when one reads outside its table
/// for an id of the vocabulary.
mlir::LogicalResult foldTokenTables(mlir::func::FuncOp func);

/// Whether the integer input `ids` is a mask of 0s and 1s, whose functions
/// are tables over those two values: read as booleans (cast to i1, as
/// transformers' `attention_mask.bool()`; positions counted where it is
/// not 0, OPT's, or by the ops of `counting`, a position match not yet
/// made), through views and integer element-wise operators (DeBERTa's
/// pairs, m_i m_j), and otherwise only as numbers (cast to reals, an
/// operand of float arithmetic). An integer input read as numbers alone is
/// none: its values are not limited to two.
bool readAsMask(mlir::Value ids, llvm::ArrayRef<mlir::Operation *> counting = {});

} // namespace raptor::nn

#endif // RAPTOR_PASSES_NN_TOKENTABLES_H
