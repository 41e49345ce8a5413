//===- CompileModule.cpp - Typed entry points of the pass pipeline -*- C++ -*-===//
//
// Each compiler stage as a function with typed arguments: a pass built with
// its options struct and run on a module, never a pipeline string with
// user text pasted in. Errors raise raptor._raptor.PassError carrying the
// diagnostics as (file, line, column, message) tuples.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/conversion/SpatialToPim/Lowering.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdint>

namespace nb = nanobind;

namespace {

nb::object passError;

mlir::ModuleOp moduleArgument(nb::handle handle) {
  nb::object object = nb::borrow(handle);
  if (nb::hasattr(object, "operation"))
    object = object.attr("operation");
  nb::object capsule = object.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
  MlirOperation op = mlirPythonCapsuleToOperation(capsule.ptr());
  auto module = llvm::dyn_cast_or_null<mlir::ModuleOp>(unwrap(op));
  if (!module)
    throw nb::type_error("expected an mlir.ir.Module");
  return module;
}

/// Runs `pass` on `module`; the diagnostics of a failure become PassError.
void runPass(nb::handle handle, std::unique_ptr<mlir::Pass> pass) {
  mlir::ModuleOp module = moduleArgument(handle);
  mlir::MLIRContext *context = module.getContext();
  nb::list diagnostics;
  bool failed;
  {
    std::vector<std::tuple<std::string, int, int, std::string>> collected;
    mlir::ScopedDiagnosticHandler handler(context, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() != mlir::DiagnosticSeverity::Error)
        return mlir::success();
      std::string file, message = d.str();
      int line = 0, column = 0;
      if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation())) {
        file = loc.getFilename().str();
        line = int(loc.getLine());
        column = int(loc.getColumn());
      } else {
        llvm::raw_string_ostream os(file);
        d.getLocation().print(os);
      }
      collected.emplace_back(file, line, column, message);
      return mlir::success();
    });
    mlir::PassManager pm(context);
    pm.enableVerifier(true);
    pm.addPass(std::move(pass));
    {
      nb::gil_scoped_release release;
      failed = mlir::failed(pm.run(module));
    }
    for (auto &[file, line, column, message] : collected)
      diagnostics.append(nb::make_tuple(file, line, column, message));
  }
  if (failed) {
    if (diagnostics.size() == 0)
      diagnostics.append(nb::make_tuple("", 0, 0, "the pass failed without a diagnostic"));
    PyErr_SetObject(passError.ptr(), diagnostics.ptr());
    throw nb::python_error();
  }
}

} // namespace

void bindCompile(nb::module_ &m) {
  passError = nb::steal(PyErr_NewExceptionWithDoc(
      "raptor._raptor.PassError", "A compiler stage failed; args[0] lists (file, line, column, message).",
      PyExc_RuntimeError, nullptr));
  m.attr("PassError") = passError;
  m.def(
      "fuse_rescales", [](nb::handle module) { runPass(module, raptor::createFuseRescales()); },
      nb::arg("module"), "raptor-fuse-rescales: one requantization per int8 layer in integer-only programs.");
  m.def(
      "fold_batch_norm", [](nb::handle module) { runPass(module, raptor::createFoldBatchNorm()); },
      nb::arg("module"), "raptor-fold-batch-norm.");
  m.def(
      "build_compute_graph",
      [](nb::handle module, const std::string &target, const std::string &replicate, double budget,
         bool followRows) {
        raptor::BuildComputeGraphOptions o;
        o.targetPath = target;
        o.replicate = replicate;
        o.replicationBudget = budget;
        o.followRows = followRows;
        runPass(module, raptor::createBuildComputeGraph(o));
      },
      nb::arg("module"), nb::arg("target"), nb::arg("replicate") = "none", nb::arg("replication_budget") = 0.5,
      nb::arg("follow_rows") = true,
      "raptor-build-compute-graph for the target JSON file; replicate: none, time or windows; follow_rows: "
      "element-wise and pooling operators follow row copies.");
  m.def(
      "schedule_spatial",
      [](nb::handle module, const std::string &algorithm, const std::string &mode, int64_t depth,
         const std::string &report, const std::string &periodic) {
        raptor::ScheduleSpatialOptions o;
        o.algorithm = algorithm;
        o.mode = mode;
        o.depth = depth;
        o.report = report;
        o.periodic = periodic;
        runPass(module, raptor::createScheduleSpatial(o));
      },
      nb::arg("module"), nb::arg("algorithm") = "peft", nb::arg("mode") = "latency", nb::arg("depth") = 4,
      nb::arg("report") = "", nb::arg("periodic") = "",
      "raptor-schedule-spatial: latency mode (algorithm peft or heft) or pipeline mode of at most `depth` "
      "stages, its selection report written to `report` and the periodic diagnostic to `periodic` when "
      "given.");
  m.def(
      "integer_refusal",
      [](nb::handle module) -> std::optional<std::string> {
        for (auto f : moduleArgument(module).getOps<mlir::func::FuncOp>())
          if (std::optional<mlir::Operation *> op = raptor::pim::withoutIntegerLowering(f))
            return (*op)->getName().getStringRef().str();
        return std::nullopt;
      },
      nb::arg("module"),
      "The first operator an integer-only int8 program cannot compute (raptor-lower-to-pim refuses it "
      "under raptor.fixed_point_bits), or None.");
  m.def(
      "lower_to_pim",
      [](nb::handle module, const std::string &weights) {
        raptor::LowerToPimOptions o;
        o.weightsPath = weights;
        runPass(module, raptor::createLowerToPim(o));
      },
      nb::arg("module"), nb::arg("weights") = "", "raptor-lower-to-pim with a .safetensors weights file.");
  m.def(
      "emit_pim",
      [](nb::handle module, const std::string &output, const std::string &pimsim, int64_t unrollLimit) {
        raptor::EmitPimOptions o;
        o.output = output;
        o.pimsim = pimsim;
        o.unrollLimit = unrollLimit;
        runPass(module, raptor::createEmitPim(o));
      },
      nb::arg("module"), nb::arg("output"), nb::arg("pimsim") = "binary", nb::arg("unroll_limit") = 16000000,
      "raptor-emit-pim into the directory `output`.");
}
