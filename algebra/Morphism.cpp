//===- Morphism.cpp - Tuple and Nest morphisms (seed 004) -------*- C++ -*-===//
#include "algebra/Morphism.h"

#include <algorithm>
#include <numeric>

namespace raptor::layout {

namespace {
IntTuple flatTuple(const std::vector<int64_t> &v) {
  return IntTuple::tuple(std::vector<IntTuple>(v.begin(), v.end()));
}

/// Replaces the leaves of `shape` (in order) by `values` (sub(S, values)).
IntTuple substitute(const IntTuple &shape, const std::vector<int64_t> &values, size_t &next) {
  if (shape.leaf)
    return IntTuple(values[next++]);
  std::vector<IntTuple> children;
  for (const IntTuple &c : shape.children)
    children.push_back(substitute(c, values, next));
  return IntTuple::tuple(std::move(children));
}

IntTuple substitute(const IntTuple &shape, const std::vector<int64_t> &values) {
  size_t next = 0;
  return substitute(shape, values, next);
}

std::vector<std::pair<int64_t, int64_t>> flatModes(const Layout &l) {
  std::vector<int64_t> s = l.shape.flatten(), d = l.stride.flatten();
  std::vector<std::pair<int64_t, int64_t>> m;
  for (size_t i = 0; i < s.size(); ++i)
    m.push_back({s[i], d[i]});
  return m;
}

Layout flatLayout(const std::vector<std::pair<int64_t, int64_t>> &modes) {
  std::vector<int64_t> s, d;
  for (auto [a, b] : modes) {
    s.push_back(a);
    d.push_back(b);
  }
  return Layout(flatTuple(s), flatTuple(d));
}
} // namespace

namespace {
std::vector<int64_t> entries(const IntTuple &t) {
  return t.leaf ? std::vector<int64_t>{t.value} : t.flatten();
}

/// A list of refined modes as one tuple (singletons stay integers).
IntTuple closeMode(const std::vector<int64_t> &m) {
  if (m.size() == 1)
    return IntTuple(m[0]);
  return IntTuple::tuple(std::vector<IntTuple>(m.begin(), m.end()));
}

/// sub(T, modes): the refined modes in place of T's entries.
IntTuple substituteModes(const IntTuple &t, const std::vector<IntTuple> &modes, size_t &next) {
  if (t.leaf)
    return modes[next++];
  std::vector<IntTuple> children;
  for (const IntTuple &c : t.children)
    children.push_back(substituteModes(c, modes, next));
  return IntTuple::tuple(children);
}

IntTuple substituteModes(const IntTuple &t, const std::vector<IntTuple> &modes) {
  size_t next = 0;
  return substituteModes(t, modes, next);
}

/// The refined modes of X' over X (X's entries in order).
std::vector<IntTuple> relativeModes(const IntTuple &fine, const IntTuple &coarse) {
  if (coarse.leaf)
    return {fine};
  std::vector<IntTuple> out;
  for (size_t i = 0; i < coarse.children.size(); ++i) {
    std::vector<IntTuple> sub = relativeModes(fine.children[i], coarse.children[i]);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

size_t flatLength(const IntTuple &t) { return t.leaf ? 1 : t.flatten().size(); }
} // namespace

Morphism::Morphism(IntTuple domain_, IntTuple codomain_, std::vector<int64_t> map_)
    : domain(std::move(domain_)), codomain(std::move(codomain_)), map(std::move(map_)) {
  std::vector<int64_t> s = domain.flatten(), t = codomain.leaf ? std::vector<int64_t>{codomain.value}
                                                                : codomain.flatten();
  if (map.size() != s.size())
    throw LayoutError("the map has " + std::to_string(map.size()) + " entries but the domain " +
                      domain.str() + " has " + std::to_string(s.size()));
  try { // sizes that overflow would make every derived layout wrong
    domain.product();
    codomain.product();
  } catch (const LayoutError &) {
    throw LayoutError("morphism " + str() + " is too large: its size overflows 64-bit integers");
  }
  for (int64_t entry : t)
    if (entry < 1)
      throw LayoutError("codomain entries must be positive, " + codomain.str() + " is not");
  std::vector<bool> hit(t.size() + 1, false);
  for (size_t i = 0; i < map.size(); ++i) {
    if (s[i] < 1)
      throw LayoutError("domain entries must be positive, " + domain.str() + " is not");
    if (map[i] == 0)
      continue;
    if (map[i] < 0 || size_t(map[i]) > t.size())
      throw LayoutError("map entry " + std::to_string(map[i]) + " is outside the codomain " +
                        codomain.str());
    if (hit[map[i]])
      throw LayoutError("the map sends two entries to codomain entry " + std::to_string(map[i]) +
                        " (it must be injective away from *)");
    hit[map[i]] = true;
    if (s[i] != t[map[i] - 1])
      throw LayoutError("the Tuple condition fails: domain entry " + std::to_string(i + 1) + " is " +
                        std::to_string(s[i]) + " but codomain entry " + std::to_string(map[i]) +
                        " is " + std::to_string(t[map[i] - 1]));
  }
}

std::string Morphism::str() const {
  std::string m = "(";
  for (size_t i = 0; i < map.size(); ++i)
    m += (i ? ", " : "") + std::to_string(map[i]);
  m += map.size() == 1 ? ",)" : ")";
  return domain.str() + " --" + m + "--> " + codomain.str();
}

bool Morphism::injective() const {
  return std::none_of(map.begin(), map.end(), [](int64_t a) { return a == 0; });
}

bool Morphism::standardForm() const {
  if (codomain.leaf)
    return false;
  for (const IntTuple &c : codomain.children)
    if (!c.leaf)
      return false;
  std::vector<int64_t> t = codomain.flatten();
  size_t n = t.size();
  std::vector<bool> img(n + 2, false);
  for (int64_t a : map)
    if (a)
      img[a] = true;
  if (n >= 1 && !img[n])
    return false;
  for (size_t j = 1; j < n; ++j)
    if (!img[j] && (t[j - 1] == 1 || !img[j + 1]))
      return false;
  return true;
}

Layout encodedLayout(const Morphism &f) {
  std::vector<int64_t> t = f.codomain.leaf ? std::vector<int64_t>{f.codomain.value} : f.codomain.flatten();
  std::vector<int64_t> prefix(t.size() + 1, 1);
  for (size_t j = 0; j < t.size(); ++j)
    prefix[j + 1] = prefix[j] * t[j];
  std::vector<int64_t> d;
  for (int64_t a : f.map)
    d.push_back(a == 0 ? 0 : prefix[a - 1]);
  return Layout(f.domain, substitute(f.domain, d));
}

/// The flat layout of the modes (shape, stride) of `l` that `keep` accepts.
template <typename Keep> static Layout keepModes(const Layout &l, Keep keep) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto m : flatModes(l))
    if (keep(m.first, m.second))
      out.push_back(m);
  return flatLayout(out);
}

Layout squeeze(const Layout &l) {
  return keepModes(l, [](int64_t shape, int64_t) { return shape != 1; });
}

Layout filterZeros(const Layout &l) {
  return keepModes(l, [](int64_t, int64_t stride) { return stride != 0; });
}

Layout sortModes(const Layout &l) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(l);
  std::stable_sort(m.begin(), m.end(), [](auto a, auto b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  return flatLayout(m);
}

bool tractable(const Layout &l) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(sortModes(l));
  // The paper's layouts have positive shapes and non-negative strides; the
  // divisibility test below divides by shape x stride, which must not be 0
  // or overflow.
  for (auto [shape, stride] : m)
    if (shape < 1 || stride < 0)
      return false;
  for (size_t i = 0; i + 1 < m.size(); ++i) {
    int64_t extent;
    if (m[i].second == 0)
      continue;
    if (__builtin_mul_overflow(m[i].first, m[i].second, &extent) || m[i + 1].second % extent != 0)
      return false;
  }
  return true;
}

Layout complement(const Layout &a) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(sortModes(squeeze(a)));
  if (m.empty())
    return Layout(1, 0);
  return complement(a, m.back().first * m.back().second);
}

