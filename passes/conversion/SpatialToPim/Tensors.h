//===- Tensors.h - Model values in local memory, and views ------*- C++ -*-===//
//
// During the lowering every nn value is one or more pieces: a box of the
// value held in a buffer, with a layout from the box's coordinates to
// element offsets. Layouts follow CuTe: the modes are the torch dimensions
// in reverse (first mode fastest), so a layout's linear index is the
// row-major index. Views are layout algebra on the pieces (reshape is
// composition with a compact layout, permute reorders modes, slice composes
// one mode with a strided layout, broadcasts add stride-0 modes): no data
// moves until an operation needs it elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_TENSORS_H
#define RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_TENSORS_H

#include "algebra/LayoutAlgebra.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace raptor::pim {

struct Piece {
  llvm::SmallVector<int64_t, 4> origin, sizes; // the box, torch order
  int buffer = -1;
  int64_t offset = 0;    // elements from the buffer's start to the box's origin
  layout::Layout layout; // element offsets over the box (one mode per dimension)
  bool partial = false;  // added to the other pieces of the same box
};

struct TensorValue {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<Piece, 1> pieces;
  /// One piece covering the value, not a partial sum.
  bool whole() const;
};

/// The number of elements of `shape`.
int64_t elementCount(llvm::ArrayRef<int64_t> shape);
/// Whether two layouts compute the same function (equal normal forms:
/// flat, size-1 modes dropped, neighbours merged).
bool sameLayout(const layout::Layout &a, const layout::Layout &b);
/// The shape of a ranked tensor value.
llvm::SmallVector<int64_t, 4> shapeOf(mlir::Value v);
/// Torch's contiguous (row-major) layout of `shape`.
layout::Layout rowMajor(llvm::ArrayRef<int64_t> shape);
/// Channels-last for an (N, C, H, W) shape; row-major for other ranks.
layout::Layout channelsLast(llvm::ArrayRef<int64_t> shape);
/// A compact layout of `shape` storing dimensions in the order `p` does
/// (by stride): copying `p` into it moves contiguous runs, not elements.
layout::Layout storageOrder(const Piece &p, llvm::ArrayRef<int64_t> shape);
/// The layout's mode for torch dimension `dim` of a rank-`rank` value.
layout::Layout modeOf(const layout::Layout &l, size_t dim, size_t rank);
/// `l` with the mode of torch dimension `dim` replaced.
layout::Layout withMode(const layout::Layout &l, size_t dim, size_t rank, const layout::Layout &mode);
/// Builds a layout from per-dimension modes given in torch order.
layout::Layout fromTorchModes(llvm::ArrayRef<layout::Layout> modes);

// Views of one piece. Nothing when the piece's layout cannot express the
// view (the caller copies the value to a compact layout and retries).
std::optional<Piece> reshaped(const Piece &p, llvm::ArrayRef<int64_t> shape);
/// A piece of a value of shape `from` as a piece of its view of shape `to`
/// (the same elements in row-major order): the dimensions regroup (each
/// group of dimensions of `from` holds as many elements as one of `to`),
/// and the piece must span every group it does not cover one to one (a
/// dimension kept as it is, such as the rows of a row copy, may be cut; a
/// dimension split in several may be cut where the cut is a box of them,
/// such as the second half of the channels split in two groups).
/// Nothing otherwise.
std::optional<Piece> reshapedBox(const Piece &p, llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);
Piece permuted(const Piece &p, llvm::ArrayRef<int64_t> dims);
/// The part of `value` in [begin, end) of dimension `dim`, as a value of
/// that extent: pieces outside dropped, the others cut to it. A piece whose
/// range is no view of it (an upsampled map's rows from an odd one) is cut
/// into runs that are, single elements peeled off the range's ends (an
/// upsampled row is one source row). Nothing when a piece needs more than
/// a few runs.
std::optional<TensorValue> rangeOf(const TensorValue &value, size_t dim, int64_t begin, int64_t end);
/// `piece` cut where the partial sums among `all` (a value's pieces, or
/// pieces with their boxes) begin or end, so that any two partial pieces
/// cut so cover the same box or disjoint ones (lanes whose row copies were
/// merged differently hold misaligned rows; they are added box by box).
/// `piece` whole when it is no partial sum or `all` holds fewer than two;
/// nothing when a cut is no view of it.
std::optional<llvm::SmallVector<Piece, 1>> alignedPartial(const Piece &piece, llvm::ArrayRef<Piece> all);
/// Elements start, start + step, ... (count of them) of dimension `dim`,
/// relative to the piece's box.
std::optional<Piece> sliced(const Piece &p, size_t dim, int64_t start, int64_t count, int64_t step);
/// A piece of a value of shape `from`, broadcast to `shape`: the value's
/// size-1 and new leading dimensions get stride 0 (and span `shape`), the
/// others keep the piece's box.
Piece expanded(const Piece &p, llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> shape);
/// A whole piece broadcast to `shape` (its size-1 and new leading
/// dimensions get stride 0).
Piece expanded(const Piece &p, llvm::ArrayRef<int64_t> shape);
/// Dimension `dim` of size n becomes n * factor: index i reads i / factor
/// (interleaved repeats: nearest upsampling, KV-head fan-out).
Piece repeated(const Piece &p, size_t dim, int64_t factor);

} // namespace raptor::pim

#endif // RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_TENSORS_H
