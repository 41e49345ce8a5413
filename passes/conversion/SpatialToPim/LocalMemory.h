//===- LocalMemory.h - A core's local memory allocator ----------*- C++ -*-===//
//
// First-fit (or best-fit) allocation of a core's scratchpad in program
// order: a buffer lives from the instruction that first writes it to the
// one after its last read, and freed space is reused.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_LOCALMEMORY_H
#define RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_LOCALMEMORY_H

#include <cstdint>
#include <map>
#include <optional>

namespace raptor::pim {

class LocalMemory {
public:
  explicit LocalMemory(int64_t capacity, int64_t alignment = 64) : capacity(capacity), alignment(alignment) {
    free[0] = capacity;
  }
  /// The address of `bytes` free bytes, or nothing when no gap is large enough.
  std::optional<int64_t> allocate(int64_t bytes);
  void release(int64_t address);
  /// `bytes` at the top of memory that no allocation has touched so far and
  /// none will from now on (never released): a buffer written before the
  /// program's first instruction. Nothing when such room is left no more.
  std::optional<int64_t> reserveUntouched(int64_t bytes);
  /// Whether reserveUntouched(bytes) would succeed.
  bool canReserveUntouched(int64_t bytes) const;
  int64_t inUse() const { return used; }
  int64_t peak() const { return highWater + (capacity - top); }
  int64_t size() const { return capacity; }
  /// The smallest gap that holds a buffer instead of the lowest: the
  /// lowering's second try when first fit fragments a core's memory.
  bool bestFit = false;

private:
  int64_t capacity, alignment, used = 0, highWater = 0;
  int64_t top = capacity; // reserveUntouched hands out [top, capacity)
  std::map<int64_t, int64_t> free; // address -> bytes
  std::map<int64_t, int64_t> live; // address -> bytes
};

} // namespace raptor::pim

#endif // RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_LOCALMEMORY_H
