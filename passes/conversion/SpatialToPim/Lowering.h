//===- Lowering.h - Scheduled compute graphs to PIM programs ----*- C++ -*-===//
//
// The state of raptor-lower-to-pim: buffers on each core, the pieces every
// nn value occupies, transfers, constants and model inputs/outputs in
// global memory. Tasks are lowered in one global order (the scheduler's
// `position`, else start time; then graph order; always topological):
// every core's sends and receives are then a subsequence of
// one sequence of transfers, so blocking rendezvous cannot deadlock (the
// first pending transfer has both sides at it). Transfers through global
// memory (the graph's `transfers = "global"`) keep it: a sender's store and
// signal never wait for a peer, and a reader's wait is for a signal emitted
// earlier in the same order (after its producer's work, or where the
// sender's program was when the reader was lowered).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_LOWERING_H
#define RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_LOWERING_H

#include "dialects/codec/CodecDialect.h"
#include "dialects/nn/NNOps.h"
#include "dialects/pim/PimDialect.h"
#include "dialects/spatial/SpatialDialect.h"
#include "passes/codec/Quantization.h"
#include "passes/conversion/SpatialToPim/CoreEmitter.h"
#include "passes/conversion/SpatialToPim/Kernels.h"
#include "passes/conversion/SpatialToPim/Tensors.h"
#include "passes/nn/CompileTime.h"
#include "passes/nn/ConstantEvaluator.h"
#include "passes/spatial/EventRegisters.h"
#include "passes/spatial/PipelineStages.h"
#include "simulator/TargetModel.h"
#include "passes/spatial/WeightTiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <deque>
#include <map>
#include <memory>
#include <set>

namespace raptor::pim {

struct Buffer {
  int64_t core = -1; // -1: global memory
  int64_t address = 0, bytes = 0;
  /// The elements it holds: f32, or the integers of encoded values (i8)
  /// and of int8 matrix sums (i32).
  ElementType type = ElementType::F32;
  int refs = 0;
  /// The task (its place in the lowering order) that allocated it.
  int64_t madeInTask = 0;
  bool freed = false;
  /// Its memory is never reused: the source of a transfer deferred to the
  /// iteration boundary, or a buffer reserved before the first instruction.
  bool pinned = false;
  /// Copies of element ranges [lo, hi) on other cores: (core, lo, hi) -> buffer.
  std::map<std::tuple<int64_t, int64_t, int64_t>, int> copies;
  /// Compact copies of views of it on its own core (Lowering::packed):
  /// (offset, layout) -> buffer, made once for all the readers of the view.
  std::map<std::pair<int64_t, std::string>, int> packs;
  /// Compact copies of sparse views of it (global memory) on other cores:
  /// (core, offset, layout) -> buffer (Lowering::gathered).
  std::map<std::tuple<int64_t, int64_t, std::string>, int> gathers;
  /// Crossing::Global: the regions elements [lo, hi) cross through, one
  /// per pipeline level after the buffer's, each with the core storing it
  /// (the buffer's, then a relay of every level): every reader of the
  /// data at that level loads it from there.
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> regions;
  /// Latency mode's global transfers (spatial::PlacedGraph::mailbox) and a
  /// skewed pipeline's regions: the
  /// region its producer stored it to after its work (-1: none), and per
  /// reading core the signal that says so: (event register, its number
  /// on that register).
  int64_t mailbox = -1;
  std::map<int64_t, std::pair<int64_t, int64_t>> signals;
  /// Latency mode: where the producer's program is right after it stored
  /// the buffer after its work (mailResults), and its clock then
  /// (spatial::EventRegisters::stored); empty when it did not.
  std::optional<CoreEmitter::Bookmark> storedAt;
  spatial::EventRegisters::Clock storeClock;
  std::set<int64_t> known; // the readers that knew it stored when they read
  /// A skewed pipeline: the level of the task that computed it (its data
  /// is that task's inference of the pass), and its copies aged for
  /// readers of later levels: (core, lo, hi, level) -> the slot buffer.
  int64_t level = 0;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int> aged;
};

/// The words of a local-memory error that short lanes' partial sums
/// caused (Lowering::memoryHint): `raptor compile` lowers once more with
/// full lanes when it reads them (exported to Python as
/// `_raptor.SHORT_LANES_MARKER`).
inline constexpr const char *kShortLanesMarker = "(--lane-tiles 0;";

/// The words of every local-memory shortage (Lowering::allocate): `raptor
/// compile` lowers a pipeline whose crossing it chose in the other forms
/// when it reads them (exported as `_raptor.LOCAL_MEMORY_MARKER`).
inline constexpr const char *kLocalMemoryMarker = "more bytes of local memory";

class Lowering {
public:
  Lowering(mlir::func::FuncOp func, spatial::GraphOp graph, const TargetModel &target,
           nn::ConstantEvaluator &constants, ChipOp chip);
  mlir::LogicalResult run();
  /// Best-fit allocation of local memory (set before run()).
  bool bestFit = false;
  /// Whether run() failed because a core's local memory had no room.
  bool outOfMemory = false;

