//===- LayoutAlgebra.cpp - CuTe layouts: shape:stride algebra ---*- C++ -*-===//
#include "algebra/LayoutAlgebra.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace raptor::layout {

/// `r`, unless the builtin that computed it reported an overflow.
static int64_t unlessOverflowed(bool overflowed, int64_t r, int64_t a, const char *op, int64_t b) {
  if (overflowed)
    throw LayoutError(std::to_string(a) + op + std::to_string(b) + " overflows 64-bit integers");
  return r;
}

int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r;
  bool overflowed = __builtin_mul_overflow(a, b, &r); // before r is read
  return unlessOverflowed(overflowed, r, a, " * ", b);
}

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  bool overflowed = __builtin_add_overflow(a, b, &r);
  return unlessOverflowed(overflowed, r, a, " + ", b);
}

IntTuple IntTuple::tuple(std::vector<IntTuple> children) {
  IntTuple t;
  t.leaf = false;
  t.children = std::move(children);
  return t;
}

bool IntTuple::operator==(const IntTuple &o) const {
  return leaf == o.leaf && (leaf ? value == o.value : children == o.children);
}

namespace {
void appendLeaves(const IntTuple &t, std::vector<int64_t> &out) {
  if (t.leaf) {
    out.push_back(t.value);
    return;
  }
  for (const IntTuple &c : t.children)
    appendLeaves(c, out);
}

/// Flat modes (shape, stride) of a layout, kept inline for the usual ranks:
/// the operations below work on these and build each result once.
using Modes = llvm::SmallVector<std::pair<int64_t, int64_t>, 8>;

/// Calls fn(shape, stride) on the leaves of congruent `s` and `d` in order.
template <typename Fn> void forEachMode(const IntTuple &s, const IntTuple &d, Fn &&fn) {
  if (s.leaf) {
    fn(s.value, d.value);
    return;
  }
  for (size_t i = 0, e = s.children.size(); i < e; ++i) {
    const IntTuple &c = s.children[i];
    if (c.leaf)
      fn(c.value, d.children[i].value);
    else
      forEachMode(c, d.children[i], fn);
  }
}

Modes modesOf(const Layout &l) {
  Modes out;
  forEachMode(l.shape, l.stride, [&](int64_t s, int64_t d) { out.push_back({s, d}); });
  return out;
}

/// The checks of the Layout constructor in one pass and no allocation: the
/// same profile, any shape entry below 1, and whether the size or the
/// offset extent sum(shape_i |stride_i|) overflows.
struct LeafScan {
  int64_t size = 1, extent = 0;
  bool congruent = true, below1 = false, overflow = false;

  void leaf(int64_t s, int64_t d) {
    if (s < 1) {
      below1 = true;
      return;
    }
    overflow |= __builtin_mul_overflow(size, s, &size);
    if (d == INT64_MIN) { // |d| does not fit
      overflow = true;
      return;
    }
    int64_t term;
    overflow |= __builtin_mul_overflow(s, d < 0 ? -d : d, &term);
    overflow |= __builtin_add_overflow(extent, term, &extent);
  }

  void scan(const IntTuple &s, const IntTuple &d) {
    if (s.leaf != d.leaf) {
      congruent = false;
      return;
    }
    if (s.leaf) {
      leaf(s.value, d.value);
      return;
    }
    size_t n = s.children.size();
    if (n != d.children.size()) {
      congruent = false;
      return;
    }
    for (size_t i = 0; i < n && congruent; ++i) {
      const IntTuple &c = s.children[i], &e = d.children[i];
      if (c.leaf && e.leaf)
        leaf(c.value, e.value);
      else
        scan(c, e);
    }
  }
};

int64_t productOf(const IntTuple &t) {
  if (t.leaf)
    return t.value;
  int64_t p = 1;
  for (const IntTuple &c : t.children)
    p = checkedMul(p, productOf(c));
  return p;
}
} // namespace

std::vector<int64_t> IntTuple::flatten() const {
  std::vector<int64_t> out;
  appendLeaves(*this, out);
  return out;
}

