//===- QueueModel.h - Predicted execution of a placed schedule --*- C++ -*-===//
//
// The queue model of shared seed 002: a placed compute graph as the cores'
// programs would run it, one action list per core in the order the lowering
// emits (raptor-lower-to-pim appends, in one global task order, the sends
// and receives a task's inputs need, then its work), executed by an
// event-driven model:
//  - a core runs its actions in order, one at a time;
//  - a transfer is a rendezvous as the timing simulator runs it: the
//    receiver, on reaching its receive, sends a permission through its
//    network queue; the sender waits for it, reads the payload and goes on
//    while the payload leaves through its own network queue (one message
//    at a time per core); the receiver waits until delivery, then handles
//    and writes the payload;
//  - a signal is a one-byte message through the sender's network queue
//    that adds a token to a register of its peer; a wait blocks until the
//    register's delivered tokens suffice, as the timing simulator's
//    sync and wait;
//  - global-memory requests share one controller, served in predicted
//    arrival order (first come, first served; simultaneous arrivals by core
//    index, or the reverse as the sensitivity check);
//  - in throughput mode each core repeats its list (one generation per
//    inference) until the seed's rule holds: two adjacent two-generation
//    windows within 1%, at most 64 generations.
// It predicts what the timing simulator measures on the emitted programs at
// task granularity, cheaply enough to be the pipeline search's cost.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_SPATIAL_QUEUEMODEL_H
#define RAPTOR_PASSES_SPATIAL_QUEUEMODEL_H

#include "passes/spatial/EventGraph.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace raptor::spatial {

/// The phases of one transfer (TimingConfig's rules).
struct TransferParts {
  double permissionNs = 0; // the receiver's permission message
  double readNs = 0;       // the sender reads the payload
  double payloadNs = 0;    // the payload in the sender's network queue
  double tailNs = 0;       // the receiver handles and writes it
};

struct QueueAction {
  /// Signal: one token to event register `event` of core `peer` (a
  /// message, the core goes on); Wait: until `event` holds `count` tokens,
  /// which it takes.
  enum Kind : uint8_t { Compute, Send, Recv, Memory, Signal, Wait };
  Kind kind = Compute;
  /// Compute: the duration; memory: the controller's service.
  double ns = 0;
  /// Memory: the core's own time around the service (request and reply).
  double overheadNs = 0;
  int64_t transfer = -1; // send/recv: the pair both sides name
  int64_t task = -1;     // compute: the task it runs
  TransferParts parts;   // send/recv
  int64_t peer = -1;     // send/recv/signal: the other core
  int64_t event = -1;    // signal/wait: the event register
  int64_t count = 0;     // wait: the tokens it takes
};

struct QueueProgram {
  std::vector<std::vector<QueueAction>> cores;
  int64_t transfers = 0, tasks = 0;
  /// Pipelined: the most local memory a core holds for the iteration
  /// boundary (data it receives there or relays, and its own sources of
  /// later stages' data, kept until the iteration ends).
  int64_t boundaryBytes = 0;
  /// Pipelined: the most local memory a core is estimated to hold, its
  /// boundary data plus its work's values (workingBytes).
  int64_t localBytes = 0;
  /// Crossing::Skewed: the passes that make the first inference (the last
  /// level plus one), and per task the pass its first inference runs in
  /// (its level); otherwise 1 and none.
  unsigned frames = 1;
  std::vector<unsigned> firstFrame;
};