  // Used by the op lowerings.
  const TargetModel &target;
  nn::ConstantEvaluator &constants;
  nn::CompileTimeValues known;
  ChipOp chip;
  spatial::TaskOp task; // the task being lowered
  int64_t core = 0;     // its core

  CoreEmitter &emitter(int64_t core);
  CoreEmitter &here() { return emitter(core); }
  /// A buffer of `bytes` on `core` (plus mvmSlack() past its end); a
  /// diagnostic naming the task when the memory is full.
  mlir::FailureOr<int> allocate(int64_t core, int64_t bytes);
  /// Frees the cached copies, packs and gathers on `on` that earlier tasks
  /// made and only the caches hold; whether any was freed.
  bool evictCaches(int64_t on);
  /// Frees `local`, the copy of `source` on the current core that the
  /// caches made since buffer `made` (Lowering::localize) and alone hold,
  /// and drops it from its cache: a partial sum added and not read again.
  void forgetCopy(const Piece &source, const Piece &local, size_t made);
  /// Bytes reserved past every buffer's end: an MVM reads a whole
  /// crossbar's rows and writes a whole crossbar's columns of 32-bit sums
  /// (pimsim-nn writes xbar_cols outputs when mbiw is the cell width),
  /// also where the buffer holds fewer.
  int64_t mvmSlack() const;
  /// A buffer freed when the current task ends (scratch space).
  mlir::FailureOr<int> scratch(int64_t bytes);
  Address addressOf(const Piece &p) const {
    return Address::at(buffers[p.buffer].address + int64_t(bytesOf(typeOf(p))) * p.offset);
  }
  int64_t addressOfBuffer(int b) const { return buffers[b].address; }
  ElementType typeOf(const Piece &p) const { return buffers[p.buffer].type; }
  /// The element type of a value's pieces (all pieces of a value agree).
  ElementType typeOf(const TensorValue &v) const { return typeOf(v.pieces.front()); }
  KernelOperand operand(const Piece &p) const { return {addressOf(p), p.layout, nullptr, typeOf(p)}; }

