//===- WorkingMemory.h - Local memory a placed schedule's work holds -*- C++ -*-===//
//
// An estimate, per core, of the local memory its tasks' values hold at
// once, for the pipeline search to tell whether a crossing form that keeps
// the iteration boundary in local memory leaves room for the work.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_WORKINGMEMORY_H
#define RAPTOR_PASSES_SPATIAL_WORKINGMEMORY_H

#include "passes/spatial/QueueModel.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace raptor::spatial {

/// Per core: the most bytes of task outputs and inputs from other cores
/// live at once, walking the core's tasks in the lowering's order. A value
/// lives from the task that makes (or first reads) it to its last reader
/// on the core (through views and concatenations, whose readers read their
/// producers' buffers); one no task of its core reads lives during its
/// own task. Data crossing at the iteration boundary (`held(from, to)` of
/// the producer's and the reader's cores) is not counted: the queue
/// program holds it there (`boundaryBytes`), on the producer's core too.
std::vector<int64_t> workingBytes(const PlacedGraph &g, const std::function<bool(unsigned, unsigned)> &held);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_WORKINGMEMORY_H
