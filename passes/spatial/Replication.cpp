//===- Replication.cpp - Copies of weight lanes on spare crossbars -*- C++ -*-===//
#include "passes/spatial/Replication.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace raptor::spatial {

/// The balance rule copies an operator while a copy takes more than the
/// work per core over this (2: copies pack two to a core; more, smaller
/// copies measured worse on ResNet-18 int8, docs/scheduling.md).
constexpr double kBalanceShare = 2.0;

bool packs(std::vector<int64_t> tiles, int64_t bins, int64_t capacity) {
  std::sort(tiles.begin(), tiles.end(), std::greater<>());
  std::vector<int64_t> room(size_t(bins), capacity);
  for (int64_t t : tiles) {
    if (t == 0)
      continue;
    auto slot = std::find_if(room.begin(), room.end(), [&](int64_t r) { return r >= t; });
    if (slot == room.end())
      return false;
    *slot -= t;
  }
  return true;
}

namespace {

int64_t sum(llvm::ArrayRef<int64_t> values) {
  int64_t n = 0;
  for (int64_t v : values)
    n += v;
  return n;
}

} // namespace

std::vector<int64_t> planReplication(llvm::ArrayRef<ReplicationCandidate> candidates,
                                     const ReplicationTarget &target, ReplicationRule rule) {
  std::vector<int64_t> copies(candidates.size(), 1);
  if (rule == ReplicationRule::None)
    return copies;
  std::vector<int64_t> tiles; // every lane task's crossbars, copies included
  for (const ReplicationCandidate &c : candidates)
    tiles.insert(tiles.end(), c.laneTiles.begin(), c.laneTiles.end());
  int64_t spare = target.spareCrossbars;
  assert(rule != ReplicationRule::Auto && "the caller resolves auto by the schedule's mode");
  // The rows of candidate i's longest copy with n copies.
  auto longest = [&](size_t i, int64_t n) { return (candidates[i].rows + n - 1) / n; };
  // The copies candidate i takes next: one more, or under the time rule
  // the fewest more that shorten its longest copy (copies hold whole rows:
  // 20 copies of 28 rows take 2 rows as 14 do, and save nothing).
  auto nextCopies = [&](size_t i) {
    int64_t rows = longest(i, copies[i]);
    if (rule != ReplicationRule::Time || rows <= 1)
      return copies[i] + 1;
    return (candidates[i].rows + rows - 2) / (rows - 1); // ceil(rows / (longest - 1))
  };
  // The input a copy of candidate i reads with n copies, as time.
  auto inputAt = [&](size_t i, int64_t n) {
    const ReplicationCandidate &c = candidates[i];
    int64_t inputRows = std::min(c.inputRows, longest(i, n) * c.stride + c.halo);
    return target.transferNs ? target.transferNs(inputRows * c.inputRowBytes) : 0.0;
  };
  // Balance: a copy's share of the work against the work per core, which
  // grows with every copy's input; a copy below half of it packs with
  // others onto a core, so more copies cannot lower the busiest core.
  double total = target.totalNs;
  auto perCore = [&] { return total / double(std::max<int64_t>(target.cores, 1)); };
  // The score of one more copy of candidate i (higher first).
  // A copy's work under the balance rule.
  auto copyNs = [&](size_t i) {
    const ReplicationCandidate &c = candidates[i];
    return (c.ns + (target.weighFollowers ? c.followNs : 0)) / double(copies[i]);
  };
  auto score = [&](size_t i) {
    const ReplicationCandidate &c = candidates[i];
    double r = double(copies[i]);
    if (rule == ReplicationRule::Windows)
      return double(c.windows) / r;
    if (rule == ReplicationRule::Balance)
      return copyNs(i);
    // The longest copy's time saved, net of the input each copy then brings.
    int64_t next = nextCopies(i);
    double saved = c.ns * double(longest(i, copies[i]) - longest(i, next)) / double(c.rows) - inputAt(i, next);
    return saved / double(sum(c.laneTiles) * (next - copies[i]));
  };
  // A max-heap of (score, -index); a candidate leaves it when it cannot
  // take another copy (rows exhausted, too large for what is left, or its
  // lanes would no longer pack: smaller ones may still fit).
  using Entry = std::pair<double, int64_t>;
  std::priority_queue<Entry> heap;
  auto offer = [&](size_t i) {
    const ReplicationCandidate &c = candidates[i];
    int64_t crossbars = sum(c.laneTiles) * (nextCopies(i) - copies[i]);
    if (crossbars > 0 && copies[i] < c.rows && crossbars <= spare) {
      double s = score(i);
      if (rule == ReplicationRule::Windows || (rule == ReplicationRule::Balance ? s > perCore() / kBalanceShare : s > 0))
        heap.push({s, -int64_t(i)});
    }
  };
  for (size_t i = 0; i < candidates.size(); ++i)
    offer(i);
  while (!heap.empty()) {
    size_t i = size_t(-heap.top().second);
    heap.pop();
    const ReplicationCandidate &c = candidates[i];
    int64_t added = nextCopies(i) - copies[i];
    int64_t crossbars = sum(c.laneTiles) * added;
    if (crossbars > spare)
      continue;
    // (The slowest copies are below the threshold: so is every other.)
    if (rule == ReplicationRule::Balance && copyNs(i) <= perCore() / kBalanceShare)
      break;
    size_t before = tiles.size();
    for (int64_t k = 0; k < added; ++k)
      tiles.insert(tiles.end(), c.laneTiles.begin(), c.laneTiles.end());
    if (!packs(tiles, target.cores, target.capacity)) {
      tiles.resize(before);
      continue;
    }
    spare -= crossbars;
    total += inputAt(i, copies[i] + added) * double(c.laneTiles.size() * size_t(added));
    copies[i] += added;
    offer(i);
  }
  return copies;
}

std::pair<int64_t, int64_t> rowsOfCopy(int64_t rows, int64_t copies, int64_t index) {
  return {index * rows / copies, (index + 1) * rows / copies};
}

} // namespace raptor::spatial