  /// A compact copy of `p` made on the core that holds it (freed with the
  /// task): any box of it is then a view.
  mlir::FailureOr<Piece> packed(const Piece &p);
  /// The value's pieces, brought to the current core.
  mlir::FailureOr<TensorValue> localValue(mlir::Value v);
  /// `v` as one piece on the current core whose layout `accept` takes; a
  /// copy in layout `want` otherwise (partial sums added).
  mlir::FailureOr<Piece> materialize(mlir::Value v, llvm::function_ref<bool(const Piece &)> accept,
                                     const layout::Layout &want);
  mlir::FailureOr<Piece> materialize(const TensorValue &value, llvm::function_ref<bool(const Piece &)> accept,
                                     const layout::Layout &want);
  /// The output rows [begin, end) the current task computes of `rows`:
  /// its `rows` range when it is a copy of a lane, else all of them.
  mlir::FailureOr<std::pair<int64_t, int64_t>> rowsOfTask(int64_t rows);
  /// A sliding-window operator's rows for the current task: the output
  /// rows [first, last) it computes of `outputRows` (rowsOfTask), and for a
  /// copy the padded input rows its windows read (stride, kernel height
  /// and dilation along the rows); nothing when it computes them all.
  struct WindowRows {
    int64_t first, last;
    std::optional<std::pair<int64_t, int64_t>> paddedRows;
  };
  mlir::FailureOr<WindowRows> windowRowsOfTask(int64_t outputRows, int64_t stride, int64_t kernel,
                                               int64_t dilation);
  /// `v` as one piece on the current core computing exactly `layout` (a
  /// copy when it does not).
  mlir::FailureOr<Piece> materializeAs(mlir::Value v, const layout::Layout &layout);
  /// `v` as one piece on the current core in any layout (a copy in the
  /// storage order of its first piece when it has several).
  mlir::FailureOr<Piece> materializeAny(mlir::Value v);
  /// A new whole value in a fresh buffer on the current core with `layout`.
  mlir::FailureOr<Piece> fresh(llvm::ArrayRef<int64_t> shape, const layout::Layout &layout,
                               std::optional<ElementType> type = std::nullopt);
  /// Frees `buffer` when the current task ends.
  void temporary(int buffer);
  /// Records the result of the current op (buffers are retained).
  void define(mlir::Value v, TensorValue value);
  /// Records a result held in one piece.
  void define(mlir::Value v, llvm::ArrayRef<int64_t> shape, Piece piece);
  /// Adds one lane's piece to a result the operator's lanes build piece
  /// by piece (column ranges, or partial sums of row ranges).
  void definePiece(mlir::Value v, Piece piece);
  /// The result of the current task: its pieces join the value's when the
  /// task is a row copy (the other copies define the other rows), else they
  /// are the value.
  void defineResult(mlir::Value v, TensorValue value);

  /// Compile-time values of `v` (weights, folded expressions).
  mlir::FailureOr<const nn::HostTensor *> constantOf(mlir::Value v);
  /// Places values in the current task's local memory (from global memory):
  /// f32, or in an integer-only program int32 (the values are integers:
  /// callers scale real constants with fixedPoint() first).
  Address placeConstant(std::vector<float> values);
  /// The same for integers (an int8 operator's bias in its accumulator's units).
  Address placeIntegers(std::vector<int32_t> values);
  /// Values as placeConstant holds them, in global memory only (a table
  /// read by computed addresses): their global address.
  int64_t globalReals(std::vector<float> values);
  /// A pim.weight holding `tensor` (bit slice `slice` of `v`'s codes, or
  /// its last row tile repeated `packing` times block-diagonally when above
  /// 1: spatial::packedPositions; whether the blocks are reversed follows
  /// from the matrix, MatrixOps.cpp); returns its symbol name.
  std::string weightSymbol(mlir::Value v, const nn::HostTensor &tensor, int slice = 0, int packing = 1);

  /// `v` as a kernel operand over `shape` (numpy broadcasting): compile-time
  /// values as constants (data kept in `keep`), others from local memory.
  mlir::FailureOr<KernelOperand> broadcastOperand(mlir::Value v, llvm::ArrayRef<int64_t> shape,
                                                  std::deque<std::vector<float>> &keep);
  /// Plans and emits an element-wise kernel; failure after a diagnostic.
  mlir::LogicalResult kernel(llvm::ArrayRef<KernelOperand> operands,
                             llvm::function_ref<void(llvm::ArrayRef<Address>, int64_t)> body);
  /// Copies `src` (any layout) to `dst` over the same box, or adds it.
  mlir::LogicalResult copy(const KernelOperand &dst, const KernelOperand &src, bool accumulate = false);

