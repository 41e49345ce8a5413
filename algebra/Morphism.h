//===- Morphism.h - Tuple and Nest morphisms (seed 004, ch. 3) --*- C++ -*-===//
//
// A nested tuple morphism f: S -> T lies over a pointed map alpha from the
// flattened entries of S to those of T (1-based, 0 for `*`), injective away
// from `*`, with S[i] = T[alpha(i)] wherever alpha(i) != `*`. Its encoded
// layout L_f, the standard representation f_L of a tractable layout, and
// the operations whose layouts are the layout operations (Theorems A-F).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_ALGEBRA_MORPHISM_H
#define RAPTOR_ALGEBRA_MORPHISM_H

#include "algebra/LayoutAlgebra.h"

#include <optional>
#include <utility>

namespace raptor::layout {

struct Morphism {
  IntTuple domain, codomain;
  std::vector<int64_t> map; // per flattened domain entry: 1..len(codomain), 0 = *

  Morphism(IntTuple domain, IntTuple codomain, std::vector<int64_t> map); // validates
  /// `(4,4) --(1, 3)--> (4,2,4)`, the notation of the paper's module.
  std::string str() const;
  bool operator==(const Morphism &o) const {
    return domain == o.domain && codomain == o.codomain && map == o.map;
  }
  bool injective() const;
  /// Standard form (with the corrected rule: a non-empty codomain's last
  /// entry is in the image) and a flat codomain.
  bool standardForm() const;
};

/// L_f: the domain's shape with strides = the colex weight of the image.
Layout encodedLayout(const Morphism &f);
/// f_L for a tractable layout L (throws otherwise).
Morphism standardRepresentation(const Layout &l);
/// g o f (f first); cod(f) must equal dom(g) exactly.
Morphism compose(const Morphism &f, const Morphism &g);
Morphism coalesce(const Morphism &f);
/// f^c (f injective): the codomain entries outside the image.
Morphism complement(const Morphism &f);
/// f / g = f o (g, g^c), g injective with cod(g) = dom(f).
Morphism logicalDivide(const Morphism &f, const Morphism &g);
/// f x g = (f, f^c o g), f injective with cod(g) = dom(f^c).
Morphism logicalProduct(const Morphism &f, const Morphism &g);

/// Plain-layout utilities of chapter 2.
Layout squeeze(const Layout &l);     // drop size-1 modes (flat)
Layout filterZeros(const Layout &l); // drop stride-0 modes (flat)
Layout sortModes(const Layout &l);   // stable by (stride, shape) (flat)
bool tractable(const Layout &l);
/// comp(A) without a size: comp(A, N0) with the smallest admissible N0.
Layout complement(const Layout &a);
/// Algorithm 4.1.1 (as corrected): a mutual refinement (T', U') of two
/// tuples, T' dividing U', or nothing.
std::optional<std::pair<IntTuple, IntTuple>> mutualRefinement(const IntTuple &t, const IntTuple &u);
/// Algorithm 4.1.2: B o A through f_A, f_coal(B), a mutual refinement, the
/// pullback and the pushforward (Theorem 4.1.3.1); nothing when A or
/// coal(B) is not tractable or no mutual refinement exists (the algorithm
/// is sufficient, not necessary).
std::optional<Layout> composeTractable(const Layout &a, const Layout &b);

/// More chapter 2 and 3 operations.
Layout permute(const Layout &l, const std::vector<int64_t> &sigma); // flat, 1-based sigma
bool complementable(const Layout &l);
bool compact(const Layout &l);
bool nonDegenerate(const Layout &l);
/// Flat division A /flat B = A o (B * comp_flat(B, size A)) and flat product
/// A *flat B = A * (comp_flat(A, size A cosize B) o B), with `*` flat
/// concatenation and comp_flat the uncoalesced complement.
Layout flatDivide(const Layout &a, const Layout &b);
Layout flatProduct(const Layout &a, const Layout &b);
/// f restricted to the (1-based, increasing) domain entries `keep`, and
/// factored through the codomain entries `through` (which hold the image).
Morphism restrict(const Morphism &f, const std::vector<int64_t> &keep);
Morphism factor(const Morphism &f, const std::vector<int64_t> &through);
/// (f, g): one codomain, disjoint images.
Morphism concatenate(const Morphism &f, const Morphism &g);
/// Pullback of a refinement T' of cod(f) along f, and pushforward of a
/// refinement S' of dom(f) (3.2.5.5, 3.2.5.12).
Morphism pullback(const Morphism &f, const IntTuple &refinedCodomain);
Morphism pushforward(const Morphism &f, const IntTuple &refinedDomain);

/// X' refines X: X an integer equal to size(X'), or both tuples of one rank
/// whose modes refine.
bool refines(const IntTuple &fine, const IntTuple &coarse);
/// Relative coalesce coal(L, S): each relative mode of L over the target
/// profile S (shape(L) must refine S) coalesced in place.
Layout coalesce(const Layout &l, const IntTuple &target);

} // namespace raptor::layout

#endif // RAPTOR_ALGEBRA_MORPHISM_H
