//===- TimingSimulator.h - Event-driven timing of PIM programs -*- C++ -*-===//
//
// Times every core's program with the rules of ../shared/docs/pim-target.md
// (docs/timing.md): in-order issue through a reorder buffer, scalar
// instructions at decode, one matrix unit per array group, one vector and
// one transfer unit, one local-memory port, a FIFO per network source,
// global memory serving requests in arrival order, blocking send/receive
// rendezvous (the receiver grants permission, the sender reads and sends)
// and counting event registers. It moves no data; the functional simulator
// proves the values.
//
// Latency mode runs each program once; throughput mode runs every core's
// program as a loop body and reports the steady-state initiation interval.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_TIMINGSIMULATOR_H
#define RAPTOR_SIMULATOR_TIMINGSIMULATOR_H

#include "simulator/Program.h"
#include "simulator/TimingConfig.h"

#include <string>
#include <utility>
#include <vector>

namespace raptor::pim {

struct TimingOptions {
  bool throughput = false;
  /// Throughput mode: passes of each program at most (the interval is
  /// reported unconverged if they do not settle it).
  int64_t maxGenerations = 64;
  /// Instructions executed by all cores, loops and generations counted.
  int64_t maxInstructions = 4'000'000'000;
  /// Record the first pass of every core as a timeline (TimingResult::timeline).
  bool timeline = false;
};

/// What a core does over an interval of the first pass. Waits (for a peer
/// or an event) overlap the transfer or sync they hold up.
struct TimelineSpan {
  enum Kind { Matrix, Vector, Memory, Transfer, Wait };
  int64_t core = 0;
  Kind kind = Matrix;
  double startNs = 0, endNs = 0;
};

/// Where one core's time went (nanoseconds of unit occupancy; the units
/// overlap when the reorder buffer holds several instructions).
struct CoreTiming {
  int64_t instructions = 0;
  double finishNs = 0; // retirement of its last instruction
  double matrixNs = 0, vectorNs = 0;
  double memoryNs = 0;        // ld, st, lmv, lldi
  double communicationNs = 0; // send, recv, sync, wait, including the waits
  double blockedNs = 0;       // of which waiting for a peer or an event
  /// Dispatch and retirement of its unit instructions (pipelineNs each):
  /// with rob_size 1 they add to the units' time, as the periodic
  /// analysis and the scheduler price an instruction.
  double pipelineNs = 0;
};

/// One task's instructions on one core in the first pass
/// (Instruction::origin, an index of Program::operators; on its own core
/// its work, on its producers' cores the sends of its inputs): from the
/// start of the first to the end of the last, the sum of their execution
/// times (`busyNs`, waits included) and of that the waits for a peer or an
/// event (`blockedNs`). What the schedule's estimate of the task is
/// compared with.
struct TaskTiming {
  int64_t origin = -1, core = -1;
  int64_t instructions = 0;
  double startNs = 0, endNs = 0;
  double busyNs = 0, blockedNs = 0;
};

struct TimingResult {
  bool ok = false;
  std::string error; // a deadlock (who waits on what) or an exhausted budget
  /// The first inference: when the last core retires its last instruction
  /// of pass `Program::frames` (the first pass but for a skewed pipeline).
  double latencyNs = 0;
  /// Throughput mode: the mean interval of the last two two-generation
  /// windows, converged when they agree within 1%.
  double intervalNs = 0;
  bool converged = false;
  std::vector<double> generationEndNs; // chip-wide completion of each pass
  std::vector<CoreTiming> cores;
  int64_t globalRequests = 0;
  double globalBusyNs = 0; // global memory's service time, all requests
  /// With TimingOptions::timeline: each core's first pass, in time order per
  /// core and kind, spans of one kind at most 16 cycles apart joined.
  std::vector<TimelineSpan> timeline;
  /// Extension instructions (no pimsim-nn timing) timed as vector work.
  std::vector<std::pair<std::string, int64_t>> approximated;
  /// The first pass per task and core, in operator order (pairs without
  /// instructions left out).
  std::vector<TaskTiming> tasks;
  double seconds = 0;
};

TimingResult simulateTiming(const Program &program, const TimingConfig &config, const TimingOptions &options);

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_TIMINGSIMULATOR_H