  /// An (N, C, H, W) value channels-last on the current core with `before`
  /// and `after` rows and columns of padding filled with the byte `fill`
  /// (0: zeros; 0xFE: -1.7e38, the max-pooling padding).
  /// With `rows`, only padded rows [first, last) are built: the piece's
  /// origin then says which padded row it starts at (a lane copy brings
  /// the rows its windows read, not the whole map).
  mlir::FailureOr<Piece> padded(mlir::Value v, llvm::ArrayRef<int64_t> before, llvm::ArrayRef<int64_t> after,
                                uint8_t fill, std::optional<std::pair<int64_t, int64_t>> rows = std::nullopt);
  /// Elements [begin, end) of `v` along `dim` as views of its pieces (their
  /// origins from `begin`; rangeOf), a piece that gives no few views packed
  /// on its core first; none when even then the range is no view. A row
  /// copy reads its rows this way: a transfer brings those rows, not the
  /// whole tensor.
  mlir::FailureOr<std::optional<TensorValue>> rangeOfValue(mlir::Value v, size_t dim, int64_t begin, int64_t end);
  /// Copies `value`'s pieces into the box of `into` at `origin` (partial
  /// sums added, one brought to the core at a time).
  mlir::LogicalResult place(const TensorValue &value, const Piece &into, llvm::ArrayRef<int64_t> origin);

  mlir::InFlightDiagnostic taskError();
  std::string taskName();

