//===- CostModel.h - What an nn operator costs on a PIM target -*- C++ -*-===//
//
// How raptor-build-compute-graph turns one nn operator into lanes (tasks)
// and what each lane costs in nanoseconds. The costs follow the
// instructions raptor-lower-to-pim emits for the operator, each priced by
// the timing rules the timing simulator applies (simulator/TimingConfig:
// one source of the rules), so that a schedule's estimate can be checked
// against the timing simulation of its programs (docs/scheduling.md).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_COSTMODEL_H
#define RAPTOR_PASSES_SPATIAL_COSTMODEL_H

#include "simulator/TargetModel.h"
#include "passes/spatial/WeightTiling.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace raptor::spatial {

/// Input and output bits of the MVMs and vector work of fp32 programs.
inline constexpr int64_t kProgramBits = 32;

/// One operator as lanes: crossbar tiles, cost and (for MVM operators) the
/// tile ranges of each lane.
struct Lanes {
  unsigned count = 1;
  std::vector<int64_t> tiles;          // per lane
  std::vector<double> ns;              // per lane
  std::vector<MatrixTiling::Lane> matrix; // per lane, for MVM operators
  std::string weight;                  // the weight's name, when it holds tiles
  /// Output rows copies of the lanes can split (1: not replicable) and the
  /// output positions (windows) over them; the input rows, their bytes, and
  /// how a range of output rows reads them (stride, halo of the window).
  int64_t rows = 1, windows = 0;
  /// Output columns of an MVM operator's matrix (N: what its lanes' column
  /// tiles split).
  int64_t cols = 0;
  int64_t inputRows = 1, inputRowBytes = 0, stride = 1, halo = 0;
};

/// The dimension of a linear layer's input whose rows copies split: the
/// one leading dimension above 1 (the others are 1), or -1 when there are
/// several (their rows would not be boxes of the output).
int64_t linearRowDim(llvm::ArrayRef<int64_t> inputShape);

/// Operators the PIM lowering computes on their operands' pieces without
/// moving data (views, identities, nearest upsampling, concatenations):
/// their readers read the producers' buffers.
bool movesNoData(mlir::Operation *op);

/// Calls `f(i, i2, j, j2)` for the groups of a view from shape `from` to
/// shape `to` in order: the smallest runs of dimensions [i, i2) of `from`
/// and [j, j2) of `to` holding as many elements. False when the shapes do
/// not group (no view) or `f` returns false.
bool forEachViewGroup(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to,
                      llvm::function_ref<bool(size_t, size_t, size_t, size_t)> f);

/// A view the lowering computes by copying: it merges dimensions its
/// operand's pieces are cut along below the outermost (a channel shuffle's
/// merge of channel groups from pieces holding one group each). Its task
/// gathers its input; it passes no producer's buffers on.
bool gathersView(mlir::Operation *op);

/// The bytes of a statically shaped tensor value as the PIM lowering holds
/// it (encoded data in its codec's target type; 0 when dynamic).
int64_t tensorBytes(mlir::Value v);

/// The lanes of `op` on target `t`, an MVM operator's lanes at most
/// `laneRowTiles` row tiles tall when that is above 0 (tileMatrix); emits
/// an error on `op` when the operator cannot be tiled (or has no static
/// shape).
mlir::FailureOr<Lanes> lanesOf(mlir::Operation *op, const pim::TargetModel &t, int64_t laneRowTiles = 0);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_COSTMODEL_H
