//===- EmbeddingOps.cpp - Embedding lookups by token ids --------*- C++ -*-===//
//
// nn.embedding over token ids that arrive at run time (a model input): the
// table stays in global memory (a BERT vocabulary does not fit a core) and
// each id fetches its row with one `ld` whose address the program computes,
// `sld` reading the id and `smuli`/`saddi` scaling and offsetting it. The
// host refuses ids outside the table (the simulators' setInput), so every
// address stays inside it. Lookups of compile-time ids are folded before
// this (ConstantEvaluator).
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
      auto lookup = dyn_cast<nn::EmbeddingOp>(user);
      if (!lookup || use.get() != lookup.getIndices())
        return user->emitOpError() << "reads the integer input '" << name
                                   << "': the PIM lowering takes integer inputs only as the token ids of "
                                      "nn.embedding (through views)";
      auto table = cast<RankedTensorType>(lookup.getWeight().getType());
      if (table.getRank() != 2 || !table.hasStaticShape())
        return lookup.emitOpError("needs a static 2-d table for the PIM lowering");
      rows = std::min(rows, table.getDimSize(0));
    }
  }
  return rows;
}

LogicalResult Lowering::lowerEmbedding(nn::EmbeddingOp op) {
  if (!known.contains(op.getWeight()))
    return op.emitOpError("needs a table known at compile time (a weight) for the PIM lowering");
  FailureOr<const nn::HostTensor *> table = constantOf(op.getWeight());
  if (failed(table))
    return failure();
  auto ids = values.find(op.getIndices());
  if (ids == values.end())
    return taskError() << "reads token ids no earlier task produced";
  const TensorValue &index = ids->second;
  const Piece &p = index.pieces.front();
  if (!index.whole() || buffers[p.buffer].core != -1 || typeOf(p) != ElementType::I32 ||
      !sameLayout(p.layout, rowMajor(index.shape)))
    return op.emitOpError("takes its indices from a model input (token ids, row-major) in the PIM lowering");
  int64_t rows = (*table)->shape[0], width = (*table)->shape[1], count = elementCount(index.shape);
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
  FailureOr<int> local = scratch(4 * count);
  SmallVector<int64_t, 4> shape = shapeOf(op.getOut());
  FailureOr<Piece> out = fresh(shape, rowMajor(shape));
  if (failed(local) || failed(out))
    return failure();
  here().ld(Address::at(addressOfBuffer(*local)), addressOfBuffer(p.buffer) + 4 * p.offset, 4 * count);
  Address to = addressOf(*out);
  for (int64_t i = 0; i < count; ++i)
    here().gather(to.plus(i * rowBytes), Address::at(addressOfBuffer(*local) + 4 * i), base, rowBytes);
  define(op.getOut(), shape, *out);
  return success();
}

} // namespace raptor::pim
