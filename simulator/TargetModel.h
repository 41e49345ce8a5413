//===- TargetModel.h - A PIM target described in JSON -----------*- C++ -*-===//
//
// The target adapter of spatial scheduling: execution costs, link costs
// between two cores and capacities, from a JSON description modelled on
// pimsim-nn's configuration (docs/scheduling.md lists the fields).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_TARGETMODEL_H
#define RAPTOR_SIMULATOR_TARGETMODEL_H

#include "simulator/TimingConfig.h"

#include "llvm/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace raptor::pim {

struct TargetModel {
  std::string name;
  double clockPeriodNs = 1;
  unsigned cores = 0, meshRows = 0, meshCols = 0;
  unsigned crossbarsPerCore = 0, crossbarRows = 0, crossbarCols = 0;
  unsigned cellBits = 0, weightBits = 0;
  double linkBytesPerCycle = 0, hopLatencyCycles = 0;
  /// Each core's local memory (the `memory.local_bytes` field; 64 MiB when
  /// the target does not say).
  int64_t localMemoryBytes = int64_t(64) << 20;
  /// pimsim-nn parameters the cost model does not use (`pimsim` section:
  /// rob_size, vector_width, ADC/DAC figures, ...), over the defaults of the
  /// configuration measured in ../shared/docs/pim-target.md.
  llvm::json::Object pimsim;
  /// The timing rules of pimsim-nn's configuration above: the cost model
  /// prices instructions with them, as the timing simulator does.
  TimingConfig timing;

  /// A target's parameters as given, before validation (NaN: missing).
  struct Fields {
    std::string name;
    double clockPeriodNs = 0, cores = 0, meshRows = 0, meshCols = 0;
    double crossbarsPerCore = 0, crossbarRows = 0, crossbarCols = 0, cellBits = 0, weightBits = 0;
    double linkBytesPerCycle = 0, hopLatencyCycles = 0;
    std::optional<double> localMemoryBytes; ///< unset: the 64 MiB default
    llvm::json::Object pimsim;
  };

  /// Parses and validates a target file's JSON; on error calls `error`
  /// with `source: message` (the message names the offending key).
  static llvm::FailureOr<TargetModel> parse(llvm::StringRef json, llvm::StringRef source,
                                            llvm::function_ref<void(const llvm::Twine &)> error);
  /// The one validation of a target's parameters, whether they come from a
  /// file or from a #pim.target attribute.
  static llvm::FailureOr<TargetModel> validate(Fields fields, llvm::StringRef source,
                                               llvm::function_ref<void(const llvm::Twine &)> error);
  /// The parameters back (validate(fields()) gives this target again).
  Fields fields() const;
  /// The target in the file format (keys as docs/scheduling.md lists them).
  llvm::json::Value toJson() const;
  static llvm::FailureOr<TargetModel> load(llvm::StringRef path,
                                           llvm::function_ref<void(const llvm::Twine &)> error);

  /// The target a pim.chip written without one implies: its geometry on a
  /// near-square mesh, a 1 ns clock, 32-byte links with 2-cycle hops and
  /// the pimsim defaults.
  static TargetModel forChip(unsigned cores, unsigned crossbarsPerCore, unsigned rows, unsigned cols,
                             unsigned cellBits, unsigned weightBits, int64_t localMemoryBytes);

  /// Crossbars one weight element needs across its bit slices.
  unsigned slices() const { return (weightBits + cellBits - 1) / cellBits; }
  /// Manhattan distance of two cores on the mesh (row-major numbering).
  unsigned hops(unsigned a, unsigned b) const;
  /// Time to move `bytes` from core a to core b (0 on the same core): a
  /// send/recv pair under the timing rules.
  int64_t transferNs(int64_t bytes, unsigned a, unsigned b) const;
  /// The mean transfer time over all pairs of distinct cores (the mean
  /// flit latency of the network file).
  double meanTransferNs(int64_t bytes) const;

  /// pimsim-nn's chip configuration (chip.json) and network file
  /// (network.json: ns per flit between switches, global memory at -10).
  llvm::json::Value pimsimChipConfig() const;
  /// The pimsim section's keys with their default values.
  llvm::json::Object pimsimDefaults() const;
  llvm::json::Value pimsimNetworkConfig() const;

private:
  /// Derives `timing` (and the mean flit latency) from the configuration;
  /// false with `error` called when the pimsim section is unusable.
  bool deriveTiming(llvm::StringRef source, llvm::function_ref<void(const llvm::Twine &)> error);
  double meanFlitNs = 0;
};

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_TARGETMODEL_H
