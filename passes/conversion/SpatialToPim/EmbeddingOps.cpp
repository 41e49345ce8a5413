//===- EmbeddingOps.cpp - Embedding lookups by token ids --------*- C++ -*-===//
//
// nn.embedding over token ids that arrive at run time (a model input, or
// positions computed from it): the table stays in global memory (a BERT
// vocabulary does not fit a core) and each id fetches its row with one `ld`
// whose address the program computes, `sld` reading the id and
// `smuli`/`saddi` scaling and offsetting it. The host refuses ids outside
// the table (the simulators' setInput), and computed positions are bounded
// at compile time, so every address stays inside it. Lookups of
// compile-time ids are folded before this (ConstantEvaluator).
//
// nn.token_positions (RoBERTa's position ids from its padding) in int32
// vector instructions: the instruction set has no comparison, so the mask
// `ids != pad` is 1 - relu(1 - |ids - pad|) for integers, and the
// cumulative sum along each row takes log2(length) shifted additions.
// nn.last_token (a sequence classifier's last token that is not padding)
// likewise: the mask times the positions, the row's maximum by log2(length)
// shifted maxima (counted: the mask's row sum less one, by shifted
// additions), and the row at that position copied by an `lmv` whose
// source address `sld`/`smuli`/`saddi` compute.
//
//===----------------------------------------------------------------------===//
#include "passes/conversion/SpatialToPim/Lowering.h"

using namespace mlir;

namespace raptor::pim {

FailureOr<int64_t> tokenVocabulary(BlockArgument input, StringRef name) {
  int64_t rows = int64_t(1) << 24; // an unread input takes any id the host can write
  SmallVector<Value> work{input};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<nn::ViewOp>(user)) {
        work.push_back(view.getOut());
        continue;
      }
      if (isa<nn::TokenPositionsOp>(user)) // compared with the padding index only
        continue;
      if (auto last = dyn_cast<nn::LastTokenOp>(user); last && use.get() == last.getIds())
        continue;
      auto lookup = dyn_cast<nn::EmbeddingOp>(user);
      if (!lookup || use.get() != lookup.getIndices())
        return user->emitOpError() << "reads the integer input '" << name
                                   << "': the PIM lowering takes integer inputs only as the token ids of "
                                      "nn.embedding (through views), of nn.token_positions and of nn.last_token";
      auto table = cast<RankedTensorType>(lookup.getWeight().getType());
      if (table.getRank() != 2 || !table.hasStaticShape())
        return lookup.emitOpError("needs a static 2-d table for the PIM lowering");
      rows = std::min(rows, table.getDimSize(0));
    }
  }
  return rows;
}

/// The largest index `indices` can hold when the compiler computes it from
/// token ids (nn.token_positions: its base plus the offset plus the row's
/// length); none for ids the host writes (it checks them).
static std::optional<int64_t> computedIndexBound(Value indices) {
  while (auto view = indices.getDefiningOp<nn::ViewOp>())
    indices = view.getSelf();
  auto positions = indices.getDefiningOp<nn::TokenPositionsOp>();
  if (!positions)
    return std::nullopt;
  return positions.getStart() + positions.getOffset() + positions.getIds().getType().getShape().back();
}

