//===- Tensors.cpp - Model values in local memory, and views ----*- C++ -*-===//
#include "passes/conversion/SpatialToPim/Tensors.h"

#include "passes/conversion/SpatialToPim/Kernels.h"
#include "passes/spatial/CostModel.h"

namespace raptor::pim {

using layout::IntTuple;
using layout::Layout;

bool TensorValue::whole() const {
  if (pieces.size() != 1 || pieces[0].partial)
    return false;
  return llvm::ArrayRef(pieces[0].sizes) == llvm::ArrayRef(shape);
}

int64_t elementCount(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool sameLayout(const Layout &a, const Layout &b) {
  layout::Checked x = layout::checkedCoalesce(a), y = layout::checkedCoalesce(b);
  return x.ok && y.ok && x.layout == y.layout;
}

llvm::SmallVector<int64_t, 4> shapeOf(mlir::Value v) {
  auto t = mlir::cast<mlir::RankedTensorType>(v.getType());
  return llvm::SmallVector<int64_t, 4>(t.getShape().begin(), t.getShape().end());
}

Layout fromTorchModes(llvm::ArrayRef<Layout> modes) {
  std::vector<Layout> reversed(modes.rbegin(), modes.rend());
  if (reversed.empty())
    reversed.push_back(Layout(1, 0));
  return Layout::concat(reversed);
}

Layout rowMajor(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> sizes(shape.rbegin(), shape.rend());
  if (sizes.empty())
    sizes.push_back(1);
  return compactLayout(sizes);
}

Layout channelsLast(llvm::ArrayRef<int64_t> shape) {
  if (shape.size() != 4)
    return rowMajor(shape);
  int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  (void)n;
  return fromTorchModes({Layout(shape[0], h * w * c), Layout(c, 1), Layout(h, w * c), Layout(w, c)});
}

Layout storageOrder(const Piece &p, llvm::ArrayRef<int64_t> shape) {
  size_t rank = shape.size();
  std::vector<std::pair<int64_t, size_t>> keys;
  for (size_t d = 0; d < rank; ++d) {
    Layout mode = modeOf(p.layout, d, rank);
    std::vector<int64_t> s = mode.shape.flatten(), t = mode.stride.flatten();
    int64_t key = INT64_MAX - int64_t(rank - d); // size-1 and broadcast dims: outermost, in order
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] > 1 && t[i] > 0)
        key = std::min(key, t[i]);
    keys.push_back({key, d});
  }
  std::stable_sort(keys.begin(), keys.end());
  std::vector<Layout> modes(rank, Layout(1, 0));
  int64_t stride = 1;
  for (auto [key, d] : keys) {
    modes[d] = Layout(shape[d], stride);
    stride *= shape[d];
  }
  return fromTorchModes(modes);
}

Layout modeOf(const Layout &l, size_t dim, size_t rank) { return l.modes()[rank - 1 - dim]; }

Layout withMode(const Layout &l, size_t dim, size_t rank, const Layout &mode) {
  std::vector<Layout> modes = l.modes();
  modes[rank - 1 - dim] = mode;
  return Layout::concat(modes);
}

std::optional<Piece> reshaped(const Piece &p, llvm::ArrayRef<int64_t> shape) {
  // The new coordinates' row-major index is the old one: compose the
  // piece's layout with the compact layout of the new shape.
  Layout target = rowMajor(shape);
  layout::Checked c = layout::checkedComposition(p.layout, target);
  if (!c.ok)
    return std::nullopt;
  // Composition keeps the profile of the compact layout: one mode per new dimension.
  Piece out = p;
  out.layout = c.layout;
  if (out.layout.modes().size() != std::max<size_t>(1, shape.size()))
    return std::nullopt;
  out.origin.assign(shape.size(), 0);
  out.sizes.assign(shape.begin(), shape.end());
  return out;
}

