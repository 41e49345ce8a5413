//===- MatrixOps.cpp - Convolutions and linear layers on crossbars -*- C++ -*-===//
//
// A lane holds tiles of the weight matrix (passes/spatial/WeightTiling):
// one array group per row tile and run of consecutive column tiles, all
// crossbars of a group sharing the input vector. Per output position the
// lane gathers the input window (im2col, a few contiguous runs of a
// channels-last map), runs one MVM per group, writes the first
// contribution of each column directly and adds the others. A last row
// tile small enough to fit its crossbar p times (spatial::packedPositions)
// sits there block-diagonally and one MVM computes its part of p
// consecutive positions: their windows' last rows side by side in the
// input, their outputs side by side, as a channels-last result keeps them
// (a matrix of one tile is all last tile).
//
//===----------------------------------------------------------------------===//
#include "passes/conversion/SpatialToPim/Lowering.h"
#include "passes/spatial/CostModel.h"

using namespace mlir;

namespace raptor::pim {

using layout::IntTuple;
using layout::Layout;

namespace {

/// A tile group of the lane: one array group per bit slice of the weights
/// (one in f32), all reading the same input rows.
struct Group {
  SmallVector<int64_t, 2> ids;
  int64_t rowTile, colBegin, colEnd;
  bool direct;
  int64_t positions = 1; // output positions one MVM serves (a packed tail: p)
};

/// A packed last row tile: its weight symbol (the tail rows p times
/// block-diagonally, a rows x cols matrix held as a linear layer's weight)
/// and the positions one MVM serves.
struct PackedTail {
  std::string symbol;
  int64_t positions, rows, cols;
};

/// Declares the lane's array groups on the current core; `weights` holds
/// one weight symbol per bit slice, `tail` the packed last row tile's.
FailureOr<SmallVector<Group>> declareGroups(Lowering &l, const spatial::MatrixTiling &tiling,
                                            const spatial::MatrixTiling::Lane &lane, ArrayRef<std::string> weights,
                                            const Layout &matrix, const std::optional<PackedTail> &tail = {}) {
  SmallVector<Group> groups;
  CoreEmitter &e = l.here();
  MLIRContext *context = l.chip.getContext();
  auto matrixAttr = layout::LayoutAttr::get(context, matrix);
  for (const spatial::TileGroup &g : spatial::groupsOf(tiling, lane)) {
    Group group{{}, g.rowTile, g.colBegin, g.colEnd, g.first};
    if (tail && g.rowTile == tiling.rowTiles - 1) {
      int64_t rows[2] = {0, tail->rows}, cols[2] = {0, tail->cols};
      group.positions = tail->positions;
      Layout packed(IntTuple::tuple({tail->rows, tail->cols}), IntTuple::tuple({1, tail->rows}));
      group.ids.push_back(
          e.group(g.colEnd - g.colBegin, tail->symbol, layout::LayoutAttr::get(context, packed), rows, cols));
      groups.push_back(group);
      continue;
    }
    int64_t rows[2] = {g.rowTile * tiling.xbarRows, std::min(tiling.rows, (g.rowTile + 1) * tiling.xbarRows)};
    int64_t cols[2] = {g.colBegin * tiling.xbarCols, std::min(tiling.cols, g.colEnd * tiling.xbarCols)};
    for (const std::string &weight : weights)
      group.ids.push_back(e.group(g.colEnd - g.colBegin, weight, matrixAttr, rows, cols));
    groups.push_back(group);
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
                                              bool integer, spatial::MatrixTiling &tiling) {
  const TargetModel &target = l.target;
  std::string error;
  if (!spatial::tileMatrix(K, N, taps, groups, target.crossbarRows, target.crossbarCols, target.slices(),
                           target.crossbarsPerCore, l.laneRowTiles(), tiling, error))
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
  if (tiling.slices != 1 && !integer)
    return l.taskError() << "the target stores a weight in " << tiling.slices
                         << " crossbar cells (weight_bits > cell_bits): only int8 programs slice weights "
                            "(compile with --precision int8)";
  if (integer && target.weightBits < 8)
    return l.taskError() << "the target's weights have " << target.weightBits
                         << " bits (weight_bits): int8 codes need at least 8";
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

/// One position's MVMs by `run` (some of the lane's groups): group g reads
/// `inputs[index of its row tile]` and writes or adds at `outputs[index of
/// its first column tile]`, its columns for each of the positions it
/// serves. With bit slices, slice s's sums are shifted left by s *
/// cell_bits (`shifts[s]`, an i32 scalar) and added: the shift-and-add of
/// the cells.
struct Multiply {
  const spatial::MatrixTiling &tiling;
  ArrayRef<int64_t> rowTiles, colStarts;
  ArrayRef<Address> shifts;
  int64_t laneCol1;
  int32_t mbiw;
  ElementType sums;

  void operator()(CoreEmitter &e, ArrayRef<Group> run, ArrayRef<Address> inputs, ArrayRef<Address> outputs,
                  Address tmp) const {
    for (const Group &g : run) {
      Address in = inputs[size_t(llvm::find(rowTiles, g.rowTile) - rowTiles.begin())];
      Address at = outputs[size_t(llvm::find(colStarts, g.colBegin) - colStarts.begin())];
      int64_t len = g.positions * (std::min(g.colEnd * tiling.xbarCols, laneCol1) - g.colBegin * tiling.xbarCols);
      for (auto [s, id] : llvm::enumerate(g.ids)) {
        if (s == 0 && g.direct) {
          e.mvmul(at, in, id, mbiw);
          continue;
        }
        e.mvmul(tmp, in, id, mbiw);
        if (s > 0)
          e.vector(Opcode::Vrsl, tmp, tmp, shifts[s], len, sums);
        e.vector(Opcode::Vvadd, at, at, tmp, len, sums);
      }
    }
  }
};

/// A matrix operator's weights as the crossbars hold them: f32 values, or
/// an int8 operator's codes (and its scales).
struct MatrixWeights {
  const nn::HostTensor *values;
  const Lowering::QuantizedMatrix *codes = nullptr;
  std::shared_ptr<nn::HostTensor> coded; // owns the codes' tensor
};

FailureOr<MatrixWeights> matrixWeights(Lowering &l, Operation *op, Value weight, bool integer) {
  FailureOr<const nn::HostTensor *> w = l.constantOf(weight);
  if (failed(w))
    return failure();
  if (!integer)
    return MatrixWeights{*w};
  FailureOr<const Lowering::QuantizedMatrix *> q = l.quantizedMatrix(op);
  if (failed(q))
    return failure();
  auto coded = std::make_shared<nn::HostTensor>(nn::HostTensor{(*w)->shape, (*q)->codes});
  return MatrixWeights{coded.get(), *q, coded};
}

/// Weight symbols of a lane: the values (f32), or the codes' bit slices.
SmallVector<std::string> weightSlices(Lowering &l, Value weight, const nn::HostTensor &values,
                                      const spatial::MatrixTiling &tiling, bool integer) {
  if (!integer || tiling.slices == 1)
    return {l.weightSymbol(weight, values)};
  SmallVector<std::string> symbols;
  std::vector<std::vector<float>> digits = codec::sliceCodes(values.data, l.target.cellBits, tiling.slices);
  for (auto [s, d] : llvm::enumerate(digits))
    symbols.push_back(l.weightSymbol(weight, nn::HostTensor{values.shape, std::move(d)}, int(s)));
  return symbols;
}

/// The shift of each of `slices` bit slices as an i32 scalar in local memory.
SmallVector<Address> sliceShifts(Lowering &l, const spatial::MatrixTiling &tiling, size_t slices) {
  SmallVector<Address> shifts;
  for (int64_t s = 0; s < int64_t(slices); ++s)
    shifts.push_back(s ? l.placeIntegers({int32_t(s * l.target.cellBits)}) : Address());
  return shifts;
}

/// The widths of a lane's MVMs and the type of its sums: int8 inputs summed
/// in int32, or f32 throughout.
ElementType sumsOf(Lowering &l, bool integer) {
  l.here().widths(integer ? 8 : 32, 32);
  return integer ? ElementType::I32 : ElementType::F32;
}

/// The bias columns [col0, col1) the lane adds (only the first lane of its
/// columns adds one): f32, or an int8 operator's bias in its sums' units
/// (with the correction of an offset input, also when it has no bias),
/// `repeat` times over for the positions of a packed MVM.
FailureOr<std::optional<Address>> laneBias(Lowering &l, Value bias, const spatial::MatrixTiling &tiling,
                                           int64_t col0, int64_t col1, const Lowering::QuantizedMatrix *codes,
                                           int64_t repeat = 1) {
  bool corrected = codes && !codes->corrections.empty();
  if ((!bias && !corrected) || !addsBias(tiling, int64_t(l.task.getLane())))
    return std::optional<Address>();
  std::vector<float> values(size_t(col1 - col0), 0.0f);
  if (bias) {
    FailureOr<const nn::HostTensor *> b = l.constantOf(bias);
    if (failed(b))
      return failure();
    values.assign((*b)->data.begin() + col0, (*b)->data.begin() + col1);
  }
  auto repeated = [&](auto one) {
    decltype(one) all;
    for (int64_t i = 0; i < repeat; ++i)
      all.insert(all.end(), one.begin(), one.end());
    return all;
  };
  if (!codes)
    return std::optional<Address>(l.placeConstant(repeated(std::move(values))));
  std::vector<float> scales(codes->scales.begin() + col0, codes->scales.begin() + col1);
  std::vector<int64_t> corrections;
  if (corrected)
    corrections.assign(codes->corrections.begin() + col0, codes->corrections.begin() + col1);
  return std::optional<Address>(l.placeIntegers(repeated(codec::quantizeBias(values, scales, corrections))));
}

/// Rows [first, K) of the K x N matrix `matrix` maps onto `tensor`
/// (element (k, n) at matrix(k + K n)), R = K - first of them, `pack` times
/// in a (pack R) x (pack N) matrix, held as a linear layer's weight (pack N
/// rows of pack R): block j, which writes outputs j, reads input block j,
/// or input block pack - 1 - j when `reversed`. Its element (k, n) is at
/// row j N + n, column (its input block) x R + k.
nn::HostTensor blockDiagonal(const nn::HostTensor &tensor, const Layout &matrix, int64_t K, int64_t N,
                             int64_t first, int64_t pack, bool reversed) {
  int64_t R = K - first, width = pack * R;
  nn::HostTensor diagonal{{pack * N, width}, std::vector<float>(size_t(pack * N * width), 0.0f)};
  for (int64_t j = 0; j < pack; ++j)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < R; ++k)
        diagonal.data[size_t((j * N + n) * width + (reversed ? pack - 1 - j : j) * R + k)] =
            tensor.data[size_t(matrix(first + k + K * n))];
  return diagonal;
}

} // namespace

LogicalResult Lowering::lowerConvolution(nn::ConvolutionOp op) {
  SmallVector<int64_t, 4> in = shapeOf(op.getInput()), out = shapeOf(op.getOut()), w = shapeOf(op.getWeight());
  if (in.size() != 4 || in[0] != 1)
    return op.emitOpError("the PIM lowering supports 2-d convolutions of batch 1 (raptor-fold-batch-into-channels "
                          "folds a batch into channels)");
  ArrayRef<int64_t> stride = op.getStride(), padding = op.getPadding(), dilation = op.getDilation();
  int64_t C = in[1], W = in[3], N = out[1], OH = out[2], OW = out[3];
  int64_t KH = w[2], KW = w[3], groups = int64_t(op.getGroups()), taps = KH * KW, K = taps * C;
  int64_t ph = padding.size() > 0 ? padding[0] : 0, pw = padding.size() > 1 ? padding[1] : ph;
  int64_t sh = stride[0], sw = stride.size() > 1 ? stride[1] : sh;
  int64_t dh = dilation.empty() ? 1 : dilation[0], dw = dilation.size() > 1 ? dilation[1] : dh;
  // An int8 convolution (its input encoded) holds its weight's codes.
  bool integer = isEncoded(op.getInput());
  spatial::MatrixTiling tiling;
  FailureOr<spatial::MatrixTiling::Lane> lane = laneOf(*this, K, N, taps, groups, integer, tiling);
  if (failed(lane))
    return failure();
  // The weights, embedded block-diagonally when grouped: matrix element
  // (k = (kh * KW + kw) * C + c, n) is weight[n][c][kh][kw].
  FailureOr<MatrixWeights> weights = matrixWeights(*this, op, op.getWeight(), integer);
  if (failed(weights))
    return failure();
  const QuantizedMatrix *codes = weights->codes;
  const nn::HostTensor *source = weights->values;
  nn::HostTensor dense;
  const nn::HostTensor *tensor = source;
  if (groups > 1) {
    int64_t cg = C / groups, ng = N / groups;
    dense.shape = {N, C, KH, KW};
    dense.data.assign(size_t(N * C * taps), 0.0f);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < cg; ++c)
        std::copy_n(source->data.begin() + (n * cg + c) * taps, taps,
                    dense.data.begin() + (n * C + (n / ng) * cg + c) * taps);
    tensor = &dense;
  }
  ElementType inType = integer ? ElementType::I8 : ElementType::F32;
  int64_t ib = bytesOf(inType);
  // Positions per MVM of the last row tile; packed, it holds its rows
  // [tailRow, K) `pack` times. The `pack` windows of a step are gathered in
  // order into one buffer, window j at slot(j) x tailRows elements, where
  // their tails lie side by side. A matrix of one tile (all tail) has its
  // windows one after the other (slot j); a taller one has window j + 1
  // gathered below window j (slot pack - 1 - j), over its full part, which
  // the lane's full tiles (if any) have consumed, but not its tail; so its
  // tail tile reads the tails in reverse and holds its blocks reversed.
  int64_t pack = spatial::packedPositions(tiling, *lane, OW);
  int64_t tailRow = (tiling.rowTiles - 1) * tiling.xbarRows, tailRows = K - tailRow;
  bool reversed = pack > 1 && tailRow > 0;
  auto slot = [&](int64_t j) { return reversed ? pack - 1 - j : j; };
  Layout matrix(IntTuple::tuple({IntTuple::tuple({C, KW, KH}), N}),
                IntTuple::tuple({IntTuple::tuple({taps, 1, KW}), C * taps}));
  std::optional<PackedTail> tail;
  if (pack > 1)
    tail = PackedTail{weightSymbol(op.getWeight(), blockDiagonal(*tensor, matrix, K, N, tailRow, pack, reversed), 0,
                                   int(pack)),
                      pack, pack * tailRows, pack * N};
  // The full tiles' weights (none when the lane is its packed tail alone).
  SmallVector<std::string> symbols;
  if (!tail || lane->rowBegin < tiling.rowTiles - 1)
    symbols = weightSlices(*this, op.getWeight(), *tensor, tiling, integer);
  FailureOr<SmallVector<Group>> groupList = declareGroups(*this, tiling, *lane, symbols, matrix, tail);
  if (failed(groupList))
    return failure();
  SmallVector<Group> full, packedTail;
  for (const Group &g : *groupList)
    (g.positions > 1 ? packedTail : full).push_back(g);
  int64_t col0 = lane->colBegin * tiling.xbarCols, col1 = std::min(N, lane->colEnd * tiling.xbarCols);
  int64_t width = col1 - col0;
  // The input, channels-last and padded.
  int64_t Wp = W + 2 * pw;
  // A copy of the lane computes output rows [row0, row1): it brings the
  // padded rows its windows read.
  FailureOr<WindowRows> taskRows = windowRowsOfTask(OH, sh, KH, dh);
  if (failed(taskRows))
    return failure();
  int64_t row0 = taskRows->first, rows = taskRows->last - taskRows->first;
  // Padding holds the code of 0 (an offset encoding's zero point).
  uint8_t fill = 0;
  if (integer) {
    FailureOr<codec::Encoding> encoding = encodingOf(op.getInput());
    if (failed(encoding))
      return failure();
    fill = uint8_t(int8_t(encoding->zero));
  }
  FailureOr<Piece> paddedInput = padded(op.getInput(), {ph, pw}, {ph, pw}, fill, taskRows->paddedRows);
  if (failed(paddedInput))
    return failure();
  Piece padded = *paddedInput;
  if (typeOf(padded) != inType)
    return taskError() << "its input holds " << nameOf(typeOf(padded)) << " data, not " << nameOf(inType);
  FailureOr<int> im2col = scratch(ib * std::max(tiling.rowTiles * tiling.xbarRows, tailRow + pack * tailRows));
  int64_t widest = 0;
  for (const Group &g : *groupList)
    widest = std::max(widest, g.positions * (g.colEnd - g.colBegin) * tiling.xbarCols);
  FailureOr<int> tmp = scratch(4 * std::max<int64_t>(widest, 1));
  if (failed(im2col) || failed(tmp))
    return failure();
  FailureOr<std::optional<Address>> bias = laneBias(*this, op.getBias(), tiling, col0, col1, codes, pack);
  if (failed(bias))
    return failure();
  ElementType sums = sumsOf(*this, integer);
  FailureOr<Piece> result = fresh({1, width, rows, OW}, channelsLast({1, width, rows, OW}), sums);
  if (failed(result))
    return failure();
  result->origin = {0, col0, row0, 0};
  result->partial = lane->partial;
  Address window = addressOf(padded).plus((row0 * sh - padded.origin[2]) * Wp * C * ib),
          outBase = addressOf(*result);
  Address scratchAddr = Address::at(addressOfBuffer(*im2col)), tmpAddr = Address::at(addressOfBuffer(*tmp));
  // The im2col window: (c, kw, kh) of the padded map, into (kh, kw, c) order.
  Layout windowLayout(IntTuple::tuple({C, KW, KH}), IntTuple::tuple({1, dw * C, dh * Wp * C}));
  Layout columnLayout(IntTuple::tuple({C, KW, KH}), IntTuple::tuple({1, C, KW * C}));
  // Sliced weights: each cell's product is an output (mbiw = cell_bits).
  int32_t mbiw = int32_t(symbols.size() > 1 ? target.cellBits : target.weightBits);
  SmallVector<Address> shifts = sliceShifts(*this, tiling, symbols.size());
  CoreEmitter &e = here();
  LogicalResult status = success();
  // Walks: the window and the output move; the im2col rows each group
  // reads, the partial-sum buffer and the bias stay.
  SmallVector<int64_t> rowTiles = distinct(*groupList, &Group::rowTile),
                       colStarts = distinct(*groupList, &Group::colBegin);
  bool partialSums = symbols.size() > 1 || llvm::any_of(*groupList, [](const Group &g) { return !g.direct; });
  Multiply multiply{tiling, rowTiles, colStarts, shifts, col1, mbiw, sums};
  // One step of the nest: `pack` positions of a row.
  SmallVector<int64_t, 4> outStrides{OW * width * 4, pack * width * 4};
  SmallVector<Walk> walks{Walk{window, {sh * Wp * C * ib, pack * sw * C * ib}}, Walk{outBase, outStrides},
                          Walk{scratchAddr, {0, 0}}};
  for (int64_t r : rowTiles)
    walks.push_back(Walk{scratchAddr.plus(r * tiling.xbarRows * ib), {0, 0}});
  for (int64_t c : colStarts)
    walks.push_back(Walk{outBase.plus((c * tiling.xbarCols - col0) * 4), outStrides});
  size_t tmpAt = walks.size(), biasAt = tmpAt + (partialSums ? 1 : 0);
  if (partialSums)
    walks.push_back(Walk{tmpAddr, {0, 0}});
  if (*bias)
    walks.push_back(Walk{**bias, {0, 0}});
  e.nest({rows, OW / pack}, walks, [&](ArrayRef<Address> a) {
    ArrayRef<Address> inputs = a.slice(3, rowTiles.size()), outputs = a.slice(3 + rowTiles.size(), colStarts.size());
    Address tmp = partialSums ? a[tmpAt] : Address();
    // Positions in order: a direct MVM writes a whole crossbar's columns,
    // past its position into the next one's slot, which is computed after.
    for (int64_t j = 0; j < pack; ++j) {
      if (failed(copy({a[2].plus(slot(j) * tailRows * ib), columnLayout, nullptr, inType},
                      {a[0].plus(j * sw * C * ib), windowLayout, nullptr, inType}))) {
        status = failure();
        return;
      }
      if (full.empty())
        continue;
      SmallVector<Address> in, out;
      for (Address x : inputs)
        in.push_back(x.plus(slot(j) * tailRows * ib));
      for (Address y : outputs)
        out.push_back(y.plus(j * width * 4));
      multiply(e, full, in, out, tmp);
    }
    multiply(e, packedTail, inputs, outputs, tmp);
    if (*bias)
      e.vector(Opcode::Vvadd, a[1], a[1], a[biasAt], pack * width, sums);
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
  bool integer = isEncoded(op.getInput());
  spatial::MatrixTiling tiling;
  FailureOr<spatial::MatrixTiling::Lane> lane = laneOf(*this, K, N, 1, 1, integer, tiling);
  if (failed(lane))
    return failure();
  FailureOr<MatrixWeights> weights = matrixWeights(*this, op, op.getWeight(), integer);
  if (failed(weights))
    return failure();
  const QuantizedMatrix *codes = weights->codes;
  ElementType inType = integer ? ElementType::I8 : ElementType::F32;
  int64_t ib = bytesOf(inType);
  SmallVector<std::string> symbols = weightSlices(*this, op.getWeight(), *weights->values, tiling, integer);
  // Matrix element (k, n) is weight[n][k].
  Layout matrix(IntTuple::tuple({K, N}), IntTuple::tuple({1, K}));
  FailureOr<SmallVector<Group>> groupList = declareGroups(*this, tiling, *lane, symbols, matrix);
  if (failed(groupList))
    return failure();
  int64_t col0 = lane->colBegin * tiling.xbarCols, col1 = std::min(N, lane->colEnd * tiling.xbarCols);
  int64_t width = col1 - col0;
  // A copy of the lane computes rows [row0, row1) of the row dimension.
  int64_t rowDim = spatial::linearRowDim(in);
  if (task.getRows() && rowDim < 0)
    return taskError() << "computes rows of a linear layer whose input has several leading dimensions";
  FailureOr<std::pair<int64_t, int64_t>> taskRows = rowsOfTask(rowDim >= 0 ? in[size_t(rowDim)] : 1);
  if (failed(taskRows))
    return failure();
  auto [row0, row1] = *taskRows;
  // A copy brings only its rows (a copy of a transformer's projection had
  // received all 197 tokens to compute 8 of them).
  std::optional<TensorValue> own;
  if (rowDim >= 0 && (row0 > 0 || row1 < in[size_t(rowDim)])) {
    FailureOr<std::optional<TensorValue>> range = rangeOfValue(op.getInput(), size_t(rowDim), row0, row1);
    if (failed(range))
      return failure();
    own = *range;
  }
  SmallVector<int64_t, 4> held(in.begin(), in.end());
  if (own)
    held[size_t(rowDim)] = row1 - row0;
  Layout rows = rowMajor(held);
  FailureOr<Piece> x = own ? materialize(*own, [&](const Piece &p) { return sameLayout(p.layout, rows); }, rows)
                           : materializeAs(op.getInput(), rows);
  if (failed(x))
    return failure();
  int64_t firstHeld = own ? row0 : 0; // the row x's first row holds
  if (typeOf(*x) != inType)
    return taskError() << "its input holds " << nameOf(typeOf(*x)) << " data, not " << nameOf(inType);
  int64_t widest = 0;
  for (const Group &g : *groupList)
    widest = std::max(widest, (g.colEnd - g.colBegin) * tiling.xbarCols);
  FailureOr<int> tmp = scratch(4 * std::max<int64_t>(widest, 1));
  if (failed(tmp))
    return failure();
  FailureOr<std::optional<Address>> bias = laneBias(*this, op.getBias(), tiling, col0, col1, codes);
  if (failed(bias))
    return failure();
  ElementType sums = sumsOf(*this, integer);
  SmallVector<int64_t, 4> box(out.begin(), out.end());
  box.back() = width;
  if (rowDim >= 0)
    box[size_t(rowDim)] = row1 - row0;
  positions = positions / std::max<int64_t>(rowDim >= 0 ? in[size_t(rowDim)] : 1, 1) * (row1 - row0);
  FailureOr<Piece> result = fresh(box, rowMajor(box), sums);
  if (failed(result))
    return failure();
  result->origin.assign(out.size(), 0);
  result->origin.back() = col0;
  if (rowDim >= 0)
    result->origin[size_t(rowDim)] = row0;
  result->partial = lane->partial;
  CoreEmitter &e = here();
  Address tmpAddr = Address::at(addressOfBuffer(*tmp));
  int32_t mbiw = int32_t(symbols.size() > 1 ? target.cellBits : target.weightBits);
  SmallVector<Address> shifts = sliceShifts(*this, tiling, symbols.size());
  SmallVector<int64_t> rowTiles = distinct(*groupList, &Group::rowTile),
                       colStarts = distinct(*groupList, &Group::colBegin);
  bool partialSums = symbols.size() > 1 || llvm::any_of(*groupList, [](const Group &g) { return !g.direct; });
  Multiply multiply{tiling, rowTiles, colStarts, shifts, col1, mbiw, sums};
  SmallVector<Walk> walks{Walk{addressOf(*result), {width * 4}}};
  for (int64_t r : rowTiles)
    walks.push_back(Walk{addressOf(*x).plus(((row0 - firstHeld) * K + r * tiling.xbarRows) * ib), {K * ib}});
  for (int64_t c : colStarts)
    walks.push_back(Walk{addressOf(*result).plus((c * tiling.xbarCols - col0) * 4), {width * 4}});
  size_t tmpAt = walks.size(), biasAt = tmpAt + (partialSums ? 1 : 0);
  if (partialSums)
    walks.push_back(Walk{tmpAddr, {0}});
  if (*bias)
    walks.push_back(Walk{**bias, {0}});
  e.nest({positions}, walks, [&](ArrayRef<Address> a) {
    multiply(e, *groupList, a.slice(1, rowTiles.size()), a.slice(1 + rowTiles.size(), colStarts.size()),
             partialSums ? a[tmpAt] : Address());
    if (*bias)
      e.vector(Opcode::Vvadd, a[0], a[0], a[biasAt], width, sums);
  });
  definePiece(op.getOut(), *result);
  return success();
}

} // namespace raptor::pim