int64_t IntTuple::product() const { return productOf(*this); }

bool IntTuple::congruent(const IntTuple &o) const {
  if (leaf || o.leaf)
    return leaf == o.leaf;
  if (children.size() != o.children.size())
    return false;
  for (size_t i = 0; i < children.size(); ++i)
    if (!children[i].congruent(o.children[i]))
      return false;
  return true;
}

std::string IntTuple::str() const {
  if (leaf)
    return std::to_string(value);
  std::string s = "(";
  for (size_t i = 0; i < children.size(); ++i)
    s += (i ? "," : "") + children[i].str();
  return s + ")";
}

Layout::Layout(IntTuple shape_, IntTuple stride_) : shape(std::move(shape_)), stride(std::move(stride_)) {
  // Every layout the operations build passes here: one pass over the leaves.
  LeafScan scan;
  scan.scan(shape, stride);
  if (!scan.congruent)
    throw LayoutError("shape " + shape.str() + " and stride " + stride.str() +
                      " do not have the same profile");
  if (scan.below1)
    throw LayoutError("shape " + shape.str() + " has an entry below 1");
  if (scan.overflow)
    throw LayoutError("layout " + str() + " is too large: its size or offsets overflow 64-bit integers");
}

Layout Layout::concat(const std::vector<Layout> &modes) {
  std::vector<IntTuple> shapes, strides;
  shapes.reserve(modes.size());
  strides.reserve(modes.size());
  for (const Layout &m : modes) {
    shapes.push_back(m.shape);
    strides.push_back(m.stride);
  }
  return Layout(IntTuple::tuple(shapes), IntTuple::tuple(strides));
}

int64_t Layout::cosize() const {
  Modes m = modesOf(*this);
  int64_t last = 0, size = 1;
  for (auto [s, d] : m) {
    last += (s - 1) * d;
    size *= s;
  }
  return size == 0 ? 0 : last + 1;
}

int64_t Layout::operator()(int64_t i) const {
  int64_t n = size();
  if (i < 0 || i >= n)
    throw LayoutError("coordinate " + std::to_string(i) + " is outside the domain [0," +
                      std::to_string(n) + ") of " + str());
  Modes m = modesOf(*this);
  int64_t offset = 0;
  for (auto [s, d] : m) {
    offset += (i % s) * d;
    i /= s;
  }
  return offset;
}

std::vector<Layout> Layout::modes() const {
  if (shape.leaf)
    return {*this};
  std::vector<Layout> out;
  out.reserve(shape.children.size());
  for (size_t i = 0; i < shape.children.size(); ++i)
    out.emplace_back(shape.children[i], stride.children[i]);
  return out;
}