Morphism standardRepresentation(const Layout &l) {
  if (!tractable(l))
    throw LayoutError(l.str() + " is not tractable: it has no standard representation");
  std::vector<std::pair<int64_t, int64_t>> modes = flatModes(l);
  size_t m = modes.size();
  std::vector<size_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
    return modes[x].second != modes[y].second ? modes[x].second < modes[y].second
                                              : modes[x].first < modes[y].first;
  });
  size_t k = 0;
  while (k < m && modes[idx[k]].second == 0)
    ++k;
  std::vector<int64_t> tp; // t'
  std::vector<int64_t> alphaPrime(m, 0);
  for (size_t p = k; p < m; ++p) {
    auto [s, d] = modes[idx[p]];
    if (p == k) {
      tp.push_back(d);
    } else {
      auto [sPrev, dPrev] = modes[idx[p - 1]];
      tp.push_back(d / (sPrev * dPrev));
    }
    tp.push_back(s);
    alphaPrime[idx[p]] = int64_t(2 * (p - k + 1)); // 1-based position of s
  }
  // Keep every shape position and every gap factor other than 1.
  std::vector<int64_t> position(tp.size() + 1, 0), t;
  for (size_t j = 1; j <= tp.size(); ++j)
    if (j % 2 == 0 || tp[j - 1] != 1) {
      t.push_back(tp[j - 1]);
      position[j] = int64_t(t.size());
    }
  std::vector<int64_t> alpha(m, 0);
  for (size_t i = 0; i < m; ++i)
    alpha[i] = alphaPrime[i] ? position[alphaPrime[i]] : 0;
  return Morphism(l.shape, flatTuple(t), alpha);
}

