//===- RowMaps.h - Which rows of its inputs an operator reads ---*- C++ -*-===//
//
// Row streaming and row copies work on ranges of a map's rows (H of an
// (N, C, H, W) map). The compute graph splits operators by them; the queue
// model follows them through views to the buffers a reader loads.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_ROWMAPS_H
#define RAPTOR_PASSES_SPATIAL_ROWMAPS_H

#include "passes/nn/CompileTime.h"

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace raptor::spatial {

/// The dimension of a map's rows: H of (1, ..., H, W), at least 4-d.
std::optional<size_t> rowDim(mlir::Type type);

/// A view that keeps a map's rows: its operand and results are maps with
/// the same last two dimensions (H, W) and it regroups, permutes or cuts
/// the others only (a channel shuffle's reshapes and permutation, a split
/// of the channels).
bool keepsRows(mlir::Operation *op);

/// The input rows output rows [begin, end) of `op` read along its row
/// dimension: an element-wise operator the same rows, a pooling operator
/// or a convolution its windows' rows. None for other operators, or when
/// an operand spans the rows but is a constant or not a map (the lowering
/// takes rows of maps only).
std::optional<std::pair<int64_t, int64_t>> rowsRead(mlir::Operation *op, raptor::nn::CompileTimeValues &known,
                                                    int64_t begin, int64_t end);

/// For a view or concatenation (movesNoData): row r of its operand is row
/// r * scale of its result (1: it keeps the rows, as a concatenation of
/// channels does; an upsampling's factor); none when its rows are not its
/// operands' rows.
std::optional<int64_t> viewRowScale(mlir::Operation *op);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_ROWMAPS_H