namespace {
/// The shape and stride of flat modes: a leaf for one mode, 1:0 for none.
void tuplesOf(const Modes &modes, IntTuple &shape, IntTuple &stride) {
  if (modes.size() <= 1) {
    shape.value = modes.empty() ? 1 : modes[0].first;
    stride.value = modes.empty() ? 0 : modes[0].second;
    shape.leaf = stride.leaf = true;
    shape.children.clear();
    stride.children.clear();
    return;
  }
  shape.leaf = stride.leaf = false;
  shape.value = stride.value = 0;
  shape.children.clear();
  stride.children.clear();
  shape.children.reserve(modes.size());
  stride.children.reserve(modes.size());
  for (auto [a, b] : modes) {
    shape.children.emplace_back(a);
    stride.children.emplace_back(b);
  }
}

/// A layout of trees the operations built (congruent by construction) whose
/// leaves `scan` has checked: the constructor's checks are not repeated;
/// when a check failed, the constructor names it.
Layout trusted(IntTuple shape, IntTuple stride, const LeafScan &scan) {
  if (scan.below1 || scan.overflow)
    return Layout(std::move(shape), std::move(stride)); // throws
  Layout l;
  l.shape = std::move(shape);
  l.stride = std::move(stride);
  return l;
}

Layout fromModes(const Modes &modes) {
  LeafScan scan;
  for (auto [s, d] : modes)
    scan.leaf(s, d);
  Layout l;
  tuplesOf(modes, l.shape, l.stride);
  if (scan.below1 || scan.overflow)
    return Layout(std::move(l.shape), std::move(l.stride)); // throws
  return l;
}

/// coal() over flat modes, in place: size-1 modes dropped, s0:d0, s1:d1
/// with d1 = s0 d0 merged into s0 s1:d0.
void coalesceModes(Modes &modes) {
  size_t n = 0;
  for (auto [s, d] : modes) {
    if (s == 1)
      continue;
    if (n && d == modes[n - 1].first * modes[n - 1].second)
      modes[n - 1].first *= s;
    else
      modes[n++] = {s, d};
  }
  modes.resize(n);
}

/// comp(a, m) as coalesced flat modes.
Modes complementModes(const Layout &a, int64_t m) {
  if (m < 1)
    throw LayoutError("the complement needs a positive size, got " + std::to_string(m));
  Modes modes; // (stride, shape), size-1 and 0-stride dropped
  forEachMode(a.shape, a.stride, [&](int64_t s, int64_t d) {
    if (s != 1 && d != 0)
      modes.push_back({d, s});
  });
  std::sort(modes.begin(), modes.end());
  Modes out;
  int64_t current = 1;
  for (auto [stride, shape] : modes) {
    if (stride < 0)
      throw LayoutError("the complement needs non-negative strides, " + a.str() + " has " +
                        std::to_string(stride));
    int64_t q = current == 1 ? stride : stride / current; // one division per mode
    if (q * current != stride)
      throw LayoutError(a.str() + " is not complementable: stride " + std::to_string(stride) +
                        " is not a multiple of " + std::to_string(current) +
                        " (the modes overlap or leave gaps that do not divide)");
    out.push_back({q, current});
    current = shape * stride;
  }
  // Below m, current must divide it; at or above m, nothing is left to fill.
  int64_t q = m / current, r = m - q * current;
  if (current < m && r != 0)
    throw LayoutError(a.str() + " is not complementable in " + std::to_string(m) + ": " +
                      std::to_string(current) + " does not divide it");
  out.push_back({q + (r != 0), current}); // ceil(m / current)
  coalesceModes(out);
  return out;
}

/// The left operand of a composition, coalesced once for all of the right
/// operand's modes.
struct CompositionLeft {
  const Layout &a;
  int64_t size;
  Modes flat;
  explicit CompositionLeft(const Layout &a) : a(a), size(a.size()), flat(modesOf(a)) {
    coalesceModes(flat);
    if (flat.empty())
      flat.push_back({1, 0});
  }
};

std::string leafStr(int64_t shape, int64_t stride) {
  return std::to_string(shape) + ":" + std::to_string(stride);
}

/// a o (shape:stride) into `outShape`/`outStride`.
void composeLeaf(const CompositionLeft &left, int64_t shape, int64_t stride, IntTuple &outShape,
                 IntTuple &outStride, LeafScan &scan) {
  if (stride == 0) {
    outShape = IntTuple(shape);
    outStride = IntTuple(0);
    scan.leaf(shape, 0);
    return;
  }
  if (stride < 0)
    throw LayoutError("composition needs non-negative strides, got " + leafStr(shape, stride));
  if (shape > 1 && (shape - 1) * stride >= left.size)
    throw LayoutError(left.a.str() + " o " + leafStr(shape, stride) + " is not defined: " +
                      leafStr(shape, stride) + " reaches offset " +
                      std::to_string((shape - 1) * stride) + " outside the domain of size " +
                      std::to_string(left.size));
  const Modes &flat = left.flat;
  Modes out;
  int64_t restShape = shape, restStride = stride;
  for (size_t i = 0; i + 1 < flat.size(); ++i) {
    int64_t s = flat[i].first, d = flat[i].second;
    // Divide out the stride, then take at most the remaining shape. One of
    // s and restStride divides the other: either restStride divides s
    // (available s / restStride, and ceil(restStride / s) = 1 remains) or s
    // divides restStride (available 1, restStride / s remains).
    int64_t available, nextStride;
    int64_t q = restStride == 1 ? s : s / restStride;
    if (q * restStride == s) {
      available = std::max<int64_t>(1, q);
      nextStride = 1;
    } else {
      nextStride = restStride / s;
      if (nextStride * s != restStride)
        throw LayoutError(left.a.str() + " o " + leafStr(shape, stride) +
                          " is not defined: stride " + std::to_string(restStride) +
                          " and mode size " + std::to_string(s) + " do not divide one another");
      available = 1;
    }
    int64_t taken = std::min(available, restShape);
    if (taken != 1) {
      int64_t rest = taken == restShape ? 1 : restShape / taken;
      if (rest * taken != restShape)
        throw LayoutError(left.a.str() + " o " + leafStr(shape, stride) +
                          " is not defined: shape " + std::to_string(restShape) +
                          " does not divide into modes of " + std::to_string(taken));
      out.push_back({taken, checkedMul(restStride, d)});
      restShape = rest;
    }
    restStride = nextStride;
  }
  if (restShape != 1 || out.empty())
    out.push_back({restShape, checkedMul(restStride, flat.back().second)});
  for (auto [s, d] : out)
    scan.leaf(s, d);
  tuplesOf(out, outShape, outStride);
}

/// a o b by mode: (a o b0, a o b1, ...) down to b's leaves.
void composeTree(const CompositionLeft &left, const IntTuple &shape, const IntTuple &stride,
                 IntTuple &outShape, IntTuple &outStride, LeafScan &scan) {
  if (shape.leaf) {
    composeLeaf(left, shape.value, stride.value, outShape, outStride, scan);
    return;
  }
  size_t n = shape.children.size();
  outShape.leaf = outStride.leaf = false;
  outShape.children.resize(n);
  outStride.children.resize(n);
  for (size_t i = 0; i < n; ++i)
    composeTree(left, shape.children[i], stride.children[i], outShape.children[i],
                outStride.children[i], scan);
}
} // namespace

