//===- LayoutModule.cpp - The layout algebra for Python ----------*- C++ -*-===//
//
// raptor._raptor.layout: CuTe layouts (algebra/LayoutAlgebra.h) and
// nested tuple morphisms (Morphism.h) held as C++ objects. A Layout or
// Morphism is validated once when built from Python tuples; every operation
// takes and returns C++ objects, and tuples are built only when `shape`,
// `stride`, `domain`, `codomain` or `map` is read. raptor.layout re-exports
// the classes and functions under the same names.
//
// Errors are ValueError with the violated condition: the algebra's
// LayoutError, entries beyond 64 bits, non-integer entries, tuples nested
// beyond kMaxDepth (so that no recursion can exhaust the stack).
//
//===----------------------------------------------------------------------===//
#include "algebra/LayoutAlgebra.h"
#include "algebra/Morphism.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <chrono>
#include <optional>

namespace nb = nanobind;
namespace rl = raptor::layout;
using namespace nb::literals;

namespace {

/// Deeper Python tuples are refused rather than recursed into.
constexpr int kMaxDepth = 256;

[[noreturn]] void fail(const std::string &message) { throw nb::value_error(message.c_str()); }

std::string pyStr(nb::handle h) {
  nb::str s = nb::str(h);
  return s.c_str();
}

/// A Python int as an int64, or ValueError `<what> X does not fit in 64 bits`.
int64_t toInt64(PyObject *o, const char *what) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow)
    fail(std::string(what) + " " + pyStr(o) + " does not fit in 64 bits");
  if (v == -1 && PyErr_Occurred())
    throw nb::python_error();
  return v;
}

rl::IntTuple toIntTuple(PyObject *o, int depth = 0) {
  if (PyLong_Check(o))
    return rl::IntTuple(toInt64(o, "layout entry"));
  if (!PyTuple_Check(o))
    fail("layout shapes and strides are ints or tuples of them, not " + pyStr(o));
  if (depth >= kMaxDepth)
    fail("layout tuples nest deeper than " + std::to_string(kMaxDepth) + " levels");
  Py_ssize_t n = PyTuple_GET_SIZE(o);
  std::vector<rl::IntTuple> children;
  children.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i)
    children.push_back(toIntTuple(PyTuple_GET_ITEM(o, i), depth + 1));
  return rl::IntTuple::tuple(std::move(children));
}

rl::IntTuple toIntTuple(nb::handle h) { return toIntTuple(h.ptr()); }

PyObject *newIntTuple(const rl::IntTuple &t) {
  if (t.leaf)
    return PyLong_FromLongLong(t.value);
  PyObject *out = PyTuple_New(Py_ssize_t(t.children.size()));
  if (!out)
    return nullptr;
  for (size_t i = 0; i < t.children.size(); ++i) {
    PyObject *c = newIntTuple(t.children[i]);
    if (!c) {
      Py_DECREF(out);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, Py_ssize_t(i), c);
  }
  return out;
}

nb::object fromIntTuple(const rl::IntTuple &t) {
  PyObject *o = newIntTuple(t);
  if (!o)
    throw nb::python_error();
  return nb::steal(o);
}

/// Integers as a vector: a tuple, list or other iterable of Python ints.
std::vector<int64_t> toInts(nb::handle h, const char *what) {
  PyObject *seq = PySequence_Fast(h.ptr(), "");
  if (!seq) {
    PyErr_Clear();
    fail(std::string(what) + " must be a tuple of integers, not " + pyStr(h));
  }
  nb::object owner = nb::steal(seq);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  std::vector<int64_t> out;
  out.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *e = PySequence_Fast_GET_ITEM(seq, i);
    int overflow = 0;
    long long v = PyLong_Check(e) ? PyLong_AsLongLongAndOverflow(e, &overflow) : 0;
    if (!PyLong_Check(e) || overflow)
      fail(std::string(what) + " entry " + pyStr(e) + " is not an integer of 64 bits");
    out.push_back(v);
  }
  return out;
}

