//===- WorkingMemory.cpp - Local memory a placed schedule's work holds -*- C++ -*-===//
#include "passes/spatial/WorkingMemory.h"

#include <algorithm>
#include <map>

namespace raptor::spatial {

std::vector<int64_t> workingBytes(const PlacedGraph &g, const std::function<bool(unsigned, unsigned)> &held) {
  size_t n = g.work.size();
  auto passes = [&](unsigned t) { return t < g.passThrough.size() && g.passThrough[t]; };
  std::vector<size_t> position(n, 0);
  for (size_t i = 0; i < g.order.size(); ++i)
    position[g.order[i]] = i;
  std::vector<std::vector<unsigned>> inputs(n);
  for (unsigned e = 0; e < g.edges.size(); ++e)
    inputs[g.edges[e].to].push_back(e);
  // The buffers each task's output is: its own, or through views its
  // producers' (tasks in graph order: producers first).
  std::vector<std::vector<unsigned>> buffers(n);
  for (unsigned t : g.order) {
    if (!passes(t)) {
      buffers[t] = {t};
      continue;
    }
    for (unsigned e : inputs[t])
      for (unsigned b : buffers[g.edges[e].from])
        if (std::find(buffers[t].begin(), buffers[t].end(), b) == buffers[t].end())
          buffers[t].push_back(b);
  }
  // A value on a core: (buffer, core) -> bytes and the positions it lives.
  struct Live {
    int64_t bytes = 0;
    size_t from = 0, to = 0;
    bool seen = false;
  };
  std::map<std::pair<unsigned, unsigned>, Live> live;
  auto extend = [&](unsigned buffer, unsigned core, int64_t bytes, size_t at) {
    Live &l = live[{buffer, core}];
    l.bytes = std::max(l.bytes, bytes);
    l.from = l.seen ? std::min(l.from, at) : at;
    l.to = l.seen ? std::max(l.to, at) : at;
    l.seen = true;
  };
  // Each output: the most any reader reads of it (or its stored share),
  // not counted when a reader takes it at the iteration boundary.
  std::vector<int64_t> out(n, 0);
  std::vector<bool> kept(n, false);
  for (unsigned t = 0; t < n; ++t)
    out[t] = std::max(t < g.wholeBytes.size() ? g.wholeBytes[t] : 0, t < g.storeBytes.size() ? g.storeBytes[t] : 0);
  for (const PlacedGraph::Edge &e : g.edges) {
    out[e.from] = std::max(out[e.from], e.bytes);
    if (!kept[e.from] && held(g.core[e.from], g.core[e.to]))
      kept[e.from] = true;
  }
  for (unsigned t = 0; t < n; ++t)
    if (!passes(t))
      extend(t, g.core[t], kept[t] ? 0 : out[t], position[t]);
  for (const PlacedGraph::Edge &e : g.edges) {
    if (passes(e.to))
      continue;
    unsigned here = g.core[e.to];
    for (unsigned b : buffers[e.from]) {
      bool local = g.core[b] == here || held(g.core[b], here);
      extend(b, here, local ? 0 : e.bytes / int64_t(buffers[e.from].size()), position[e.to]);
    }
  }
  // Sweep each core's starts and ends.
  std::vector<std::map<size_t, int64_t>> change(g.cores);
  for (const auto &[key, l] : live) {
    change[key.second][l.from] += l.bytes;
    change[key.second][l.to + 1] -= l.bytes;
  }
  std::vector<int64_t> most(g.cores, 0);
  for (unsigned c = 0; c < g.cores; ++c) {
    int64_t now = 0;
    for (const auto &[at, delta] : change[c]) {
      now += delta;
      most[c] = std::max(most[c], now);
    }
  }
  return most;
}

} // namespace raptor::spatial
