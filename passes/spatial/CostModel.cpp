//===- CostModel.cpp - What an nn operator costs on a PIM target -*- C++ -*-===//
#include "passes/spatial/CostModel.h"

#include "dialects/nn/NNDialect.h"
#include "dialects/nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "dialects/codec/CodecDialect.h"
#include "passes/codec/EncodedValues.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace raptor::spatial {

namespace {

int64_t numElements(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

/// Taps of a 2-d pooling window (a one-entry kernel_size is square).
int64_t windowTaps(ArrayRef<int64_t> kernel) {
  int64_t taps = 1;
  for (int64_t k : kernel)
    taps *= k;
  return kernel.size() == 1 ? taps * taps : taps;
}

/// The name of a weight operand (an nn.param argument, possibly through
/// its codecs), or "".
std::string weightName(Value v) {
  while (isa_and_nonnull<raptor::codec::EncodeOp, raptor::codec::ObserveOp>(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return "";
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return "";
  auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), raptor::nn::NNDialect::kParamAttrName);
  return name ? name.getValue().str() : "";
}

constexpr int64_t kElementBytes = kProgramBits / 8;

/// Vector instructions of `elements` each, reading `operands` vectors.
double vectorWork(const pim::TargetModel &t, double instructions, int64_t elements, int64_t operands = 2) {
  return instructions * t.timing.vectorInstructionNs(elements, operands, kElementBytes);
}

/// The lanes of a K x N weight matrix (WeightTiling): per output position,
/// the lowering gathers the im2col window (`gathers` copies of
/// `gatherBytes`), runs one MVM per array group of the lane, adds the
/// groups that continue a column range and the bias once; a packed tail
/// tile (packedPositions over the `rowPositions` of an output row) serves p
/// positions with one MVM, one add of its sums and one bias add.
FailureOr<Lanes> crossbarLanes(Operation *op, const pim::TargetModel &t, int64_t laneRowTiles, int64_t k, int64_t n,
                               int64_t taps, int64_t groups, int64_t positions, int64_t rowPositions,
                               std::string weight, int64_t gathers, int64_t gatherBytes, bool bias, bool integer) {
  MatrixTiling tiling;
  std::string error;
  if (!tileMatrix(k, n, taps, groups, t.crossbarRows, t.crossbarCols, t.slices(), t.crossbarsPerCore, laneRowTiles,
                  tiling, error))
    return op->emitError() << error;
  Lanes lanes;
  lanes.weight = std::move(weight);
  lanes.cols = n;
  const pim::TimingConfig &timing = t.timing;
  for (auto [index, lane] : llvm::enumerate(tiling.lanes)) {
    lanes.tiles.push_back(lane.crossbars);
    // The packed tail tile serves p positions per MVM (and per add of its
    // sums and of the bias); the other tiles one.
    double packed = double(packedPositions(tiling, lane, rowPositions));
    double perPosition = double(gathers) * timing.copyInstructionNs(gatherBytes);
    for (const TileGroup &g : groupsOf(tiling, lane)) {
      int64_t share = packed > 1 && g.rowTile == tiling.rowTiles - 1 ? int64_t(packed) : 1;
      int64_t width = share * (std::min(n, g.colEnd * t.crossbarCols) - g.colBegin * t.crossbarCols);
      double ns = 0.0;
      if (integer) { // int8 inputs; one MVM per bit slice, shifted and added (MatrixOps.cpp)
        unsigned mbiw = tiling.slices > 1 ? t.cellBits : t.weightBits;
        for (int64_t s = 0; s < tiling.slices; ++s)
          ns += timing.mvmulInstructionNs(g.colEnd - g.colBegin, 8, kProgramBits, mbiw) +
                (s > 0 ? vectorWork(t, 2, width) : 0.0);
      } else {
        ns += timing.mvmulInstructionNs((g.colEnd - g.colBegin) * tiling.slices, kProgramBits, kProgramBits,
                                        t.weightBits);
      }
      if (!g.first)
        ns += vectorWork(t, 1, width);
      perPosition += ns / double(share);
    }
    bool firstOfColumns = llvm::none_of(llvm::ArrayRef(tiling.lanes).take_front(index), [&](const auto &other) {
      return other.colBegin == lane.colBegin;
    });
    if (bias && firstOfColumns)
      perPosition += vectorWork(t, 1, int64_t(packed) * (std::min(n, lane.colEnd * t.crossbarCols) -
                                                         lane.colBegin * t.crossbarCols)) /
                     packed;
    lanes.ns.push_back(double(positions) * perPosition);
    lanes.matrix.push_back(lane);
  }
  lanes.count = lanes.tiles.size();
  return lanes;
}

/// Vector instructions of an element-wise operator's program in the
/// lowering (VectorOps.cpp), over the whole tensor.
/// Whether `op` belongs to an integer-only program (its function carries
/// the fixed point calibration chose: passes/conversion/SpatialToPim).
bool integerProgram(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func && func->hasAttr("raptor.fixed_point_bits");
}

/// Vector instructions per element of the operators whose integer-only
/// programs are sequences (simulator/FixedPoint.h): a requantization is
/// about 22 (four partial products brought to one unit), an encoder adds
/// its clamp and narrowing, an activation is a clamp, two shifts and
/// vsigm, a product 20.
constexpr double kRequantizeSteps = 22, kEncodeSteps = 27, kActivationSteps = 11, kProductSteps = 20;

double elementwiseSteps(Operation *op) {
  if (integerProgram(op)) {
    std::optional<double> steps = llvm::TypeSwitch<Operation *, std::optional<double>>(op)
                                      .Case<raptor::codec::EncodeOp, raptor::codec::RescaleOp>(
                                          [](Operation *) { return kEncodeSteps; })
                                      .Case([](raptor::codec::DecodeOp) { return kRequantizeSteps; })
                                      .Case<raptor::nn::SigmoidOp, raptor::nn::TanhOp>(
                                          [](Operation *) { return kActivationSteps; })
                                      .Case([](raptor::nn::SiluOp) { return kActivationSteps + kProductSteps; })
                                      .Case([](raptor::nn::MulOp) { return kProductSteps; })
                                      .Default([](Operation *) { return std::nullopt; });
    if (steps)
      return *steps;
  }
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case([](raptor::nn::GeluOp o) { return o.getApproximate() == "tanh" ? 9.0 : 5.0; })
      .Case([](raptor::nn::HardtanhOp) { return 4.0; })
      .Case([](raptor::nn::ClampOp o) { return double((o.getMin() ? 1 : 0) + (o.getMax() ? 3 : 0)); })
      .Case([](raptor::nn::SiluOp) { return 2.0; })
      .Default([](Operation *) { return 1.0; });
}

/// torch's view rule: the strides of `to` viewing storage of shape `from`
/// and strides `strides`, or nullopt when no strides do (a dimension it
/// merges is not contiguous in storage).
std::optional<SmallVector<int64_t>> viewStrides(ArrayRef<int64_t> from, ArrayRef<int64_t> strides,
                                                ArrayRef<int64_t> to) {
  SmallVector<int64_t> out(to.size(), 1);
  if (from.empty())
    return out;
  int64_t viewD = int64_t(to.size()) - 1, base = strides.back(), tensorCount = 1, viewCount = 1;
  for (int64_t d = int64_t(from.size()) - 1; d >= 0; --d) {
    tensorCount *= from[size_t(d)];
    if (d == 0 || (from[size_t(d - 1)] != 1 && strides[size_t(d - 1)] != tensorCount * base)) {
      while (viewD >= 0 && (viewCount < tensorCount || to[size_t(viewD)] == 1)) {
        out[size_t(viewD)] = viewCount * base;
        viewCount *= to[size_t(viewD)];
        --viewD;
      }
      if (viewCount != tensorCount)
        return std::nullopt;
      if (d > 0) {
        base = strides[size_t(d - 1)];
        tensorCount = viewCount = 1;
      }
    }
  }
  if (viewD != -1)
    return std::nullopt;
  return out;
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  return strides;
}

/// The strides of `v` in local memory as the lowering keeps it: a feature
/// map (N, C, H, W) that an operator wrote channels-last, a permutation or
/// view its input's storage seen through it, anything else row-major (so
/// is the flat copy a reader makes of a view that no strides express).
SmallVector<int64_t> storageStrides(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Operation *def = v.getDefiningOp();
  if (auto clone = dyn_cast_or_null<raptor::nn::CloneOp>(def))
    return storageStrides(clone.getSelf());
  if (auto permute = dyn_cast_or_null<raptor::nn::PermuteOp>(def)) {
    SmallVector<int64_t> in = storageStrides(permute.getSelf()), out;
    for (int64_t d : permute.getDims())
      out.push_back(in[size_t(d < 0 ? d + int64_t(in.size()) : d)]);
    return out;
  }
  if (auto view = dyn_cast_or_null<raptor::nn::ViewOp>(def)) {
    auto from = cast<RankedTensorType>(view.getSelf().getType()).getShape();
    if (std::optional<SmallVector<int64_t>> s = viewStrides(from, storageStrides(view.getSelf()), shape))
      return *s;
  } else if (def && shape.size() == 4) {
    int64_t c = shape[1], h = shape[2], w = shape[3];
    return {c * h * w, 1, w * c, c};
  }
  return rowMajorStrides(shape);
}

/// Elements of a value that its readers copy before they compute (each
/// the elements it reads), in runs of `run` contiguous ones.
struct Scattered {
  double elements = 0;
  int64_t run = 1;
};

/// Element-wise operators and codecs: their results keep their input's
/// storage order (the lowering's compactLike), however scattered.
bool keepsOrder(Operation *op) {
  return isa<raptor::nn::AddOp, raptor::nn::SubOp, raptor::nn::MulOp, raptor::nn::DivOp, raptor::nn::ReluOp,
             raptor::nn::GeluOp, raptor::nn::SiluOp, raptor::nn::SigmoidOp, raptor::nn::TanhOp, raptor::nn::NegOp,
             raptor::nn::RsqrtOp, raptor::nn::ExpOp, raptor::nn::Log1pOp, raptor::nn::HardtanhOp,
             raptor::nn::ClampOp, raptor::codec::EncodeOp,
             raptor::codec::DecodeOp, raptor::codec::RescaleOp>(op);
}

/// Views the lowering computes on its pieces without copying.
bool isPieceView(Operation *op) {
  return isa<raptor::nn::CloneOp, raptor::nn::PermuteOp, raptor::nn::SplitWithSizesOp, raptor::nn::SliceOp,
             raptor::nn::SelectOp, raptor::codec::ObserveOp>(op);
}

/// What of `v` sits scattered in storage: a view no strides express is a
/// view all the same in the lowering (a nested layout), and the operators
/// that need flat data (matrix operators' windows, pooling, a view of a
/// concatenation, which gathers it into one piece) copy it run by run: a
/// channel shuffle ((N, 2, C/2, H, W) permuted and merged back to (N, C,
/// H, W)) leaves a channels-last map their readers copy element by
/// element. Views, concatenations and element-wise operators pass it on.
Scattered scattered(Value v) {
  Operation *def = v.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!def || !type || !type.hasStaticShape())
    return {};
  double share = double(numElements(v));
  auto from = [&](Value in) {
    Scattered s = scattered(in);
    s.elements *= share / double(std::max<int64_t>(numElements(in), 1));
    return s;
  };
  if (auto view = dyn_cast<raptor::nn::ViewOp>(def)) {
    auto in = cast<RankedTensorType>(view.getSelf().getType());
    SmallVector<int64_t> strides = storageStrides(view.getSelf());
    if (!in.hasStaticShape() || viewStrides(in.getShape(), strides, type.getShape()))
      return from(view.getSelf());
    Scattered s{share, 1};
    for (size_t d = in.getRank(); d-- > 0;) {
      if (in.getDimSize(d) == 1)
        continue;
      if (strides[d] != s.run)
        break;
      s.run *= in.getDimSize(d);
    }
    return s;
  }
  if ((isPieceView(def) || keepsOrder(def)) && def->getNumOperands() > 0)
    return from(def->getOperand(0));
  if (auto cat = dyn_cast<raptor::nn::CatOp>(def)) {
    Scattered sum;
    sum.run = std::numeric_limits<int64_t>::max();
    for (Value in : cat.getTensors())
      if (Scattered s = scattered(in); s.elements > 0) {
        sum.elements += s.elements;
        sum.run = std::min(sum.run, s.run);
      }
    return sum.elements > 0 ? sum : Scattered{};
  }
  return {};
}

/// The dimensions along which `v`'s pieces in the lowering may be cut
/// where a view cares: a concatenation's dimension, carried by views along
/// their dimensions (a split dimension's cut may land on any of its
/// parts).
llvm::SmallBitVector cutDims(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return {};
  int64_t rank = type.getRank();
  llvm::SmallBitVector cut(static_cast<unsigned>(rank));
  Operation *def = v.getDefiningOp();
  if (!def) // a graph input: one piece
    return cut;
  if (isa<raptor::nn::CloneOp, raptor::codec::ObserveOp>(def))
    return cutDims(def->getOperand(0));
  if (auto permute = dyn_cast<raptor::nn::PermuteOp>(def)) {
    llvm::SmallBitVector in = cutDims(permute.getSelf());
    if (in.size() != size_t(rank) || permute.getDims().size() != size_t(rank))
      return cut;
    for (auto [i, d] : llvm::enumerate(permute.getDims()))
      cut[i] = in[size_t(d < 0 ? d + rank : d)];
    return cut;
  }
  if (auto cat = dyn_cast<raptor::nn::CatOp>(def)) {
    for (Value in : cat.getTensors())
      cut |= cutDims(in);
    int64_t dim = int64_t(cat.getDim()); // (an I64Attr reads as unsigned)
    if (dim < 0)
      dim += rank;
    if (dim >= 0 && dim < rank)
      cut.set(unsigned(dim));
    return cut;
  }
  if (auto view = dyn_cast<raptor::nn::ViewOp>(def)) {
    auto from = cast<RankedTensorType>(view.getSelf().getType()).getShape();
    ArrayRef<int64_t> to = type.getShape();
    llvm::SmallBitVector in = cutDims(view.getSelf());
    if (in.size() != from.size())
      return cut;
    forEachViewGroup(from, to, [&](size_t i, size_t i2, size_t j, size_t j2) {
      bool any = false;
      for (size_t d = i; d < i2; ++d)
        any |= in[d] && from[d] > 1;
      for (size_t d = j; d < j2 && any; ++d)
        cut[d] = to[d] > 1;
      return true;
    });
    return cut;
  }
  if (auto split = dyn_cast<raptor::nn::SplitWithSizesOp>(def)) {
    cut = cutDims(split.getSelf());
    return cut.size() == size_t(rank) ? cut : llvm::SmallBitVector(static_cast<unsigned>(rank));
  }
  // An operator's result, as a whole (its copies' rows and lanes'
  // channels are cuts views keep whole: a merge of channel groups reads
  // them as one nested layout).
  return cut;
}

/// What `op` pays to copy its scattered operands flat. Element-wise
/// operators copy none when all their operands share the first one's
/// storage order, and otherwise run their instructions over the common
/// runs (priced as copies of the scattered elements).
double gatherNs(Operation *op, const pim::TimingConfig &timing) {
  if (isPieceView(op) || isa<raptor::nn::CatOp>(op))
    return 0;
  if (isa<raptor::nn::ViewOp>(op) && !gathersView(op))
    return 0;
  SmallVector<std::pair<Value, Scattered>> operands;
  for (Value operand : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(operand.getType()); t && t.hasStaticShape() && t.getNumElements() > 1)
      operands.push_back({operand, scattered(operand)});
  if (keepsOrder(op) && llvm::all_of(operands, [&](const auto &o) {
        return (o.second.elements > 0) == (operands.front().second.elements > 0);
      }))
    return 0;
  double ns = 0;
  for (auto &[operand, s] : operands)
    if (s.elements > 0) {
      int64_t bytes = (cast<RankedTensorType>(operand.getType()).getElementTypeBitWidth() + 7) / 8;
      ns += s.elements / double(s.run) * timing.copyInstructionNs(s.run * bytes);
    }
  return ns;
}

} // namespace

