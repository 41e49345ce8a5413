//===- LayoutAlgebra.cpp - CuTe layouts: shape:stride algebra ---*- C++ -*-===//
#include "dialects/layout/LayoutAlgebra.h"

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

std::vector<int64_t> IntTuple::flatten() const {
  if (leaf)
    return {value};
  std::vector<int64_t> out;
  for (const IntTuple &c : children) {
    std::vector<int64_t> sub = c.flatten();
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

int64_t IntTuple::product() const {
  int64_t p = 1;
  for (int64_t v : flatten())
    p = checkedMul(p, v);
  return p;
}

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
  if (!shape.congruent(stride))
    throw LayoutError("shape " + shape.str() + " and stride " + stride.str() +
                      " do not have the same profile");
  std::vector<int64_t> s = shape.flatten(), d = stride.flatten();
  for (int64_t v : s)
    if (v < 1)
      throw LayoutError("shape " + shape.str() + " has an entry below 1");
  try { // every layout the operations build passes here: one pass over the leaves
    int64_t size = 1, extent = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      size = checkedMul(size, s[i]);
      extent = checkedAdd(extent, checkedMul(s[i], d[i] < 0 ? checkedMul(d[i], -1) : d[i]));
    }
  } catch (const LayoutError &) {
    throw LayoutError("layout " + str() + " is too large: its size or offsets overflow 64-bit integers");
  }
}

Layout Layout::concat(const std::vector<Layout> &modes) {
  std::vector<IntTuple> shapes, strides;
  for (const Layout &m : modes) {
    shapes.push_back(m.shape);
    strides.push_back(m.stride);
  }
  return Layout(IntTuple::tuple(shapes), IntTuple::tuple(strides));
}

int64_t Layout::cosize() const {
  std::vector<int64_t> s = shape.flatten(), d = stride.flatten();
  int64_t last = 0;
  for (size_t i = 0; i < s.size(); ++i)
    last += (s[i] - 1) * d[i];
  return size() == 0 ? 0 : last + 1;
}

int64_t Layout::operator()(int64_t i) const {
  if (i < 0 || i >= size())
    throw LayoutError("coordinate " + std::to_string(i) + " is outside the domain [0," +
                      std::to_string(size()) + ") of " + str());
  std::vector<int64_t> s = shape.flatten(), d = stride.flatten();
  int64_t offset = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    offset += (i % s[k]) * d[k];
    i /= s[k];
  }
  return offset;
}

std::vector<Layout> Layout::modes() const {
  if (shape.leaf)
    return {*this};
  std::vector<Layout> out;
  for (size_t i = 0; i < shape.children.size(); ++i)
    out.emplace_back(shape.children[i], stride.children[i]);
  return out;
}

Layout Layout::flat() const {
  std::vector<int64_t> s = shape.flatten(), d = stride.flatten();
  if (s.size() == 1)
    return Layout(s[0], d[0]);
  std::vector<IntTuple> ss(s.begin(), s.end()), dd(d.begin(), d.end());
  return Layout(IntTuple::tuple(ss), IntTuple::tuple(dd));
}

static Layout fromModes(const std::vector<std::pair<int64_t, int64_t>> &modes) {
  if (modes.empty())
    return Layout(1, 0);
  if (modes.size() == 1)
    return Layout(modes[0].first, modes[0].second);
  std::vector<IntTuple> s, d;
  for (auto [a, b] : modes) {
    s.emplace_back(a);
    d.emplace_back(b);
  }
  return Layout(IntTuple::tuple(s), IntTuple::tuple(d));
}

Layout coalesce(const Layout &a) {
  std::vector<int64_t> s = a.shape.flatten(), d = a.stride.flatten();
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 1)
      continue;
    if (!out.empty() && d[i] == out.back().first * out.back().second)
      out.back().first *= s[i];
    else
      out.push_back({s[i], d[i]});
  }
  return fromModes(out);
}

