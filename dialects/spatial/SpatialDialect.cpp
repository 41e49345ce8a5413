//===- SpatialDialect.cpp - The spatial dialect -----------------*- C++ -*-===//
#include "dialects/spatial/SpatialDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace raptor::spatial;

#include "dialects/spatial/SpatialDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/spatial/SpatialTypes.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/spatial/SpatialOps.cpp.inc"

void SpatialDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/spatial/SpatialTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/spatial/SpatialOps.cpp.inc"
      >();
}

IntegerAttr GraphOp::getPredictedNs() {
  auto mode = (*this)->getAttrOfType<StringAttr>("mode");
  bool pipeline = mode && mode.getValue() == "pipeline";
  return (*this)->getAttrOfType<IntegerAttr>(pipeline ? "predicted_interval_ns" : "predicted_latency_ns");
}

LogicalResult TaskOp::verify() {
  if (getBytes().size() != getDeps().size())
    return emitOpError() << "has " << getDeps().size() << " dependencies but "
                         << getBytes().size() << " transfer sizes";
  if (int64_t(getCostNs()) < 0 || int64_t(getTiles()) < 0 || llvm::any_of(getBytes(), [](int64_t b) { return b < 0; }))
    return emitOpError("costs, tiles and transfer sizes must be non-negative");
  if (getTiles() > 0 && !getWeight())
    return emitOpError("a task holding weight tiles must name its weight");
  if (auto rows = getRows())
    if (rows->size() != 2 || (*rows)[0] < 0 || (*rows)[0] >= (*rows)[1])
      return emitOpError("rows must be a non-empty half-open range [begin, end) of non-negative rows");
  if (int64_t(getReplica()) < 0)
    return emitOpError("replica must be non-negative");
  if (auto block = getBlock()) {
    if (int64_t(*block) < 0)
      return emitOpError("block must be non-negative");
    if (!getRows())
      return emitOpError("a row block needs its rows");
    if (*block > 0 && getTiles() > 0)
      return emitOpError("a row block after the first uses the first block's crossbars: it holds no tiles");
  }
  auto graph = (*this)->getParentOfType<GraphOp>();
  if (graph.getCrossbarsPerCore() > 0 && int64_t(getTiles()) > int64_t(graph.getCrossbarsPerCore()))
    return emitOpError() << "needs " << getTiles() << " crossbars but a core has "
                         << graph.getCrossbarsPerCore();
  if (auto core = getCore())
    if (int64_t(*core) < 0 || (graph.getCores() > 0 && int64_t(*core) >= int64_t(graph.getCores())))
      return emitOpError() << "is placed on core " << *core << " outside 0.."
                           << graph.getCores() - 1;
  return success();
}
