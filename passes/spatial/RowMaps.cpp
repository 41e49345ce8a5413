//===- RowMaps.cpp - Which rows of its inputs an operator reads -----------===//
#include "passes/spatial/RowMaps.h"
#include "dialects/codec/CodecDialect.h"
#include "dialects/nn/NNOps.h"

using namespace mlir;

namespace raptor::spatial {

std::optional<size_t> rowDim(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || t.getRank() < 4 || t.getShape()[0] != 1)
    return std::nullopt;
  return size_t(t.getRank() - 2);
}

bool keepsRows(Operation *op) {
  namespace nn = raptor::nn;
  if (!isa<nn::ViewOp, nn::PermuteOp, nn::CloneOp, nn::SplitWithSizesOp, nn::SliceOp>(op))
    return false;
  auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!in || !rowDim(in))
    return false;
  for (Value r : op->getResults()) {
    auto out = dyn_cast<RankedTensorType>(r.getType());
    if (!out || !rowDim(out) || in.getShape().take_back(2) != out.getShape().take_back(2))
      return false;
  }
  int64_t rank = in.getRank();
  auto normal = [&](int64_t dim) { return dim < 0 ? dim + rank : dim; };
  auto beforeRows = [&](int64_t dim) { return normal(dim) < rank - 2; };
  if (auto permute = dyn_cast<nn::PermuteOp>(op)) {
    ArrayRef<int64_t> dims = permute.getDims();
    return normal(dims[size_t(rank - 2)]) == rank - 2 && normal(dims[size_t(rank - 1)]) == rank - 1;
  }
  if (auto split = dyn_cast<nn::SplitWithSizesOp>(op))
    return beforeRows(split.getDim());
  if (auto slice = dyn_cast<nn::SliceOp>(op))
    return beforeRows(slice.getDim());
  return true;
}

std::optional<std::pair<int64_t, int64_t>> rowsRead(Operation *op, raptor::nn::CompileTimeValues &known,
                                                    int64_t begin, int64_t end) {
  namespace nn = raptor::nn;
  if (op->getNumResults() < 1)
    return std::nullopt;
  if (keepsRows(op))
    return known.contains(op->getOperand(0)) ? std::nullopt : std::optional(std::pair{begin, end});
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getRank() != 4 || type.getShape()[0] != 1)
    return std::nullopt;
  int64_t H = type.getShape()[2];
  auto window = [&](ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                    ArrayRef<int64_t> dilation) -> std::optional<std::pair<int64_t, int64_t>> {
    int64_t kh = kernel.empty() ? 1 : kernel[0], sh = stride.empty() ? kh : stride[0];
    int64_t ph = padding.empty() ? 0 : padding[0], dh = dilation.empty() ? 1 : dilation[0];
    return std::pair<int64_t, int64_t>{begin * sh - ph, (end - 1) * sh - ph + (kh - 1) * dh + 1};
  };
  if (auto pool = dyn_cast<nn::MaxPool2dOp>(op)) {
    if (!pool.getIndices().use_empty())
      return std::nullopt;
    return window(pool.getKernelSize(), pool.getStride(), pool.getPadding(), pool.getDilation());
  }
  if (auto pool = dyn_cast<nn::AvgPool2dOp>(op))
    return window(pool.getKernelSize(), pool.getStride(), pool.getPadding(), {});
  if (auto conv = dyn_cast<nn::ConvolutionOp>(op)) { // its copies' windows (it follows no copies)
    auto weight = dyn_cast<RankedTensorType>(conv.getWeight().getType());
    if (!weight || weight.getRank() != 4)
      return std::nullopt;
    int64_t kh = weight.getShape()[2];
    return window({kh}, conv.getStride(), conv.getPadding(), conv.getDilation());
  }
  if (auto cat = dyn_cast<nn::CatOp>(op)) {
    // Along the channels: each block of rows is the blocks of its inputs.
    if ((cat.getDim() + 4) % 4 != 1)
      return std::nullopt;
  } else if (!isa<nn::AddOp, nn::SubOp, nn::MulOp, nn::DivOp, nn::ReluOp, nn::SigmoidOp, nn::TanhOp, nn::NegOp,
           nn::ExpOp, nn::Log1pOp, nn::HardtanhOp, nn::ClampOp, nn::SiluOp, nn::GeluOp, nn::CloneOp, raptor::codec::EncodeOp,
           raptor::codec::DecodeOp, raptor::codec::RescaleOp, raptor::codec::ObserveOp>(op)) {
    // Element-wise operators, codecs (one element in, one out) and the
    // identities around them (a codec's observation point, a clone).
    return std::nullopt;
  }
  for (Value operand : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(operand.getType());
    if (!t || t.getRank() < 2 || t.getShape()[t.getRank() - 2] != H || H == 1)
      continue; // broadcast along the rows
    if (t.getRank() != 4 || known.contains(operand))
      return std::nullopt;
  }
  return std::pair<int64_t, int64_t>{begin, end};
}

std::optional<int64_t> viewRowScale(Operation *op) {
  namespace nn = raptor::nn;
  if (keepsRows(op) || isa<codec::ObserveOp>(op))
    return 1;
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!out || out.getRank() != 4 || out.getShape()[0] != 1)
    return std::nullopt;
  if (auto cat = dyn_cast<nn::CatOp>(op))
    return (cat.getDim() + 4) % 4 == 1 ? std::optional<int64_t>(1) : std::nullopt;
  if (auto up = dyn_cast<nn::UpsampleNearest2dOp>(op)) {
    auto in = dyn_cast<RankedTensorType>(up.getInput().getType());
    if (in && in.getRank() == 4 && in.getShape()[2] > 0 && out.getShape()[2] % in.getShape()[2] == 0)
      return out.getShape()[2] / in.getShape()[2];
  }
  return std::nullopt;
}

} // namespace raptor::spatial