bool forEachViewGroup(ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                      llvm::function_ref<bool(size_t, size_t, size_t, size_t)> f) {
  size_t i = 0, j = 0, n = from.size(), m = to.size();
  while (i < n || j < m) {
    size_t i2 = i, j2 = j;
    int64_t a = i2 < n ? from[i2++] : 1, b = j2 < m ? to[j2++] : 1;
    while (a != b) {
      if (a < b && i2 < n)
        a *= from[i2++];
      else if (b < a && j2 < m)
        b *= to[j2++];
      else
        return false;
    }
    if (!f(i, i2, j, j2))
      return false;
    i = i2, j = j2;
  }
  return true;
}

bool gathersView(Operation *op) {
  auto view = dyn_cast<raptor::nn::ViewOp>(op);
  if (!view)
    return false;
  auto from = cast<RankedTensorType>(view.getSelf().getType()).getShape();
  auto to = cast<RankedTensorType>(view.getOut().getType()).getShape();
  llvm::SmallBitVector in = cutDims(view.getSelf());
  if (in.size() != from.size())
    return false;
  bool gathers = false;
  forEachViewGroup(from, to, [&](size_t i, size_t i2, size_t j, size_t j2) {
    // Merged dimensions: a cut below the outermost one that spans more
    // than one index is no box of the merged dimension.
    if (i2 - i < 2)
      return true;
    size_t outer = i;
    while (outer < i2 && from[outer] == 1)
      ++outer;
    for (size_t d = outer + 1; d < i2; ++d)
      gathers |= in[d] && from[d] > 1;
    return true;
  });
  return gathers;
}