Layout Layout::flat() const {
  Modes m = modesOf(*this);
  if (m.size() == 1)
    return Layout(m[0].first, m[0].second);
  std::vector<IntTuple> ss, dd;
  ss.reserve(m.size());
  dd.reserve(m.size());
  for (auto [s, d] : m) {
    ss.emplace_back(s);
    dd.emplace_back(d);
  }
  return Layout(IntTuple::tuple(std::move(ss)), IntTuple::tuple(std::move(dd)));
}

Layout coalesce(const Layout &a) {
  Modes m = modesOf(a);
  coalesceModes(m);
  return fromModes(m);
}

Layout complement(const Layout &a, int64_t m) { return fromModes(complementModes(a, m)); }

Layout composition(const Layout &a, const Layout &b) {
  CompositionLeft left(a);
  IntTuple shape, stride;
  LeafScan scan;
  composeTree(left, b.shape, b.stride, shape, stride, scan);
  return trusted(std::move(shape), std::move(stride), scan);
}

Layout logicalDivide(const Layout &a, const Layout &b) {
  // a o (b, comp(b, size a)), without building the concatenation: its modes
  // are composed one by one.
  CompositionLeft left(a);
  Modes comp = complementModes(b, left.size);
  {
    // The concatenation must itself be a layout (size and extent in int64).
    LeafScan scan;
    scan.scan(b.shape, b.stride);
    for (auto [s, d] : comp)
      scan.leaf(s, d);
    if (scan.overflow) {
      IntTuple cs, cd;
      tuplesOf(comp, cs, cd);
      throw LayoutError("layout (" + b.shape.str() + "," + cs.str() + "):(" + b.stride.str() + "," +
                        cd.str() + ") is too large: its size or offsets overflow 64-bit integers");
    }
  }
  IntTuple shape, stride;
  shape.leaf = stride.leaf = false;
  shape.children.resize(2);
  stride.children.resize(2);
  LeafScan result;
  composeTree(left, b.shape, b.stride, shape.children[0], stride.children[0], result);
  IntTuple &cs = shape.children[1], &cd = stride.children[1];
  if (comp.size() <= 1) {
    int64_t s = comp.empty() ? 1 : comp[0].first, d = comp.empty() ? 0 : comp[0].second;
    composeLeaf(left, s, d, cs, cd, result);
  } else {
    cs.leaf = cd.leaf = false;
    cs.children.resize(comp.size());
    cd.children.resize(comp.size());
    for (size_t i = 0; i < comp.size(); ++i)
      composeLeaf(left, comp[i].first, comp[i].second, cs.children[i], cd.children[i], result);
  }
  return trusted(std::move(shape), std::move(stride), result);
}