LogicalResult Lowering::lowerEmbedding(nn::EmbeddingOp op) {
  if (!known.contains(op.getWeight()))
    return op.emitOpError("needs a table known at compile time (a weight) for the PIM lowering");
  FailureOr<const nn::HostTensor *> table = constantOf(op.getWeight());
  if (failed(table))
    return failure();
  if (!values.count(op.getIndices()))
    return taskError() << "reads token ids no earlier task produced";
  SmallVector<int64_t, 4> indexShape = shapeOf(op.getIndices());
  if (typeOfValue(op.getIndices()) != ElementType::I32)
    return op.emitOpError("takes int32 indices (token ids or positions computed from them) in the PIM lowering");
  int64_t rows = (*table)->shape[0], width = (*table)->shape[1], count = elementCount(indexShape);
  if (std::optional<int64_t> last = computedIndexBound(op.getIndices()); last && *last >= rows)
    return op.emitOpError() << "reads positions up to " << *last << " from a table of " << rows
                            << " rows (a sequence longer than the model's positions)";
  int64_t rowBytes = 4 * width;
  // The table as the program holds reals, once in global memory.
  std::vector<float> data = (*table)->data;
  for (float &x : data)
    x = fixedPoint(x);
  int64_t base = globalReals(std::move(data));
  // The address register is 32 bits (and the immediates signed 32): the
  // last row must end below 2^31.
  if (base + rows * rowBytes >= (int64_t(1) << 31))
    return op.emitOpError() << "table of " << rows * rowBytes << " bytes at global address " << base
                            << " ends beyond 2^31, which a computed address cannot reach";
  // The ids in local memory, row-major: a model input's loaded from global
  // memory, computed positions where they are.
  FailureOr<Piece> ids = materializeAs(op.getIndices(), rowMajor(indexShape));
  SmallVector<int64_t, 4> shape = shapeOf(op.getOut());
  FailureOr<Piece> out = fresh(shape, rowMajor(shape));
  if (failed(ids) || failed(out))
    return failure();
  Address to = addressOf(*out), from = addressOf(*ids);
  for (int64_t i = 0; i < count; ++i)
    here().gather(to.plus(i * rowBytes), from.plus(4 * i), base, rowBytes);
  define(op.getOut(), shape, *out);
  return success();
}

/// mask = 1 - relu(1 - |ids - pad|) into `mask`, int32: 1 where the id is
/// not the padding (the ISA has no comparison); `other` is scratch of the
/// same size, `one` and `pad` constants of it.
static void paddingMask(CoreEmitter &e, Address mask, Address other, Address ids, Address pad, Address one,
                        int64_t count) {
  auto vector = [&](Opcode code, Address rd, Address a, std::optional<Address> b) {
    e.vector(code, rd, a, b, count, ElementType::I32);
  };
  vector(Opcode::Vvsub, mask, ids, pad);           // d = ids - pad
  vector(Opcode::Vvsub, other, one, one);          // 0
  vector(Opcode::Vvsub, other, other, mask);       // -d
  vector(Opcode::Vvmax, mask, mask, other);        // |d|
  vector(Opcode::Vvsub, mask, one, mask);          // 1 - |d|
  vector(Opcode::Vrelu, mask, mask, std::nullopt); // 1 at the padding, else 0
  vector(Opcode::Vvsub, mask, one, mask);
}

/// Hillis-Steele scan along each row of `length` of `count` int32 elements
/// by `code` (sum or maximum): after the step of `shift`, element i
/// combines the 2 shift elements ending at it. The first step reads
/// `input` (left as it is), the steps write `first` and `second` in turn
/// (none reads what it writes); returns where the scan ended.
static Address rowScan(CoreEmitter &e, Opcode code, Address input, Address first, Address second, int64_t count,
                       int64_t length) {
  Address scanned = input;
  for (int64_t shift = 1, step = 0; shift < length; shift *= 2, ++step) {
    Address next = step % 2 ? second : first;
    for (int64_t row = 0; row < count; row += length) {
      e.lmv(next.plus(4 * row), scanned.plus(4 * row), 4 * shift);
      e.vector(code, next.plus(4 * (row + shift)), scanned.plus(4 * (row + shift)), scanned.plus(4 * row),
               length - shift, ElementType::I32);
    }
    scanned = next;
  }
  return scanned;
}