Morphism compose(const Morphism &f, const Morphism &g) {
  if (!(f.codomain == g.domain))
    throw LayoutError("cannot compose: the codomain " + f.codomain.str() +
                      " is not the domain " + g.domain.str());
  std::vector<int64_t> map;
  for (int64_t a : f.map)
    map.push_back(a == 0 ? 0 : g.map[a - 1]);
  return Morphism(f.domain, g.codomain, map);
}

Morphism coalesce(const Morphism &f) {
  std::vector<int64_t> s = f.domain.flatten();
  std::vector<int64_t> t = f.codomain.leaf ? std::vector<int64_t>{f.codomain.value} : f.codomain.flatten();
  // Squeeze: drop size-1 domain entries and size-1 codomain entries.
  std::vector<int64_t> newIndex(t.size() + 1, 0), tq;
  for (size_t j = 1; j <= t.size(); ++j)
    if (t[j - 1] != 1) {
      tq.push_back(t[j - 1]);
      newIndex[j] = int64_t(tq.size());
    }
  std::vector<int64_t> sq, beta;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != 1) {
      sq.push_back(s[i]);
      beta.push_back(f.map[i] ? newIndex[f.map[i]] : 0);
    }
  // Domain classes: consecutive *'s, or consecutive images.
  std::vector<int64_t> domain, map;
  std::vector<bool> mergeWithPrevious(tq.size() + 2, false); // codomain j merges into j-1
  for (size_t i = 0; i < sq.size(); ++i) {
    bool merge = i > 0 && ((beta[i] == 0 && beta[i - 1] == 0) ||
                           (beta[i - 1] != 0 && beta[i] == beta[i - 1] + 1));
    if (merge) {
      domain.back() *= sq[i];
      if (beta[i])
        mergeWithPrevious[beta[i]] = true;
    } else {
      domain.push_back(sq[i]);
      map.push_back(beta[i]);
    }
  }
  std::vector<int64_t> codomain, classOf(tq.size() + 1, 0);
  for (size_t j = 1; j <= tq.size(); ++j) {
    if (j > 1 && mergeWithPrevious[j]) {
      codomain.back() *= tq[j - 1];
    } else {
      codomain.push_back(tq[j - 1]);
    }
    classOf[j] = int64_t(codomain.size());
  }
  for (int64_t &a : map)
    a = a ? classOf[a] : 0;
  IntTuple cod = flatTuple(codomain);
  if (domain.size() > 1)
    return Morphism(flatTuple(domain), cod, map);
  if (domain.size() == 1)
    return Morphism(IntTuple(domain[0]), cod, map);
  return Morphism(IntTuple(1), cod, {0});
}

Morphism complement(const Morphism &f) {
  if (!f.injective())
    throw LayoutError("the complement needs an injective morphism; " + f.str() + " maps to *");
  std::vector<int64_t> t = f.codomain.leaf ? std::vector<int64_t>{f.codomain.value} : f.codomain.flatten();
  std::vector<bool> img(t.size() + 1, false);
  for (int64_t a : f.map)
    img[a] = true;
  std::vector<int64_t> domain, map;
  for (size_t j = 1; j <= t.size(); ++j)
    if (!img[j]) {
      domain.push_back(t[j - 1]);
      map.push_back(int64_t(j));
    }
  return Morphism(flatTuple(domain), f.codomain, map);
}

