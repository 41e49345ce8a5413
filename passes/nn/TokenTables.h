//===- TokenTables.h - Element-wise functions of ids as lookups -*- C++ -*-===//
//
// A model may compute on its token ids besides reading them as embedding
// indices: ESM zeroes the embeddings of its mask token,
// `where(ids == mask, 0, emb)`, and counts it, `sum(ids == mask)`. Such a
// value is an element-wise function f of the ids (comparisons with
// constants, integer casts, negations, views); the ids index a vocabulary
// of K rows (the smallest embedding table they index), so f is a table of
// K entries the compiler computes, and reading f(ids) as numbers is an
// embedding of that table, which the back end computes (a gather by id
// from global memory). This is the nn-level form of the torch frontend's
// token tables (python/raptor/frontend/_token_tables.py), for what the
// ONNX importer emits: the frontend runs it on every imported graph
// (raptor-fold-token-arithmetic).
//
// Uses rewritten (f's lookup is m, a tensor of 0 and 1 for a condition):
// - a float cast of f(ids): the lookup of f's values;
// - nn.where(f(ids), a, b) of floats: a * m + b * (1 - m), each product
//   left out where its operand is a constant zero (exact for finite a and
//   b; a constant that is not finite leaves the select as it was);
// - a float cast of ONNX's ReduceSum of f(ids): the mean of the lookup
//   times the count, as the ONNX importer states float sums.
// Anything else computed from the ids is left as it was (and a compile
// names it).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_TOKENTABLES_H
#define RAPTOR_PASSES_NN_TOKENTABLES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace raptor::nn {

/// Rewrites the float uses of element-wise functions of `func`'s token-id
/// arguments (integer arguments read as embedding indices) as lookups.
void foldTokenTables(mlir::func::FuncOp func);

} // namespace raptor::nn

#endif // RAPTOR_PASSES_NN_TOKENTABLES_H