bool movesNoData(Operation *op) {
  return isa<raptor::nn::ViewOp, raptor::nn::PermuteOp, raptor::nn::ExpandOp, raptor::nn::SliceOp,
             raptor::nn::SelectOp, raptor::nn::SplitWithSizesOp, raptor::nn::CloneOp, raptor::nn::FanOutOp,
             raptor::nn::KVCacheOp, raptor::nn::UpsampleNearest2dOp, raptor::codec::ObserveOp, raptor::nn::CatOp>(op);
}

int64_t linearRowDim(ArrayRef<int64_t> shape) {
  int64_t dim = -1;
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    if (shape[i] > 1) {
      if (dim >= 0)
        return -1;
      dim = int64_t(i);
    }
  return dim;
}

int64_t tensorBytes(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  unsigned bits = t.getElementTypeBitWidth();
  // Encoded data is held in its codec's target type (int8), whatever the
  // tensor's element type says.
  if (std::optional<raptor::codec::SemanticsAttr> s = raptor::codec::subgraphOf(v);
      s && s->isEncoded() && s->getTarget().isIntOrFloat())
    bits = s->getTarget().getIntOrFloatBitWidth();
  return numElements(v) * ((bits + 7) / 8);
}

bool isDepthwise(raptor::nn::ConvolutionOp conv) {
  auto w = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t groups = int64_t(conv.getGroups());
  return groups > 1 && w.getDimSize(1) == 1 && w.getDimSize(0) == groups;
}

