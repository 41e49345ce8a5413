//===- PositiveCycle.cpp - Exact positive-cycle search ----------*- C++ -*-===//
#include "passes/spatial/PositiveCycle.h"

#include <algorithm>
#include <deque>

namespace raptor::spatial {

OutEdges buildOutEdges(int64_t nodes, llvm::ArrayRef<RatioEdge> edges,
                       llvm::function_ref<bool(unsigned)> keep) {
  OutEdges out;
  out.begin.assign(size_t(nodes) + 1, 0);
  for (unsigned e = 0, end = edges.size(); e < end; ++e)
    if (keep(e))
      ++out.begin[edges[e].from + 1];
  for (size_t u = 0; u < size_t(nodes); ++u)
    out.begin[u + 1] += out.begin[u];
  out.to.resize(out.begin.back());
  out.id.resize(out.begin.back());
  std::vector<unsigned> next(out.begin.begin(), out.begin.end() - 1);
  for (unsigned e = 0, end = edges.size(); e < end; ++e)
    if (keep(e)) {
      unsigned k = next[edges[e].from]++;
      out.to[k] = edges[e].to;
      out.id[k] = e;
    }
  return out;
}

// Tarjan, with an explicit stack so that long chains do not exhaust the
// call stack.
std::vector<unsigned> strongComponents(const OutEdges &out) {
  constexpr unsigned kNone = ~0u;
  unsigned nodes = out.numNodes();
  std::vector<unsigned> index(nodes, kNone), low(nodes), component(nodes, kNone);
  std::vector<unsigned> open;                           // Tarjan's stack
  std::vector<std::pair<unsigned, unsigned>> frames;    // (node, next out-edge slot)
  unsigned counter = 0, components = 0;
  auto visit = [&](unsigned v) {
    index[v] = low[v] = counter++;
    open.push_back(v);
    frames.push_back({v, out.begin[v]});
  };
  for (unsigned s = 0; s < nodes; ++s) {
    if (index[s] != kNone)
      continue;
    visit(s);
    while (!frames.empty()) {
      unsigned u = frames.back().first;
      unsigned slot = frames.back().second;
      if (slot < out.begin[u + 1]) {
        ++frames.back().second;
        unsigned v = out.to[slot];
        if (index[v] == kNone)
          visit(v);
        else if (component[v] == kNone) // visited, still open: on the stack
          low[u] = std::min(low[u], index[v]);
        continue;
      }
      frames.pop_back();
      if (!frames.empty())
        low[frames.back().first] = std::min(low[frames.back().first], low[u]);
      if (low[u] != index[u])
        continue;
      unsigned w;
      do {
        w = open.back();
        open.pop_back();
        component[w] = components;
      } while (w != u);
      ++components;
    }
  }
  return component;
}

namespace {
constexpr unsigned kNone = ~0u;

/// The tree of parent edges as a circular preorder thread through a virtual
/// root, so that a node's subtree is the run of nodes after it that are
/// deeper than it.
class ParentTree {
public:
  explicit ParentTree(unsigned nodes)
      : root(nodes), parentNode(nodes, kNone), parentSlot(nodes, kNone), next(nodes + 1),
        prev(nodes + 1), depth(nodes + 1, 1), inTree(nodes, true) {
    // Every node starts as a child of the root, with its initial label.
    depth[root] = 0;
    for (unsigned v = 0; v <= nodes; ++v) {
      next[v] = v == nodes ? 0 : v + 1;
      prev[v] = v == 0 ? nodes : v - 1;
    }
  }

  /// Takes v out of the tree with its subtree, whose nodes other than v
  /// are passed to `leave`. Returns false, changing nothing, when `u` is v
  /// or one of its descendants.
  template <typename Leave>
  bool cut(unsigned v, unsigned u, Leave leave) {
    if (v == u)
      return false;
    if (!inTree[v])
      return true; // cut earlier, with its subtree
    unsigned last = v;
    for (unsigned x = next[v]; depth[x] > depth[v]; x = next[x]) {
      if (x == u)
        return false;
      last = x;
    }
    for (unsigned x = v; x != last;) {
      x = next[x];
      inTree[x] = false;
      leave(x);
    }
    next[prev[v]] = next[last];
    prev[next[last]] = prev[v];
    inTree[v] = false;
    return true;
  }

  /// Makes `v` (out of the tree) a child of `u` through slot `k`.
  void attach(unsigned v, unsigned u, unsigned k) {
    parentNode[v] = u;
    parentSlot[v] = k;
    depth[v] = depth[u] + 1;
    next[v] = next[u];
    prev[next[u]] = v;
    next[u] = v;
    prev[v] = u;
    inTree[v] = true;
  }

  /// The tree edge into v: its source and slot.
  std::pair<unsigned, unsigned> parent(unsigned v) const { return {parentNode[v], parentSlot[v]}; }

private:
  unsigned root;
  std::vector<unsigned> parentNode, parentSlot, next, prev, depth;
  std::vector<bool> inTree;
};
} // namespace

std::vector<unsigned> findPositiveCycle(const OutEdges &out, llvm::ArrayRef<Int128> weight,
                                        std::vector<Int128> &label) {
  unsigned nodes = out.numNodes();
  ParentTree tree(nodes);
  std::vector<bool> queued(nodes, true);
  std::deque<unsigned> queue;
  for (unsigned v = 0; v < nodes; ++v)
    queue.push_back(v);
  auto leave = [&](unsigned x) { queued[x] = false; };

  while (!queue.empty()) {
    unsigned u = queue.front();
    queue.pop_front();
    if (!queued[u])
      continue; // cut out of the tree since it was queued
    queued[u] = false;
    for (unsigned k = out.begin[u], end = out.begin[u + 1]; k < end; ++k) {
      unsigned v = out.to[k];
      Int128 candidate = label[u] + weight[k];
      if (candidate <= label[v])
        continue;
      if (!tree.cut(v, u, leave)) {
        // u is v or a descendant of v: the tree path v ~> u, then slot k.
        std::vector<unsigned> cycle{out.id[k]};
        for (unsigned x = u; x != v;) {
          auto [from, slot] = tree.parent(x);
          cycle.push_back(out.id[slot]);
          x = from;
        }
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      label[v] = candidate;
      tree.attach(v, u, k);
      if (!queued[v]) {
        queued[v] = true;
        queue.push_back(v);
      }
    }
  }
  return {};
}

} // namespace raptor::spatial
