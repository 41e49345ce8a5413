//===- Kernels.cpp - Data movement and element-wise loops from layouts -*- C++ -*-===//
#include "passes/conversion/SpatialToPim/Kernels.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace raptor::pim {

using layout::IntTuple;
using layout::Layout;

namespace {

using Modes = std::vector<std::pair<int64_t, int64_t>>; // (size, stride), fastest first

Modes flatModes(const Layout &l) {
  std::vector<int64_t> s = l.shape.flatten(), d = l.stride.flatten();
  Modes m;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1)
      m.push_back({s[i], d[i]});
  return m;
}

/// Splits every operand's modes at the union of their boundaries (the
/// cumulative products); nothing when a boundary falls inside a mode it
/// does not divide.
std::optional<std::vector<Modes>> refine(std::vector<Modes> lists) {
  std::set<int64_t> points;
  for (const Modes &m : lists) {
    int64_t c = 1;
    for (auto [s, d] : m)
      points.insert(c *= s);
  }
  for (Modes &m : lists) {
    Modes out;
    int64_t c = 1;
    for (auto [s, d] : m) {
      int64_t end = c * s, prev = c;
      for (auto it = points.upper_bound(c); it != points.end() && *it <= end; ++it) {
        if (*it % prev || end % *it)
          return std::nullopt;
        out.push_back({*it / prev, d * (prev / c)});
        prev = *it;
      }
      c = end;
    }
    m = std::move(out);
  }
  return lists;
}

} // namespace

Layout compactLayout(llvm::ArrayRef<int64_t> sizes) {
  std::vector<IntTuple> shape, stride;
  int64_t s = 1;
  for (int64_t n : sizes) {
    shape.push_back(n);
    stride.push_back(s);
    s *= n;
  }
  if (sizes.empty())
    return Layout(IntTuple(1), IntTuple(0));
  return Layout(IntTuple::tuple(shape), IntTuple::tuple(stride));
}

/// `shape`'s profile with the flat entries `values` (in order).
static IntTuple withProfile(const IntTuple &shape, const std::vector<int64_t> &values, size_t &next) {
  if (shape.leaf)
    return values[next++];
  std::vector<IntTuple> children;
  for (const IntTuple &c : shape.children)
    children.push_back(withProfile(c, values, next));
  return IntTuple::tuple(children);
}

Layout compactLike(const Layout &like) {
  // Every flat entry keeps its place in storage order (by stride in
  // `like`); the strides become compact, without `like`'s gaps or
  // broadcasts. A broadcast entry (stride 0: an upsampled or expanded
  // view) takes its place inside the next entry of its own mode, so that an
  // upsampled channels-last map stays channels-last: sorted first, it
  // would split every channel run into single elements, and each reader
  // of the view would run one-element vector instructions.
  std::vector<int64_t> s = like.shape.flatten(), d = like.stride.flatten();
  std::vector<std::pair<int64_t, int>> key(s.size());
  std::vector<const IntTuple *> modes;
  if (like.shape.leaf)
    modes.push_back(&like.shape);
  else
    for (const IntTuple &m : like.shape.children)
      modes.push_back(&m);
  size_t begin = 0;
  for (const IntTuple *m : modes) {
    size_t end = begin + m->flatten().size();
    for (size_t i = begin; i < end; ++i) {
      key[i] = {d[i], 0};
      if (d[i] != 0 || s[i] == 1)
        continue;
      key[i] = {INT64_MAX, 0}; // a whole mode broadcast: outermost
      auto after = std::find_if(d.begin() + i + 1, d.begin() + end, [](int64_t x) { return x > 0; });
      if (after != d.begin() + end) {
        key[i] = {*after, -1};
        continue;
      }
      for (size_t j = i; j-- > begin;)
        if (d[j] > 0) {
          key[i] = {d[j], 1};
          break;
        }
    }
    begin = end;
  }
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
  std::vector<int64_t> strides(s.size(), 0);
  int64_t next = 1;
  for (size_t i : order) {
    strides[i] = next;
    next *= s[i];
  }
  size_t k = 0;
  return Layout(like.shape, withProfile(like.shape, strides, k));
}

