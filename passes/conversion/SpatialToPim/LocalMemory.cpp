//===- LocalMemory.cpp - A core's local memory allocator --------*- C++ -*-===//
#include "passes/conversion/SpatialToPim/LocalMemory.h"

#include <algorithm>
#include <iterator>

namespace raptor::pim {

std::optional<int64_t> LocalMemory::allocate(int64_t bytes) {
  int64_t size = std::max<int64_t>(alignment, (bytes + alignment - 1) / alignment * alignment);
  auto gap = free.end();
  for (auto it = free.begin(); it != free.end(); ++it)
    if (it->second >= size && (gap == free.end() || it->second < gap->second)) {
      gap = it;
      if (!bestFit)
        break;
    }
  if (gap == free.end())
    return std::nullopt;
  int64_t address = gap->first, rest = gap->second - size;
  free.erase(gap);
  if (rest)
    free[address + size] = rest;
  live[address] = size;
  used += size;
  highWater = std::max(highWater, address + size);
  return address;
}

bool LocalMemory::canReserveUntouched(int64_t bytes) const {
  int64_t size = std::max<int64_t>(alignment, (bytes + alignment - 1) / alignment * alignment);
  if (free.empty())
    return false;
  auto last = std::prev(free.end());
  // The top gap must reach `top`, and the block lie above every address
  // ever allocated (highWater), so no earlier instruction used it.
  return last->first + last->second == top && top - size >= std::max(last->first, highWater);
}

std::optional<int64_t> LocalMemory::reserveUntouched(int64_t bytes) {
  if (!canReserveUntouched(bytes))
    return std::nullopt;
  int64_t size = std::max<int64_t>(alignment, (bytes + alignment - 1) / alignment * alignment);
  auto last = std::prev(free.end());
  int64_t address = top - size;
  if (address == last->first)
    free.erase(last);
  else
    last->second = address - last->first;
  top = address;
  used += size;
  return address;
}

void LocalMemory::release(int64_t address) {
  auto it = live.find(address);
  if (it == live.end())
    return;
  int64_t start = address, size = it->second;
  live.erase(it);
  used -= size;
  auto next = free.lower_bound(start);
  if (next != free.end() && next->first == start + size) {
    size += next->second;
    next = free.erase(next);
  }
  if (next != free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free.erase(prev);
    }
  }
  free[start] = size;
}

} // namespace raptor::pim
