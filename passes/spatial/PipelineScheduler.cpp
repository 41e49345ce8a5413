//===- PipelineScheduler.cpp - Throughput (pipeline) scheduling -*- C++ -*-===//
#include "passes/spatial/PipelineScheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace raptor::spatial {

bool clearlyBetter(const QueueCost &candidate, const QueueCost &reference) {
  if (!candidate.available)
    return false;
  if (!reference.available)
    return true;
  return candidate.larger() / 0.979 < reference.smaller() / 1.021;
}

std::string PipelineProblem::validate() const {
  size_t n = group.size();
  if (cores == 0 || capacity <= 0)
    return "the target needs at least one core with crossbars";
  if (depth == 0)
    return "the pipeline depth must be at least 1";
  if (depth > cores)
    return "a pipeline of depth " + std::to_string(depth) + " needs at least that many cores; the target has " +
           std::to_string(cores);
  if (work.size() != n || tiles.size() != n)
    return "every task needs a group, a cost and a crossbar count";
  if ((!rank.empty() && rank.size() != n) || (!lane.empty() && lane.size() != n) ||
      (!follows.empty() && follows.size() != n))
    return "a task order, lanes and followers, when given, are needed for every task";
  for (size_t t = 0; t < follows.size(); ++t)
    if (follows[t] >= int(t) || follows[t] < -1)
      return "a task follows an earlier task or none";
  if (!rank.empty()) {
    std::vector<unsigned> seen(n, 0);
    for (unsigned r : rank)
      if (r >= n || seen[r]++)
        return "the task order must be a permutation of the tasks";
    for (const Edge &e : edges)
      if (e.from >= n || e.to >= n || rank[e.from] >= rank[e.to])
        return "the task order must be topological";
  }
  for (size_t t = 0; t < n; ++t) {
    if (t && group[t] < group[t - 1])
      return "task groups must be in topological (non-decreasing) order";
    if (!(work[t] >= 0) || !std::isfinite(work[t]) || tiles[t] < 0)
      return "task costs and crossbar counts must be finite and non-negative";
    if (tiles[t] > capacity)
      return "task " + std::to_string(t) + " holds " + std::to_string(tiles[t]) +
             " crossbars, more than one core has (" + std::to_string(capacity) + ")";
  }
  if (!evaluate)
    return "the pipeline search needs a queue cost";
  return "";
}

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr double kInfeasible = std::numeric_limits<double>::infinity();

/// At most this many rounds of moves refine the balanced placement (each
/// costs a queue evaluation of the 32; the rest go to the staged beam).
constexpr unsigned kRefinementRounds = 6;

/// Per-group sums and the stage bound over ranges of groups.
struct Groups {
  unsigned count = 0;
  std::vector<double> work, longest;  // per group
  std::vector<int64_t> tiles, widest; // per group
  std::vector<unsigned> big;           // per group: lanes of over half a core (no two share one)
  std::vector<std::vector<unsigned>> tasks;
  int64_t capacity = 0;

  explicit Groups(const PipelineProblem &p) : capacity(p.capacity) {
    count = p.group.empty() ? 0 : p.group.back() + 1;
    work.assign(count, 0);
    longest.assign(count, 0);
    tiles.assign(count, 0);
    widest.assign(count, 0);
    big.assign(count, 0);
    tasks.resize(count);
    for (unsigned t = 0; t < p.group.size(); ++t) {
      unsigned g = p.group[t];
      work[g] += p.work[t];
      longest[g] = std::max(longest[g], p.work[t]);
      tiles[g] += p.tiles[t];
      widest[g] = std::max(widest[g], p.tiles[t]);
      big[g] += 2 * p.tiles[t] > p.capacity;
      tasks[g].push_back(t);
    }
  }

  /// max(work / cores, longest lane) of `work` and `tiles` on `cores`
  /// cores, or infinity when the crossbars cannot fit (in total, or `b`
  /// lanes of over half a core each on fewer cores).
  double bound(double w, double l, int64_t x, unsigned b, unsigned cores) const {
    if (cores == 0 || x > int64_t(cores) * capacity || b > cores)
      return kInfeasible;
    return std::max(w / cores, l);
  }
  /// The bound of groups [a, b).
  double bound(unsigned a, unsigned b, unsigned cores) const {
    double w = 0, l = 0;
    int64_t x = 0;
    unsigned n = 0;
    for (unsigned g = a; g < b; ++g) {
      w += work[g];
      l = std::max(l, longest[g]);
      x += tiles[g];
      n += big[g];
    }
    return bound(w, l, x, n, cores);
  }
};