/// The compact column-major strides of `shape`.
rl::IntTuple compactStrides(const rl::IntTuple &shape, int64_t &running, bool &overflow) {
  if (shape.leaf) {
    int64_t d = running;
    overflow |= __builtin_mul_overflow(running, shape.value, &running);
    return rl::IntTuple(d);
  }
  std::vector<rl::IntTuple> children;
  children.reserve(shape.children.size());
  for (const rl::IntTuple &c : shape.children)
    children.push_back(compactStrides(c, running, overflow));
  return rl::IntTuple::tuple(std::move(children));
}

rl::Layout makeLayout(nb::handle shape, nb::handle stride) {
  rl::IntTuple s = toIntTuple(shape);
  if (!stride.is_none())
    return rl::Layout(std::move(s), toIntTuple(stride));
  int64_t running = 1;
  bool overflow = false;
  rl::IntTuple d = compactStrides(s, running, overflow);
  rl::Layout l(std::move(s), std::move(d)); // refuses shapes with entries below 1 first
  if (overflow)
    fail("shape " + l.shape.str() + " is too large: its size overflows 64-bit integers");
  return l;
}

/// The colexicographic index of a natural coordinate: congruent to a
/// prefix of the shape's modes (an integer stands for a whole mode).
int64_t linearIndex(nb::handle coordinate, const rl::IntTuple &shape, nb::handle whole, int depth) {
  PyObject *c = coordinate.ptr();
  if (PyLong_Check(c))
    return toInt64(c, "coordinate");
  if (!PyTuple_Check(c) && !PyList_Check(c))
    fail("coordinate " + pyStr(whole) + " has an entry " + pyStr(coordinate) +
         " that is neither an integer nor a tuple");
  if (depth >= kMaxDepth)
    fail("coordinate " + pyStr(whole) + " nests too deep");
  Py_ssize_t n = PySequence_Size(c);
  size_t rank = shape.leaf ? 1 : shape.children.size();
  if (size_t(n) != rank)
    fail("coordinate " + pyStr(coordinate) + " does not match the shape's rank " + std::to_string(rank));
  int64_t index = 0, weight = 1;
  for (size_t i = 0; i < rank; ++i) {
    const rl::IntTuple &mode = shape.leaf ? shape : shape.children[i];
    nb::object entry = nb::steal(PySequence_GetItem(c, Py_ssize_t(i)));
    int64_t sub = linearIndex(entry, mode, whole, depth + 1), term;
    if (__builtin_mul_overflow(sub, weight, &term) || __builtin_add_overflow(index, term, &index))
      fail("coordinate " + pyStr(whole) + " does not fit in 64 bits");
    weight *= mode.product(); // a factor of the layout's size: no overflow
  }
  return index;
}

int64_t evaluate(const rl::Layout &l, nb::handle coordinate) {
  PyObject *c = coordinate.ptr();
  if (PyBool_Check(c))
    fail("coordinate must be an integer, not " + pyStr(coordinate));
  int64_t i = PyLong_Check(c) ? toInt64(c, "coordinate") : linearIndex(coordinate, l.shape, coordinate, 0);
  return l(i);
}

size_t hashOf(const rl::IntTuple &t, size_t h) {
  auto mix = [](size_t h, size_t v) { return (h ^ v) * 0x100000001b3ull + (h << 6) + (h >> 2); };
  if (t.leaf)
    return mix(h, std::hash<int64_t>()(t.value));
  h = mix(h, 0x9e3779b97f4a7c15ull + t.children.size());
  for (const rl::IntTuple &c : t.children)
    h = hashOf(c, h);
  return mix(h, 0x51);
}

Py_hash_t finalHash(size_t h) {
  Py_hash_t r = Py_hash_t(h >> 1);
  return r == -1 ? -2 : r;
}

nb::tuple mapTuple(const rl::Morphism &f) {
  PyObject *t = PyTuple_New(Py_ssize_t(f.map.size()));
  if (!t)
    throw nb::python_error();
  nb::tuple out = nb::steal<nb::tuple>(t);
  for (size_t i = 0; i < f.map.size(); ++i)
    PyTuple_SET_ITEM(t, Py_ssize_t(i), PyLong_FromLongLong(f.map[i]));
  return out;
}