/// How data crosses from one pipeline stage to a later one:
///  - Interleaved: no stages, every transfer where its task needs it;
///  - Local: received before the core's first instruction into local
///    memory and sent after its last, relayed through a core of every
///    skipped level;
///  - Global: stored to a global-memory region of its own where the
///    interleaved send would be and loaded where the receive would be, the
///    region handed over by event tokens: the receiver signals FREE (its
///    previous iteration read everything) to each of its senders before its
///    first instruction, then waits READY from all of them; a sender waits
///    FREE from all of its receivers before its first such store and
///    signals READY to each after its last instruction. One region per
///    transfer suffices: a sender's iteration k overwrites only what its
///    receivers' iteration k - 1 has read. Data skipping levels is relayed
///    as in Local (a region per hop; the relay copies after its last
///    instruction, in chunks through its local memory), so that a sender
///    waits only for the next level's previous iteration.
///  - Skewed: every core runs one pass (frame) per interval, and a task of
///    level l (skewedLevels: per operator, one more than its producers'
///    when their data comes from another core) works in pass f on
///    inference f - l. Data read at a later level than it was computed at
///    is stored once, right after its producer's work, to a region of its
///    own, double-buffered (pass f stores to one bank and loads from the
///    other), and loaded where the reader needs it into local memory: data
///    skipping levels waits there in one slot per level (local copies at
///    each pass's start age it), not in relays. Tokens: each core starts a
///    pass with READY signals to its readers (its pass before stored all
///    it had to), waits READY from all of its senders, then signals FREE to
///    them (its pass before loaded all it had to, from the bank now to be
///    written); it waits FREE from all of its readers before its first
///    store. (The senders' tokens share a register: a sender signals its
///    next pass only after its store waited for this pass's FREE, so no
///    sender's two tokens meet in one wait.) Tokens pair passes of one
///    index and every wait is for other cores' pass starts, so any
///    placement works (the core graph may have cycles), and the cores run
///    in step, a pass about as long as the busiest core's work. A single pass computes
///    nothing: the first inference leaves the last level after `frames`
///    passes (QueueProgram::frames).
enum class Crossing : uint8_t { Interleaved, Local, Global, Skewed };

/// The chunk a relay copies `bytes` in: at most a quarter of local memory.
inline int64_t relayChunkBytes(int64_t bytes, int64_t localMemoryBytes) {
  return std::max<int64_t>(64, std::min(bytes, localMemoryBytes / 4 / 64 * 64));
}

/// The event registers of Crossing::Global's tokens.
inline constexpr int64_t kReadyEvent = 0, kFreeEvent = 1;
/// The event registers a core has (the timing simulator's): a mailbox
/// reader's pass from sender to sender (EventRegisters); it receives by
/// rendezvous from a sender none can be handed to.
inline constexpr int64_t kEventRegisters = 32;

/// The rows of a task or an edge that takes all of a map's rows (no row
/// copy): a range no map's rows exceed.
inline constexpr std::pair<int64_t, int64_t> kAllRows{0, std::numeric_limits<int64_t>::max()};

/// A placed graph: what programOf() turns into action lists.
struct PlacedGraph {
  unsigned cores = 0;
  std::vector<unsigned> core;   // per task
  std::vector<unsigned> order;  // the lowering's global task order (topological)
  std::vector<double> work;     // per task, ns
  struct Edge {
    unsigned from, to;
    int64_t bytes;
    /// The rows of the producer's output the reader reads (a row copy's
    /// windows; all: {0, max}).
    std::pair<int64_t, int64_t> rows = kAllRows;
  };
  std::vector<Edge> edges;
  /// Per task: whether it reads row ranges of its inputs (a copy of a
  /// replicated operator). Its inputs then travel on their own, as the
  /// lowering's copy cache is keyed by the rows, instead of once per
  /// producer and core.
  std::vector<bool> readsRows;
  /// Per task: it moves no data (a view or a concatenation: its readers
  /// read its producers' buffers). Crossing::Skewed stores and loads
  /// those, not the view's.
  std::vector<bool> passThrough;
  /// Per task: the rows of its output it computes (all: {0, max}; empty:
  /// every task all rows); per pass-through task, the factor from its
  /// operands' rows to its own (an upsampling's; 1 when it keeps them; 0
  /// when they do not map). A mailbox reader of some rows of a view loads
  /// from the producers holding those rows only, as the lowering does.
  std::vector<std::pair<int64_t, int64_t>> taskRows;
  std::vector<int64_t> rowScale;
  /// Per task: bytes read from and written to global memory (model inputs
  /// and outputs).
  std::vector<int64_t> loadBytes, storeBytes;
  /// Per task computing all rows of its operator: the bytes of its share of
  /// the results read by other tasks (what the mailbox and a skewed
  /// crossing store for its readers); 0 for a copy of some rows.
  std::vector<int64_t> wholeBytes;
  /// Per copy of some rows: the bytes of its rows of the results (a skewed
  /// crossing stores them once, all of them, for its readers); 0 for
  /// other tasks.
  std::vector<int64_t> rowBytes;
  /// Per task: the operator it is a lane of (its `group`). The lowering
  /// stores a model output once its operator's last lane (in `order`) is
  /// done, on that lane's core, gathering the other lanes' pieces there.
  std::vector<unsigned> group;
  /// Pipeline mode: the programs are cut into stages (PipelineStages) whose
  /// data crosses, as the lowering emits it (Crossing).
  Crossing crossing = Crossing::Interleaved;
  /// Latency mode (Crossing::Interleaved): data goes to other cores through
  /// global memory rather than by rendezvous. Each producer stores its
  /// output to a region of its own right after its work and signals every
  /// core reading it (an event register per sender); a reader waits for the
  /// signal and loads what it reads. A sender never waits for a receiver.
  bool mailbox = false;
  int64_t localMemoryBytes = 0; // per core (Crossing::Global's relay chunks)
  std::function<TransferParts(int64_t bytes, unsigned from, unsigned to)> transfer;
  /// Controller service, and the own time of one request of `core` (its
  /// messages to global memory and back, over its distance to it).
  std::function<double(int64_t bytes, bool write)> globalServiceNs;
  std::function<double(int64_t bytes, bool write, unsigned core)> globalOverheadNs;
  /// A local copy of `bytes` (Crossing::Skewed's first-in first-out slots).
  std::function<double(int64_t bytes)> localCopyNs;
};