struct Partition {
  std::vector<unsigned> starts, budgets;
  bool operator<(const Partition &o) const {
    return std::tie(starts, budgets) < std::tie(o.starts, o.budgets);
  }
  bool operator==(const Partition &o) const { return starts == o.starts && budgets == o.budgets; }
};

/// The stage bounds of a partition, largest first (compared
/// lexicographically: the bottleneck, then the next).
std::vector<double> bounds(const Groups &g, const Partition &p) {
  std::vector<double> out;
  for (size_t s = 0; s < p.starts.size(); ++s) {
    unsigned end = s + 1 < p.starts.size() ? p.starts[s + 1] : g.count;
    out.push_back(g.bound(p.starts[s], end, p.budgets[s]));
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

/// The prefix DP of the initial partition; empty when the grid has no
/// feasible state.
Partition initialPartition(const Groups &g, unsigned cores, unsigned depth) {
  unsigned G = g.count, S = std::min(depth, G);
  unsigned spare = cores - depth; // validate() ensures depth <= cores
  unsigned Q = std::min(16u, spare);
  unsigned unit = Q ? spare / Q : 1;
  // f[s][i][k]: best bottleneck of groups [0, i) in s stages using k units.
  auto at = [&](unsigned s, unsigned i, unsigned k) { return (size_t(s) * (G + 1) + i) * (Q + 1) + k; };
  std::vector<double> f(size_t(S + 1) * (G + 1) * (Q + 1), kInfeasible);
  std::vector<int> fromJ(f.size(), -1), fromK(f.size(), -1);
  for (unsigned k = 0; k <= Q; ++k)
    f[at(0, 0, k)] = 0;
  for (unsigned s = 1; s <= S; ++s)
    for (unsigned i = s; i <= G; ++i) {
      double w = 0, l = 0;
      int64_t x = 0;
      unsigned n = 0;
      for (unsigned j = i; j-- > s - 1;) { // the stage is groups [j, i)
        w += g.work[j];
        l = std::max(l, g.longest[j]);
        x += g.tiles[j];
        n += g.big[j];
        for (unsigned own = 0; own <= Q; ++own) {
          double stage = g.bound(w, l, x, n, 1 + own * unit);
          if (stage == kInfeasible)
            continue;
          for (unsigned k = own; k <= Q; ++k) {
            double value = std::max(f[at(s - 1, j, k - own)], stage);
            if (value < f[at(s, i, k)]) {
              f[at(s, i, k)] = value;
              fromJ[at(s, i, k)] = int(j);
              fromK[at(s, i, k)] = int(k - own);
            }
          }
          if (stage <= l)
            break; // the longest lane bounds it: more units cannot help
        }
      }
    }
  // The best bottleneck over the stage counts; ties: more stages (shorter
  // chains inside each), then fewer units.
  double best = kInfeasible;
  unsigned bestS = 0, bestK = 0;
  for (unsigned s = S; s >= 1; --s)
    for (unsigned k = 0; k <= Q; ++k)
      if (f[at(s, G, k)] < best) {
        best = f[at(s, G, k)];
        bestS = s;
        bestK = k;
      }
  Partition p;
  if (best == kInfeasible)
    return p;
  unsigned i = G, k = bestK;
  for (unsigned s = bestS; s >= 1; --s) {
    int j = fromJ[at(s, i, k)], kk = fromK[at(s, i, k)];
    p.starts.push_back(unsigned(j));
    p.budgets.push_back(1 + (k - unsigned(kk)) * unit);
    i = unsigned(j);
    k = unsigned(kk);
  }
  std::reverse(p.starts.begin(), p.starts.end());
  std::reverse(p.budgets.begin(), p.budgets.end());
  // The cores the grid left over go, one at a time, to the bottleneck.
  unsigned used = std::accumulate(p.budgets.begin(), p.budgets.end(), 0u);
  for (; used < cores; ++used) {
    size_t worst = 0;
    double worstBound = -1;
    for (size_t s = 0; s < p.starts.size(); ++s) {
      unsigned end = s + 1 < p.starts.size() ? p.starts[s + 1] : G;
      double b = g.bound(p.starts[s], end, p.budgets[s]);
      if (b > worstBound) {
        worstBound = b;
        worst = s;
      }
    }
    ++p.budgets[worst];
  }
  return p;
}

/// Ordered packing of `tasks` (in order) onto `n` cores from `base`: each
/// core a contiguous run whose work plus receive time (an input from
/// outside the run, once per producer) stays within the least bottleneck
/// found by bisection and whose crossbars fit. False when even an
/// unbounded bottleneck needs more than `n` runs.
bool packOrdered(const PipelineProblem &prob, const std::vector<std::vector<unsigned>> &inputs,
                 const std::vector<unsigned> &tasks, unsigned n, unsigned base, std::vector<unsigned> &core) {
  std::vector<unsigned> run(prob.group.size(), ~0u); // the run a task of this stage is in
  std::set<unsigned> seen;
  // A task's load in run `r`: its work and the inputs it receives.
  auto cost = [&](unsigned t, unsigned r) {
    double c = prob.work[t];
    seen.clear();
    for (unsigned e : inputs[t]) {
      unsigned from = prob.edges[e].from;
      if (run[from] != r && seen.insert(from).second)
        c += prob.edges[e].ns;
    }
    return c;
  };
  // Cuts the tasks into runs under `limit` (a new run when the load or the
  // crossbars would overflow; copies of a lane in one run share theirs);
  // returns how many, writing cores if `assign`.
  std::set<int64_t> lanes;
  auto tilesIn = [&](unsigned t) {
    int64_t lane = prob.lane.empty() ? -1 : prob.lane[t];
    return lane >= 0 && lanes.count(lane) ? 0 : prob.tiles[t];
  };
  auto runs = [&](double limit, bool assign) {
    unsigned count = 0;
    double load = 0;
    int64_t used = 0;
    lanes.clear();
    for (unsigned t : tasks) {
      double here = count ? cost(t, count - 1) : 0;
      if (!count || load + here > limit || used + tilesIn(t) > prob.capacity) {
        ++count;
        load = cost(t, count - 1);
        used = 0;
        lanes.clear();
      } else {
        load += here;
      }
      used += tilesIn(t);
      if (!prob.lane.empty() && prob.lane[t] >= 0)
        lanes.insert(prob.lane[t]);
      run[t] = count - 1;
      if (assign)
        core[t] = base + count - 1;
    }
    if (!assign)
      for (unsigned t : tasks)
        run[t] = ~0u;
    return count;
  };
  if (runs(kInfeasible, false) > n)
    return false;
  double lo = 0, hi = 0;
  for (unsigned t : tasks)
    hi += cost(t, ~1u);
  for (int i = 0; i < 40 && hi - lo > 1e-3 * hi; ++i) {
    double mid = (lo + hi) / 2;
    (runs(mid, false) <= n ? hi : lo) = mid;
  }
  return runs(hi, true) <= n;
}

/// Packs each stage's lanes onto its cores: ordered (packOrdered) when the
/// runs fit; else longest first onto the least loaded core with room; if
/// one finds none, largest weights first by best fit, then the rest
/// longest first. Empty when a stage cannot be packed.
std::vector<unsigned> pack(const PipelineProblem &prob, const Groups &g, const Partition &p) {
  std::vector<unsigned> core(prob.group.size(), 0);
  std::vector<std::vector<unsigned>> inputs(prob.group.size());
  for (unsigned e = 0; e < prob.edges.size(); ++e)
    inputs[prob.edges[e].to].push_back(e);
  unsigned base = 0;
  for (size_t s = 0; s < p.starts.size(); ++s) {
    unsigned end = s + 1 < p.starts.size() ? p.starts[s + 1] : g.count;
    unsigned n = p.budgets[s];
    std::vector<unsigned> tasks;
    for (unsigned grp = p.starts[s]; grp < end; ++grp)
      tasks.insert(tasks.end(), g.tasks[grp].begin(), g.tasks[grp].end());
    if (!prob.rank.empty())
      std::stable_sort(tasks.begin(), tasks.end(), [&](unsigned x, unsigned y) { return prob.rank[x] < prob.rank[y]; });
    if (packOrdered(prob, inputs, tasks, n, base, core)) {
      base += n;
      continue;
    }
    auto longestFirst = [&](std::vector<unsigned> &list) {
      std::stable_sort(list.begin(), list.end(), [&](unsigned x, unsigned y) {
        if (prob.work[x] != prob.work[y])
          return prob.work[x] > prob.work[y];
        return prob.tiles[x] > prob.tiles[y];
      });
    };
    auto place = [&](std::vector<unsigned> &list, std::vector<double> &load, std::vector<int64_t> &used,
                     bool bestFit) {
      for (unsigned t : list) {
        int chosen = -1;
        for (unsigned c = 0; c < n; ++c) {
          if (used[c] + prob.tiles[t] > prob.capacity)
            continue;
          bool better = chosen < 0 || (bestFit ? used[c] > used[unsigned(chosen)]
                                               : load[c] < load[unsigned(chosen)]);
          if (better)
            chosen = int(c);
        }
        if (chosen < 0)
          return false;
        core[t] = base + unsigned(chosen);
        load[unsigned(chosen)] += prob.work[t];
        used[unsigned(chosen)] += prob.tiles[t];
      }
      return true;
    };
    std::vector<double> load(n, 0);
    std::vector<int64_t> used(n, 0);
    longestFirst(tasks);
    if (!place(tasks, load, used, false)) {
      std::vector<unsigned> heavy, light;
      for (unsigned t : tasks)
        (prob.tiles[t] > 0 ? heavy : light).push_back(t);
      std::stable_sort(heavy.begin(), heavy.end(),
                       [&](unsigned x, unsigned y) { return prob.tiles[x] > prob.tiles[y]; });
      load.assign(n, 0);
      used.assign(n, 0);
      if (!place(heavy, load, used, true) || !place(light, load, used, false))
        return {};
    }
    base += n;
  }
  return core;
}

/// A placement without stages: the chains of followers (a task and the
/// tasks that follow it), each whole on one core. Copies of a lane on one
/// core share their crossbars.
class BalancedPlacement {
public:
  explicit BalancedPlacement(const PipelineProblem &prob) : prob(prob), onCore(prob.cores) {
    std::vector<int> chainOf(prob.work.size(), -1);
    for (unsigned t = 0; t < prob.work.size(); ++t) {
      int f = prob.follows.empty() ? -1 : prob.follows[t];
      if (f >= 0) {
        chainOf[t] = chainOf[unsigned(f)];
        chains[size_t(chainOf[t])].push_back(t);
      } else {
        chainOf[t] = int(chains.size());
        chains.push_back({t});
      }
    }
    weight.assign(chains.size(), 0);
    for (size_t c = 0; c < chains.size(); ++c)
      for (unsigned t : chains[c])
        weight[c] += prob.work[t];
    coreOf.assign(chains.size(), 0);
  }

  /// Longest chain first onto the least loaded core whose crossbars take
  /// its lanes (ties by core index); false when a chain finds no core.
  bool packLongestFirst() {
    std::vector<size_t> order(chains.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    std::vector<double> load(prob.cores, 0);
    for (size_t chain : order) {
      int best = -1;
      for (unsigned c = 0; c < prob.cores; ++c)
        if (fits(c, {chain}, {}) && (best < 0 || load[c] < load[unsigned(best)]))
          best = int(c);
      if (best < 0)
        return false;
      load[unsigned(best)] += weight[chain];
      put(chain, unsigned(best));
    }
    return true;
  }

  /// One round of moves off the busiest core: with `busy` each core's
  /// work as the queue model ran it (stores and receives included, which a
  /// chain takes along in proportion to its work), the busiest core moves
  /// a chain to another core or swaps one for a lighter one there, the
  /// pair's larger load falling, until the busiest core has no such move.
  /// False when nothing moved.
  bool refine(const std::vector<double> &busy) {
    if (busy.size() != prob.cores)
      return false;
    std::vector<double> load = busy, scaled(chains.size(), 0);
    for (unsigned c = 0; c < prob.cores; ++c) {
      double w = 0;
      for (size_t x : onCore[c])
        w += weight[x];
      for (size_t x : onCore[c])
        scaled[x] = w > 0 ? weight[x] * busy[c] / w : 0;
    }
    bool moved = false;
    for (size_t step = 0; step < chains.size(); ++step) {
      unsigned b = unsigned(std::max_element(load.begin(), load.end()) - load.begin());
      double best = load[b] * (1 - 1e-3);
      size_t from = 0, to = 0;
      unsigned into = b;
      bool swap = false;
      for (size_t x : onCore[b])
        for (unsigned c = 0; c < prob.cores; ++c) {
          if (c == b)
            continue;
          double m = std::max(load[b] - scaled[x], load[c] + scaled[x]);
          if (m < best && fits(c, {x}, {})) {
            best = m, from = x, into = c, swap = false;
          }
          for (size_t y : onCore[c]) {
            m = std::max(load[b] - scaled[x] + scaled[y], load[c] - scaled[y] + scaled[x]);
            if (m < best && fits(c, {x}, {y}) && fits(b, {y}, {x}))
              best = m, from = x, to = y, into = c, swap = true;
          }
        }
      if (into == b)
        break;
      load[b] -= scaled[from];
      load[into] += scaled[from];
      take(from);
      put(from, into);
      if (swap) {
        load[into] -= scaled[to];
        load[b] += scaled[to];
        take(to);
        put(to, b);
      }
      moved = true;
    }
    return moved;
  }

  /// The core of every task.
  std::vector<unsigned> taskCores() const {
    std::vector<unsigned> core(prob.work.size(), 0);
    for (size_t c = 0; c < chains.size(); ++c)
      for (unsigned t : chains[c])
        core[t] = coreOf[c];
    return core;
  }
  /// The most loaded core's work (chain weights).
  double bound() const {
    double most = 0;
    for (const std::vector<size_t> &list : onCore) {
      double w = 0;
      for (size_t x : list)
        w += weight[x];
      most = std::max(most, w);
    }
    return most;
  }

private:
  /// The crossbars of `list`'s chains on one core (a lane's copies once).
  int64_t crossbars(const std::vector<size_t> &list) const {
    int64_t x = 0;
    std::set<int64_t> lanes;
    for (size_t chain : list)
      for (unsigned t : chains[chain]) {
        int64_t lane = prob.lane.empty() ? -1 : prob.lane[t];
        if (lane < 0 || lanes.insert(lane).second)
          x += prob.tiles[t];
      }
    return x;
  }
  /// Whether core c holds its chains with `in` added and `out` removed.
  bool fits(unsigned c, std::initializer_list<size_t> in, std::initializer_list<size_t> out) const {
    std::vector<size_t> list;
    for (size_t x : onCore[c])
      if (std::find(out.begin(), out.end(), x) == out.end())
        list.push_back(x);
    list.insert(list.end(), in.begin(), in.end());
    return crossbars(list) <= prob.capacity;
  }
  void put(size_t chain, unsigned c) {
    coreOf[chain] = c;
    onCore[c].push_back(chain);
  }
  void take(size_t chain) {
    std::vector<size_t> &list = onCore[coreOf[chain]];
    list.erase(std::find(list.begin(), list.end(), chain));
  }

  const PipelineProblem &prob;
  std::vector<std::vector<unsigned>> chains;
  std::vector<double> weight;
  std::vector<unsigned> coreOf;
  std::vector<std::vector<size_t>> onCore;
};

/// The neighbours of a partition (seed 002's moves), ranked by their stage
/// bounds; infeasible ones left out.
std::vector<std::pair<Partition, std::string>> neighbours(const Groups &g, const Partition &p, unsigned depth) {
  std::vector<std::pair<Partition, std::string>> out;
  size_t S = p.starts.size();
  auto endOf = [&](size_t s) { return s + 1 < S ? p.starts[s + 1] : g.count; };
  // Shift the first operation of a stage across its boundary either way.
  for (size_t s = 1; s < S; ++s)
    for (int delta : {-1, +1}) {
      Partition q = p;
      int moved = int(p.starts[s]) + delta;
      if (moved <= int(p.starts[s - 1]) || moved >= int(endOf(s)))
        continue;
      q.starts[s] = unsigned(moved);
      out.push_back({q, "shift boundary " + std::to_string(s) + (delta < 0 ? " -1" : " +1")});
    }
  // Remove a boundary: the two stages merge with their cores.
  for (size_t s = 1; s < S; ++s) {
    Partition q = p;
    q.budgets[s - 1] += q.budgets[s];
    q.starts.erase(q.starts.begin() + long(s));
    q.budgets.erase(q.budgets.begin() + long(s));
    out.push_back({q, "remove boundary " + std::to_string(s)});
  }
  // Insert a boundary: split a stage where the two halves' bound is least.
  if (S < depth)
    for (size_t s = 0; s < S; ++s) {
      unsigned a = p.starts[s], e = endOf(s), cores = p.budgets[s];
      if (e - a < 2 || cores < 2)
        continue;
      double best = kInfeasible;
      unsigned at = 0, first = 0;
      for (unsigned m = a + 1; m < e; ++m)
        for (unsigned c = 1; c < cores; ++c) {
          double b = std::max(g.bound(a, m, c), g.bound(m, e, cores - c));
          if (b < best) {
            best = b;
            at = m;
            first = c;
          }
        }
      if (best == kInfeasible)
        continue;
      Partition q = p;
      q.starts.insert(q.starts.begin() + long(s) + 1, at);
      q.budgets[s] = first;
      q.budgets.insert(q.budgets.begin() + long(s) + 1, cores - first);
      out.push_back({q, "split stage " + std::to_string(s) + " at operation " + std::to_string(at)});
    }
  // Transfer a power of two of cores from one stage to another.
  for (size_t from = 0; from < S; ++from)
    for (size_t to = 0; to < S; ++to) {
      if (from == to)
        continue;
      for (unsigned n = 1; n < p.budgets[from]; n *= 2) {
        Partition q = p;
        q.budgets[from] -= n;
        q.budgets[to] += n;
        out.push_back({q, "move " + std::to_string(n) + " cores from stage " + std::to_string(from) +
                              " to stage " + std::to_string(to)});
      }
    }
  std::vector<std::pair<std::vector<double>, size_t>> ranked;
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double> b = bounds(g, out[i].first);
    if (!b.empty() && b.front() != kInfeasible)
      ranked.push_back({std::move(b), i});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto &x, const auto &y) {
    if (x.first != y.first)
      return x.first < y.first;
    return out[x.second].first < out[y.second].first;
  });
  std::vector<std::pair<Partition, std::string>> sorted;
  for (auto &[b, i] : ranked)
    sorted.push_back(std::move(out[i]));
  return sorted;
}
} // namespace