std::optional<Piece> reshapedBox(const Piece &p, llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to) {
  if (p.sizes.size() != from.size() || elementCount(from) != elementCount(to))
    return std::nullopt;
  llvm::SmallVector<int64_t, 4> origin, sizes;
  bool box = spatial::forEachViewGroup(from, to, [&](size_t i, size_t i2, size_t j, size_t j2) {
    if (i2 - i == 1) { // one dimension kept or split: a range of it
      // Rows [lo, lo + size) of from[i] split row-major into to[j..j2):
      // from the innermost, dimensions the range spans whole, then one it
      // covers part of, the outer ones at one index (ShuffleNet's channel
      // halves as groups of a channel shuffle); else no box.
      int64_t lo = p.origin[i], size = p.sizes[i], inner = 1;
      llvm::SmallVector<int64_t, 4> o(j2 - j, 0), z(j2 - j, 1);
      size_t d = j2;
      while (d > j && lo % (inner * to[d - 1]) == 0 && size % (inner * to[d - 1]) == 0) {
        --d;
        z[d - j] = to[d];
        inner *= to[d];
      }
      if (d > j) {
        --d;
        int64_t at = (lo / inner) % to[d], count = size / inner;
        if (at + count > to[d])
          return false;
        o[d - j] = at;
        z[d - j] = count;
        for (int64_t outer = lo / (inner * to[d]); d-- > j; outer /= to[d])
          o[d - j] = outer % to[d];
      }
      origin.append(o.begin(), o.end());
      sizes.append(z.begin(), z.end());
      return true;
    }
    for (size_t d = i; d < i2; ++d)
      if (p.origin[d] != 0 || p.sizes[d] != from[d])
        return false;
    for (size_t d = j; d < j2; ++d) {
      origin.push_back(0);
      sizes.push_back(to[d]);
    }
    return true;
  });
  if (!box)
    return std::nullopt;
  std::optional<Piece> out = reshaped(p, sizes);
  if (!out)
    return std::nullopt;
  out->origin = origin;
  return out;
}

Piece permuted(const Piece &p, llvm::ArrayRef<int64_t> dims) {
  size_t rank = dims.size();
  std::vector<Layout> modes;
  Piece out = p;
  out.origin.clear();
  out.sizes.clear();
  for (int64_t d : dims) {
    modes.push_back(modeOf(p.layout, size_t(d), rank));
    out.origin.push_back(p.origin[size_t(d)]);
    out.sizes.push_back(p.sizes[size_t(d)]);
  }
  out.layout = fromTorchModes(modes);
  return out;
}

std::optional<TensorValue> rangeOf(const TensorValue &value, size_t dim, int64_t begin, int64_t end) {
  TensorValue out;
  out.shape = value.shape;
  out.shape[dim] = end - begin;
  constexpr size_t kMostRuns = 8;
  for (const Piece &p : value.pieces) {
    int64_t lo = std::max(begin, p.origin[dim]), hi = std::min(end, p.origin[dim] + p.sizes[dim]);
    if (lo >= hi)
      continue;
    auto cut = [&](int64_t a, int64_t b) { return sliced(p, dim, a - p.origin[dim], b - a, 1); };
    std::vector<std::pair<int64_t, int64_t>> runs, tail;
    int64_t a = lo, b = hi;
    while (a < b && !cut(a, b)) {
      if (runs.size() + tail.size() == kMostRuns)
        return std::nullopt;
      if (cut(a + 1, b) || !cut(a, b - 1))
        runs.push_back({a, a + 1}), ++a;
      else
        tail.push_back({b - 1, b}), --b;
    }
    if (a < b)
      runs.push_back({a, b});
    runs.insert(runs.end(), tail.rbegin(), tail.rend());
    for (auto [from, to] : runs) {
      std::optional<Piece> run = cut(from, to);
      if (!run)
        return std::nullopt;
      run->origin[dim] = from - begin;
      out.pieces.push_back(*run);
    }
  }
  return out;
}