/// One `ld` of `bytes` from global memory into a core, as pimsim-nn times it.
static double loadNs(const pim::TimingConfig &timing, int64_t bytes) {
  pim::Instruction load;
  load.opcode = pim::Opcode::Ld;
  load.size = bytes;
  return timing.instructionNs(load, pim::AccessContext(), 0);
}

/// Whether `arg` is an input of the model (`nn.input`), not a weight.
static bool isModelInput(BlockArgument arg) {
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return !func || func.getArgAttr(arg.getArgNumber(), "nn.input");
}

/// The lanes of `op` by its own program, before any copies of its
/// operands.
static FailureOr<Lanes> operatorLanes(Operation *op, const pim::TargetModel &t, int64_t laneRowTiles) {
  Lanes one;
  one.tiles = {0};
  // Refused here, where a compile first meets the graph, naming the aten
  // operator (the lowering would only see 'nn.aten').
  if (auto aten = dyn_cast<raptor::nn::AtenOp>(op)) {
    // Arithmetic on token ids that raptor-fold-token-arithmetic did not
    // state as an operator says so.
    // (An integer weight, nn.param, is a constant: its operator is simply
    // unsupported.)
    for (Value operand : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && isa<IntegerType>(cast<ShapedType>(arg.getType()).getElementType()) && isModelInput(arg))
        return op->emitError() << aten.getTarget()
                               << " computes on the integer model input (token ids) at run time, which the PIM "
                                  "lowering does not: it reads token ids as embedding indices, numbers "
                                  "positions past their padding and finds the last token that is not padding "
                                  "(nn.token_positions, nn.last_token: the importers and "
                                  "raptor-fold-token-arithmetic find them), nothing else (give the model what it "
                                  "derives from them as inputs or constants)";
    return op->emitError() << aten.getTarget()
                           << " has no PIM lowering (the importer kept it as the generic nn.aten op)";
  }
  if (auto conv = dyn_cast<raptor::nn::ConvolutionOp>(op)) {
    auto w = cast<RankedTensorType>(conv.getWeight().getType());
    auto out = cast<RankedTensorType>(conv.getOut().getType());
    if (!w.hasStaticShape() || !out.hasStaticShape() || conv.getTransposed() || out.getRank() != 4)
      return op->emitError("compute graphs need static, non-transposed 2-d convolutions");
    int64_t groups = int64_t(conv.getGroups());
    int64_t kh = w.getDimSize(2), kw = w.getDimSize(3), taps = kh * kw;
    int64_t positions = out.getNumElements() / out.getDimSize(1);
    if (isDepthwise(conv)) {
      // On the vector unit, channels-last: per kernel tap, a multiply by the
      // tap's weights per output row (per output position when strided),
      // then all of it added to the sum; the bias is one more add.
      int64_t c = out.getDimSize(1), oh = out.getDimSize(2), ow = out.getDimSize(3);
      bool unitStride = conv.getStride().size() < 2 ? conv.getStride().empty() || conv.getStride()[0] == 1
                                                    : conv.getStride()[1] == 1;
      double multiplies = unitStride ? vectorWork(t, double(oh), ow * c) : vectorWork(t, double(oh * ow), c);
      int64_t all = oh * ow * c;
      one.ns = {double(taps) * multiplies + vectorWork(t, double(taps - 1 + (conv.getBias() ? 1 : 0)), all)};
      return one;
    }
    int64_t channels = w.getDimSize(1) * groups;
    int64_t k = taps * channels; // the block-diagonal embedding
    // The window's rows (kh of them, kw * channels contiguous) per position.
    // int8 convolutions gather byte-wide codes.
    bool integer = raptor::codec::isEncoded(conv.getInput());
    FailureOr<Lanes> lanes = crossbarLanes(op, t, laneRowTiles, k, w.getDimSize(0), taps, groups, positions,
                                           out.getDimSize(3), weightName(conv.getWeight()), kh,
                                           kw * channels * (integer ? 1 : kElementBytes), bool(conv.getBias()),
                                           integer);
    if (succeeded(lanes) && out.getDimSize(0) == 1) {
      auto in = cast<RankedTensorType>(conv.getInput().getType());
      int64_t dilation = conv.getDilation().empty() ? 1 : conv.getDilation()[0];
      lanes->rows = out.getDimSize(2);
      lanes->windows = positions;
      lanes->inputRows = in.getDimSize(2);
      lanes->inputRowBytes = tensorBytes(conv.getInput()) / std::max<int64_t>(in.getDimSize(2), 1);
      lanes->stride = conv.getStride().empty() ? 1 : conv.getStride()[0];
      lanes->halo = (kh - 1) * dilation;
    }
    return lanes;
  }
  if (auto linear = dyn_cast<raptor::nn::LinearOp>(op)) {
    auto w = cast<RankedTensorType>(linear.getWeight().getType());
    if (!w.hasStaticShape() || w.getRank() != 2 || numElements(linear.getInput()) == 0)
      return op->emitError("compute graphs need static shapes and a 2-d weight on nn.linear");
    int64_t k = w.getDimSize(1), n = w.getDimSize(0);
    int64_t positions = numElements(linear.getInput()) / k;
    FailureOr<Lanes> lanes =
        crossbarLanes(op, t, laneRowTiles, k, n, 1, 1, positions, 1, weightName(linear.getWeight()), 0, 0,
                      bool(linear.getBias()), raptor::codec::isEncoded(linear.getInput()));
    auto shape = cast<RankedTensorType>(linear.getInput().getType()).getShape();
    if (int64_t dim = linearRowDim(shape); succeeded(lanes) && dim >= 0) {
      lanes->rows = lanes->inputRows = shape[size_t(dim)];
      lanes->windows = positions;
      lanes->inputRowBytes = tensorBytes(linear.getInput()) / std::max<int64_t>(shape[size_t(dim)], 1);
    }
    return lanes;
  }
  Value out = op->getNumResults() ? op->getResult(0) : Value();
  if (!out || !isa<RankedTensorType>(out.getType()))
    return op->emitError("compute graphs need ops with tensor results");
  const pim::TimingConfig &timing = t.timing;
  if (isa<raptor::nn::ViewOp, raptor::nn::ExpandOp, raptor::nn::SliceOp, raptor::nn::SelectOp,
          raptor::nn::SplitWithSizesOp, raptor::codec::ObserveOp>(op)) {
    one.ns = {0}; // views (and calibration points, identities once calibrated): address arithmetic
  } else if (isa<raptor::nn::PermuteOp, raptor::nn::CloneOp, raptor::nn::ConstantPadNdOp, raptor::nn::FanOutOp,
                 raptor::nn::KVCacheOp, raptor::nn::CatOp, raptor::nn::AsStridedOp>(op)) {
    double ns = 0; // copies: one block move per result (or input of a cat)
    for (Value r : op->getResults())
      ns += timing.copyInstructionNs(tensorBytes(r));
    one.ns = {ns};
  } else if (auto positions = dyn_cast<raptor::nn::TokenPositionsOp>(op)) {
    // The ids' load, the mask's 7 vector instructions, a copy and an add
    // per row for each of log2(length) prefix-sum steps, then the product
    // and the sum (EmbeddingOps.cpp).
    int64_t ids = numElements(positions.getIds()), length = positions.getIds().getType().getShape().back();
    int64_t steps = length > 1 ? int64_t(llvm::Log2_64_Ceil(uint64_t(length))) : 0;
    int64_t rows = ids / std::max<int64_t>(length, 1);
    one.ns = {loadNs(timing, kElementBytes * ids) + vectorWork(t, 9 + (positions.getOffset() ? 1 : 0), ids) +
              double(steps * rows) * (vectorWork(t, 1, length) + timing.copyInstructionNs(kElementBytes * length))};
  } else if (auto last = dyn_cast<raptor::nn::LastTokenOp>(op)) {
    // The ids' load, the mask's 7 vector instructions and the product (or,
    // counted, the sum's decrement and relu), a copy and a maximum (a sum)
    // per row for each of log2(length) scan steps, then per row four
    // scalar instructions and the row's copy (EmbeddingOps.cpp).
    int64_t ids = numElements(last.getIds()), length = last.getIds().getType().getShape().back();
    int64_t steps = length > 1 ? int64_t(llvm::Log2_64_Ceil(uint64_t(length))) : 0;
    int64_t rows = ids / std::max<int64_t>(length, 1);
    int64_t rowBytes = kElementBytes * numElements(last.getOut()) / std::max<int64_t>(rows, 1);
    one.ns = {loadNs(timing, kElementBytes * ids) + vectorWork(t, last.getCounted() ? 9 : 8, ids) +
              double(steps * rows) * (vectorWork(t, 1, length) + timing.copyInstructionNs(kElementBytes * length)) +
              double(rows) * (4 * timing.decodeNs(pim::Opcode::Sld) + timing.copyInstructionNs(rowBytes))};
  } else if (auto lookup = dyn_cast<raptor::nn::EmbeddingOp>(op)) {
    // The ids' load, then per id its row's: four scalar instructions
    // computing the address and the ld.
    int64_t width = cast<RankedTensorType>(out.getType()).getShape().back();
    int64_t ids = numElements(lookup.getIndices());
    one.ns = {loadNs(timing, kElementBytes * ids) +
              double(ids) * (loadNs(timing, kElementBytes * width) + 4 * timing.decodeNs(pim::Opcode::Sld))};
  } else if (auto mm = dyn_cast<raptor::nn::MatmulOp>(op)) {
    // Both operands are activations: one vector-matrix product per row of
    // the left operand (an extension instruction, timed as vector work).
    auto a = cast<RankedTensorType>(mm.getSelf().getType());
    int64_t depth = a.getShape().back(), width = cast<RankedTensorType>(mm.getOut().getType()).getShape().back();
    int64_t rows = numElements(mm.getOut()) / std::max<int64_t>(width, 1);
    one.ns = {double(rows) * timing.serialNs(timing.localNs(depth * width * kElementBytes, false) +
                                             timing.vectorNs(depth * width) +
                                             timing.localNs(width * kElementBytes, true))};
  } else if (auto sdpa = dyn_cast<raptor::nn::ScaledDotProductAttentionOp>(op)) {
    // Scores and the weighted sum: two products of the query rows with the
    // keys and values, and a softmax over the scores.
    auto q = cast<RankedTensorType>(sdpa.getQuery().getType());
    auto k = cast<RankedTensorType>(sdpa.getKey().getType());
    int64_t length = k.getDimSize(k.getRank() - 2), depth = q.getShape().back();
    int64_t rows = numElements(sdpa.getQuery()) / std::max<int64_t>(depth, 1);
    double product = timing.serialNs(timing.localNs(length * depth * kElementBytes, false) +
                                     timing.vectorNs(length * depth) + timing.localNs(length * kElementBytes, true));
    one.ns = {double(rows) * (2 * product + vectorWork(t, 6, length))};
  } else if (auto pool = dyn_cast<raptor::nn::MaxPool2dOp>(op)) {
    // A vector over the channels per window tap and output position.
    auto shape = cast<RankedTensorType>(pool.getOut().getType()).getShape();
    int64_t taps = windowTaps(pool.getKernelSize());
    one.ns = {vectorWork(t, double(taps * numElements(pool.getOut()) / shape[1]), shape[1])};
  } else if (auto pool = dyn_cast<raptor::nn::AvgPool2dOp>(op)) {
    auto shape = cast<RankedTensorType>(pool.getOut().getType()).getShape();
    int64_t taps = windowTaps(pool.getKernelSize());
    one.ns = {vectorWork(t, double(taps * numElements(pool.getOut()) / shape[1]), shape[1]) +
              vectorWork(t, integerProgram(op) ? kRequantizeSteps : 1, numElements(pool.getOut()))};
  } else if (auto mean = dyn_cast<raptor::nn::MeanOp>(op)) {
    // One accumulation per reduced element's row, then a scaling.
    int64_t kept = std::max<int64_t>(numElements(mean.getOut()), 1);
    one.ns = {vectorWork(t, double(numElements(mean.getSelf()) / kept), kept) +
              vectorWork(t, integerProgram(op) ? kRequantizeSteps : 1, kept)};
  } else if (isa<raptor::nn::SoftmaxOp, raptor::nn::LayerNormOp, raptor::nn::RMSNormOp>(op)) {
    // Row programs: a handful of instructions per row of the last dimension.
    auto shape = cast<RankedTensorType>(out.getType()).getShape();
    int64_t width = shape.empty() ? 1 : shape.back();
    double rows = double(numElements(out) / std::max<int64_t>(width, 1));
    double steps = isa<raptor::nn::SoftmaxOp>(op) ? 6 : isa<raptor::nn::LayerNormOp>(op) ? 9 : 7;
    one.ns = {vectorWork(t, rows * steps, width)};
  } else {
    // Element-wise and the rest: the operator's program over its outputs.
    double elements = 0;
    for (Value r : op->getResults())
      if (isa<RankedTensorType>(r.getType()))
        elements += double(numElements(r));
    int64_t operands = std::clamp<int64_t>(int64_t(op->getNumOperands()), 1, 2);
    one.ns = {vectorWork(t, elementwiseSteps(op), int64_t(elements), operands)};
  }
  return one;
}

FailureOr<Lanes> lanesOf(Operation *op, const pim::TargetModel &t, int64_t laneRowTiles) {
  FailureOr<Lanes> lanes = operatorLanes(op, t, laneRowTiles);
  // Each lane copies its scattered operands itself (on its own core).
  if (succeeded(lanes))
    if (double copies = gatherNs(op, t.timing); copies > 0)
      for (double &ns : lanes->ns)
        ns += copies;
  return lanes;
}

} // namespace raptor::spatial
