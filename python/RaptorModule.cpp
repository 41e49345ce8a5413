//===- RaptorModule.cpp - The raptor._raptor Python extension ---*- C++ -*-===//
//
// Connects Raptor's C++ to the `mlir` Python bindings through their C API
// capsules: registers dialects into a DialectRegistry or Context, registers
// passes for PassManager.parse, and exposes C++ analyses to Python.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/ElementCount.h"
#include "capi/OversizedShapes.h"
#include "capi/Registration.h"
#include "dialects/layout/LayoutAlgebra.h"
#include "dialects/layout/Morphism.h"
#include "dialects/nn/NNOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "passes/codec/CodecCosts.h"
#include "passes/codec/CommutationTable.h"
#include "passes/graph/GraphSummary.h"
#include "passes/rdg/ReducedDependenceGraph.h"
#include "passes/spatial/ListScheduler.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace {
/// Fetches the C API capsule of an `mlir.ir` object (or accepts a capsule).
nb::object capsuleOf(nb::handle object) {
  if (PyCapsule_CheckExact(object.ptr()))
    return nb::borrow(object);
  if (!nb::hasattr(object, MLIR_PYTHON_CAPI_PTR_ATTR))
    throw nb::type_error("expected an mlir.ir object with a C API capsule");
  return object.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
}

mlir::Operation *operationOf(nb::handle handle) {
  nb::object object = nb::borrow(handle);
  // An ir.Module is reached through its `operation`.
  if (!PyCapsule_CheckExact(object.ptr()) && nb::hasattr(object, "operation"))
    object = object.attr("operation");
  MlirOperation op = mlirPythonCapsuleToOperation(capsuleOf(object).ptr());
  if (mlirOperationIsNull(op))
    throw nb::type_error("expected an mlir.ir.Operation or Module");
  return unwrap(op);
}
/// A Python int or nested tuple of ints as an IntTuple.
raptor::layout::IntTuple toIntTuple(nb::handle h) {
  if (nb::isinstance<nb::int_>(h)) {
    int64_t value;
    if (!nb::try_cast<int64_t>(h, value))
      throw nb::value_error(
          ("layout entry " + nb::cast<std::string>(nb::str(h)) + " does not fit in 64 bits").c_str());
    return raptor::layout::IntTuple(value);
  }
  if (!nb::isinstance<nb::tuple>(h))
    throw nb::type_error("layout shapes and strides are ints or tuples of them");
  std::vector<raptor::layout::IntTuple> children;
  for (nb::handle c : nb::borrow<nb::tuple>(h))
    children.push_back(toIntTuple(c));
  return raptor::layout::IntTuple::tuple(std::move(children));
}

nb::object fromIntTuple(const raptor::layout::IntTuple &t) {
  if (t.leaf)
    return nb::int_(t.value);
  nb::list items;
  for (const auto &c : t.children)
    items.append(fromIntTuple(c));
  return nb::tuple(items);
}

raptor::layout::Layout toLayout(nb::handle shape, nb::handle stride) {
  return raptor::layout::Layout(toIntTuple(shape), toIntTuple(stride));
}

nb::tuple fromLayout(const raptor::layout::Layout &l) {
  return nb::make_tuple(fromIntTuple(l.shape), fromIntTuple(l.stride));
}

raptor::layout::Morphism toMorphism(nb::handle f) {
  nb::tuple t = nb::borrow<nb::tuple>(f);
  if (t.size() != 3)
    throw nb::type_error("a morphism travels as (domain, codomain, map)");
  std::vector<int64_t> map;
  for (nb::handle a : nb::borrow<nb::tuple>(t[2])) {
    int64_t value;
    if (!nb::isinstance<nb::int_>(a) || !nb::try_cast<int64_t>(a, value))
      throw nb::value_error(
          ("morphism map entry " + nb::cast<std::string>(nb::str(a)) + " is not an integer of 64 bits").c_str());
    map.push_back(value);
  }
  return raptor::layout::Morphism(toIntTuple(t[0]), toIntTuple(t[1]), map);
}

nb::tuple fromMorphism(const raptor::layout::Morphism &f) {
  nb::list map;
  for (int64_t a : f.map)
    map.append(a);
  return nb::make_tuple(fromIntTuple(f.domain), fromIntTuple(f.codomain), nb::tuple(map));
}

mlir::ModuleOp moduleOf(nb::handle handle) {
  auto module = llvm::dyn_cast<mlir::ModuleOp>(operationOf(handle));
  if (!module)
    throw nb::type_error("expected a builtin.module");
  return module;
}
} // namespace

void bindPim(nb::module_ &m);      // PimModule.cpp
void bindCompile(nb::module_ &m);  // CompileModule.cpp
void bindPeriodic(nb::module_ &m); // PeriodicModule.cpp

