//===- PeriodicModule.cpp - Periodic timing analysis for Python --*- C++ -*-===//
//
// raptor._raptor.EventGraph: an event graph validated once and held in C++
// (passes/spatial/CycleRatio.h), with its exact maximum cycle ratio and the
// bisection cross-check; raptor.spatial.cycle_ratio wraps it.
//
//===----------------------------------------------------------------------===//
#include "passes/spatial/CycleRatio.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>

namespace nb = nanobind;
using namespace raptor::spatial;

namespace {

struct EventGraph {
  int64_t nodes;
  std::vector<RatioEdge> edges;
};

using EdgeArray = nb::ndarray<const int64_t, nb::shape<-1, 4>, nb::c_contig, nb::device::cpu>;

} // namespace

void bindPeriodic(nb::module_ &m) {
  nb::class_<CycleRatioResult>(m, "CycleRatioResult",
                               "The exact maximum cycle ratio of an EventGraph.")
      .def_prop_ro("status", [](const CycleRatioResult &r) { return toString(r.status); },
                   "'ok', 'deadlock' (a cycle of distance-0 edges) or 'acyclic'.")
      .def_ro("num", &CycleRatioResult::num, "ok: the ratio's numerator (reduced).")
      .def_ro("den", &CycleRatioResult::den, "ok: the ratio's denominator (> 0).")
      .def_ro("cycle", &CycleRatioResult::cycle,
              "The witness cycle's edge indices in cycle order (critical cycle or deadlock).")
      .def_ro("weight", &CycleRatioResult::weight, "The witness's total weight.")
      .def_ro("distance", &CycleRatioResult::distance, "The witness's total distance.")
      .def_ro("howard_iterations", &CycleRatioResult::howardIterations,
              "Policy evaluations of Howard's iteration.")
      .def_ro("certification_checks", &CycleRatioResult::certificationChecks,
              "Positive-cycle checks (1 when Howard's candidate was maximal).");

  nb::class_<RatioBracket>(m, "RatioBracket", "The bisection's bracket lo < ratio <= hi.")
      .def_prop_ro("status", [](const RatioBracket &b) { return toString(b.status); })
      .def_ro("lo", &RatioBracket::lo)
      .def_ro("hi", &RatioBracket::hi)
      .def_ro("probes", &RatioBracket::probes, "Positive-cycle probes run (at most 64).");

  nb::class_<EventGraph>(m, "EventGraph",
                         "An event graph: edges (from, to, weight, distance) meaning "
                         "t(to, k) >= t(from, k - distance) + weight.")
      .def(
          "__init__",
          [](EventGraph *self, int64_t nodes, EdgeArray edges) {
            std::vector<RatioEdge> list(edges.shape(0));
            auto view = edges.view();
            for (size_t i = 0; i < list.size(); ++i)
              list[i] = {view(i, 0), view(i, 1), view(i, 2), view(i, 3)};
            if (std::string problem = validateRatioGraph(nodes, list); !problem.empty())
              throw nb::value_error(problem.c_str());
            new (self) EventGraph{nodes, std::move(list)};
          },
          nb::arg("nodes"), nb::arg("edges"),
          "Validates and copies the graph; edges: an int64 array of shape (E, 4). Raises "
          "ValueError with a one-line reason.")
      .def_prop_ro("nodes", [](const EventGraph &g) { return g.nodes; })
      .def_prop_ro("num_edges", [](const EventGraph &g) { return g.edges.size(); })
      .def(
          "max_cycle_ratio",
          [](const EventGraph &g, double tolerance, unsigned maxIterations) {
            if (!std::isfinite(tolerance) || tolerance < 0)
              throw nb::value_error("the tolerance must be finite and non-negative");
            CycleRatioOptions options;
            options.tolerance = tolerance;
            options.maxIterations = maxIterations;
            nb::gil_scoped_release release;
            return maxCycleRatio(g.nodes, g.edges, options);
          },
          nb::arg("tolerance") = CycleRatioOptions().tolerance,
          nb::arg("max_iterations") = CycleRatioOptions().maxIterations,
          "Howard's policy iteration, certified exactly by positive-cycle checks.")
      .def(
          "bisect",
          [](const EventGraph &g) {
            nb::gil_scoped_release release;
            return bisectCycleRatio(g.nodes, g.edges);
          },
          "The seed's bisection: a 1 ns bracket from at most 64 probes.");
}