  // int8 codecs (CodecOps.cpp).
  /// Integer-only programs (simulator/FixedPoint.h): real values are
  /// int32 fixed point x * 2^bits, `bits` from the function's
  /// `raptor.fixed_point_bits` (calibration chooses it); none: f32.
  std::optional<int64_t> fixedPointBits;
  bool integerOnly() const { return fixedPointBits.has_value(); }
  /// The element type of real (decoded) values: f32, or int32 fixed point.
  ElementType realType() const { return integerOnly() ? ElementType::I32 : ElementType::F32; }
  /// A real constant as the program holds it (x 2^bits in integer-only programs).
  float fixedPoint(double x) const;
  /// Whether `v` holds encoded data (an int8 subgraph of the placement).
  bool isEncoded(mlir::Value v);
  /// Whether `v` holds the int32 sums of an int8 matrix operator.
  bool holdsSums(mlir::Value v);
  /// dst = round(src * multipliers) + offset, integer-only (FixedPoint.h),
  /// over a box of `sizes`: `multipliers` laid out by `multiplierLayout`
  /// over it, src int32 or int8 codes (sign-extended, their zero point
  /// `zeroIn` subtracted first); an int8 dst is clamped to
  /// [floor, ceiling]. `scratch` holds four int32 copies of the box.
  mlir::LogicalResult requantize(const KernelOperand &dst, const KernelOperand &src, llvm::ArrayRef<int64_t> sizes,
                                 const std::vector<double> &multipliers, const layout::Layout &multiplierLayout,
                                 Address scratch, int32_t zeroIn = 0, int32_t offset = 0, int32_t floor = -127,
                                 int32_t ceiling = 127);
  /// dst = sigmoid or tanh (`function`: Vsigm or Vtanh) of src, both int32
  /// fixed point over a box of `sizes` (FixedPointOps.cpp).
  mlir::LogicalResult fixedActivation(const KernelOperand &dst, const KernelOperand &src,
                                      llvm::ArrayRef<int64_t> sizes, Opcode function);
  /// dst = a b, all int32 fixed point over a box of `sizes`.
  mlir::LogicalResult fixedProduct(const KernelOperand &dst, const KernelOperand &a, const KernelOperand &b,
                                   llvm::ArrayRef<int64_t> sizes);
  /// requantize() with a scratch space of its own (freed with the task).
  mlir::LogicalResult requantize(const KernelOperand &dst, const KernelOperand &src, llvm::ArrayRef<int64_t> sizes,
                                 const std::vector<double> &multipliers, const layout::Layout &multiplierLayout);
  /// The calibrated encoding of the subgraph `v` belongs to.
  mlir::FailureOr<codec::Encoding> encodingOf(mlir::Value v);
  /// An int8 matrix operator's weight codes per output channel, its
  /// decoder's scales (input scale times channel scale) and the bias units
  /// removing an offset input's zero point (empty for symmetric inputs).
  struct QuantizedMatrix {
    std::vector<float> codes, scales;
    std::vector<int64_t> corrections;
  };
  mlir::FailureOr<const QuantizedMatrix *> quantizedMatrix(mlir::Operation *op);
  /// The element type of a value computed earlier.
  ElementType typeOfValue(mlir::Value v);
  /// An f32 copy of integer data (exact), freed with the task: the vector
  /// unit multiplies f32.
  mlir::FailureOr<Piece> widened(const Piece &p, int32_t zero = 0);
  /// An i32 copy of f32 data holding exact integers (the source's buffer is
  /// freed with the task).
  mlir::FailureOr<Piece> narrowed(const Piece &p);
  /// The most row tiles a lane of an MVM operator stacks (the graph's
  /// `lane_tiles`, set by raptor-build-compute-graph; 0: what a core holds).
  int64_t laneRowTiles() {
    auto attr = graph->getAttrOfType<mlir::IntegerAttr>("lane_tiles");
    return attr ? attr.getInt() : 0;
  }
  /// What a local-memory error adds when lanes were cut short: their
  /// readers hold one partial sum per lane.
  std::string memoryHint() {
    int64_t tiles = laneRowTiles();
    return tiles > 0 ? std::string(" or lanes as tall as a core holds ") + kShortLanesMarker +
                           " these lanes hold at most " + std::to_string(tiles) +
                           (tiles == 1 ? " row tile" : " row tiles") +
                           ", and a reader holds a partial sum per lane)"
                     : "";
  }
  /// A codec's input pieces on the current core (partial sums added).
  mlir::FailureOr<TensorValue> codecInput(mlir::Value v);
  mlir::LogicalResult lowerEncode(codec::EncodeOp op);
  mlir::LogicalResult lowerDecode(codec::DecodeOp op);
  mlir::LogicalResult lowerRescale(codec::RescaleOp op);
  /// Defines `result` as `x` requantized into elements of `type`, piece by
  /// piece and block by block: by multipliers[c] along `channelDim` (by
  /// multipliers[0] without), codes minus `zeroIn`, plus `offset`, codes
  /// clamped to [floor, ceiling].
  mlir::LogicalResult requantizeValue(mlir::Value result, const TensorValue &x, const std::vector<double> &multipliers,
                                      std::optional<size_t> channelDim, ElementType type, int32_t zeroIn,
                                      int32_t offset, int32_t floor = -127, int32_t ceiling = 127);

private:
  mlir::func::FuncOp func;
  spatial::GraphOp graph;
  std::vector<Buffer> buffers;
  llvm::DenseMap<mlir::Value, TensorValue> values;
  llvm::DenseMap<mlir::Value, int64_t> usesLeft;
  llvm::DenseMap<mlir::Operation *, int64_t> lanesLeft;
  std::map<int64_t, std::unique_ptr<CoreEmitter>> emitters;
  std::vector<int> taskBuffers;
  /// Tasks lowered so far (Buffer::madeInTask).
  int64_t tasksLowered = 0;
  int64_t nextTag = 0, globalTop = 0, nextData = 0;
  /// Pipeline mode's stages of the programs (empty in latency mode) and
  /// whether data crosses them through global memory (else local).
  spatial::PipelineStages stages;
  bool globalCrossing = false;
  /// Crossing::Skewed: a task of level l (spatial::skewedLevels, per
  /// operator) works on inference f - l in pass f; data read at a later
  /// level is stored once per buffer to a region of its own and loaded at
  /// the start of the reader's pass, aged in local slots (skewedCopy).
  bool skewed = false;
  std::vector<int64_t> operatorLevel; // per operator of the function
  /// The level the current task reads at (its operator's; one more when it
  /// gathers a model output's pieces), and the largest so far.
  int64_t readingLevel = 0, lastLevel = 0;
  /// The slots on `on` holding elements [lo, hi) of `buffer` as its
  /// producer computed them readingLevel - its level passes before.
  mlir::FailureOr<int> skewedCopy(int buffer, int64_t lo, int64_t hi, int64_t on);
  /// Latency mode through global memory (the graph's `transfers`): the
  /// cores reading each task's results (through views), and the readers'
  /// event registers (handed from sender to sender where that is safe).
  bool mailbox = false;
  llvm::DenseMap<mlir::Operation *, std::set<int64_t>> readerCores;
  std::optional<spatial::EventRegisters> registers;
  /// Stores the buffers of the current task's results that other cores read
  /// to global memory (their readers are signalled when they read: mail()).
  void mailResults(mlir::Operation *op, size_t firstNewBuffer);
  /// Waits, on the reader `on`, for the signal that says `buffer` is stored
  /// (none when `on` knew it already).
  void awaitMail(int buffer, int64_t on);
  /// Makes `buffer` readable from global memory by `reader` (once): known
  /// stored already, else signalled from right after its store (the
  /// producer's program then), else stored (once) and signalled where the
  /// producer's program is now; false when no event register of the reader
  /// can take the buffer's core (then it receives by rendezvous).
  bool mail(int buffer, int64_t reader);
  /// Per (reader, register): the core that signals it last, that sync and
  /// the store it was put back after, if it was (a signal put back after
  /// a store must follow the core's earlier ones).
  struct LastSignal {
    int64_t core;
    mlir::Operation *sync, *store;
  };
  std::map<std::pair<int64_t, int64_t>, LastSignal> lastSignals;
  std::map<std::pair<uint64_t, size_t>, std::pair<int64_t, std::string>> dataByContent;
  /// Data the current task has loaded already ((core, content) -> local
  /// address): a kernel's constants are loaded once per task, not per use.
  std::map<std::tuple<int64_t, uint64_t, size_t>, int64_t> loadedByContent;
  llvm::DenseMap<std::tuple<mlir::Value, int, int>, std::string> weights; // (v, slice, packing)
  struct Output {
    mlir::Value value;
    int64_t address;
    layout::Layout layout;
    bool stored = false;
    IoOp io;
  };
  std::vector<Output> outputs;
  std::map<int64_t, codec::Encoding> subgraphEncodings; // calibrated, per codec subgraph id
  std::map<mlir::Operation *, QuantizedMatrix> quantized;

