//===- WeightTiling.h - Weight matrices on crossbars ------------*- C++ -*-===//
//
// How the weight matrix of a convolution or linear layer is cut into
// crossbar tiles and the tiles into lanes (compute instances whose tiles fit
// one core). The compute graph and the PIM lowering both ask this, so a
// schedule's lanes are exactly the lowering's.
//
// The matrix has K rows (the MVM's inputs) and N columns (its outputs). A
// convolution's rows are ordered (kernel row, kernel column, input channel),
// input channel fastest, which makes every im2col window a few contiguous
// runs of a channels-last feature map. A grouped convolution is the
// block-diagonal embedding of its groups: tiles holding only zeros are not
// placed.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_WEIGHTTILING_H
#define RAPTOR_PASSES_SPATIAL_WEIGHTTILING_H

#include <cstdint>
#include <string>
#include <vector>

namespace raptor::spatial {

struct MatrixTiling {
  int64_t rows = 0, cols = 0;         // K, N
  int64_t xbarRows = 0, xbarCols = 0; // tile size
  int64_t slices = 1;                 // crossbars per tile (bit slices)
  int64_t rowTiles = 0, colTiles = 0;
  // Block structure: K = taps * channels, channel c in block c / (channels / groups),
  // column n in block n / (cols / groups).
  int64_t taps = 1, channels = 0, groups = 1;

  /// A lane: the nonzero tiles of row tiles [rowBegin, rowEnd) x column
  /// tiles [colBegin, colEnd). `partial` when other lanes hold the rest of
  /// its columns' rows (their outputs are added).
  struct Lane {
    int64_t rowBegin, rowEnd, colBegin, colEnd, crossbars;
    bool partial;
  };
  std::vector<Lane> lanes;

  /// Whether tile (r, c) can hold a nonzero weight.
  bool nonzero(int64_t rowTile, int64_t colTile) const;
};

/// An array group of a lane: row tile `rowTile`, column tiles [colBegin,
/// colEnd), the crossbars of one MVM. `first` when no earlier group of the
/// lane wrote these columns (it writes them; later ones are added).
struct TileGroup {
  int64_t rowTile, colBegin, colEnd;
  bool first;
};

/// The lane's groups in MVM order: per row tile, each run of nonzero tiles
/// that are all first or all later contributions to their columns.
std::vector<TileGroup> groupsOf(const MatrixTiling &tiling, const MatrixTiling::Lane &lane);

/// Tiles a K x N matrix (groups > 1: block-diagonal with `taps` kernel taps
/// per channel) for cores of `perCore` crossbars of xbarRows x xbarCols
/// holding `slices` crossbars per tile. On failure `error` says why (a tile
/// needs more crossbars than a core has).
/// A column taller than a core, or than `laneRowTiles` row tiles when that
/// is above 0, is cut into lanes of partial sums (about equal row tiles
/// under `laneRowTiles`: a lane's MVMs per output position are its row
/// tiles, run one after the other; its readers add the sums).
bool tileMatrix(int64_t rows, int64_t cols, int64_t taps, int64_t groups, int64_t xbarRows,
                int64_t xbarCols, int64_t slices, int64_t perCore, int64_t laneRowTiles, MatrixTiling &out,
                std::string &error);

/// Output positions one MVM of `lane` computes. A matrix that fits one tile
/// several times over (K <= xbarRows / p, N <= xbarCols / p: a stem
/// convolution's 27 x 24, ShuffleNetV2's 58 x 58 in stage 2) is placed p
/// times block-diagonally on the lane's crossbar, so one MVM multiplies p
/// consecutive im2col windows, laid side by side in its input, and writes
/// their p outputs side by side, which is where a channels-last map keeps
/// them. p divides `rowPositions` (the output positions of a row, which
/// a copy's ranges of rows never cut) so no MVM mixes rows of two copies or
/// reads a window it does not own; 1 when the matrix takes more than half a
/// tile, or is cut into several tiles or bit slices.
int64_t packedPositions(const MatrixTiling &tiling, const MatrixTiling::Lane &lane, int64_t rowPositions);

} // namespace raptor::spatial

namespace raptor::nn {
class ConvolutionOp;
}
namespace raptor::spatial {
/// A depthwise convolution (one input channel per group, one output per
/// group) runs on the vector unit rather than on crossbars.
bool isDepthwise(raptor::nn::ConvolutionOp conv);
} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_WEIGHTTILING_H