LogicalResult Lowering::lowerTokenPositions(nn::TokenPositionsOp op) {
  SmallVector<int64_t, 4> shape = shapeOf(op.getIds());
  int64_t count = elementCount(shape), length = shape.back();
  if (!values.count(op.getIds()))
    return taskError() << "reads token ids no earlier task produced";
  if (typeOfValue(op.getIds()) != ElementType::I32)
    return op.emitOpError("takes int32 token ids in the PIM lowering");
  FailureOr<Piece> ids = materializeAs(op.getIds(), rowMajor(shape));
  FailureOr<Piece> out = fresh(shape, rowMajor(shape), ElementType::I32);
  // Two int32 buffers of the whole tensor: the mask and a ping-pong
  // partner of `out` for the cumulative sum.
  FailureOr<int> work = scratch(2 * 4 * count);
  if (failed(ids) || failed(out) || failed(work))
    return failure();
  CoreEmitter &e = here();
  auto constant = [&](int64_t x) { return placeIntegers(std::vector<int32_t>(size_t(count), int32_t(x))); };
  Address pad = constant(op.getPaddingIdx()), one = constant(1);
  Address mask = Address::at(addressOfBuffer(*work)), other = mask.plus(4 * count), result = addressOf(*out);
  auto vector = [&](Opcode code, Address rd, Address a, std::optional<Address> b, int64_t len) {
    e.vector(code, rd, a, b, len, ElementType::I32);
  };
  paddingMask(e, mask, other, addressOf(*ids), pad, one, count);
  // Inclusive prefix sums along each row; the mask is kept for the product.
  Address sums = rowScan(e, Opcode::Vvadd, mask, other, result, count, length);
  // (sums + offset) * mask + base (the padding index unless given).
  if (op.getOffset() != 0) {
    vector(Opcode::Vvadd, result, sums, constant(op.getOffset()), count);
    sums = result;
  }
  vector(Opcode::Vvmul, result, sums, mask, count);
  vector(Opcode::Vvadd, result, result, op.getStart() == op.getPaddingIdx() ? pad : constant(op.getStart()), count);
  define(op.getOut(), shape, *out);
  return success();
}

LogicalResult Lowering::lowerLastToken(nn::LastTokenOp op) {
  SmallVector<int64_t, 4> idShape = shapeOf(op.getIds()), inShape = shapeOf(op.getInput()),
                          outShape = shapeOf(op.getOut());
  int64_t count = elementCount(idShape), length = idShape.back();
  if (!values.count(op.getIds()))
    return taskError() << "reads token ids no earlier task produced";
  if (typeOfValue(op.getIds()) != ElementType::I32)
    return op.emitOpError("takes int32 token ids in the PIM lowering");
  // (f32 or int32 fixed point: lowerTask refuses encoded data here.)
  ElementType type = typeOfValue(op.getInput());
  int64_t rowBytes = 4 * elementCount(inShape) / count;
  FailureOr<Piece> ids = materializeAs(op.getIds(), rowMajor(idShape));
  FailureOr<Piece> input = materializeAs(op.getInput(), rowMajor(inShape));
  FailureOr<Piece> out = fresh(outShape, rowMajor(outShape), type);
  // Three int32 buffers of the ids' size: the mask (then the positions it
  // keeps) and the scan's two.
  FailureOr<int> work = scratch(3 * 4 * count);
  if (failed(ids) || failed(input) || failed(out) || failed(work))
    return failure();
  int64_t rows = addressOf(*input).offset; // (an absolute address)
  CoreEmitter &e = here();
  Address pad = placeIntegers(std::vector<int32_t>(size_t(count), int32_t(op.getPaddingIdx())));
  Address one = placeIntegers(std::vector<int32_t>(size_t(count), 1));
  std::vector<int32_t> positions(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    positions[size_t(i)] = int32_t(i % length);
  Address position = placeIntegers(std::move(positions));
  Address mask = Address::at(addressOfBuffer(*work)), first = mask.plus(4 * count), second = first.plus(4 * count);
  paddingMask(e, mask, first, addressOf(*ids), pad, one, count);
  Address maxima;
  if (op.getCounted()) {
    // The count of ids that are not padding, less one (0 if none): the
    // row sums of the mask, then relu(sum - 1).
    maxima = rowScan(e, Opcode::Vvadd, mask, first, second, count, length);
    e.vector(Opcode::Vvsub, maxima, maxima, one, count, ElementType::I32);
    e.vector(Opcode::Vrelu, maxima, maxima, std::nullopt, count, ElementType::I32);
  } else {
    // i * mask: largest at the last token that is not padding (0 if none).
    e.vector(Opcode::Vvmul, mask, mask, position, count, ElementType::I32);
    maxima = rowScan(e, Opcode::Vvmax, mask, first, second, count, length);
  }
  for (int64_t b = 0; b < count / length; ++b)
    e.gatherLocal(addressOf(*out).plus(b * rowBytes), maxima.plus(4 * (b * length + length - 1)),
                  rows + b * length * rowBytes, rowBytes);
  define(op.getOut(), outShape, *out);
  return success();
}

} // namespace raptor::pim
