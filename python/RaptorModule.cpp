//===- RaptorModule.cpp - The raptor._raptor Python extension ---*- C++ -*-===//
//
// Connects Raptor's C++ to the `mlir` Python bindings through their C API
// capsules: registers dialects into a DialectRegistry or Context, registers
// passes for PassManager.parse, and exposes C++ analyses to Python.
//
//===----------------------------------------------------------------------===//
#include "dialects/nn/ElementCount.h"
#include "support/OversizedShapes.h"
#include "capi/Registration.h"
#include "dialects/nn/NNOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "passes/codec/CodecCosts.h"
#include "passes/codec/CommutationTable.h"
#include "simulator/FixedPoint.h"
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

nb::object pythonOfJson(const llvm::json::Value &value); // PythonJson.cpp

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
void bindLayout(nb::module_ &m);   // LayoutModule.cpp

NB_MODULE(_raptor, m) {
  m.doc() = "Raptor's C++ core: dialect and pass registration, analyses.";
  bindPim(m);
  bindCompile(m);
  bindPeriodic(m);
  bindLayout(m);

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
      "codec_costs",
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
        return pythonOfJson(llvm::json::Value(std::move(all)));
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

  m.def("seed_commutation_table",
        []() { return raptor::codec::CommutationTable::seedText().str(); },
        "The seed's Table 5 in Raptor's commutation-table format.");

  m.def(
      "fixed_steps",
      [](double m) {
        std::optional<raptor::pim::FixedMultiplier> f = raptor::pim::fixedMultiplier(m);
        if (!f)
          throw nb::value_error("a fixed multiplier must be finite, non-negative and below 2^30");
        raptor::pim::FixedSteps s = raptor::pim::fixedSteps(*f);
        std::vector<int32_t> flat{s.high, s.low, s.highLeft};
        for (const raptor::pim::TermShift &t : s.terms)
          flat.insert(flat.end(), {t.left, t.pre, t.rounding, t.right, int32_t(t.used)});
        flat.insert(flat.end(), {s.rounding, s.right});
        return flat;
      },
      nb::arg("multiplier"),
      "The constants with which integer-only programs multiply by a real `multiplier` "
      "(simulator/FixedPoint.h): high, low, high's left shift, (left, pre, rounding, right, used) of the "
      "three other terms, the final rounding and right shift.");
  m.def(
      "requantize",
      [](int32_t x, double m, int32_t offset) {
        std::optional<raptor::pim::FixedMultiplier> f = raptor::pim::fixedMultiplier(m);
        if (!f)
          throw nb::value_error("a fixed multiplier must be finite, non-negative and below 2^30");
        return raptor::pim::requantize(x, *f, offset);
      },
      nb::arg("x"), nb::arg("multiplier"), nb::arg("offset") = 0,
      "round(x * multiplier) + offset as an integer-only program computes it, for one int32 element.");

  m.def(
      "term_shift",
      [](int32_t e) {
        raptor::pim::TermShift t = raptor::pim::termShift(e);
        return std::make_tuple(t.left, t.pre, t.rounding, t.right);
      },
      nb::arg("exponent"),
      "(left, pre, rounding, right): how integer programs bring a product term of exponent `exponent` to "
      "the result's unit (simulator/FixedPoint.h).");
  m.attr("FIXED_POINT_HEADROOM") = raptor::pim::kFixedPointHeadroom;
  m.def("fixed_product", &raptor::pim::fixedProduct, nb::arg("x"), nb::arg("y"), nb::arg("bits"),
        "The product of two int32 fixed-point values of unit 2^-bits as integer programs compute it.");
  m.def("fixed_activation", &raptor::pim::fixedActivation, nb::arg("x"), nb::arg("bits"), nb::arg("tanh") = false,
        "sigmoid (or tanh) of an int32 fixed-point value of unit 2^-bits as integer programs compute it "
        "(through vsigm / vtanh on Q15).");

  m.def(
      "oversized_tensor",
      [](nb::handle module) -> std::optional<std::tuple<std::string, int, int, std::string>> {
        std::optional<std::pair<mlir::Operation *, std::string>> found =
            raptor::nn::oversizedTensor(moduleOf(module));
        if (!found)
          return std::nullopt;
        auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(found->first->getLoc());
        return std::make_tuple(loc ? loc.getFilename().str() : std::string(), loc ? int(loc.getLine()) : 0,
                               loc ? int(loc.getColumn()) : 0, found->second);
      },
      nb::arg("module"),
      "The first tensor type of the module whose element count overflows int64, as (file, line, column, "
      "message), or None (MLIR asserts when a pass counts such a type).");
  m.def(
      "graph_summary",
      [](nb::handle module) {
        mlir::ModuleOp op = moduleOf(module);
        if (auto found = raptor::nn::oversizedTensor(op))
          throw nb::value_error(found->second.c_str());
        return pythonOfJson(raptor::toJSON(raptor::summarizeModule(op)));
      },
      nb::arg("module"),
      "Operator counts and weight storage of each nn graph, as a dict "
      "(the data raptor-summarize-graph prints).");
}