std::optional<llvm::SmallVector<Piece, 1>> alignedPartial(const Piece &piece, llvm::ArrayRef<Piece> all) {
  llvm::SmallVector<Piece, 1> out{piece};
  size_t rank = piece.sizes.size();
  auto cutting = [&](const Piece &p) { return p.partial && p.sizes.size() == rank; };
  if (!cutting(piece) || llvm::count_if(all, [](const Piece &p) { return p.partial; }) < 2)
    return out; // nothing to add
  for (size_t d = 0; d < rank; ++d) {
    // Where a partial piece begins or ends along d (cuts along other
    // dimensions keep these).
    std::vector<int64_t> cuts;
    for (const Piece &p : all)
      if (cutting(p)) {
        cuts.push_back(p.origin[d]);
        cuts.push_back(p.origin[d] + p.sizes[d]);
      }
    llvm::sort(cuts);
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    llvm::SmallVector<Piece, 1> next;
    for (const Piece &p : out) {
      int64_t lo = p.origin[d], hi = lo + p.sizes[d];
      auto cut = std::upper_bound(cuts.begin(), cuts.end(), lo);
      if (cut == cuts.end() || *cut >= hi) {
        next.push_back(p);
        continue;
      }
      for (int64_t begin = lo; begin < hi;) {
        int64_t end = cut == cuts.end() ? hi : std::min(*cut, hi);
        std::optional<Piece> part = sliced(p, d, begin - lo, end - begin, 1);
        if (!part)
          return std::nullopt;
        part->origin[d] = begin;
        next.push_back(*part);
        begin = end;
        if (cut != cuts.end())
          ++cut;
      }
    }
    out = std::move(next);
  }
  return out;
}

std::optional<Piece> sliced(const Piece &p, size_t dim, int64_t start, int64_t count, int64_t step) {
  size_t rank = p.sizes.size();
  Layout mode = modeOf(p.layout, dim, rank);
  if (count < 1)
    return std::nullopt;
  layout::Checked c = layout::checkedComposition(mode, Layout(count, step));
  if (!c.ok)
    return std::nullopt;
  // The slice is the composition shifted by mode(start): check that the
  // shift is exact for every element (it need not be for nested modes).
  int64_t base = mode(start);
  for (int64_t i = 0; i < count; ++i)
    if (mode(start + i * step) != base + c.layout(i))
      return std::nullopt;
  Piece out = p;
  out.layout = withMode(p.layout, dim, rank, c.layout);
  out.offset += base;
  out.sizes[dim] = count;
  return out;
}

Piece expanded(const Piece &p, llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> shape) {
  size_t rank = shape.size(), old = p.sizes.size();
  std::vector<Layout> modes;
  Piece out = p;
  out.origin.assign(rank, 0);
  out.sizes.assign(shape.begin(), shape.end());
  for (size_t d = 0; d < rank; ++d) {
    if (d < rank - old) {
      modes.push_back(Layout(shape[d], 0));
      continue;
    }
    size_t src = d - (rank - old);
    // Broadcast where the value has size 1, not where the piece does: a
    // copy of one row is a piece of size 1 in a dimension the value spans.
    if (from[src] == 1 && shape[d] != 1) {
      modes.push_back(Layout(shape[d], 0));
      continue;
    }
    out.origin[d] = p.origin[src];
    out.sizes[d] = p.sizes[src];
    modes.push_back(modeOf(p.layout, src, old));
  }
  out.layout = fromTorchModes(modes);
  return out;
}

Piece expanded(const Piece &p, llvm::ArrayRef<int64_t> shape) { return expanded(p, p.sizes, shape); }

Piece repeated(const Piece &p, size_t dim, int64_t factor) {
  size_t rank = p.sizes.size();
  Layout mode = modeOf(p.layout, dim, rank);
  Layout rep(IntTuple::tuple({IntTuple(factor), mode.shape}), IntTuple::tuple({IntTuple(0), mode.stride}));
  Piece out = p;
  out.layout = withMode(p.layout, dim, rank, rep);
  out.sizes[dim] *= factor;
  out.origin[dim] *= factor;
  return out;
}

} // namespace raptor::pim
