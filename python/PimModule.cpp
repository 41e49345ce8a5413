//===- PimModule.cpp - Compiled PIM programs for Python ---------*- C++ -*-===//
//
// raptor._raptor.PimProgram: a compiled program directory held in C++
// (simulator/Program.h), its functional simulation and its timing
// simulation; raptor.pim wraps it.
//
//===----------------------------------------------------------------------===//
#include "simulator/Program.h"
#include "simulator/Simulator.h"
#include "simulator/TimingSimulator.h"
#include "passes/pim/PeriodicAnalysis.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

nb::object pythonOfJson(const llvm::json::Value &value); // PythonJson.cpp
using namespace raptor::pim;

namespace {

struct PimProgram {
  Program program;
  std::string directory; // where chip.json and network.json are
};

nb::dict countersDict(const CoreCounters &c) {
  nb::dict d;
  d["instructions"] = c.instructions;
  d["mvmuls"] = c.mvmuls;
  d["macs"] = c.macs;
  d["vector_ops"] = c.vectorOps;
  d["local_read_bytes"] = c.localReadBytes;
  d["local_write_bytes"] = c.localWriteBytes;
  d["global_read_bytes"] = c.globalReadBytes;
  d["global_write_bytes"] = c.globalWriteBytes;
  d["sent_bytes"] = c.sentBytes;
  d["received_bytes"] = c.receivedBytes;
  return d;
}

nb::dict timingDict(const TimingResult &r, const std::vector<std::string> &operators) {
  nb::dict d;
  d["ok"] = r.ok;
  d["error"] = r.error;
  d["latency_ns"] = r.latencyNs;
  d["interval_ns"] = r.intervalNs;
  d["converged"] = r.converged;
  d["generation_end_ns"] = r.generationEndNs;
  d["global_requests"] = r.globalRequests;
  d["global_busy_ns"] = r.globalBusyNs;
  d["seconds"] = r.seconds;
  nb::list cores;
  for (const CoreTiming &c : r.cores) {
    nb::dict k;
    k["instructions"] = c.instructions;
    k["finish_ns"] = c.finishNs;
    k["matrix_ns"] = c.matrixNs;
    k["vector_ns"] = c.vectorNs;
    k["memory_ns"] = c.memoryNs;
    k["communication_ns"] = c.communicationNs;
    k["blocked_ns"] = c.blockedNs;
    k["pipeline_ns"] = c.pipelineNs;
    cores.append(k);
  }
  d["cores"] = cores;
  nb::dict approximated;
  for (const auto &[name, count] : r.approximated)
    approximated[name.c_str()] = count;
  d["approximated"] = approximated;
  static const char *kinds[] = {"matrix", "vector", "memory", "transfer", "wait"};
  nb::list timeline;
  for (const TimelineSpan &s : r.timeline)
    timeline.append(nb::make_tuple(s.core, kinds[s.kind], s.startNs, s.endNs));
  d["timeline"] = timeline;
  nb::list tasks;
  for (const TaskTiming &t : r.tasks) {
    nb::dict k;
    k["name"] = size_t(t.origin) < operators.size() ? operators[size_t(t.origin)] : std::string();
    k["core"] = t.core;
    k["instructions"] = t.instructions;
    k["start_ns"] = t.startNs;
    k["end_ns"] = t.endNs;
    k["busy_ns"] = t.busyNs;
    k["blocked_ns"] = t.blockedNs;
    tasks.append(k);
  }
  d["tasks"] = tasks;
  return d;
}

/// The report as `raptor periodic --json` prints it (one serializer:
/// spatial::periodicJson), as Python objects.
nb::object periodicReport(const PeriodicReport &r) {
  return pythonOfJson(llvm::json::Value(raptor::spatial::periodicJson(r)));
}

nb::list ioList(const std::vector<IoBuffer> &list) {
  nb::list out;
  for (const IoBuffer &io : list)
    out.append(nb::make_tuple(io.name, nb::tuple(nb::cast(io.shape)), io.dtype));
  return out;
}

} // namespace

