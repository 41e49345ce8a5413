//===- Replication.cpp - Copies of weight lanes on spare crossbars -*- C++ -*-===//
#include "passes/spatial/Replication.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace raptor::spatial {

namespace {

/// Whether `tiles` pack into `bins` bins of `capacity`, first fit largest
/// first.
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
  // The score of one more copy of candidate i (higher first).
  auto score = [&](size_t i) {
    const ReplicationCandidate &c = candidates[i];
    double r = double(copies[i]);
    if (rule == ReplicationRule::Windows)
      return double(c.windows) / r;
    int64_t rowsPerCopy = (c.rows + copies[i]) / (copies[i] + 1); // ceil(rows / (r + 1))
    int64_t inputRows = std::min(c.inputRows, rowsPerCopy * c.stride + c.halo);
    double input = target.transferNs ? target.transferNs(inputRows * c.inputRowBytes) : 0;
    double saved = c.ns / r - c.ns / (r + 1) - input;
    return saved / double(sum(c.laneTiles));
  };
  // A max-heap of (score, -index); a candidate leaves it when it cannot
  // take another copy (rows exhausted, too large for what is left, or its
  // lanes would no longer pack: smaller ones may still fit).
  using Entry = std::pair<double, int64_t>;
  std::priority_queue<Entry> heap;
  auto offer = [&](size_t i) {
    const ReplicationCandidate &c = candidates[i];
    int64_t crossbars = sum(c.laneTiles);
    if (crossbars > 0 && copies[i] < c.rows && crossbars <= spare) {
      double s = score(i);
      if (rule == ReplicationRule::Windows || s > 0)
        heap.push({s, -int64_t(i)});
    }
  };
  for (size_t i = 0; i < candidates.size(); ++i)
    offer(i);
  while (!heap.empty()) {
    size_t i = size_t(-heap.top().second);
    heap.pop();
    const ReplicationCandidate &c = candidates[i];
    int64_t crossbars = sum(c.laneTiles);
    if (crossbars > spare)
      continue;
    size_t before = tiles.size();
    tiles.insert(tiles.end(), c.laneTiles.begin(), c.laneTiles.end());
    if (!packs(tiles, target.cores, target.capacity)) {
      tiles.resize(before);
      continue;
    }
    spare -= crossbars;
    ++copies[i];
    offer(i);
  }
  return copies;
}

std::pair<int64_t, int64_t> rowsOfCopy(int64_t rows, int64_t copies, int64_t index) {
  return {index * rows / copies, (index + 1) * rows / copies};
}

} // namespace raptor::spatial
