//===- WeightTiling.cpp - Weight matrices on crossbars ----------*- C++ -*-===//
#include "passes/spatial/WeightTiling.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

namespace raptor::spatial {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<TileGroup> groupsOf(const MatrixTiling &tiling, const MatrixTiling::Lane &lane) {
  std::vector<TileGroup> groups;
  std::vector<bool> written(size_t(tiling.colTiles), false);
  for (int64_t r = lane.rowBegin; r < lane.rowEnd; ++r) {
    int64_t c = lane.colBegin;
    while (c < lane.colEnd) {
      if (!tiling.nonzero(r, c)) {
        ++c;
        continue;
      }
      bool first = !written[size_t(c)];
      int64_t end = c + 1;
      while (end < lane.colEnd && tiling.nonzero(r, end) && !written[size_t(end)] == first)
        ++end;
      groups.push_back({r, c, end, first});
      for (int64_t k = c; k < end; ++k)
        written[size_t(k)] = true;
      c = end;
    }
  }
  return groups;
}

int64_t packedPositions(const MatrixTiling &tiling, const MatrixTiling::Lane &lane, int64_t rowPositions) {
  int64_t last = tiling.rowTiles - 1;
  if (tiling.colTiles != 1 || tiling.slices != 1 || lane.rowEnd != tiling.rowTiles || tiling.rows <= 0 ||
      tiling.cols <= 0 || !tiling.nonzero(last, 0))
    return 1;
  int64_t tail = tiling.rows - last * tiling.xbarRows;
  int64_t most = std::min({tiling.xbarRows / tail, tiling.xbarCols / tiling.cols, rowPositions});
  for (int64_t p = most; p > 1; --p)
    if (rowPositions % p == 0)
      return p;
  return 1;
}

bool MatrixTiling::nonzero(int64_t r, int64_t c) const {
  if (groups <= 1)
    return true;
  int64_t channelsPerGroup = channels / groups, colsPerGroup = cols / groups;
  int64_t colLo = c * xbarCols / colsPerGroup;
  int64_t colHi = (std::min(cols, (c + 1) * xbarCols) - 1) / colsPerGroup;
  for (int64_t k = r * xbarRows, end = std::min(rows, (r + 1) * xbarRows); k < end; ++k) {
    int64_t block = (k % channels) / channelsPerGroup;
    if (block >= colLo && block <= colHi)
      return true;
  }
  return false;
}

bool tileMatrix(int64_t rows, int64_t cols, int64_t taps, int64_t groups, int64_t xbarRows, int64_t xbarCols,
                int64_t slices, int64_t perCore, int64_t laneRowTiles, MatrixTiling &t, std::string &error) {
  if (slices > perCore) {
    error = "one weight tile needs " + std::to_string(slices) + " crossbars (bit slices) but a core has " +
            std::to_string(perCore);
    return false;
  }
  t = MatrixTiling();
  t.rows = rows, t.cols = cols, t.xbarRows = xbarRows, t.xbarCols = xbarCols, t.slices = slices;
  t.taps = taps, t.groups = groups, t.channels = rows / taps;
  t.rowTiles = ceilDiv(rows, xbarRows);
  t.colTiles = ceilDiv(cols, xbarCols);
  int64_t rowsPerCore = perCore / slices; // whole tiles, all slices together
  std::optional<MatrixTiling::Lane> open;
  // Row chunks of the last tall columns: the next column with the same
  // nonzero row tiles joins them while every chunk fits a core (one MVM
  // per row tile then covers both columns).
  std::vector<MatrixTiling::Lane> chunks;
  std::vector<int64_t> chunkRows;
  auto close = [&] {
    if (open)
      t.lanes.push_back(*open);
    open.reset();
    t.lanes.insert(t.lanes.end(), chunks.begin(), chunks.end());
    chunks.clear();
    chunkRows.clear();
  };
  for (int64_t c = 0; c < t.colTiles; ++c) {
    std::vector<int64_t> nz;
    for (int64_t r = 0; r < t.rowTiles; ++r)
      if (t.nonzero(r, c))
        nz.push_back(r);
    if (nz.empty())
      continue;
    int64_t need = int64_t(nz.size()) * slices;
    int64_t tallest = rowsPerCore; // row tiles of one lane
    if (laneRowTiles > 0 && laneRowTiles < int64_t(nz.size()))
      tallest = std::min(rowsPerCore, ceilDiv(int64_t(nz.size()), ceilDiv(int64_t(nz.size()), laneRowTiles)));
    if (int64_t(nz.size()) > tallest) {
      // Taller than a core (or than a lane may be): row chunks whose
      // partial sums are added.
      // A chunk of n row tiles takes n * slices more crossbars per column.
      auto more = [&](const MatrixTiling::Lane &l) { return l.crossbars / (l.colEnd - l.colBegin); };
      if (!chunks.empty() && chunkRows == nz &&
          llvm::all_of(chunks, [&](const MatrixTiling::Lane &l) { return l.crossbars + more(l) <= perCore; })) {
        for (MatrixTiling::Lane &l : chunks) {
          l.crossbars += more(l);
          l.colEnd = c + 1;
        }
        continue;
      }
      close();
      for (size_t i = 0; i < nz.size(); i += size_t(tallest)) {
        size_t j = std::min(nz.size(), i + size_t(tallest));
        chunks.push_back({nz[i], nz[j - 1] + 1, c, c + 1, int64_t(j - i) * slices, true});
      }
      chunkRows = nz;
      continue;
    }
    if (!chunks.empty())
      close();
    if (open && open->crossbars + need <= perCore) {
      open->rowBegin = std::min(open->rowBegin, nz.front());
      open->rowEnd = std::max(open->rowEnd, nz.back() + 1);
      open->colEnd = c + 1;
      open->crossbars += need;
    } else {
      close();
      open = MatrixTiling::Lane{nz.front(), nz.back() + 1, c, c + 1, need, false};
    }
  }
  close();
  return true;
}

} // namespace raptor::spatial