void bindPim(nb::module_ &m) {
  m.def(
      "check_replaceable",
      [](const std::string &dir) {
        if (llvm::Error e = raptor::pim::checkReplaceable(dir))
          throw nb::value_error(llvm::toString(std::move(e)).c_str());
      },
      nb::arg("directory"),
      "ValueError unless a new program may replace `directory` (absent, empty, or a program directory Raptor "
      "wrote holding only what Raptor writes).");
  nb::class_<PimProgram>(m, "PimProgram", "A compiled PIM program directory, loaded.")
      .def_static(
          "load",
          [](const std::string &dir, const std::string &form) {
            if (form != "compact" && form != "pimsim")
              throw nb::value_error("form must be 'compact' or 'pimsim'");
            llvm::Expected<Program> p = readDirectory(dir, form == "compact" ? ProgramForm::Compact : ProgramForm::Pimsim);
            if (!p)
              throw nb::value_error(llvm::toString(p.takeError()).c_str());
            auto *out = new PimProgram{std::move(*p), dir};
            return out;
          },
          nb::arg("dir"), nb::arg("form") = "compact", nb::rv_policy::take_ownership,
          "Reads a program directory; form 'compact' runs Raptor's loops, 'pimsim' pimsim-nn's unrolled files.")
      .def_prop_ro("inputs", [](const PimProgram &p) { return ioList(p.program.inputs); })
      .def_prop_ro("outputs", [](const PimProgram &p) { return ioList(p.program.outputs); })
      .def_prop_ro(
          "vocabularies",
          [](const PimProgram &p) {
            nb::dict out;
            for (const IoBuffer &io : p.program.inputs)
              if (io.vocabulary)
                out[nb::str(io.name.c_str())] = io.vocabulary;
            return out;
          },
          "The token-id inputs (an embedding's indices) and their vocabulary sizes.")
      .def_prop_ro("cores", [](const PimProgram &p) { return p.program.cores; })
      .def(
          "sizes",
          [](const PimProgram &p) {
            nb::list out;
            for (const CoreProgram &c : p.program.programs) {
              ProgramSize s = sizeOf(c);
              out.append(nb::make_tuple(c.id, s.compact, s.unrolled));
            }
            return out;
          },
          "(core, compact instructions, unrolled instructions) per core.")
      .def(
          "time",
          [](const PimProgram &p, bool throughput, int64_t maxGenerations, int64_t maxInstructions, bool timeline) {
            llvm::Expected<TimingConfig> config = TimingConfig::load(p.directory);
            if (!config)
              throw nb::value_error(llvm::toString(config.takeError()).c_str());
            TimingOptions options;
            options.throughput = throughput;
            if (maxGenerations > 0)
              options.maxGenerations = maxGenerations;
            if (maxInstructions > 0)
              options.maxInstructions = maxInstructions;
            options.timeline = timeline;
            TimingResult result;
            {
              nb::gil_scoped_release release;
              result = simulateTiming(p.program, *config, options);
            }
            return timingDict(result, p.program.operators);
          },
          nb::arg("throughput") = false, nb::arg("max_generations") = 0, nb::arg("max_instructions") = 0,
          nb::arg("timeline") = false,
          "Times the program with pimsim-nn's rules and the directory's chip.json and network.json; "
          "throughput runs every core's program as a loop body; timeline records the first pass's spans "
          "(core, kind, start, end).")
      .def(
          "periodic",
          [](const PimProgram &p) {
            llvm::Expected<TimingConfig> config = TimingConfig::load(p.directory);
            if (!config)
              throw nb::value_error(llvm::toString(config.takeError()).c_str());
            // (as the timing simulator: every core of the program must exist on the chip)
            if (p.program.cores > config->cores)
              throw nb::value_error(llvm::formatv("the program has {0} cores but chip.json describes {1}",
                                                  p.program.cores, config->cores)
                                        .str()
                                        .c_str());
            return periodicReport(analyzePeriodic(p.program, *config));
          },
          "The periodic dependency diagnostic of the programs run as loop bodies (maximum cycle ratio).")
      .def(
          "simulate",
          [](const PimProgram &p, nb::dict inputs, int64_t maxInstructions, uint64_t interleavingSeed) {
            SimulationLimits limits;
            if (maxInstructions > 0)
              limits.maxInstructions = maxInstructions;
            limits.interleavingSeed = interleavingSeed;
            FunctionalSimulator sim(p.program, limits);
            for (auto [key, value] : inputs) {
              std::string name = nb::cast<std::string>(key);
              auto array = nb::cast<nb::ndarray<const float, nb::c_contig, nb::device::cpu>>(value);
              llvm::ArrayRef<float> values(array.data(), array.size());
              if (llvm::Error e = sim.setInput(name, values))
                throw nb::value_error(llvm::toString(std::move(e)).c_str());
            }
            SimulationResult result;
            {
              nb::gil_scoped_release release;
              result = sim.run();
            }
            nb::dict outputs;
            if (result.ok)
              for (const IoBuffer &io : p.program.outputs) {
                llvm::Expected<std::vector<float>> values = sim.output(io.name);
                if (!values)
                  throw nb::value_error(llvm::toString(values.takeError()).c_str());
                auto *data = new std::vector<float>(std::move(*values));
                nb::capsule owner(data, [](void *v) noexcept { delete static_cast<std::vector<float> *>(v); });
                std::vector<size_t> shape(io.shape.begin(), io.shape.end());
                outputs[io.name.c_str()] =
                    nb::ndarray<nb::numpy, float>(data->data(), shape.size(), shape.data(), owner);
              }
            nb::dict stats;
            stats["ok"] = result.ok;
            stats["error"] = result.error;
            stats["seconds"] = result.seconds;
            stats["total"] = countersDict(result.total);
            nb::list cores;
            for (const CoreCounters &c : result.cores)
              cores.append(countersDict(c));
            stats["cores"] = cores;
            nb::dict operators; // "<op> <task>": counters of its instructions
            for (size_t i = 0; i < result.operators.size() && i < p.program.operators.size(); ++i)
              operators[p.program.operators[i].c_str()] = countersDict(result.operators[i]);
            stats["operators"] = operators;
            return nb::make_tuple(outputs, stats);
          },
          nb::arg("inputs"), nb::arg("max_instructions") = 0, nb::arg("interleaving_seed") = 0,
          "Runs the program on {input name: float32 array}; returns (outputs, statistics). "
          "max_instructions > 0 replaces the default budget of executed instructions; "
          "interleaving_seed > 0 runs the cores in a random interleaving drawn from it.");
}
