//===- MatrixOps.cpp - Convolutions and linear layers on crossbars -*- C++ -*-===//
//
// A lane holds tiles of the weight matrix (passes/spatial/WeightTiling):
// one array group per row tile and run of consecutive column tiles, all
// crossbars of a group sharing the input vector. Per output position the
// lane gathers the input window (im2col, a few contiguous runs of a
// channels-last map), runs one MVM per group, writes the first
// contribution of each column directly and adds the others.
//
//===----------------------------------------------------------------------===//
#include "passes/conversion/SpatialToPim/Lowering.h"
#include "passes/spatial/CostModel.h"

using namespace mlir;

namespace raptor::pim {

using layout::IntTuple;
using layout::Layout;

namespace {

struct Group {
  int64_t id, rowTile, colBegin, colEnd;
  bool direct;
};

/// Declares the lane's array groups on the current core.
FailureOr<SmallVector<Group>> declareGroups(Lowering &l, const spatial::MatrixTiling &tiling,
                                            const spatial::MatrixTiling::Lane &lane, StringRef weight,
                                            const Layout &matrix) {
  SmallVector<Group> groups;
  CoreEmitter &e = l.here();
  auto matrixAttr = layout::LayoutAttr::get(l.chip.getContext(), matrix);
  for (const spatial::TileGroup &g : spatial::groupsOf(tiling, lane)) {
    int64_t rows[2] = {g.rowTile * tiling.xbarRows, std::min(tiling.rows, (g.rowTile + 1) * tiling.xbarRows)};
    int64_t cols[2] = {g.colBegin * tiling.xbarCols, std::min(tiling.cols, g.colEnd * tiling.xbarCols)};
    int64_t id = e.group((g.colEnd - g.colBegin) * tiling.slices, weight, matrixAttr, rows, cols);
    groups.push_back({id, g.rowTile, g.colBegin, g.colEnd, g.first});
  }
  if (e.crossbarsUsed() > int64_t(l.target.crossbarsPerCore)) {
    l.taskError() << "core " << l.core << " would hold " << e.crossbarsUsed() << " crossbars but has "
                  << l.target.crossbarsPerCore << " (the schedule placed too many weight tiles on it)";
    return failure();
  }
  return groups;
}

/// Tiles a K x N matrix (`taps` kernel taps, `groups` convolution groups)
/// for the target and returns the task's lane, checked against the tile
/// ranges the compute graph recorded.
FailureOr<spatial::MatrixTiling::Lane> laneOf(Lowering &l, int64_t K, int64_t N, int64_t taps, int64_t groups,
                                              spatial::MatrixTiling &tiling) {
  const spatial::TargetModel &target = l.target;
  std::string error;
  if (!spatial::tileMatrix(K, N, taps, groups, target.crossbarRows, target.crossbarCols, target.slices(),
                           target.crossbarsPerCore, tiling, error))
    return l.taskError() << error;
  int64_t index = int64_t(l.task.getLane());
  if (index < 0 || index >= int64_t(tiling.lanes.size()))
    return l.taskError() << "lane " << index << " of an operator with " << tiling.lanes.size() << " lanes";
  const spatial::MatrixTiling::Lane &lane = tiling.lanes[size_t(index)];
  auto rows = l.task.getRowTiles(), cols = l.task.getColTiles();
  if (!rows || !cols || (*rows)[0] != lane.rowBegin || (*rows)[1] != lane.rowEnd || (*cols)[0] != lane.colBegin ||
      (*cols)[1] != lane.colEnd)
    return l.taskError() << "its tiles differ from the lowering's tiling of this operator (was the compute "
                            "graph built for another target?)";
  if (tiling.slices != 1)
    return l.taskError() << "the target stores a weight in " << tiling.slices
                         << " crossbar cells (weight_bits > cell_bits), which fp32 lowering does not support";
  return lane;
}

/// Whether this lane adds the bias: the first lane of its columns.
bool addsBias(const spatial::MatrixTiling &tiling, int64_t index) {
  const auto &lane = tiling.lanes[size_t(index)];
  for (int64_t i = 0; i < index; ++i)
    if (tiling.lanes[size_t(i)].colBegin == lane.colBegin)
      return false;
  return true;
}

/// The distinct values of a field of the groups, in order: the row tiles
/// they read (each a loop-invariant input address of an MVM) or the column
/// tiles they start at (each an output address).
SmallVector<int64_t> distinct(ArrayRef<Group> groups, int64_t Group::*field) {
  SmallVector<int64_t> values;
  for (const Group &g : groups)
    if (!llvm::is_contained(values, g.*field))
      values.push_back(g.*field);
  return values;
}

/// One position's MVMs: group g reads `inputs[index of its row tile]` and
/// writes or adds at `outputs[index of its first column tile]`.
void multiply(CoreEmitter &e, ArrayRef<Group> groups, const spatial::MatrixTiling &tiling,
              ArrayRef<int64_t> rowTiles, ArrayRef<Address> inputs, ArrayRef<int64_t> colStarts,
              ArrayRef<Address> outputs, int64_t laneCol1, Address tmp, int32_t mbiw) {
  for (const Group &g : groups) {
    Address in = inputs[size_t(llvm::find(rowTiles, g.rowTile) - rowTiles.begin())];
    Address at = outputs[size_t(llvm::find(colStarts, g.colBegin) - colStarts.begin())];
    if (g.direct) {
      e.mvmul(at, in, g.id, mbiw);
      continue;
    }
    e.mvmul(tmp, in, g.id, mbiw);
    int64_t len = std::min(g.colEnd * tiling.xbarCols, laneCol1) - g.colBegin * tiling.xbarCols;
    e.vector(Opcode::Vvadd, at, at, tmp, len);
  }
}

} // namespace

LogicalResult Lowering::lowerConvolution(nn::ConvolutionOp op) {
  SmallVector<int64_t, 4> in = shapeOf(op.getInput()), out = shapeOf(op.getOut()), w = shapeOf(op.getWeight());
  if (in.size() != 4 || in[0] != 1)
    return op.emitOpError("the PIM lowering supports 2-d convolutions of batch 1");
  ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(), dilation = op.getDilation();
  int64_t C = in[1], W = in[3], N = out[1], OH = out[2], OW = out[3];
  int64_t KH = w[2], KW = w[3], groups = int64_t(op.getGroups()), taps = KH * KW, K = taps * C;
  int64_t ph = padding.size() > 0 ? padding[0] : 0, pw = padding.size() > 1 ? padding[1] : ph;
  int64_t sh = stride[0], sw = stride.size() > 1 ? stride[1] : sh;
  int64_t dh = dilation.empty() ? 1 : dilation[0], dw = dilation.size() > 1 ? dilation[1] : dh;
  spatial::MatrixTiling tiling;
  FailureOr<spatial::MatrixTiling::Lane> lane = laneOf(*this, K, N, taps, groups, tiling);
  if (failed(lane))
    return failure();
  // The weights, embedded block-diagonally when grouped: matrix element
  // (k = (kh * KW + kw) * C + c, n) is weight[n][c][kh][kw].
  FailureOr<const nn::HostTensor *> weight = constantOf(op.getWeight());
  if (failed(weight))
    return failure();
  nn::HostTensor dense;
  const nn::HostTensor *tensor = *weight;
  if (groups > 1) {
    int64_t cg = C / groups, ng = N / groups;
    dense.shape = {N, C, KH, KW};
    dense.data.assign(size_t(N * C * taps), 0.0f);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < cg; ++c)
        std::copy_n((*weight)->data.begin() + (n * cg + c) * taps, taps,
                    dense.data.begin() + (n * C + (n / ng) * cg + c) * taps);
    tensor = &dense;
  }
  std::string symbol = weightSymbol(op.getWeight(), *tensor);
  Layout matrix(IntTuple::tuple({IntTuple::tuple({C, KW, KH}), N}),
                IntTuple::tuple({IntTuple::tuple({taps, 1, KW}), C * taps}));
  FailureOr<SmallVector<Group>> groupList = declareGroups(*this, tiling, *lane, symbol, matrix);
  if (failed(groupList))
    return failure();
  int64_t col0 = lane->colBegin * tiling.xbarCols, col1 = std::min(N, lane->colEnd * tiling.xbarCols);
  int64_t width = col1 - col0;
  // The input, channels-last and padded.
  int64_t Wp = W + 2 * pw;
  // A copy of the lane computes output rows [row0, row1): it brings the
  // padded rows its windows read.
  FailureOr<std::pair<int64_t, int64_t>> taskRows = rowsOfTask(OH);
  if (failed(taskRows))
    return failure();
  auto [row0, row1] = *taskRows;
  int64_t rows = row1 - row0;
  std::optional<std::pair<int64_t, int64_t>> needed;
  if (task.getRows())
    needed = std::pair<int64_t, int64_t>{row0 * sh, (row1 - 1) * sh + (KH - 1) * dh + 1};
  FailureOr<Piece> paddedInput = padded(op.getInput(), {ph, pw}, {ph, pw}, 0, needed);
  if (failed(paddedInput))
    return failure();
  Piece padded = *paddedInput;
  FailureOr<int> im2col = scratch(4 * tiling.rowTiles * tiling.xbarRows);
  int64_t widest = 0;
  for (const Group &g : *groupList)
    widest = std::max(widest, (g.colEnd - g.colBegin) * tiling.xbarCols);
  FailureOr<int> tmp = scratch(4 * std::max<int64_t>(widest, 1));
  if (failed(im2col) || failed(tmp))
    return failure();
  std::optional<Address> bias;
  if (op.getBias() && addsBias(tiling, int64_t(task.getLane()))) {
    FailureOr<const nn::HostTensor *> b = constantOf(op.getBias());
    if (failed(b))
      return failure();
    bias = placeConstant(std::vector<float>((*b)->data.begin() + col0, (*b)->data.begin() + col1));
  }
  FailureOr<Piece> result = fresh({1, width, rows, OW}, channelsLast({1, width, rows, OW}));
  if (failed(result))
    return failure();
  result->origin = {0, col0, row0, 0};
  result->partial = lane->partial;
  Address window = addressOf(padded).plus((row0 * sh - padded.origin[2]) * Wp * C * 4),
          outBase = addressOf(*result);
  Address scratchAddr = Address::at(addressOfBuffer(*im2col)), tmpAddr = Address::at(addressOfBuffer(*tmp));
  // The im2col window: (c, kw, kh) of the padded map, into (kh, kw, c) order.
  Layout windowLayout(IntTuple::tuple({C, KW, KH}), IntTuple::tuple({1, dw * C, dh * Wp * C}));
  Layout columnLayout(IntTuple::tuple({C, KW, KH}), IntTuple::tuple({1, C, KW * C}));
  int32_t mbiw = int32_t(target.weightBits);
  CoreEmitter &e = here();
  LogicalResult status = success();
  // Walks: the window and the output move; the im2col rows each group
  // reads, the partial-sum buffer and the bias stay.
  SmallVector<int64_t> rowTiles = distinct(*groupList, &Group::rowTile),
                       colStarts = distinct(*groupList, &Group::colBegin);
  bool partialSums = llvm::any_of(*groupList, [](const Group &g) { return !g.direct; });
  SmallVector<Walk> walks{Walk{window, {sh * Wp * C * 4, sw * C * 4}}, Walk{outBase, {OW * width * 4, width * 4}},
                          Walk{scratchAddr, {0, 0}}};
  for (int64_t r : rowTiles)
    walks.push_back(Walk{scratchAddr.plus(r * tiling.xbarRows * 4), {0, 0}});
  for (int64_t c : colStarts)
    walks.push_back(Walk{outBase.plus((c * tiling.xbarCols - col0) * 4), {OW * width * 4, width * 4}});
  size_t tmpAt = walks.size(), biasAt = tmpAt + (partialSums ? 1 : 0);
  if (partialSums)
    walks.push_back(Walk{tmpAddr, {0, 0}});
  if (bias)
    walks.push_back(Walk{*bias, {0, 0}});
  e.nest({rows, OW}, walks, [&](ArrayRef<Address> a) {
    if (failed(copy({a[2], columnLayout}, {a[0], windowLayout}))) {
      status = failure();
      return;
    }
    multiply(e, *groupList, tiling, rowTiles, a.slice(3, rowTiles.size()), colStarts,
             a.slice(3 + rowTiles.size(), colStarts.size()), col1, partialSums ? a[tmpAt] : Address(), mbiw);
    if (bias)
      e.vector(Opcode::Vvadd, a[1], a[1], a[biasAt], width);
  });
  if (failed(status))
    return failure();
  definePiece(op.getOut(), *result);
  return success();
}

