//===- PipelineStages.cpp - Stages of pipelined per-core programs ---------===//
#include "passes/spatial/PipelineStages.h"
#include "passes/spatial/PositiveCycle.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace raptor::spatial {

PipelineStages::PipelineStages(int64_t cores, const std::vector<std::pair<int64_t, int64_t>> &edges) {
  size_t n = size_t(std::max<int64_t>(cores, 0));
  std::vector<RatioEdge> graph;
  for (auto [from, to] : edges)
    if (from != to && from >= 0 && to >= 0 && size_t(from) < n && size_t(to) < n)
      graph.push_back({from, to, 0, 0});
  OutEdges out = buildOutEdges(int64_t(n), graph, [](unsigned) { return true; });
  // Tarjan numbers components in reverse topological order: flip it.
  std::vector<unsigned> tarjan = strongComponents(out);
  int64_t components = tarjan.empty() ? 0 : int64_t(*std::max_element(tarjan.begin(), tarjan.end())) + 1;
  std::vector<int64_t> component(n);
  for (size_t core = 0; core < n; ++core)
    component[core] = components - 1 - int64_t(tarjan[core]);
  // Levels by longest path over the (topologically numbered) components;
  // then stages numbered by level, so that a stage of any level between two
  // others also lies between them in the boundary's global order.
  std::vector<std::set<int64_t>> successors(static_cast<size_t>(components));
  for (const RatioEdge &e : graph)
    if (component[size_t(e.to)] != component[size_t(e.from)])
      successors[size_t(component[size_t(e.from)])].insert(component[size_t(e.to)]);
  std::vector<int64_t> level(static_cast<size_t>(components), 0);
  for (int64_t c = 0; c < components; ++c)
    for (int64_t d : successors[size_t(c)])
      level[size_t(d)] = std::max(level[size_t(d)], level[size_t(c)] + 1);
  std::vector<int64_t> byLevel(static_cast<size_t>(components));
  std::iota(byLevel.begin(), byLevel.end(), 0);
  std::stable_sort(byLevel.begin(), byLevel.end(),
                   [&](int64_t a, int64_t b) { return level[size_t(a)] < level[size_t(b)]; });
  std::vector<int64_t> number(static_cast<size_t>(components));
  for (size_t i = 0; i < byLevel.size(); ++i)
    number[size_t(byLevel[i])] = int64_t(i);
  stageOfCore.resize(n);
  firstCore.assign(size_t(components), -1);
  for (size_t core = 0; core < n; ++core) {
    int64_t s = number[size_t(component[core])];
    stageOfCore[core] = s;
    if (firstCore[size_t(s)] < 0)
      firstCore[size_t(s)] = int64_t(core);
  }
  for (int64_t c : byLevel) {
    size_t l = size_t(level[size_t(c)]);
    if (levels.size() <= l)
      levels.resize(l + 1);
    levels[l].push_back(number[size_t(c)]);
    stageLevel.push_back(int64_t(l));
  }
}

int64_t PipelineStages::stageOf(int64_t core) const {
  return core >= 0 && size_t(core) < stageOfCore.size() ? stageOfCore[size_t(core)] : -1;
}

int64_t PipelineStages::levelOf(int64_t core) const {
  int64_t s = stageOf(core);
  return s >= 0 ? stageLevel[size_t(s)] : -1;
}

bool PipelineStages::crosses(int64_t from, int64_t to) const {
  int64_t a = stageOf(from), b = stageOf(to);
  return a >= 0 && b > a;
}

std::vector<int64_t> PipelineStages::route(int64_t from, int64_t to) {
  std::vector<int64_t> cores;
  if (crosses(from, to))
    for (int64_t l = levelOf(from) + 1; l < levelOf(to); ++l) {
      const std::vector<int64_t> &candidates = levels[size_t(l)];
      cores.push_back(firstCore[size_t(candidates[turn[l]++ % candidates.size()])]);
    }
  cores.push_back(to);
  return cores;
}

std::vector<int64_t> skewedLevels(const std::vector<unsigned> &operatorOf, const std::vector<unsigned> &core,
                                  const std::vector<std::pair<unsigned, unsigned>> &deps) {
  unsigned operators = 0;
  for (unsigned op : operatorOf)
    operators = std::max(operators, op + 1);
  // Dependencies into each operator, visited in operator order (topological).
  std::vector<std::vector<std::pair<unsigned, unsigned>>> into(operators);
  for (auto [from, to] : deps)
    if (from < operatorOf.size() && to < operatorOf.size())
      into[operatorOf[to]].push_back({from, to});
  std::vector<int64_t> level(operators, 0);
  for (unsigned op = 0; op < operators; ++op)
    for (auto [from, to] : into[op]) {
      unsigned producer = operatorOf[from];
      if (producer >= op)
        continue; // (lanes of one operator: no dependency between levels)
      level[op] = std::max(level[op], level[producer] + (core[from] != core[to] ? 1 : 0));
    }
  return level;
}

} // namespace raptor::spatial