NB_MODULE(_raptor, m) {
  m.doc() = "Raptor's C++ core: dialect and pass registration, analyses.";
  bindPim(m);
  bindCompile(m);
  bindPeriodic(m);

  m.def(
      "register_dialects",
      [](nb::handle registry) {
        MlirDialectRegistry r =
            mlirPythonCapsuleToDialectRegistry(capsuleOf(registry).ptr());
        if (mlirDialectRegistryIsNull(r))
          throw nb::type_error("expected an mlir.ir.DialectRegistry");
        raptor::registerAllDialects(*unwrap(r));
      },
      nb::arg("registry"),
      "Adds Raptor's dialects to an mlir.ir.DialectRegistry.");

  m.def(
      "load_dialects",
      [](nb::handle context) {
        MlirContext c = mlirPythonCapsuleToContext(capsuleOf(context).ptr());
        if (mlirContextIsNull(c))
          throw nb::type_error("expected an mlir.ir.Context");
        mlir::DialectRegistry registry;
        raptor::registerAllDialects(registry);
        unwrap(c)->appendDialectRegistry(registry);
        unwrap(c)->loadAllAvailableDialects();
      },
      nb::arg("context"),
      "Registers and loads Raptor's dialects into an mlir.ir.Context.");

  m.def("register_passes", &raptor::registerAllPasses,
        "Registers Raptor's passes so PassManager.parse can name them.");

  m.def(
      "find_oversized_shape",
      [](const std::string &text) -> std::optional<std::pair<size_t, std::string>> {
        if (auto found = raptor::findOversizedShape(text))
          return std::make_pair(found->offset, found->message);
        return std::nullopt;
      },
      nb::arg("text"),
      "The first shaped type in IR text whose element count overflows int64, as "
      "(offset, message), or None: MLIR's parser aborts on such types.");

  m.def(
      "port_names",
      [](nb::handle operation) {
        auto op = llvm::dyn_cast<raptor::nn::PortOpInterface>(operationOf(operation));
        if (!op)
          throw nb::type_error("expected an nn operation");
        std::pair<std::vector<std::string>, std::vector<std::string>> names;
        for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
          names.first.push_back(op.getInputPortName(i));
        for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
          names.second.push_back(op.getOutputPortName(i));
        return names;
      },
      nb::arg("operation"),
      "The aten port names of an nn op's operands and results, e.g. "
      "(['self', 'other'], ['out']).");

  m.def(
      "codec_costs_json",
      [](nb::handle module) {
        mlir::ModuleOp op = moduleOf(module);
        llvm::json::Array all;
        for (auto func : op.getOps<mlir::func::FuncOp>()) {
          if (func.isExternal())
            continue;
          auto graph = raptor::codec::CodecGraph::build(func);
          if (mlir::failed(graph) || mlir::failed(graph->checkMarked()) ||
              mlir::failed(graph->readSemantics()))
            throw nb::value_error("the module's markers carry no codec semantics "
                                  "(run raptor-place-codecs with materialize=false)");
          all.push_back(raptor::codec::toJSON(
              raptor::codec::computeCosts(*graph, graph->induceSubgraphs())));
        }
        return llvm::formatv("{0}", llvm::json::Value(std::move(all))).str();
      },
      nb::arg("module"),
      "Storage, traffic and codec items of each placed function, as JSON text "
      "(the data raptor-report-codec-costs prints).");

  m.def(
      "rdg_json",
      [](nb::handle module, const std::string &form) {
        mlir::ModuleOp op = moduleOf(module);
        std::string text;
        llvm::raw_string_ostream os(text);
        for (auto system : op.getOps<raptor::sure::SystemOp>()) {
          auto graph = raptor::rdg::extract(system, form == "dfactl");
          if (mlir::failed(graph))
            throw nb::value_error("cannot extract the RDG (see the diagnostic)");
          if (form == "dfactl")
            raptor::rdg::writeDfactlJSON(*graph, os);
          else
            raptor::rdg::writeExtendedJSON(*graph, os);
        }
        return text;
      },
      nb::arg("module"), nb::arg("form") = "dfactl",
      "The reduced dependency graph of each sure.system as JSON text "
      "('dfactl' or 'extended' form; the data raptor-extract-rdg writes).");

  m.def(
      "schedule_dag",
      [](const std::vector<std::vector<double>> &cost,
         const std::vector<std::tuple<unsigned, unsigned, double>> &edges,
         const std::string &algorithm) {
        raptor::spatial::TaskGraph graph;
        graph.numTasks = cost.size();
        graph.numProcessors = cost.empty() ? 0 : cost.front().size();
        for (const auto &row : cost) {
          if (row.size() != graph.numProcessors)
            throw nb::value_error("every task needs one cost per processor");
          graph.cost.insert(graph.cost.end(), row.begin(), row.end());
        }
        for (auto [from, to, c] : edges)
          graph.edges.push_back({from, to, c});
        if (std::string problem = graph.validate(); !problem.empty())
          throw nb::value_error(problem.c_str());
        if (algorithm != "peft" && algorithm != "heft")
          throw nb::value_error("unknown algorithm (expected 'peft' or 'heft')");
        raptor::spatial::Schedule s = algorithm == "peft"
                                          ? raptor::spatial::schedulePEFT(graph)
                                          : raptor::spatial::scheduleHEFT(graph);
        nb::dict out;
        out["makespan"] = s.makespan;
        out["processor"] = s.processor;
        out["start"] = s.start;
        out["finish"] = s.finish;
        out["order"] = s.order;
        return out;
      },
      nb::arg("cost"), nb::arg("edges"), nb::arg("algorithm") = "peft",
      "Insertion-based list scheduling of a task graph (cost[task][processor], "
      "edges (from, to, communication)) with PEFT or HEFT.");

  m.def(
      "optimistic_cost_table",
      [](const std::vector<std::vector<double>> &cost,
         const std::vector<std::tuple<unsigned, unsigned, double>> &edges) {
        raptor::spatial::TaskGraph graph;
        graph.numTasks = cost.size();
        graph.numProcessors = cost.empty() ? 0 : cost.front().size();
        for (const auto &row : cost)
          graph.cost.insert(graph.cost.end(), row.begin(), row.end());
        for (auto [from, to, c] : edges)
          graph.edges.push_back({from, to, c});
        if (std::string problem = graph.validate(); !problem.empty())
          throw nb::value_error(problem.c_str());
        std::vector<double> flat = raptor::spatial::optimisticCostTable(graph);
        std::vector<std::vector<double>> table;
        for (unsigned t = 0; t < graph.numTasks; ++t)
          table.emplace_back(flat.begin() + t * graph.numProcessors,
                             flat.begin() + (t + 1) * graph.numProcessors);
        return table;
      },
      nb::arg("cost"), nb::arg("edges"), "PEFT's Optimistic Cost Table OCT[task][processor].");

  // The layout algebra (seed 004): layouts travel as (shape, stride) pairs
  // of nested tuples; a violated precondition raises ValueError.
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const raptor::layout::LayoutError &e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  m.def("layout_check", [](nb::handle shape, nb::handle stride) {
    return fromLayout(toLayout(shape, stride));
  });
  m.def("layout_str", [](nb::handle shape, nb::handle stride) {
    return toLayout(shape, stride).str();
  });
  m.def("layout_size", [](nb::handle shape, nb::handle stride) { return toLayout(shape, stride).size(); });
  m.def("layout_cosize", [](nb::handle shape, nb::handle stride) { return toLayout(shape, stride).cosize(); });
  m.def("layout_call", [](nb::handle shape, nb::handle stride, int64_t i) {
    return toLayout(shape, stride)(i);
  });
  m.def("layout_coalesce", [](nb::handle shape, nb::handle stride) {
    return fromLayout(raptor::layout::coalesce(toLayout(shape, stride)));
  });
  m.def("layout_complement", [](nb::handle shape, nb::handle stride, int64_t size) {
    return fromLayout(raptor::layout::complement(toLayout(shape, stride), size));
  });
  m.def("layout_composition", [](nb::handle sa, nb::handle da, nb::handle sb, nb::handle db) {
    return fromLayout(raptor::layout::composition(toLayout(sa, da), toLayout(sb, db)));
  });
  m.def("layout_logical_divide", [](nb::handle sa, nb::handle da, nb::handle sb, nb::handle db) {
    return fromLayout(raptor::layout::logicalDivide(toLayout(sa, da), toLayout(sb, db)));
  });
  m.def("layout_logical_product", [](nb::handle sa, nb::handle da, nb::handle sb, nb::handle db) {
    return fromLayout(raptor::layout::logicalProduct(toLayout(sa, da), toLayout(sb, db)));
  });

  namespace rl = raptor::layout;
  m.def("morphism_check", [](nb::handle f) { return fromMorphism(toMorphism(f)); });
  m.def("morphism_str", [](nb::handle f) { return toMorphism(f).str(); });
  m.def("morphism_standard_form", [](nb::handle f) { return toMorphism(f).standardForm(); });
  m.def("morphism_layout", [](nb::handle f) { return fromLayout(rl::encodedLayout(toMorphism(f))); });
  m.def("layout_morphism", [](nb::handle shape, nb::handle stride) {
    return fromMorphism(rl::standardRepresentation(toLayout(shape, stride)));
  });
  m.def("morphism_compose", [](nb::handle f, nb::handle g) {
    return fromMorphism(rl::compose(toMorphism(f), toMorphism(g)));
  });
  m.def("morphism_coalesce", [](nb::handle f) { return fromMorphism(rl::coalesce(toMorphism(f))); });
  m.def("morphism_complement", [](nb::handle f) { return fromMorphism(rl::complement(toMorphism(f))); });
  m.def("morphism_logical_divide", [](nb::handle f, nb::handle g) {
    return fromMorphism(rl::logicalDivide(toMorphism(f), toMorphism(g)));
  });
  m.def("morphism_logical_product", [](nb::handle f, nb::handle g) {
    return fromMorphism(rl::logicalProduct(toMorphism(f), toMorphism(g)));
  });
  m.def("layout_tractable", [](nb::handle shape, nb::handle stride) {
    return rl::tractable(toLayout(shape, stride));
  });
  m.def("layout_squeeze", [](nb::handle shape, nb::handle stride) {
    return fromLayout(rl::squeeze(toLayout(shape, stride)));
  });
  m.def("layout_filter", [](nb::handle shape, nb::handle stride) {
    return fromLayout(rl::filterZeros(toLayout(shape, stride)));
  });
  m.def("layout_sort", [](nb::handle shape, nb::handle stride) {
    return fromLayout(rl::sortModes(toLayout(shape, stride)));
  });
  m.def("layout_coalesce_to", [](nb::handle shape, nb::handle stride, nb::handle target) {
    return fromLayout(rl::coalesce(toLayout(shape, stride), toIntTuple(target)));
  });
  m.def("layout_compose_tractable", [](nb::handle sa, nb::handle da, nb::handle sb, nb::handle db) -> nb::object {
    std::optional<rl::Layout> c = rl::composeTractable(toLayout(sa, da), toLayout(sb, db));
    if (!c)
      return nb::none();
    return fromLayout(*c);
  });
  m.def("mutual_refinement", [](nb::handle t, nb::handle u) -> nb::object {
    auto r = rl::mutualRefinement(toIntTuple(t), toIntTuple(u));
    if (!r)
      return nb::none();
    return nb::make_tuple(fromIntTuple(r->first), fromIntTuple(r->second));
  });
  m.def("layout_permute", [](nb::handle shape, nb::handle stride, std::vector<int64_t> sigma) {
    return fromLayout(rl::permute(toLayout(shape, stride), sigma));
  });
  m.def("layout_predicates", [](nb::handle shape, nb::handle stride) {
    rl::Layout l = toLayout(shape, stride);
    nb::dict d;
    d["tractable"] = rl::tractable(l);
    d["complementable"] = rl::complementable(l);
    d["compact"] = rl::compact(l);
    d["non_degenerate"] = rl::nonDegenerate(l);
    return d;
  });
  m.def("layout_flat_divide", [](nb::handle sa, nb::handle da, nb::handle sb, nb::handle db) {
    return fromLayout(rl::flatDivide(toLayout(sa, da), toLayout(sb, db)));
  });
  m.def("layout_flat_product", [](nb::handle sa, nb::handle da, nb::handle sb, nb::handle db) {
    return fromLayout(rl::flatProduct(toLayout(sa, da), toLayout(sb, db)));
  });
  m.def("morphism_restrict", [](nb::handle f, std::vector<int64_t> keep) {
    return fromMorphism(rl::restrict(toMorphism(f), keep));
  });
  m.def("morphism_factor", [](nb::handle f, std::vector<int64_t> through) {
    return fromMorphism(rl::factor(toMorphism(f), through));
  });
  m.def("morphism_concatenate", [](nb::handle f, nb::handle g) {
    return fromMorphism(rl::concatenate(toMorphism(f), toMorphism(g)));
  });
  m.def("morphism_pullback", [](nb::handle f, nb::handle t) {
    return fromMorphism(rl::pullback(toMorphism(f), toIntTuple(t)));
  });
  m.def("morphism_pushforward", [](nb::handle f, nb::handle s) {
    return fromMorphism(rl::pushforward(toMorphism(f), toIntTuple(s)));
  });
  m.def("layout_complement_minimal", [](nb::handle shape, nb::handle stride) {
    return fromLayout(rl::complement(toLayout(shape, stride)));
  });

  m.def("seed_commutation_table",
        []() { return raptor::codec::CommutationTable::seedText().str(); },
        "The seed's Table 5 in Raptor's commutation-table format.");

  m.def(
      "graph_summary_json",
      [](nb::handle module) {
        mlir::ModuleOp op = moduleOf(module);
        if (auto found = raptor::nn::oversizedTensor(op))
          throw nb::value_error(found->second.c_str());
        return llvm::formatv("{0}", raptor::toJSON(raptor::summarizeModule(op)))
            .str();
      },
      nb::arg("module"),
      "Operator counts and weight storage of each nn graph, as JSON text "
      "(the data raptor-summarize-graph prints).");
}