/// (f, g) for morphisms with one codomain and disjoint images.
Morphism concatenate(const Morphism &f, const Morphism &g);
static Morphism concat(const Morphism &f, const Morphism &g) { return concatenate(f, g); }
Morphism concatenate(const Morphism &f, const Morphism &g) {
  if (!(f.codomain == g.codomain))
    throw LayoutError("cannot concatenate morphisms with codomains " + f.codomain.str() + " and " +
                      g.codomain.str());
  std::vector<int64_t> map = f.map;
  map.insert(map.end(), g.map.begin(), g.map.end());
  return Morphism(IntTuple::tuple({f.domain, g.domain}), f.codomain, map);
}

Morphism logicalDivide(const Morphism &f, const Morphism &g) {
  if (!g.injective())
    throw LayoutError("the divisor " + g.str() + " must be injective");
  if (!(g.codomain == f.domain))
    throw LayoutError(g.str() + " does not divide " + f.str() + ": its codomain is not the domain");
  return compose(concat(g, complement(g)), f);
}

Morphism logicalProduct(const Morphism &f, const Morphism &g) {
  if (!f.injective())
    throw LayoutError("the product needs an injective left factor, " + f.str() + " is not");
  Morphism fc = complement(f);
  if (!(g.codomain == fc.domain))
    throw LayoutError("not product admissible: the codomain of " + g.str() +
                      " is not the domain of the complement " + fc.domain.str());
  return concat(f, compose(g, fc));
}

Checked checkedComposeTractable(const Layout &b, const Layout &a) {
  Checked c;
  if (!tractable(a)) {
    c.error = a.str() + " is not tractable (the chapter 4 algorithm requires it)";
    return c;
  }
  if (!tractable(coalesce(b))) {
    c.error = b.str() + " is not tractable after coalescing (the chapter 4 algorithm requires it)";
    return c;
  }
  std::optional<Layout> r = composeTractable(a, b);
  if (!r) {
    c.error = "no mutual refinement of f_A's codomain and f_coal(B)'s domain exists";
    return c;
  }
  c.ok = true;
  c.layout = *r;
  return c;
}

std::string checkMorphism(const IntTuple &domain, const IntTuple &codomain,
                          const std::vector<int64_t> &map, std::string &text) {
  try {
    text = Morphism(domain, codomain, map).str();
    return "";
  } catch (const LayoutError &e) {
    return e.what();
  }
}

Layout encodedLayoutOf(const IntTuple &domain, const IntTuple &codomain,
                       const std::vector<int64_t> &map) {
  return encodedLayout(Morphism(domain, codomain, map));
}

Layout permute(const Layout &l, const std::vector<int64_t> &sigma) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(l), out;
  std::vector<bool> seen(m.size() + 1, false);
  if (sigma.size() != m.size())
    throw LayoutError("a permutation of " + std::to_string(m.size()) + " modes needs " +
                      std::to_string(m.size()) + " entries");
  for (int64_t k : sigma) {
    if (k < 1 || size_t(k) > m.size() || seen[k])
      throw LayoutError("not a permutation of 1.." + std::to_string(m.size()));
    seen[k] = true;
    out.push_back(m[k - 1]);
  }
  return flatLayout(out);
}

bool complementable(const Layout &l) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(sortModes(squeeze(l)));
  for (size_t i = 0; i < m.size(); ++i) {
    int64_t extent;
    if (m[i].second <= 0 || m[i].first < 1 || __builtin_mul_overflow(m[i].first, m[i].second, &extent))
      return false;
    if (i + 1 < m.size() && m[i + 1].second % extent != 0)
      return false;
  }
  return true;
}

bool compact(const Layout &l) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(sortModes(squeeze(l)));
  int64_t expected = 1;
  for (auto [s, d] : m) {
    if (d != expected)
      return false;
    expected = s * d;
  }
  return true;
}

bool nonDegenerate(const Layout &l) {
  for (auto [s, d] : flatModes(l))
    if (s == 1 && d != 0)
      return false;
  return true;
}

/// comp(A, N) before coalescing (the flat complement of 2.1.6).
static Layout flatComplement(const Layout &a, int64_t n) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(sortModes(squeeze(a))), out;
  if (!complementable(a))
    throw LayoutError(a.str() + " is not complementable");
  int64_t current = 1;
  for (auto [s, d] : m) {
    out.push_back({d / current, current});
    current = s * d;
  }
  if (n % current != 0)
    throw LayoutError(a.str() + " is not complementable in " + std::to_string(n));
  out.push_back({n / current, current});
  std::vector<std::pair<int64_t, int64_t>> kept;
  for (auto mode : out)
    if (mode.first != 1)
      kept.push_back(mode);
  return flatLayout(kept);
}