/// The action lists of a placed graph: for each task in `order`, the sends
/// (on the producers' cores) and receives of inputs from other cores, one
/// per producer and destination core as the lowering's copy cache does
/// (one per input of a row-reading copy), its global loads, its work; after
/// the last lane of an operator with a model output, the other lanes'
/// pieces gathered on its core and one store of them all. Crossing::Local:
/// the receives of data from earlier stages first and the sends to later
/// ones last, each in the boundary's global order, relays included.
/// Crossing::Global: stores and loads in place of those transfers, with the
/// tokens (FREE signals to the senders in increasing core order and the
/// READY wait first, the FREE wait before the first store, the READY
/// signals in increasing core order last). Crossing::Skewed: the
/// producer's store after its work, the reader's load where the receive
/// would be (once per producer, core and level); first on every core the
/// READY signals to its readers, the READY wait, the FREE signals to its
/// senders and the copies that age the slots of data skipping levels; the
/// FREE wait before the first store. Mailbox: the producer's store (its
/// results when it computes all rows, else the most any reader reads of
/// it) and signals after its work, on the registers EventRegisters hands
/// out; the reader's wait (for the tokens up to the producer's on that
/// register) and load where the receive would be, or the rendezvous.
QueueProgram programOf(const PlacedGraph &graph);

struct QueueOptions {
  bool throughput = false;
  bool reverseTies = false;
  unsigned maxGenerations = 64;
};

struct QueueRun {
  /// "ok", "deadlock" (who waits: `reason`) or "unconverged".
  std::string status = "ok";
  std::string reason;
  double latencyNs = 0;  // completion of the first inference (generation `frames`)
  double intervalNs = 0; // throughput: the mean of the last two windows
  unsigned generations = 0;
  double maxMemoryWaitNs = 0;
  std::vector<double> generationEndNs;
  std::vector<double> taskStartNs; // first generation, per compute task
  std::vector<double> coreBusyNs;  // per core, one generation's actions
};

QueueRun runQueueModel(const QueueProgram &program, const QueueOptions &options);

/// The periodic diagnostic (EventGraph) of the action lists run as loop
/// bodies: each core's chain between its transfers, the receiver paying
/// permission, read, payload and handling after the rendezvous, the sender
/// its read.
PeriodicReport periodicOf(const QueueProgram &program);

} // namespace raptor::spatial

#endif // RAPTOR_PASSES_SPATIAL_QUEUEMODEL_H
