//===- PipelineStages.cpp - Stages of pipelined per-core programs ---------===//
#include "passes/spatial/PipelineStages.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace raptor::spatial {

PipelineStages::PipelineStages(int64_t cores, const std::vector<std::pair<int64_t, int64_t>> &edges) {
  size_t n = size_t(std::max<int64_t>(cores, 0));
  std::vector<std::set<int64_t>> out(n), in(n);
  for (auto [from, to] : edges)
    if (from != to && from >= 0 && to >= 0 && size_t(from) < n && size_t(to) < n) {
      out[size_t(from)].insert(to);
      in[size_t(to)].insert(from);
    }
  // Kosaraju: finishing order on the graph, then components of the reverse
  // graph in decreasing finishing order, which numbers them topologically.
  std::vector<int64_t> finished;
  std::vector<bool> seen(n, false);
  for (size_t root = 0; root < n; ++root) {
    if (seen[root])
      continue;
    seen[root] = true;
    std::vector<std::pair<int64_t, std::set<int64_t>::iterator>> stack{{int64_t(root), out[root].begin()}};
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next == out[size_t(node)].end()) {
        finished.push_back(node);
        stack.pop_back();
        continue;
      }
      int64_t succ = *next++;
      if (!seen[size_t(succ)]) {
        seen[size_t(succ)] = true;
        stack.push_back({succ, out[size_t(succ)].begin()});
      }
    }
  }
  std::vector<int64_t> component(n, -1);
  int64_t components = 0;
  for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
    if (component[size_t(*it)] >= 0)
      continue;
    std::vector<int64_t> work{*it};
    component[size_t(*it)] = components;
    while (!work.empty()) {
      int64_t node = work.back();
      work.pop_back();
      for (int64_t pred : in[size_t(node)])
        if (component[size_t(pred)] < 0) {
          component[size_t(pred)] = components;
          work.push_back(pred);
        }
    }
    ++components;
  }
  // Levels by longest path over the (topologically numbered) components;
  // then stages numbered by level, so that a stage of any level between two
  // others also lies between them in the boundary's global order.
  std::vector<std::set<int64_t>> successors(static_cast<size_t>(components));
  for (size_t from = 0; from < n; ++from)
    for (int64_t to : out[from])
      if (component[size_t(to)] != component[from])
        successors[size_t(component[from])].insert(component[size_t(to)]);
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
    levelOf.push_back(int64_t(l));
  }
}

int64_t PipelineStages::stageOf(int64_t core) const {
  return core >= 0 && size_t(core) < stageOfCore.size() ? stageOfCore[size_t(core)] : -1;
}

bool PipelineStages::crosses(int64_t from, int64_t to) const {
  int64_t a = stageOf(from), b = stageOf(to);
  return a >= 0 && b > a;
}

std::vector<int64_t> PipelineStages::route(int64_t from, int64_t to) {
  std::vector<int64_t> cores;
  if (crosses(from, to))
    for (int64_t l = levelOf[size_t(stageOf(from))] + 1; l < levelOf[size_t(stageOf(to))]; ++l) {
      const std::vector<int64_t> &candidates = levels[size_t(l)];
      cores.push_back(firstCore[size_t(candidates[turn[l]++ % candidates.size()])]);
    }
  cores.push_back(to);
  return cores;
}

} // namespace raptor::spatial
