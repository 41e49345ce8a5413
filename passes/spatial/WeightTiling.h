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

/// Output positions one MVM of the lane's last row tile computes, when
/// that tile is the matrix's last: its r = K - (row tiles - 1) x xbarRows
/// rows by N columns fit the crossbar p times over (r <= xbarRows / p,
/// N <= xbarCols / p), so they sit there p times block-diagonally and one
/// MVM multiplies the last r rows of p consecutive im2col windows, laid
/// side by side in its input, and writes their p partial outputs side by
/// side, which is where a channels-last map keeps them. A matrix of one
/// tile (a stem convolution's 27 x 24, ShuffleNetV2's 58 x 58 in stage 2)
/// is all tail: each of its MVMs computes p positions whole; a taller one
/// (ResNet-18's stem, 147 x 64, its 576 x 64 layer-1 convolutions) runs its
/// full tiles per position and the tail once per p positions. p divides
/// `rowPositions` (the output positions of a row, which a copy's ranges of
/// rows never cut) so no MVM mixes rows of two copies or reads a window it
/// does not own; 1 when the tail takes more than half a tile, the matrix
/// has several column tiles or bit slices, or the lane does not hold the
/// last row tile.
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