std::optional<KernelPlan> planKernel(llvm::ArrayRef<KernelOperand> operands, ConstantPlacer place,
                                     int64_t constantLimit) {
  size_t n = operands.size();
  // Modes of every operand, refined per top-level mode (torch dimension).
  std::vector<std::vector<Layout>> dims;
  for (const KernelOperand &o : operands)
    dims.push_back(o.layout.modes());
  size_t rank = dims[0].size();
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides(n);
  for (size_t d = 0; d < rank; ++d) {
    std::vector<Modes> lists;
    for (size_t k = 0; k < n; ++k)
      lists.push_back(flatModes(dims[k][d]));
    std::optional<std::vector<Modes>> refined = refine(lists);
    if (!refined)
      return std::nullopt;
    for (size_t m = 0; m < (*refined)[0].size(); ++m) {
      sizes.push_back((*refined)[0][m].first);
      for (size_t k = 0; k < n; ++k)
        strides[k].push_back((*refined)[k][m].second);
    }
  }
  // Order: destination-contiguous first; modes the destination does not
  // move along (accumulations) outermost, so they never join a run.
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int64_t x = strides[0][a], y = strides[0][b];
    if ((x == 0) != (y == 0))
      return x != 0;
    return x < y;
  });
  auto variable = [&](size_t k) { return operands[k].constant == nullptr; };
  // The run: the longest prefix contiguous in every non-constant operand.
  size_t runModes = 0;
  int64_t run = 1;
  for (size_t i = 0; i < order.size(); ++i) {
    size_t m = order[i];
    bool contiguous = strides[0][m] != 0;
    for (size_t k = 0; k < n && contiguous; ++k)
      if (variable(k))
        contiguous = strides[k][m] == run;
    bool hasConstant = false;
    for (size_t k = 0; k < n; ++k)
      hasConstant |= !variable(k);
    if (!contiguous || (hasConstant && run * sizes[m] > constantLimit && i > 0))
      break;
    run *= sizes[m];
    ++runModes;
  }
  KernelPlan plan;
  plan.run = run;
  // Outer loops (inner to outer in `order`), with each operand's strides in
  // bytes; constants get a fresh compact layout over the run and the modes
  // they vary along.
  std::vector<size_t> outer(order.begin() + long(runModes), order.end());
  std::vector<std::vector<int64_t>> loopStrides(n);
  std::vector<Address> bases(n);
  for (size_t k = 0; k < n; ++k) {
    if (variable(k)) {
      bases[k] = operands[k].base;
      for (size_t m : outer)
        loopStrides[k].push_back(strides[k][m] * int64_t(bytesOf(operands[k].type)));
      continue;
    }
    // Materialize the constant: run modes, then the outer modes it varies along.
    std::vector<size_t> varying;
    for (size_t m : outer)
      if (strides[k][m] != 0)
        varying.push_back(m);
    std::vector<size_t> blockModes(order.begin(), order.begin() + long(runModes));
    blockModes.insert(blockModes.end(), varying.begin(), varying.end());
    int64_t total = 1;
    for (size_t m : blockModes)
      total *= sizes[m];
    std::vector<float> values(static_cast<size_t>(total));
    std::vector<int64_t> index(blockModes.size(), 0);
    for (int64_t t = 0; t < total; ++t) {
      int64_t source = 0;
      for (size_t j = 0; j < blockModes.size(); ++j)
        source += index[j] * strides[k][blockModes[j]];
      values[size_t(t)] = (*operands[k].constant)[size_t(source)];
      for (size_t j = 0; j < blockModes.size(); ++j) {
        if (++index[j] < sizes[blockModes[j]])
          break;
        index[j] = 0;
      }
    }
    bases[k] = place(std::move(values));
    int64_t stride = run;
    for (size_t m : outer) {
      if (strides[k][m] != 0) {
        loopStrides[k].push_back(stride * 4);
        stride *= sizes[m];
      } else {
        loopStrides[k].push_back(0);
      }
    }
  }
  // Jointly coalesce adjacent outer modes.
  std::vector<int64_t> counts;
  std::vector<std::vector<int64_t>> merged(n);
  for (size_t i = 0; i < outer.size(); ++i) {
    int64_t size = sizes[outer[i]];
    bool join = !counts.empty();
    for (size_t k = 0; k < n && join; ++k)
      join = loopStrides[k][i] == counts.back() * merged[k].back();
    if (join) {
      counts.back() *= size;
      continue;
    }
    counts.push_back(size);
    for (size_t k = 0; k < n; ++k)
      merged[k].push_back(loopStrides[k][i]);
  }
  std::reverse(counts.begin(), counts.end());
  plan.counts.assign(counts.begin(), counts.end());
  for (size_t k = 0; k < n; ++k) {
    Walk w{bases[k], {}};
    w.strides.assign(merged[k].rbegin(), merged[k].rend());
    plan.walks.push_back(w);
  }
  return plan;
}

void emitKernel(CoreEmitter &e, const KernelPlan &plan,
                llvm::function_ref<void(llvm::ArrayRef<Address>, int64_t)> body) {
  e.nest(plan.counts, plan.walks, [&](llvm::ArrayRef<Address> addresses) { body(addresses, plan.run); });
}

} // namespace raptor::pim