  void retain(const TensorValue &v);
  void release(const TensorValue &v);
  void release(int buffer);
  mlir::FailureOr<Piece> localize(const Piece &p, int64_t core);
  /// A sparse view of global memory (rows of a channel-major input) loaded
  /// into a compact buffer on `core` with one ld per contiguous run; none
  /// when the view has too many runs.
  mlir::FailureOr<std::optional<Piece>> gathered(const Piece &p, int64_t core, std::optional<int64_t> global = {});
  mlir::LogicalResult lowerTask(spatial::TaskOp task, mlir::Operation *op);
  /// Data in global memory (one copy per content), loaded into scratch.
  Address placeData(llvm::ArrayRef<char> bytes, mlir::DenseElementsAttr value);
  /// A task's constants reach its core by one ld at the task's start (into
  /// the core's staging window, each copied from there to its buffer), not
  /// one ld each: global memory serves one request at a time, and every
  /// request waits for the whole queue ahead of it. beginConstants() opens
  /// the batch where the program is now, loadConstant() loads the task's
  /// first constant by itself and moves it into the batch when a second
  /// comes (a task with one constant keeps its own ld), loadConstants()
  /// emits the batch's ld.
  void beginConstants();
  void loadConstant(Address at, llvm::ArrayRef<char> bytes, mlir::DenseElementsAttr value, int64_t period);
  void loadConstants();
  /// The offset of `period` in the batch's window data (nothing when the
  /// window is full or there is none).
  std::optional<int64_t> stage(llvm::ArrayRef<char> period, mlir::Type element);
  struct ConstantBatch {
    int64_t core;
    CoreEmitter::Bookmark start;
    std::vector<char> bytes;
    mlir::Type element; // of every constant staged; null when they differ
    /// The first constant while it is loaded by itself: where its ld
    /// begins, the ld, its buffer, its period and type.
    struct First {
      CoreEmitter::Bookmark before;
      mlir::Operation *load;
      int64_t local;
      std::vector<char> period;
      mlir::Type element;
    };
    std::optional<First> first;
  };
  std::optional<ConstantBatch> batch;
  /// Each core's staging window (reserved at the top of local memory on the
  /// first constant it stages; -1 when there was no room).
  std::map<int64_t, int64_t> stagingWindow;
  /// The global address of that one copy (a pim.data made on first use).
  int64_t globalData(llvm::ArrayRef<char> bytes, mlir::DenseElementsAttr value);
  /// Real values as the program holds them in an integer-only program
  /// (rounded to int32, NaN 0).
  static std::vector<int32_t> roundedIntegers(const std::vector<float> &values);
  mlir::LogicalResult lowerView(mlir::Operation *op);
  mlir::LogicalResult storeOutputs(mlir::Operation *op);
  int64_t globalAlloc(int64_t bytes);

public:
  // Op lowerings (MatrixOps.cpp, VectorOps.cpp).
  mlir::LogicalResult lowerConvolution(nn::ConvolutionOp op);
  mlir::LogicalResult lowerLinear(nn::LinearOp op);
  mlir::LogicalResult lowerDepthwise(nn::ConvolutionOp op);
  mlir::LogicalResult lowerElementwise(mlir::Operation *op);
  mlir::LogicalResult lowerPooling(nn::MaxPool2dOp op);
  mlir::LogicalResult lowerMean(nn::MeanOp op);
  mlir::LogicalResult lowerAvgPool(mlir::Value input, mlir::Value output, llvm::ArrayRef<int64_t> kernel,
                                   llvm::ArrayRef<int64_t> stride, llvm::ArrayRef<int64_t> padding,
                                   bool countPad, std::optional<int64_t> divisor);
  mlir::LogicalResult lowerCat(nn::CatOp op);
  mlir::LogicalResult lowerPad(nn::ConstantPadNdOp op);
  mlir::LogicalResult lowerAsStrided(nn::AsStridedOp op);
  mlir::LogicalResult lowerSoftmax(nn::SoftmaxOp op);
  mlir::LogicalResult lowerNorm(mlir::Operation *op);
  mlir::LogicalResult lowerAttention(nn::ScaledDotProductAttentionOp op);
  mlir::LogicalResult lowerMatmul(nn::MatmulOp op);
  mlir::LogicalResult lowerRotary(nn::RotaryEmbeddingOp op);
  // EmbeddingOps.cpp.
  mlir::LogicalResult lowerEmbedding(nn::EmbeddingOp op);
  mlir::LogicalResult lowerTokenPositions(nn::TokenPositionsOp op);
  mlir::LogicalResult lowerLastToken(nn::LastTokenOp op);
};

/// The rows of the smallest table a model input of integers indexes as
/// nn.embedding's token ids (through views), or a diagnostic at the first
/// other reader: the PIM lowering takes integer inputs only as token ids.
mlir::FailureOr<int64_t> tokenVocabulary(mlir::BlockArgument input, llvm::StringRef name);

/// Whether an integer-only program can compute `op` (CodecOps.cpp): the
/// int8 matrix operators, codecs, ReLU, clamps, sigmoid, tanh and SiLU,
/// sums, differences, products and quotients by a scalar, pooling, means,
/// concatenation, padding and embedding lookups; views always.
bool hasIntegerLowering(mlir::Operation *op);
/// The first operator of `func` an integer-only program cannot compute
/// (views and compile-time values excepted).
std::optional<mlir::Operation *> withoutIntegerLowering(mlir::func::FuncOp func);

/// A row-major tensor's layout broadcast to `shape` (stride 0 where it has
/// size 1 or no dimension).
layout::Layout broadcastLayout(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> shape);

} // namespace raptor::pim

#endif // RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_LOWERING_H
