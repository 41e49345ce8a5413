//===- LayoutAlgebra.h - CuTe layouts: shape:stride algebra -----*- C++ -*-===//
//
// Layouts as in shared seed 004 (chapter 2): a shape and a stride, nested
// tuples of the same profile, mapping coordinates (colexicographic) to
// offsets. The operations: size, cosize, evaluation, flatten, coalesce,
// complement, composition, logical divide and logical product, each
// checking the conditions under which it is defined and failing with a
// message that names the condition (never a wrong answer).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_ALGEBRA_LAYOUTALGEBRA_H
#define RAPTOR_ALGEBRA_LAYOUTALGEBRA_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace raptor::layout {

/// A nested tuple of integers: a leaf value or a tuple of children.
struct IntTuple {
  int64_t value = 0;
  std::vector<IntTuple> children;
  bool leaf = true;

  IntTuple() = default;
  IntTuple(int64_t v) : value(v) {} // NOLINT: integers are tuples of depth 0
  static IntTuple tuple(std::vector<IntTuple> children);

  bool operator==(const IntTuple &o) const;
  /// Leaves in order.
  std::vector<int64_t> flatten() const;
  int64_t product() const;
  /// Same tree structure (profile).
  bool congruent(const IntTuple &o) const;
  /// `(4,(2,3))` without spaces, as the paper writes them.
  std::string str() const;
};

/// A violated precondition; the message says which.
struct LayoutError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// a * b and a + b, or a LayoutError naming the overflow: shapes and strides
/// are int64 (as in CuTe), and a wrapped product would be a wrong answer.
int64_t checkedMul(int64_t a, int64_t b);
int64_t checkedAdd(int64_t a, int64_t b);

struct Layout {
  IntTuple shape, stride;

  Layout() : shape(1), stride(0) {}
  /// Throws unless congruent, every shape entry >= 1, and the size and the
  /// offset extent sum(shape_i |stride_i|) fit in int64, so that every
  /// offset and every shape_i stride_i the operations form does too.
  Layout(IntTuple shape, IntTuple stride);
  static Layout concat(const std::vector<Layout> &modes);

  int64_t size() const { return shape.product(); }
  /// The image's extent: L(size - 1) + 1 (1 for an empty image).
  int64_t cosize() const;
  /// The offset of linear coordinate `i` (colexicographic over the leaves).
  int64_t operator()(int64_t i) const;
  /// The top-level modes as layouts.
  std::vector<Layout> modes() const;
  Layout flat() const;
  std::string str() const { return shape.str() + ":" + stride.str(); }
  bool operator==(const Layout &o) const { return shape == o.shape && stride == o.stride; }
};

/// Flat layout with size-1 modes removed and mergeable neighbours merged
/// (s0:d0, s1:d1 with d1 = s0 d0 become s0 s1:d0); 1:0 when nothing is left.
Layout coalesce(const Layout &a);
/// The complement of `a` in [0, m): the layout that, beside `a`, fills
/// [0, m) without overlap. Needs `a` injective with strides that divide up.
Layout complement(const Layout &a, int64_t m);
/// a o b: offsets of `a` at the offsets of `b` (b's image within a's size,
/// and b's strides dividing a's modes).
Layout composition(const Layout &a, const Layout &b);
/// a / b = a o (b, complement(b, size(a))).
Layout logicalDivide(const Layout &a, const Layout &b);
/// a x b = (a, complement(a, size(a) cosize(b)) o b).
Layout logicalProduct(const Layout &a, const Layout &b);

/// The operations without exceptions, for code built without them (the
/// dialect): the result, or the violated condition in `error`.
struct Checked {
  bool ok = false;
  Layout layout;
  std::string error;
};
Checked parseLayout(const std::string &text);
Checked checkedCoalesce(const Layout &a);
Checked checkedComplement(const Layout &a, int64_t m);
Checked checkedComposition(const Layout &a, const Layout &b);
Checked checkedLogicalDivide(const Layout &a, const Layout &b);
Checked checkedLogicalProduct(const Layout &a, const Layout &b);
/// B o A by Algorithm 4.1.2 (Morphism.h); fails when A or coal(B) is not
/// tractable or no mutual refinement exists.
Checked checkedComposeTractable(const Layout &b, const Layout &a);

struct Morphism;
/// Validates a morphism; `error` is empty on success, and `text` the
/// canonical spelling.
std::string checkMorphism(const IntTuple &domain, const IntTuple &codomain,
                          const std::vector<int64_t> &map, std::string &text);
/// L_f of a valid morphism given by its canonical parts.
Layout encodedLayoutOf(const IntTuple &domain, const IntTuple &codomain,
                       const std::vector<int64_t> &map);

} // namespace raptor::layout

#endif // RAPTOR_ALGEBRA_LAYOUTALGEBRA_H