Layout complement(const Layout &a, int64_t m) {
  if (m < 1)
    throw LayoutError("the complement needs a positive size, got " + std::to_string(m));
  std::vector<int64_t> s = a.shape.flatten(), d = a.stride.flatten();
  std::vector<std::pair<int64_t, int64_t>> modes; // (stride, shape), size-1 and 0-stride dropped
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1 && d[i] != 0)
      modes.push_back({d[i], s[i]});
  std::sort(modes.begin(), modes.end());
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t current = 1;
  for (auto [stride, shape] : modes) {
    if (stride < 0)
      throw LayoutError("the complement needs non-negative strides, " + a.str() + " has " +
                        std::to_string(stride));
    if (stride % current != 0)
      throw LayoutError(a.str() + " is not complementable: stride " + std::to_string(stride) +
                        " is not a multiple of " + std::to_string(current) +
                        " (the modes overlap or leave gaps that do not divide)");
    out.push_back({stride / current, current});
    current = shape * stride;
  }
  if (m % current != 0 && current % m != 0 && current < m)
    throw LayoutError(a.str() + " is not complementable in " + std::to_string(m) + ": " +
                      std::to_string(current) + " does not divide it");
  out.push_back({(m + current - 1) / current, current});
  return coalesce(fromModes(out));
}

Layout composition(const Layout &a, const Layout &b) {
  if (!b.shape.leaf) { // by-mode: (a o b0, a o b1, ...)
    std::vector<Layout> parts;
    for (const Layout &mode : b.modes())
      parts.push_back(composition(a, mode));
    return Layout::concat(parts);
  }
  int64_t shape = b.shape.value, stride = b.stride.value;
  if (stride == 0)
    return Layout(shape, 0);
  if (stride < 0)
    throw LayoutError("composition needs non-negative strides, got " + b.str());
  if (shape > 1 && (shape - 1) * stride >= a.size())
    throw LayoutError(a.str() + " o " + b.str() + " is not defined: " + b.str() +
                      " reaches offset " + std::to_string((shape - 1) * stride) +
                      " outside the domain of size " + std::to_string(a.size()));
  Layout flatA = coalesce(a);
  std::vector<int64_t> s = flatA.shape.flatten(), d = flatA.stride.flatten();
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t restShape = shape, restStride = stride;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    // Divide out the stride, then take at most the remaining shape.
    if (s[i] % restStride != 0 && restStride % s[i] != 0)
      throw LayoutError(a.str() + " o " + b.str() + " is not defined: stride " +
                        std::to_string(restStride) + " and mode size " + std::to_string(s[i]) +
                        " do not divide one another");
    int64_t available = std::max<int64_t>(1, s[i] / restStride);
    int64_t taken = std::min(available, restShape);
    if (taken != 1) {
      if (restShape % taken != 0)
        throw LayoutError(a.str() + " o " + b.str() + " is not defined: shape " +
                          std::to_string(restShape) + " does not divide into modes of " +
                          std::to_string(taken));
      out.push_back({taken, checkedMul(restStride, d[i])});
    }
    restShape /= taken;
    restStride = (restStride + s[i] - 1) / s[i];
  }
  if (restShape != 1 || out.empty())
    out.push_back({restShape, checkedMul(restStride, d.back())});
  return fromModes(out);
}

Layout logicalDivide(const Layout &a, const Layout &b) {
  return composition(a, Layout::concat({b, complement(b, a.size())}));
}

Layout logicalProduct(const Layout &a, const Layout &b) {
  // Any admissible N >= size(a) cosize(b) gives the same result; the
  // admissible ones are the multiples of the extent of a's sorted modes.
  int64_t n = checkedMul(a.size(), b.cosize());
  std::vector<int64_t> s = a.shape.flatten(), d = a.stride.flatten();
  int64_t extent = 1;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1 && d[i] != 0)
      extent = std::max(extent, s[i] * d[i]);
  n = checkedMul((checkedAdd(n, extent) - 1) / extent, extent);
  return Layout::concat({a, composition(complement(a, n), b)});
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