Layout logicalProduct(const Layout &a, const Layout &b) {
  // Any admissible N >= size(a) cosize(b) gives the same result; the
  // admissible ones are the multiples of the extent of a's sorted modes.
  int64_t n = checkedMul(a.size(), b.cosize());
  int64_t extent = 1;
  for (auto [s, d] : modesOf(a))
    if (s != 1 && d != 0)
      extent = std::max(extent, s * d);
  n = checkedMul((checkedAdd(n, extent) - 1) / extent, extent);
  Layout right = composition(complement(a, n), b);
  std::vector<IntTuple> shapes{a.shape, std::move(right.shape)};
  std::vector<IntTuple> strides{a.stride, std::move(right.stride)};
  return Layout(IntTuple::tuple(std::move(shapes)), IntTuple::tuple(std::move(strides)));
}

namespace {
template <typename Fn> Checked guarded(Fn fn) {
  Checked c;
  try {
    c.layout = fn();
    c.ok = true;
  } catch (const LayoutError &e) {
    c.error = e.what();
  }
  return c;
}

/// Parses `int | (t, ...)` at `pos`, skipping blanks.
IntTuple parseTuple(const std::string &s, size_t &pos) {
  auto skip = [&] {
    while (pos < s.size() && s[pos] == ' ')
      ++pos;
  };
  skip();
  if (pos < s.size() && s[pos] == '(') {
    ++pos;
    std::vector<IntTuple> children;
    skip();
    if (pos < s.size() && s[pos] == ')') {
      ++pos;
      return IntTuple::tuple({});
    }
    while (true) {
      children.push_back(parseTuple(s, pos));
      skip();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == ')') {
        ++pos;
        return IntTuple::tuple(std::move(children));
      }
      throw LayoutError("expected ',' or ')' at position " + std::to_string(pos + 1) + " of '" + s + "'");
    }
  }
  size_t start = pos;
  if (pos < s.size() && s[pos] == '-')
    ++pos;
  while (pos < s.size() && isdigit(static_cast<unsigned char>(s[pos])))
    ++pos;
  if (pos == start || (pos == start + 1 && s[start] == '-'))
    throw LayoutError("expected an integer or '(' at position " + std::to_string(start + 1) +
                      " of '" + s + "'");
  return IntTuple(std::stoll(s.substr(start, pos - start)));
}
} // namespace

Checked parseLayout(const std::string &text) {
  return guarded([&] {
    size_t pos = 0;
    IntTuple shape = parseTuple(text, pos);
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
    if (pos >= text.size() || text[pos] != ':')
      throw LayoutError("expected ':' between shape and stride in '" + text + "'");
    ++pos;
    IntTuple stride = parseTuple(text, pos);
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
    if (pos != text.size())
      throw LayoutError("unexpected '" + text.substr(pos) + "' after the layout");
    return Layout(shape, stride);
  });
}

Checked checkedCoalesce(const Layout &a) { return guarded([&] { return coalesce(a); }); }
Checked checkedComplement(const Layout &a, int64_t m) { return guarded([&] { return complement(a, m); }); }
Checked checkedComposition(const Layout &a, const Layout &b) {
  return guarded([&] { return composition(a, b); });
}
Checked checkedLogicalDivide(const Layout &a, const Layout &b) {
  return guarded([&] { return logicalDivide(a, b); });
}
Checked checkedLogicalProduct(const Layout &a, const Layout &b) {
  return guarded([&] { return logicalProduct(a, b); });
}

} // namespace raptor::layout