static Layout flatConcat(const Layout &a, const Layout &b) {
  std::vector<std::pair<int64_t, int64_t>> m = flatModes(a), n = flatModes(b);
  m.insert(m.end(), n.begin(), n.end());
  return flatLayout(m);
}

Layout flatDivide(const Layout &a, const Layout &b) {
  Layout c = composition(a, flatConcat(b, flatComplement(b, a.size())));
  return c.flat();
}

Layout flatProduct(const Layout &a, const Layout &b) {
  return flatConcat(a, composition(flatComplement(a, checkedMul(a.size(), b.cosize())), b));
}

Morphism restrict(const Morphism &f, const std::vector<int64_t> &keep) {
  std::vector<int64_t> s = entries(f.domain), domain, map;
  for (int64_t i : keep) {
    if (i < 1 || size_t(i) > s.size())
      throw LayoutError("domain entry " + std::to_string(i) + " does not exist");
    domain.push_back(s[i - 1]);
    map.push_back(f.map[i - 1]);
  }
  return Morphism(IntTuple::tuple(std::vector<IntTuple>(domain.begin(), domain.end())), f.codomain, map);
}

Morphism factor(const Morphism &f, const std::vector<int64_t> &through) {
  std::vector<int64_t> t = entries(f.codomain), codomain, position(t.size() + 1, 0);
  for (int64_t j : through) {
    if (j < 1 || size_t(j) > t.size())
      throw LayoutError("codomain entry " + std::to_string(j) + " does not exist");
    codomain.push_back(t[j - 1]);
    position[j] = int64_t(codomain.size());
  }
  std::vector<int64_t> map;
  for (int64_t a : f.map) {
    if (a && !position[a])
      throw LayoutError("cannot factor through entries that miss the image entry " + std::to_string(a));
    map.push_back(a ? position[a] : 0);
  }
  return Morphism(f.domain, IntTuple::tuple(std::vector<IntTuple>(codomain.begin(), codomain.end())), map);
}

bool refines(const IntTuple &fine, const IntTuple &coarse) {
  if (coarse.leaf)
    return fine.product() == coarse.value;
  if (fine.leaf || fine.children.size() != coarse.children.size())
    return false;
  for (size_t i = 0; i < coarse.children.size(); ++i)
    if (!refines(fine.children[i], coarse.children[i]))
      return false;
  return true;
}

static void relativeCoalesce(const Layout &l, const IntTuple &target, IntTuple &shape,
                             IntTuple &stride) {
  if (target.leaf) {
    Layout c = coalesce(l);
    shape = c.shape;
    stride = c.stride;
    return;
  }
  std::vector<Layout> modes = l.modes();
  std::vector<IntTuple> shapes(modes.size()), strides(modes.size());
  for (size_t i = 0; i < modes.size(); ++i)
    relativeCoalesce(modes[i], target.children[i], shapes[i], strides[i]);
  shape = IntTuple::tuple(shapes);
  stride = IntTuple::tuple(strides);
}

Layout coalesce(const Layout &l, const IntTuple &target) {
  if (!refines(l.shape, target))
    throw LayoutError("the shape " + l.shape.str() + " does not refine the target profile " +
                      target.str());
  IntTuple shape, stride;
  relativeCoalesce(l, target, shape, stride);
  return Layout(shape, stride);
}


std::optional<std::pair<IntTuple, IntTuple>> mutualRefinement(const IntTuple &t, const IntTuple &u) {
  std::vector<int64_t> x = entries(t), y = entries(u);
  std::vector<IntTuple> xs, ys;
  std::vector<int64_t> xm, ym;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] == y[j]) {
      xm.push_back(x[i]);
      xs.push_back(closeMode(xm));
      xm.clear();
      ym.push_back(y[j]);
      ys.push_back(closeMode(ym));
      ym.clear();
      ++i;
      ++j;
    } else if (y[j] % x[i] == 0) {
      xm.push_back(x[i]);
      xs.push_back(closeMode(xm));
      xm.clear();
      ym.push_back(x[i]);
      y[j] /= x[i];
      ++i;
    } else if (x[i] % y[j] == 0) {
      xm.push_back(y[j]);
      ym.push_back(y[j]);
      ys.push_back(closeMode(ym));
      ym.clear();
      x[i] /= y[j];
      ++j;
    } else {
      return std::nullopt;
    }
  }
  if (i < x.size())
    return std::nullopt; // T is not exhausted: no refinement divides U
  if (!ym.empty()) {
    ym.push_back(y[j]);
    ys.push_back(IntTuple::tuple(std::vector<IntTuple>(ym.begin(), ym.end())));
    ++j;
  }
  for (; j < y.size(); ++j)
    ys.push_back(IntTuple(y[j]));
  IntTuple tRefined = t.leaf ? xs.front() : substituteModes(t, xs);
  IntTuple uRefined = u.leaf ? ys.front() : substituteModes(u, ys);
  return std::make_pair(tRefined, uRefined);
}