rl::Morphism makeMorphism(nb::handle domain, nb::handle codomain, nb::handle map) {
  rl::IntTuple d = toIntTuple(domain), c = toIntTuple(codomain);
  return rl::Morphism(std::move(d), std::move(c), toInts(map, "morphism map"));
}

/// `a == b` for a Python object `b` of any type (false unless a T).
template <typename T> bool equalTo(const T &a, nb::handle b) {
  return nb::isinstance<T>(b) && a == *nb::inst_ptr<T>(b);
}

/// The Python types of the two classes, set when they are bound.
PyTypeObject *layoutType = nullptr, *morphismType = nullptr;

/// `value` moved into a new instance of `type`: nanobind's by-value return
/// without its type and instance-map look-ups (the operations' hot path).
template <typename T> nb::object wrap(PyTypeObject *type, T &&value) {
  nb::object o = nb::inst_alloc(nb::handle(reinterpret_cast<PyObject *>(type)));
  if (!o.is_valid())
    throw nb::python_error();
  new (nb::inst_ptr<T>(o)) T(std::move(value));
  nb::inst_mark_ready(o);
  return o;
}
nb::object wrap(rl::Layout &&l) { return wrap(layoutType, std::move(l)); }
nb::object wrap(rl::Morphism &&f) { return wrap(morphismType, std::move(f)); }

int64_t complementSize(nb::handle size) {
  PyObject *o = size.ptr();
  if (PyBool_Check(o) || !PyLong_Check(o))
    fail("complement size must be an integer, not " + pyStr(size));
  return toInt64(o, "complement size");
}

/// Seconds per operation of `op` over `cases` run `repeat` times in C++
/// alone (no Python between operations): the core's own throughput.
double coreSecondsPerOperation(const std::string &op, nb::handle cases, int64_t repeat) {
  enum { Composition, Complement, LogicalDivide } kind;
  if (op == "composition")
    kind = Composition;
  else if (op == "complement")
    kind = Complement;
  else if (op == "logical_divide")
    kind = LogicalDivide;
  else
    fail("unknown operation '" + op + "' (composition, complement or logical_divide)");
  if (repeat < 1)
    fail("repeat must be positive");
  std::vector<std::pair<rl::Layout, rl::Layout>> pairs;
  std::vector<std::pair<rl::Layout, int64_t>> sized;
  for (nb::handle c : cases) {
    if (!nb::isinstance<nb::tuple>(c) || nb::len(c) != 2)
      fail("each case is (Layout, Layout) or (Layout, size)");
    nb::tuple t = nb::borrow<nb::tuple>(c);
    if (!nb::isinstance<rl::Layout>(t[0]))
      fail("each case is (Layout, Layout) or (Layout, size)");
    const rl::Layout &a = *nb::inst_ptr<rl::Layout>(t[0]);
    if (kind == Complement)
      sized.push_back({a, complementSize(t[1])});
    else if (nb::isinstance<rl::Layout>(t[1]))
      pairs.push_back({a, *nb::inst_ptr<rl::Layout>(t[1])});
    else
      fail("each case is (Layout, Layout) or (Layout, size)");
  }
  size_t n = kind == Complement ? sized.size() : pairs.size();
  if (n == 0)
    fail("no cases to run");
  nb::gil_scoped_release release;
  int64_t sink = 0;
  auto start = std::chrono::steady_clock::now();
  try {
    for (int64_t r = 0; r < repeat; ++r) {
      if (kind == Complement)
        for (const auto &[a, m] : sized)
          sink += rl::complement(a, m).shape.leaf;
      else if (kind == Composition)
        for (const auto &[a, b] : pairs)
          sink += rl::composition(a, b).shape.leaf;
      else
        for (const auto &[a, b] : pairs)
          sink += rl::logicalDivide(a, b).shape.leaf;
    }
  } catch (const rl::LayoutError &e) {
    nb::gil_scoped_acquire acquire;
    fail(std::string("a case is refused: ") + e.what());
  }
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  volatile int64_t keep = sink; // the results are used
  (void)keep;
  return elapsed.count() / double(n * size_t(repeat));
}

} // namespace