LogicalResult Lowering::lowerLinear(nn::LinearOp op) {
  SmallVector<int64_t, 4> in = shapeOf(op.getInput()), out = shapeOf(op.getOut()), w = shapeOf(op.getWeight());
  int64_t K = w[1], N = w[0], positions = 1;
  for (size_t i = 0; i + 1 < in.size(); ++i)
    positions *= in[i];
  spatial::MatrixTiling tiling;
  FailureOr<spatial::MatrixTiling::Lane> lane = laneOf(*this, K, N, 1, 1, tiling);
  if (failed(lane))
    return failure();
  FailureOr<const nn::HostTensor *> weight = constantOf(op.getWeight());
  if (failed(weight))
    return failure();
  std::string symbol = weightSymbol(op.getWeight(), **weight);
  // Matrix element (k, n) is weight[n][k].
  Layout matrix(IntTuple::tuple({K, N}), IntTuple::tuple({1, K}));
  FailureOr<SmallVector<Group>> groupList = declareGroups(*this, tiling, *lane, symbol, matrix);
  if (failed(groupList))
    return failure();
  int64_t col0 = lane->colBegin * tiling.xbarCols, col1 = std::min(N, lane->colEnd * tiling.xbarCols);
  int64_t width = col1 - col0;
  Layout rows = rowMajor(in);
  FailureOr<Piece> x = materializeAs(op.getInput(), rows);
  if (failed(x))
    return failure();
  int64_t widest = 0;
  for (const Group &g : *groupList)
    widest = std::max(widest, (g.colEnd - g.colBegin) * tiling.xbarCols);
  FailureOr<int> tmp = scratch(4 * std::max<int64_t>(widest, 1));
  if (failed(tmp))
    return failure();
  std::optional<Address> bias;
  if (op.getBias() && addsBias(tiling, int64_t(task.getLane()))) {
    FailureOr<const nn::HostTensor *> b = constantOf(op.getBias());
    if (failed(b))
      return failure();
    bias = placeConstant(std::vector<float>((*b)->data.begin() + col0, (*b)->data.begin() + col1));
  }
  // A copy of the lane computes rows [row0, row1) of the row dimension.
  int64_t rowDim = spatial::linearRowDim(in);
  if (task.getRows() && rowDim < 0)
    return taskError() << "computes rows of a linear layer whose input has several leading dimensions";
  FailureOr<std::pair<int64_t, int64_t>> taskRows = rowsOfTask(rowDim >= 0 ? in[size_t(rowDim)] : 1);
  if (failed(taskRows))
    return failure();
  auto [row0, row1] = *taskRows;
  SmallVector<int64_t, 4> box(out.begin(), out.end());
  box.back() = width;
  if (rowDim >= 0)
    box[size_t(rowDim)] = row1 - row0;
  positions = positions / std::max<int64_t>(rowDim >= 0 ? in[size_t(rowDim)] : 1, 1) * (row1 - row0);
  FailureOr<Piece> result = fresh(box, rowMajor(box));
  if (failed(result))
    return failure();
  result->origin.assign(out.size(), 0);
  result->origin.back() = col0;
  if (rowDim >= 0)
    result->origin[size_t(rowDim)] = row0;
  result->partial = lane->partial;
  CoreEmitter &e = here();
  Address tmpAddr = Address::at(addressOfBuffer(*tmp));
  int32_t mbiw = int32_t(target.weightBits);
  SmallVector<int64_t> rowTiles = distinct(*groupList, &Group::rowTile),
                       colStarts = distinct(*groupList, &Group::colBegin);
  bool partialSums = llvm::any_of(*groupList, [](const Group &g) { return !g.direct; });
  SmallVector<Walk> walks{Walk{addressOf(*result), {width * 4}}};
  for (int64_t r : rowTiles)
    walks.push_back(Walk{addressOf(*x).plus((row0 * K + r * tiling.xbarRows) * 4), {K * 4}});
  for (int64_t c : colStarts)
    walks.push_back(Walk{addressOf(*result).plus((c * tiling.xbarCols - col0) * 4), {width * 4}});
  size_t tmpAt = walks.size(), biasAt = tmpAt + (partialSums ? 1 : 0);
  if (partialSums)
    walks.push_back(Walk{tmpAddr, {0}});
  if (bias)
    walks.push_back(Walk{*bias, {0}});
  e.nest({positions}, walks, [&](ArrayRef<Address> a) {
    multiply(e, *groupList, tiling, rowTiles, a.slice(1, rowTiles.size()), colStarts,
             a.slice(1 + rowTiles.size(), colStarts.size()), col1, partialSums ? a[tmpAt] : Address(), mbiw);
    if (bias)
      e.vector(Opcode::Vvadd, a[0], a[0], a[biasAt], width);
  });
  definePiece(op.getOut(), *result);
  return success();
}

} // namespace raptor::pim