Morphism pullback(const Morphism &f, const IntTuple &tRefined) {
  if (!refines(tRefined, f.codomain))
    throw LayoutError(tRefined.str() + " does not refine the codomain " + f.codomain.str());
  std::vector<IntTuple> tModes = relativeModes(tRefined, f.codomain);
  std::vector<size_t> tStart(tModes.size() + 1, 0);
  for (size_t k = 0; k < tModes.size(); ++k)
    tStart[k + 1] = tStart[k] + flatLength(tModes[k]);
  std::vector<int64_t> sEntries = entries(f.domain), map;
  std::vector<IntTuple> sModes;
  for (size_t k = 0; k < sEntries.size(); ++k) {
    if (f.map[k] == 0) {
      sModes.push_back(IntTuple(sEntries[k]));
      map.push_back(0);
      continue;
    }
    size_t target = f.map[k] - 1;
    sModes.push_back(tModes[target]);
    for (size_t p = tStart[target]; p < tStart[target + 1]; ++p)
      map.push_back(int64_t(p + 1));
  }
  IntTuple sRefined = f.domain.leaf ? sModes.front() : substituteModes(f.domain, sModes);
  return Morphism(sRefined, tRefined, map);
}

Morphism pushforward(const Morphism &g, const IntTuple &uRefined) {
  if (!refines(uRefined, g.domain))
    throw LayoutError(uRefined.str() + " does not refine the domain " + g.domain.str());
  std::vector<IntTuple> uModes = relativeModes(uRefined, g.domain);
  std::vector<int64_t> vEntries = entries(g.codomain);
  std::vector<IntTuple> vModes;
  std::vector<int64_t> sourceOf(vEntries.size() + 1, -1);
  for (size_t k = 0; k < g.map.size(); ++k)
    if (g.map[k])
      sourceOf[g.map[k]] = int64_t(k);
  for (size_t j = 1; j <= vEntries.size(); ++j)
    vModes.push_back(sourceOf[j] < 0 ? IntTuple(vEntries[j - 1]) : uModes[sourceOf[j]]);
  std::vector<size_t> vStart(vModes.size() + 1, 0);
  for (size_t k = 0; k < vModes.size(); ++k)
    vStart[k + 1] = vStart[k] + flatLength(vModes[k]);
  std::vector<int64_t> map;
  for (size_t k = 0; k < uModes.size(); ++k)
    for (size_t p = 0; p < flatLength(uModes[k]); ++p)
      map.push_back(g.map[k] == 0 ? 0 : int64_t(vStart[g.map[k] - 1] + p + 1));
  IntTuple vRefined = g.codomain.leaf ? vModes.front() : substituteModes(g.codomain, vModes);
  return Morphism(uRefined, vRefined, map);
}

std::optional<Layout> composeTractable(const Layout &a, const Layout &b) {
  Layout cb = coalesce(b);
  if (!tractable(a) || !tractable(cb))
    return std::nullopt;
  Morphism f = standardRepresentation(a);  // S -> T (flat)
  Morphism g = standardRepresentation(cb); // U -> V
  auto refined = mutualRefinement(f.codomain, g.domain);
  if (!refined)
    return std::nullopt;
  const auto &[tRefined, uRefined] = *refined;
  Morphism fRefined = pullback(f, tRefined);  // S' -> T'
  Morphism gRefined = pushforward(g, uRefined); // U' -> V'
  // g' o i o f~, where i: T' -> U' is the identity on T''s flat positions.
  std::vector<int64_t> map;
  for (int64_t a : fRefined.map)
    map.push_back(a == 0 ? 0 : gRefined.map[a - 1]);
  Morphism composite(fRefined.domain, gRefined.codomain, map);
  return coalesce(encodedLayout(composite), a.shape);
}

} // namespace raptor::layout