void bindLayout(nb::module_ &parent) {
  nb::module_ m = parent.def_submodule(
      "layout", "CuTe layouts and nested tuple morphisms held as C++ objects (raptor.layout).");

  // Layouts are values that modules keep in globals (e.g. test parameters).
  // When another extension delays the teardown of such modules past
  // nanobind's own (pytest with torch loaded does), nanobind would report
  // every such live instance as a leak at exit although no reference is
  // lost; reference counts are checked by the tests instead.
  nb::set_leak_warnings(false);

  // The algebra's violated preconditions are ValueErrors.
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const rl::LayoutError &e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::class_<rl::Layout> layout(m, "Layout", nb::pooled(),
                                "shape:stride, nested tuples of the same profile, held in C++.\n\n"
                                "Layout(shape, stride=None): without a stride, the compact "
                                "column-major one. Raises ValueError naming the violated condition.");
  layout.attr("__module__") = "raptor.layout";
  layoutType = reinterpret_cast<PyTypeObject *>(layout.ptr());
  layout
      .def("__init__",
           [](rl::Layout *self, nb::handle shape, nb::handle stride) {
             new (self) rl::Layout(makeLayout(shape, stride));
           },
           "shape"_a, "stride"_a = nb::none())
      .def_prop_ro("shape", [](const rl::Layout &l) { return fromIntTuple(l.shape); },
                   "The shape as an int or nested tuple (built when read).")
      .def_prop_ro("stride", [](const rl::Layout &l) { return fromIntTuple(l.stride); },
                   "The stride as an int or nested tuple (built when read).")
      .def("size", &rl::Layout::size, "The number of coordinates.")
      .def("cosize", &rl::Layout::cosize, "The image's extent: L(size - 1) + 1.")
      .def("__call__", &evaluate, "coordinate"_a,
           "The offset of a linear index, or of a natural coordinate (a tuple congruent to "
           "a prefix of the shape's modes, colexicographic).")
      .def("__str__", &rl::Layout::str)
      .def("__repr__", &rl::Layout::str)
      .def("__eq__", &equalTo<rl::Layout>)
      .def("__ne__", [](const rl::Layout &a, nb::handle b) { return !equalTo(a, b); })
      .def("__hash__",
           [](const rl::Layout &l) { return finalHash(hashOf(l.stride, hashOf(l.shape, 17))); })
      .def("__getstate__",
           [](const rl::Layout &l) { return nb::make_tuple(fromIntTuple(l.shape), fromIntTuple(l.stride)); })
      .def("__setstate__", [](rl::Layout *self, nb::handle state) {
        if (!nb::isinstance<nb::tuple>(state) || nb::len(state) != 2)
          fail("a Layout's state is (shape, stride)");
        nb::tuple t = nb::borrow<nb::tuple>(state);
        new (self) rl::Layout(toIntTuple(t[0]), toIntTuple(t[1]));
      });

  nb::class_<rl::Morphism> morphism(
      m, "Morphism", nb::pooled(),
      "A nested tuple morphism domain -> codomain over a pointed map (1-based; 0 for `*`), "
      "as in the paper's chapter 3 and its module; validated once, held in C++.");
  morphism.attr("__module__") = "raptor.layout";
  morphismType = reinterpret_cast<PyTypeObject *>(morphism.ptr());
  morphism
      .def("__init__",
           [](rl::Morphism *self, nb::handle domain, nb::handle codomain, nb::handle map) {
             new (self) rl::Morphism(makeMorphism(domain, codomain, map));
           },
           "domain"_a, "codomain"_a, "map"_a)
      .def_prop_ro("domain", [](const rl::Morphism &f) { return fromIntTuple(f.domain); })
      .def_prop_ro("codomain", [](const rl::Morphism &f) { return fromIntTuple(f.codomain); })
      .def_prop_ro("map", &mapTuple, "The map as a tuple (1-based; 0 for `*`).")
      .def("__str__", &rl::Morphism::str)
      .def("__repr__", &rl::Morphism::str)
      .def("__eq__", &equalTo<rl::Morphism>)
      .def("__ne__", [](const rl::Morphism &a, nb::handle b) { return !equalTo(a, b); })
      .def("__hash__",
           [](const rl::Morphism &f) {
             size_t h = hashOf(f.codomain, hashOf(f.domain, 29));
             for (int64_t a : f.map)
               h = hashOf(rl::IntTuple(a), h);
             return finalHash(h);
           })
      .def("is_standard_form", &rl::Morphism::standardForm)
      .def("__getstate__",
           [](const rl::Morphism &f) {
             return nb::make_tuple(fromIntTuple(f.domain), fromIntTuple(f.codomain), mapTuple(f));
           })
      .def("__setstate__", [](rl::Morphism *self, nb::handle state) {
        if (!nb::isinstance<nb::tuple>(state) || nb::len(state) != 3)
          fail("a Morphism's state is (domain, codomain, map)");
        nb::tuple t = nb::borrow<nb::tuple>(state);
        new (self) rl::Morphism(makeMorphism(t[0], t[1], t[2]));
      });

  using L = const rl::Layout &;
  using F = const rl::Morphism &;

  m.def("composition", [](L a, L b) { return wrap(rl::composition(a, b)); }, "a"_a, "b"_a, "a o b.");
  m.def(
      "complement",
      [](L a, nb::handle size) {
        return wrap(size.is_none() ? rl::complement(a) : rl::complement(a, complementSize(size)));
      },
      "a"_a, "size"_a = nb::none(),
      "comp(A, size); without a size the paper's comp(A); f^c for a morphism.");
  m.def("complement", [](F f) { return wrap(rl::complement(f)); }, "f"_a);
  m.def("logical_divide", [](L a, L b) { return wrap(rl::logicalDivide(a, b)); }, "a"_a, "b"_a,
        "A / B for layouts; f / g = f o (g, g^c) for morphisms.");
  m.def("logical_divide", [](F f, F g) { return wrap(rl::logicalDivide(f, g)); }, "f"_a, "g"_a);
  m.def("logical_product", [](L a, L b) { return wrap(rl::logicalProduct(a, b)); }, "a"_a, "b"_a,
        "A x B for layouts; f x g = (f, f^c o g) for morphisms.");
  m.def("logical_product", [](F f, F g) { return wrap(rl::logicalProduct(f, g)); }, "f"_a, "g"_a);
  m.def(
      "coalesce",
      [](L a, nb::handle profile) {
        return wrap(profile.is_none() ? rl::coalesce(a) : rl::coalesce(a, toIntTuple(profile)));
      },
      "a"_a, "profile"_a = nb::none(),
      "coal(A); with a target profile S (shape(A) refining S) the relative coalesce "
      "coal(A, S); coal(f) for a morphism.");
  m.def("coalesce", [](F f) { return wrap(rl::coalesce(f)); }, "f"_a);

  m.def("compute_layout", [](F f) { return wrap(rl::encodedLayout(f)); }, "f"_a,
        "L_f, the layout a morphism encodes.");
  m.def("compute_morphism", [](L l) { return wrap(rl::standardRepresentation(l)); }, "layout"_a,
        "f_L, the standard representation of a tractable layout.");
  m.def("compose", [](F f, F g) { return wrap(rl::compose(f, g)); }, "f"_a, "g"_a,
        "g o f (f first), the paper module's convention.");
  m.def(
      "compose_tractable",
      [](L b, L a) -> std::optional<rl::Layout> { return rl::composeTractable(a, b); }, "b"_a, "a"_a,
      "B o A by the chapter 4 algorithm (through morphisms and a mutual refinement); None "
      "when A or coal(B) is not tractable or no mutual refinement exists (the algorithm is "
      "sufficient, not necessary).");
  m.def(
      "mutual_refinement",
      [](nb::handle t, nb::handle u) -> nb::object {
        auto r = rl::mutualRefinement(toIntTuple(t), toIntTuple(u));
        if (!r)
          return nb::none();
        return nb::make_tuple(fromIntTuple(r->first), fromIntTuple(r->second));
      },
      "t"_a, "u"_a, "Algorithm 4.1.1: (T', U') refining (T, U) with T' dividing U', or None.");
  m.def("permute", [](L l, nb::handle sigma) { return wrap(rl::permute(l, toInts(sigma, "permutation"))); },
        "layout"_a, "sigma"_a, "The flat layout with modes in the order sigma (1-based).");
  m.def(
      "properties",
      [](L l) {
        nb::dict d;
        d["tractable"] = rl::tractable(l);
        d["complementable"] = rl::complementable(l);
        d["compact"] = rl::compact(l);
        d["non_degenerate"] = rl::nonDegenerate(l);
        return d;
      },
      "layout"_a, "tractable, complementable, compact, non_degenerate.");
  m.def("flat_divide", [](L a, L b) { return wrap(rl::flatDivide(a, b)); }, "a"_a, "b"_a,
        "A /flat B = A o (B * comp_flat(B, size A)) (2.1.7).");
  m.def("flat_product", [](L a, L b) { return wrap(rl::flatProduct(a, b)); }, "a"_a, "b"_a,
        "A *flat B = A * (comp_flat(A, size A cosize B) o B) (2.1.7).");
  m.def("restrict", [](F f, nb::handle keep) { return wrap(rl::restrict(f, toInts(keep, "domain entries"))); },
        "f"_a, "keep"_a, "f restricted to the (1-based) domain entries `keep`.");
  m.def("factor",
        [](F f, nb::handle through) { return wrap(rl::factor(f, toInts(through, "codomain entries"))); },
        "f"_a, "through"_a, "f factored through the (1-based) codomain entries `through`.");
  m.def("concatenate", [](F f, F g) { return wrap(rl::concatenate(f, g)); }, "f"_a, "g"_a,
        "(f, g): one codomain, disjoint images.");
  m.def("pullback", [](F f, nb::handle t) { return wrap(rl::pullback(f, toIntTuple(t))); }, "f"_a,
        "codomain"_a, "The pullback of a refinement of cod(f) along f.");
  m.def("pushforward", [](F f, nb::handle s) { return wrap(rl::pushforward(f, toIntTuple(s))); }, "f"_a,
        "domain"_a, "The pushforward of a refinement of dom(f) along f.");
  m.def("is_tractable", [](L l) { return rl::tractable(l); }, "layout"_a);
  m.def("squeeze", [](L l) { return wrap(rl::squeeze(l)); }, "layout"_a, "Drops size-1 modes (flat).");
  m.def("filter_zeros", [](L l) { return wrap(rl::filterZeros(l)); }, "layout"_a,
        "Drops stride-0 modes (flat).");
  m.def("sort", [](L l) { return wrap(rl::sortModes(l)); }, "layout"_a,
        "Modes sorted stably by (stride, shape) (flat).");
  m.def(
      "make_layout",
      [](nb::args layouts) {
        std::vector<rl::IntTuple> shapes, strides;
        shapes.reserve(layouts.size());
        strides.reserve(layouts.size());
        for (nb::handle h : layouts) {
          if (!nb::isinstance<rl::Layout>(h))
            fail("make_layout takes layouts, not " + pyStr(h));
          const rl::Layout &l = *nb::inst_ptr<rl::Layout>(h);
          shapes.push_back(l.shape);
          strides.push_back(l.stride);
        }
        return wrap(rl::Layout(rl::IntTuple::tuple(std::move(shapes)), rl::IntTuple::tuple(std::move(strides))));
      },
      "The concatenation (L0, L1, ...) as one layout.");

  m.def("core_seconds_per_operation", &coreSecondsPerOperation, "op"_a, "cases"_a, "repeat"_a = 1,
        "Seconds per operation of 'composition', 'complement' or 'logical_divide' over cases "
        "((Layout, Layout), or (Layout, size) for the complement) run `repeat` times in C++ "
        "alone: the core's throughput without Python in between.");
}