PipelineResult schedulePipeline(const PipelineProblem &prob) {
  PipelineResult r;
  r.error = prob.validate();
  if (!r.error.empty())
    return r;
  Groups g(prob);
  if (g.count == 0) {
    r.error = "the compute graph has no tasks";
    return r;
  }
  auto started = Clock::now();
  Partition initial = initialPartition(g, prob.cores, prob.depth);
  if (initial.starts.empty()) {
    initial.starts = {0};
    initial.budgets = {prob.cores};
    r.fallback = true;
  }
  r.dpSeconds = since(started);

  std::set<Partition> visited{initial};
  std::vector<Partition> partitions; // of the candidates
  auto realize = [&](const Partition &p, int parent, std::string move) -> bool {
    auto t0 = Clock::now();
    ++r.packings;
    std::vector<unsigned> core = pack(prob, g, p);
    r.packingSeconds += since(t0);
    if (core.empty())
      return false;
    PipelineCandidate c;
    c.starts = p.starts;
    c.budgets = p.budgets;
    c.core = std::move(core);
    c.bound = bounds(g, p).front();
    c.parent = parent;
    c.move = std::move(move);
    auto t1 = Clock::now();
    c.cost = prob.evaluate(c.core);
    r.queueSeconds += since(t1);
    ++r.evaluations;
    r.candidates.push_back(std::move(c));
    partitions.push_back(p);
    return true;
  };
  if (!realize(initial, -1, r.fallback ? "initial (one-stage fallback)" : "initial")) {
    // The bound admitted a stage its packing could not realize: the
    // minimum-resource fallback, one stage over every core.
    bool tried = r.fallback;
    initial.starts = {0};
    initial.budgets = {prob.cores};
    r.fallback = true;
    visited.insert(initial);
    if (tried || !realize(initial, -1, "initial (one-stage fallback: the partition's packing failed)")) {
      r.error = "no packing of the lanes onto the cores was found (the crossbars of the lanes do not fit "
                "one core each in order, by load or by best fit)";
      return r;
    }
  }
  r.feasible = true;
  if (!prob.follows.empty() && r.evaluations < prob.maxEvaluations) {
    // The balanced placement, then rounds of moves off its busiest core
    // while the queue model confirms them (each round one evaluation):
    // the busiest core is the interval's floor, and the queue model's
    // per-core work includes what the chains' work leaves out (stores
    // for readers elsewhere, receives, memory waits).
    BalancedPlacement balanced(prob);
    auto t0 = Clock::now();
    ++r.packings;
    bool packed = balanced.packLongestFirst();
    r.packingSeconds += since(t0);
    int parent = -1;
    for (unsigned round = 0; packed && round <= kRefinementRounds; ++round) {
      if (round) {
        const QueueCost &last = r.candidates[unsigned(parent)].cost;
        if (!last.available || r.evaluations >= prob.maxEvaluations || r.packings >= prob.maxPackings)
          break;
        t0 = Clock::now();
        ++r.packings;
        bool moved = balanced.refine(last.coreBusyNs);
        r.packingSeconds += since(t0);
        if (!moved)
          break;
      }
      PipelineCandidate c;
      c.core = balanced.taskCores();
      c.bound = balanced.bound();
      c.starts = {0};
      c.budgets = {prob.cores};
      c.parent = parent;
      c.move = round ? "rebalanced (round " + std::to_string(round) + ")" : "balanced";
      auto t1 = Clock::now();
      c.cost = prob.evaluate(c.core);
      r.queueSeconds += since(t1);
      ++r.evaluations;
      // A round continues from a placement the queue model clearly
      // prefers (the 2.1% rule); a closer one stays a candidate.
      bool better = parent < 0 || clearlyBetter(c.cost, r.candidates[unsigned(parent)].cost);
      r.candidates.push_back(std::move(c));
      partitions.push_back(Partition{{0}, {prob.cores}});
      if (!better)
        break;
      parent = int(r.candidates.size()) - 1;
    }
  }
  if (g.count == 1) {
    r.termination = "one operation group: no other partition";
    return r;
  }
  std::vector<unsigned> beam{0};
  r.termination = "the beam's neighbourhood is exhausted";
  for (bool first = true;; first = false) {
    bool progressed = false, stop = false;
    for (unsigned parent : beam) {
      if (stop)
        break;
      if (!r.candidates[parent].cost.available) {
        r.termination = "stopped: candidate " + std::to_string(parent) + "'s queue cost is unavailable (" +
                        r.candidates[parent].cost.reason + ")";
        stop = true;
        break;
      }
      auto t0 = Clock::now();
      std::vector<std::pair<Partition, std::string>> next = neighbours(g, partitions[parent], prob.depth);
      r.rankingSeconds += since(t0);
      unsigned quota = first ? 2 : 1, taken = 0;
      for (auto &[q, move] : next) {
        if (taken == quota)
          break;
        if (r.evaluations >= prob.maxEvaluations) {
          r.termination = "evaluation budget (" + std::to_string(prob.maxEvaluations) + " queue costs)";
          stop = true;
          break;
        }
        if (r.packings >= prob.maxPackings) {
          r.termination = "packing budget (" + std::to_string(prob.maxPackings) + " packings)";
          stop = true;
          break;
        }
        if (!visited.insert(q).second)
          continue;
        if (realize(q, int(parent), move)) {
          ++taken;
          progressed = true;
        }
      }
    }
    if (stop || !progressed)
      break;
    // The next beam: the two best evaluated schedules of distinct
    // partitions (larger tie estimate, then evaluation order; the balanced
    // placement's refinements share one partition and its neighbours).
    std::vector<unsigned> order(r.candidates.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](unsigned x, unsigned y) {
      const QueueCost &a = r.candidates[x].cost, &b = r.candidates[y].cost;
      if (a.available != b.available)
        return a.available;
      return a.larger() < b.larger();
    });
    // (Candidates without a queue cost only when no other is left: the
    // loop above stops at one.)
    beam.clear();
    for (unsigned i : order)
      if (beam.size() < 2 && (beam.empty() || r.candidates[i].cost.available) &&
          std::none_of(beam.begin(), beam.end(), [&](unsigned j) { return partitions[j] == partitions[i]; }))
        beam.push_back(i);
  }
  // Selection: the lowest larger estimate must separate from the initial.
  unsigned best = 0;
  for (unsigned i = 1; i < r.candidates.size(); ++i) {
    const QueueCost &c = r.candidates[i].cost, &b = r.candidates[best].cost;
    if (c.available && (!b.available || c.larger() < b.larger()))
      best = i;
  }
  r.selected = best != 0 && clearlyBetter(r.candidates[best].cost, r.candidates[0].cost) ? best : 0;
  return r;
}

} // namespace raptor::spatial
