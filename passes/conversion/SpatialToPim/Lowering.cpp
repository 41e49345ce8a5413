//===- Lowering.cpp - Scheduled compute graphs to PIM programs --*- C++ -*-===//
#include "passes/conversion/SpatialToPim/Lowering.h"
#include "passes/spatial/CostModel.h"
#include "passes/spatial/QueueModel.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <functional>
#include <numeric>


using namespace mlir;

namespace raptor::pim {

using layout::Layout;

namespace {
/// The layout a model input has in global memory: channels-last when an
/// image operator reads it, also through the codecs that encode it (they
/// keep its order), else row-major. (A row-major image encoded for an
/// int8 convolution was copied to channels-last element by element: the
/// stem of ShuffleNetV2 int8 ran one local move per pixel and channel,
/// 72,616 per copy.)
Layout inputLayout(Value input, ArrayRef<int64_t> shape) {
  SmallVector<Value> reach{input};
  while (!reach.empty()) {
    Value v = reach.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<nn::ConvolutionOp, nn::MaxPool2dOp, nn::AvgPool2dOp, nn::AdaptiveAvgPool2dOp>(user))
        return channelsLast(shape);
      if (isa<codec::EncodeOp, codec::ObserveOp>(user))
        reach.push_back(user->getResult(0));
    }
  }
  return rowMajor(shape);
}

/// Pipeline mode's stages (spatial::PipelineStages) over the core graph of
/// the scheduled tasks: an edge per dependency between two cores, and both
/// ways between the lanes of an operator with a model output, whose pieces
/// are gathered on one of them in the middle of the iteration.
spatial::PipelineStages coreStages(func::FuncOp func, spatial::GraphOp graph) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.front())
    ops.push_back(&op);
  llvm::DenseSet<Operation *> producesOutput;
  for (Value v : func.front().getTerminator()->getOperands())
    if (Operation *def = v.getDefiningOp())
      producesOutput.insert(def);
  std::vector<std::pair<int64_t, int64_t>> edges;
  std::map<int64_t, SmallVector<int64_t>> outputLanes; // operator -> cores
  int64_t cores = 0;
  for (auto t : graph.getBody().getOps<spatial::TaskOp>()) {
    if (!t.getCore())
      return {};
    int64_t to = int64_t(*t.getCore());
    cores = std::max(cores, to + 1);
    for (Value dep : t.getDeps())
      if (auto d = dep.getDefiningOp<spatial::TaskOp>(); d && d.getCore())
        edges.push_back({int64_t(*d.getCore()), to});
    if (t.getSource() && int64_t(*t.getSource()) < int64_t(ops.size()) &&
        producesOutput.contains(ops[size_t(*t.getSource())]))
      outputLanes[int64_t(*t.getSource())].push_back(to);
  }
  for (auto &[op, lanes] : outputLanes)
    for (size_t i = 1; i < lanes.size(); ++i) {
      edges.push_back({lanes[0], lanes[i]});
      edges.push_back({lanes[i], lanes[0]});
    }
  return spatial::PipelineStages(cores, edges);
}

bool isView(Operation *op) {
  return isa<nn::ViewOp, nn::PermuteOp, nn::ExpandOp, nn::SliceOp, nn::SelectOp, nn::SplitWithSizesOp, nn::CloneOp,
             nn::FanOutOp, nn::KVCacheOp, nn::UpsampleNearest2dOp, codec::ObserveOp>(op);
}

/// Views and concatenations pass their producers' buffers on (readers read
/// those), but for a view the lowering computes by copying (a channel
/// shuffle's merge: spatial::gathersView, as the queue model prices it),
/// which reads them and mails its own result as any operator does.
bool passesOn(Operation *op) { return (isView(op) && !spatial::gathersView(op)) || isa<nn::CatOp>(op); }
} // namespace

Lowering::Lowering(func::FuncOp func, spatial::GraphOp graph, const TargetModel &target,
                   nn::ConstantEvaluator &constants, ChipOp chip)
    : target(target), constants(constants), known(func.front()), chip(chip), func(func), graph(graph) {
  // Calibration wrote each encoded subgraph's scale on its observation point.
  auto mode = graph->getAttrOfType<StringAttr>("mode");
  // `boundaries` without `crossing`: a schedule from before global crossings (local).
  auto boundaries = graph->getAttrOfType<BoolAttr>("boundaries");
  auto crossing = graph->getAttrOfType<StringAttr>("crossing");
  if (mode && mode == "pipeline" && boundaries && boundaries.getValue()) {
    skewed = crossing && crossing == "skewed";
    globalCrossing = crossing && crossing == "global";
    if (!skewed)
      stages = coreStages(func, graph);
  }
  if (auto transfers = graph->getAttrOfType<StringAttr>("transfers"))
    mailbox = transfers == "global" && !(mode && mode == "pipeline");
  if (mailbox)
    registers.emplace(unsigned(target.cores), spatial::kEventRegisters);
  if (auto bits = func->getAttrOfType<IntegerAttr>("raptor.fixed_point_bits"))
    fixedPointBits = bits.getInt();
  func.walk([&](codec::ObserveOp o) {
    if (auto scale = o->getAttrOfType<FloatAttr>("scale")) {
      codec::Encoding e{float(scale.getValueAsDouble()), 0};
      if (auto zero = o->getAttrOfType<IntegerAttr>("zero_point"))
        e.zero = int32_t(zero.getInt());
      subgraphEncodings[o.getSemantics().getId()] = e;
    }
  });
}

CoreEmitter &Lowering::emitter(int64_t id) {
  auto &slot = emitters[id];
  if (!slot) {
    OpBuilder b(chip.getBody());
    b.setInsertionPointToEnd(&chip.getBody().front());
    auto op = CoreOp::create(b, chip.getLoc(), id);
    op.getBody().emplaceBlock();
    slot = std::make_unique<CoreEmitter>(op, target.localMemoryBytes);
    slot->memory.bestFit = bestFit;
    slot->integerOnly = integerOnly();
    if (skewed)
      slot->beginSkewed();
  }
  // Instructions carry their task ("task <op> <name>"): per-operator counts.
  slot->loc = task ? Location(NameLoc::get(StringAttr::get(chip.getContext(), "task " + task.getOp().str() + " " +
                                                                                 task.getName().str()),
                                           task.getLoc()))
                   : Location(chip.getLoc());
  return *slot;
}

std::string Lowering::taskName() { return task ? task.getName().str() : std::string("?"); }

InFlightDiagnostic Lowering::taskError() {
  InFlightDiagnostic d = task ? task.emitError() : chip.emitError();
  d << "task '" << taskName() << "' on core " << core << ": ";
  return d;
}

int64_t Lowering::mvmSlack() const { return 4 * int64_t(std::max(target.crossbarRows, target.crossbarCols)); }

FailureOr<int> Lowering::allocate(int64_t on, int64_t bytes) {
  CoreEmitter &e = emitter(on);
  std::optional<int64_t> address = e.memory.allocate(bytes + mvmSlack());
  // The caches of copies are an economy, not a need: when memory is full,
  // those no task reads any more make room (U-Net's pipelines packed a
  // window of a 33 MB upsampled map per reader and kept them all).
  while (!address && evictCaches(on))
    address = e.memory.allocate(bytes + mvmSlack());
  if (!address) {
    outOfMemory = true;
    taskError() << "core " << on << " needs " << bytes << " " << kLocalMemoryMarker << " ("
                << e.memory.inUse() << " of " << e.memory.size()
                << " in use); choose a target with more local memory (memory.local_bytes)" << memoryHint();
    return failure();
  }
  Buffer b;
  b.core = on;
  b.address = *address;
  b.bytes = bytes;
  b.level = readingLevel;
  b.madeInTask = tasksLowered;
  buffers.push_back(b);
  return int(buffers.size() - 1);
}

bool Lowering::evictCaches(int64_t on) {
  // Only what the caches alone hold (one reference), made by an earlier
  // task (the current one may be reading what it just made), and not a
  // boundary's pinned data.
  auto evictable = [&](int id) {
    const Buffer &c = buffers[size_t(id)];
    return c.core == on && c.refs == 1 && !c.freed && !c.pinned && c.madeInTask < tasksLowered;
  };
  bool freed = false;
  auto evictFrom = [&](auto &cache) {
    for (auto it = cache.begin(); it != cache.end();) {
      if (evictable(it->second)) {
        release(it->second);
        it = cache.erase(it);
        freed = true;
      } else {
        ++it;
      }
    }
  };
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].freed)
      continue;
    evictFrom(buffers[i].copies);
    evictFrom(buffers[i].packs);
    evictFrom(buffers[i].gathers);
  }
  return freed;
}

void Lowering::forgetCopy(const Piece &source, const Piece &local, size_t made) {
  int id = local.buffer;
  if (size_t(id) < made || id == source.buffer || buffers[id].refs != 1 || buffers[id].pinned ||
      buffers[id].core != core)
    return;
  // The caches localize fills: the source's, its packs' (a sparse view
  // packed on its core first), and those of buffers made since.
  SmallVector<int> holders{source.buffer};
  for (auto &[key, pack] : buffers[source.buffer].packs)
    holders.push_back(pack);
  for (size_t i = made; i < buffers.size(); ++i)
    holders.push_back(int(i));
  auto drop = [&](auto &cache) {
    for (auto it = cache.begin(); it != cache.end(); ++it)
      if (it->second == id) {
        cache.erase(it);
        return true;
      }
    return false;
  };
  for (int holder : holders)
    if (drop(buffers[holder].copies) || drop(buffers[holder].gathers)) {
      release(id);
      return;
    }
}

FailureOr<int> Lowering::scratch(int64_t bytes) {
  FailureOr<int> b = allocate(core, bytes);
  if (succeeded(b)) {
    buffers[*b].refs = 1;
    taskBuffers.push_back(*b);
  }
  return b;
}

void Lowering::temporary(int id) {
  ++buffers[id].refs;
  taskBuffers.push_back(id);
}

void Lowering::release(int id) {
  Buffer &b = buffers[id];
  if (--b.refs > 0 || b.freed)
    return;
  b.freed = true;
  if (b.core >= 0 && !b.pinned)
    emitter(b.core).memory.release(b.address);
  for (auto &[key, copy] : b.copies)
    release(copy);
  for (auto &[key, pack] : b.packs)
    release(pack);
  for (auto &[key, gather] : b.gathers)
    release(gather);
  for (auto &[key, slots] : b.aged)
    release(slots);
}

void Lowering::retain(const TensorValue &v) {
  for (const Piece &p : v.pieces)
    ++buffers[p.buffer].refs;
}

void Lowering::release(const TensorValue &v) {
  for (const Piece &p : v.pieces)
    release(p.buffer);
}

void Lowering::define(Value v, ArrayRef<int64_t> shape, Piece piece) {
  TensorValue value;
  value.shape.assign(shape.begin(), shape.end());
  value.pieces.push_back(std::move(piece));
  define(v, std::move(value));
}

void Lowering::definePiece(Value v, Piece piece) {
  auto it = values.find(v);
  TensorValue value;
  if (it != values.end())
    value = it->second;
  value.shape = shapeOf(v);
  value.pieces.push_back(std::move(piece));
  define(v, std::move(value));
}

void Lowering::defineResult(Value v, TensorValue value) {
  if (!task || !task.getRows())
    return define(v, std::move(value));
  for (Piece &p : value.pieces)
    definePiece(v, std::move(p));
}

void Lowering::define(Value v, TensorValue value) {
  retain(value);
  auto [it, inserted] = values.try_emplace(v, std::move(value));
  if (!inserted) {
    release(it->second);
    it->second = std::move(value);
  }
  if (usesLeft.lookup(v) == 0) {
    release(values[v]);
    values.erase(v);
  }
}

int64_t Lowering::globalAlloc(int64_t bytes) {
  int64_t address = globalTop;
  globalTop += (bytes + 63) / 64 * 64;
  return address;
}

FailureOr<Piece> Lowering::packed(const Piece &p) {
  auto key = std::make_pair(p.offset, p.layout.str());
  // One flat mode per dimension, in the view's storage order: any box of
  // it is a view (compactLike would keep an upsampled row mode nested).
  Piece q = p;
  q.offset = 0;
  q.layout = storageOrder(p, p.sizes);
  if (auto it = buffers[p.buffer].packs.find(key); it != buffers[p.buffer].packs.end()) {
    q.buffer = it->second; // another reader of the same view packed it already
    return q;
  }
  int64_t saved = core;
  core = std::max<int64_t>(buffers[p.buffer].core, 0);
  FailureOr<Piece> out = fresh(p.sizes, q.layout, typeOf(p));
  if (succeeded(out)) // made where and when its source is: of its inference
    buffers[out->buffer].level = buffers[p.buffer].level;
  if (failed(out) || failed(copy(operand(*out), operand(p)))) {
    core = saved;
    return failure();
  }
  core = saved;
  buffers[out->buffer].refs = 1; // held by the source's pack table, freed with it
  buffers[p.buffer].packs[key] = out->buffer;
  q.buffer = out->buffer;
  q.layout = out->layout;
  return q;
}

FailureOr<std::optional<Piece>> Lowering::gathered(const Piece &p, int64_t on, std::optional<int64_t> base) {
  // The longest contiguous prefix of the linear coordinates (colexicographic
  // over the leaves) in a layout: its leaves' strides are the running
  // products of the shapes before them.
  auto contiguous = [](const Layout &l) {
    std::vector<int64_t> shape = l.shape.flatten(), stride = l.stride.flatten();
    int64_t run = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 1)
        continue;
      if (stride[i] != run)
        break;
      run *= shape[i];
    }
    return run;
  };
  Layout compact = storageOrder(p, p.sizes);
  // Both layouts enumerate the coordinates in one order: a run contiguous
  // in both divides both prefixes.
  int64_t run = std::gcd(contiguous(p.layout), contiguous(compact));
  int64_t elements = p.layout.size(), loads = elements / run;
  constexpr int64_t kMostLoads = 1024; // beyond: one load of the whole extent
  if (loads > kMostLoads)
    return std::optional<Piece>();
  Piece q = p;
  q.offset = 0;
  q.layout = compact;
  auto key = std::make_tuple(on, p.offset, p.layout.str());
  if (auto it = buffers[p.buffer].gathers.find(key); it != buffers[p.buffer].gathers.end()) {
    q.buffer = it->second;
    return std::optional<Piece>(q);
  }
  int64_t eb = bytesOf(buffers[p.buffer].type);
  FailureOr<int> dst = allocate(on, eb * elements);
  if (failed(dst))
    return failure();
  buffers[*dst].refs = 1; // held by the source's gather table
  buffers[*dst].type = buffers[p.buffer].type;
  int64_t global = base ? *base : buffers[p.buffer].address, local = buffers[*dst].address;
  for (int64_t i = 0; i < elements; i += run)
    emitter(on).ld(Address::at(local + eb * compact(i)), global + eb * (p.offset + p.layout(i)), eb * run);
  buffers[p.buffer].gathers[key] = *dst;
  q.buffer = *dst;
  return std::optional<Piece>(q);
}

bool Lowering::mail(int buffer, int64_t reader) {
  Buffer &b = buffers[buffer];
  if (b.signals.count(reader) || b.known.count(reader))
    return true;
  if (b.storedAt) {
    if (registers->knows(unsigned(reader), unsigned(b.core), b.storeClock)) {
      b.known.insert(reader);
      return true;
    }
    // The signal goes back right after the store, if it follows the
    // producer's earlier signals on the register (or sits at the same
    // store: any of those tokens says all of the task's stores are done).
    Operation *store = b.storedAt->after;
    std::optional<int64_t> event =
        registers->registerFor(unsigned(reader), unsigned(b.core), &b.storeClock, /*peek=*/true);
    auto last = event ? lastSignals.find({reader, *event}) : lastSignals.end();
    if (event && (last == lastSignals.end() || last->second.core != b.core || last->second.store == store ||
                  last->second.sync->isBeforeInBlock(store))) {
      registers->registerFor(unsigned(reader), unsigned(b.core), &b.storeClock);
      emitter(b.core).emitAt(*b.storedAt, [&] { emitter(b.core).sync(reader, *event); });
      lastSignals[{reader, *event}] = {b.core, store->getNextNode(), store};
      b.signals[reader] = {*event, registers->signal(unsigned(b.core), unsigned(reader), *event, &b.storeClock)};
      return true;
    }
  }
  std::optional<int64_t> event = registers->registerFor(unsigned(reader), unsigned(b.core));
  if (!event)
    return false;
  // Where the sender's program is now (a reader the graph did not name,
  // or one no register was free for right after the store).
  if (b.mailbox < 0) {
    b.mailbox = globalAlloc(b.bytes);
    emitter(b.core).st(b.mailbox, Address::at(b.address), b.bytes);
  }
  // The signals on one register arrive in its sender's program order: the
  // k-th says the k-th buffer stored for that reader is in place (the
  // store has completed before the signal leaves).
  emitter(b.core).sync(reader, *event);
  lastSignals[{reader, *event}] = {b.core, emitter(b.core).lastOp(), nullptr};
  b.signals[reader] = {*event, registers->signal(unsigned(b.core), unsigned(reader), *event)};
  return true;
}

void Lowering::mailResults(Operation *op, size_t firstNewBuffer) {
  auto readers = readerCores.find(task);
  if (readers == readerCores.end())
    return;
  if (llvm::all_of(readers->second, [&](int64_t reader) { return reader == core; }))
    return;
  // One store event for the task (as the queue model has it): the signals
  // put back go after all of its stores.
  SmallVector<int> stored;
  for (Value result : op->getResults()) {
    auto it = values.find(result);
    if (it == values.end())
      continue;
    for (const Piece &p : it->second.pieces) {
      Buffer &b = buffers[p.buffer];
      if (size_t(p.buffer) < firstNewBuffer || b.core != core || b.mailbox >= 0)
        continue;
      b.mailbox = globalAlloc(b.bytes);
      here().st(b.mailbox, Address::at(b.address), b.bytes);
      stored.push_back(p.buffer);
    }
  }
  if (stored.empty())
    return;
  CoreEmitter::Bookmark at = here().mark();
  spatial::EventRegisters::Clock clock = registers->stored(unsigned(core));
  for (int buffer : stored) {
    buffers[buffer].storedAt = at;
    buffers[buffer].storeClock = clock;
  }
}

void Lowering::awaitMail(int buffer, int64_t on) {
  auto it = buffers[buffer].signals.find(on);
  if (it == buffers[buffer].signals.end())
    return; // known stored
  auto [event, number] = it->second;
  if (int64_t tokens = registers->waitFor(unsigned(on), event, number))
    emitter(on).wait(event, tokens);
}

FailureOr<Piece> Lowering::localize(const Piece &p, int64_t on) {
  Buffer &source = buffers[p.buffer];
  int64_t lo = p.offset, hi = p.offset + p.layout.cosize();
  if (skewed && source.core >= 0 && (source.core != on || source.level < readingLevel)) {
    // Computed at an earlier level (or elsewhere): aged in slots on `on`.
    auto key = std::make_tuple(on, lo, hi, readingLevel);
    int slots;
    if (auto it = source.aged.find(key); it != source.aged.end()) {
      slots = it->second;
    } else {
      FailureOr<int> made = skewedCopy(p.buffer, lo, hi, on);
      if (failed(made))
        return failure();
      slots = *made;
      buffers[p.buffer].aged[key] = slots;
    }
    Piece q = p;
    q.buffer = slots;
    q.offset = p.offset - lo;
    return q;
  }
  if (source.core == on)
    return p;
  int64_t elements = p.layout.size();
  if (mailbox && source.core >= 0 && hi - lo > 2 * elements + 64 && mail(p.buffer, on)) {
    // Stored for this reader already: load the runs from its region.
    awaitMail(p.buffer, on);
    FailureOr<std::optional<Piece>> q = gathered(p, on, buffers[p.buffer].mailbox);
    if (failed(q))
      return failure();
    if (*q)
      return **q;
  }
  if (source.core >= 0 && hi - lo > 2 * elements + 64) {
    // A sparse view: pack it on its core first rather than send the gaps.
    FailureOr<Piece> q = packed(p);
    if (failed(q))
      return failure();
    return localize(*q, on);
  }
  if (source.core < 0 && hi - lo > 2 * elements + 64) {
    // From global memory: load the runs, not the gaps between them (every
    // copy of a first layer would load most of the input through global
    // memory's one controller).
    FailureOr<std::optional<Piece>> q = gathered(p, on);
    if (failed(q))
      return failure();
    if (*q)
      return **q;
  }
  auto key = std::make_tuple(on, lo, hi);
  auto it = source.copies.find(key);
  int copyId;
  int64_t eb = bytesOf(source.type);
  // Pipeline mode: data from an earlier stage crosses at the iteration
  // boundary (spatial::PipelineStages), into memory no instruction of the
  // iteration touches, from a source kept until the iteration ends; or
  // through a global-memory region where it is needed (spatial::Crossing).
  bool boundary = source.core >= 0 && stages.crosses(source.core, on);
  if (it != source.copies.end()) {
    copyId = it->second;
  } else if (boundary && skewed) {
    FailureOr<int> slots = skewedCopy(p.buffer, lo, hi, on);
    if (failed(slots))
      return failure();
    copyId = *slots;
    buffers[p.buffer].copies[key] = copyId;
  } else if (boundary && !globalCrossing) {
    int64_t bytes = eb * (hi - lo);
    buffers[p.buffer].pinned = true;
    // Relayed through a core of every level between (PipelineStages::route).
    int64_t fromCore = source.core, fromAddress = buffers[p.buffer].address + eb * lo;
    std::vector<int64_t> chain = stages.route(source.core, on);
    // Relays short of memory: straight to the consumer (pipelining less).
    int64_t reserved = bytes + mvmSlack();
    if (llvm::any_of(llvm::ArrayRef(chain).drop_back(),
                     [&](int64_t hop) { return !emitter(hop).memory.canReserveUntouched(reserved); }))
      chain = {on};
    std::optional<int64_t> address;
    for (int64_t hop : chain) {
      // With allocate()'s slack: an MVM may read or write past the buffer's end.
      address = emitter(hop).memory.reserveUntouched(reserved);
      if (!address) {
        taskError() << "core " << hop << " has no room left for " << bytes
                    << " bytes received at the start of its pipelined iteration ("
                    << emitter(hop).memory.peak() << " of " << emitter(hop).memory.size()
                    << " bytes reserved or used); choose a target with more local memory (memory.local_bytes)"
                    << memoryHint();
        return failure();
      }
      int64_t tag = nextTag++;
      std::pair<int64_t, int64_t> order{stages.stageOf(fromCore), tag};
      emitter(fromCore).boundarySend(fromAddress, hop, bytes, tag, order);
      emitter(hop).boundaryRecv(*address, fromCore, bytes, tag, order);
      fromCore = hop;
      fromAddress = *address;
    }
    Buffer dst;
    dst.core = on;
    dst.address = *address;
    dst.bytes = bytes;
    dst.type = source.type;
    dst.refs = 1; // held by the source's copy table
    dst.pinned = true;
    buffers.push_back(dst);
    copyId = int(buffers.size() - 1);
    buffers[p.buffer].copies[key] = copyId;
  } else {
    FailureOr<int> dst = allocate(on, eb * (hi - lo));
    if (failed(dst))
      return failure();
    copyId = *dst;
    buffers[copyId].refs = 1; // held by the source's copy table
    buffers[copyId].type = buffers[p.buffer].type;
    Buffer &src = buffers[p.buffer];
    int64_t bytes = eb * (hi - lo);
    if (src.core < 0) {
      emitter(on).ld(Address::at(buffers[copyId].address), src.address + eb * lo, bytes);
    } else if (boundary) {
      // A region per level, relayed through a core of every skipped one:
      // the data's readers of all later levels share the chain (one store
      // per level; global memory's one controller serves every byte).
      std::vector<std::pair<int64_t, int64_t>> &chain = src.regions[{lo, hi}];
      if (chain.empty()) {
        chain.push_back({globalAlloc(bytes), src.core});
        emitter(src.core).boundaryStore(chain.back().first, Address::at(src.address + eb * lo), bytes);
      }
      int64_t levels = stages.levelOf(on) - stages.levelOf(src.core);
      if (levels < 1) // (the stages join at the tasks' dependencies; a view's readers read its producers)
        return taskError() << "reads data of core " << src.core << " (pipeline stage " << stages.stageOf(src.core)
                           << ") on core " << on << " (stage " << stages.stageOf(on)
                           << ") of the same level, through a view: a global-memory crossing has no region "
                              "between them; compile with --crossing skewed or local";
      size_t level = size_t(levels);
      if (chain.size() < level) {
        std::vector<int64_t> hops = stages.route(chain.back().second, on); // a relay per level, then `on`
        for (int64_t hop : llvm::ArrayRef(hops).drop_back()) {
          auto [region, writer] = chain.back();
          int64_t copy = globalAlloc(bytes);
          emitter(hop).boundaryRelay(region, copy, bytes, writer);
          emitter(writer).handOver(hop);
          chain.push_back({copy, hop});
        }
      }
      if (chain.size() < level)
        return taskError() << "found no relay of every pipeline level between cores " << src.core << " and "
                           << on;
      auto [region, writer] = chain[level - 1];
      emitter(writer).handOver(on);
      emitter(on).boundaryLoad(Address::at(buffers[copyId].address), region, bytes, writer);
    } else {
      // Within a stage only: a transfer back to an earlier stage would wait
      // for a receiver that waits at its boundary, a deadlock.
      if (!stages.empty() && stages.stageOf(src.core) != stages.stageOf(on)) {
        taskError() << "data from core " << src.core << " (pipeline stage " << stages.stageOf(src.core)
                    << ") to core " << on << " (stage " << stages.stageOf(on)
                    << ") runs against the pipeline's stage order";
        return failure();
      }
      if (mailbox && mail(p.buffer, on)) {
        awaitMail(p.buffer, on);
        emitter(on).ld(Address::at(buffers[copyId].address), buffers[p.buffer].mailbox + eb * lo, bytes);
      } else {
        int64_t tag = nextTag++;
        emitter(src.core).send(Address::at(src.address + eb * lo), on, bytes, tag);
        emitter(on).recv(Address::at(buffers[copyId].address), src.core, bytes, tag);
        if (registers)
          registers->rendezvous(unsigned(src.core), unsigned(on));
      }
    }
    buffers[p.buffer].copies[key] = copyId;
  }
  Piece q = p;
  q.buffer = copyId;
  q.offset = p.offset - lo;
  return q;
}

FailureOr<int> Lowering::skewedCopy(int buffer, int64_t lo, int64_t hi, int64_t on) {
  // The producer stores the whole buffer once, where its program is now
  // (its reader being lowered), to a region every reader loads from.
  Buffer &source = buffers[buffer];
  int64_t eb = bytesOf(source.type);
  if (source.mailbox < 0) {
    source.mailbox = globalAlloc(source.bytes);
    emitter(source.core).boundaryStore(source.mailbox, Address::at(source.address), source.bytes);
  }
  int64_t skipped = readingLevel - source.level;
  if (skipped < 1)
    return taskError() << "reads data of core " << source.core << " computed at pipeline level " << source.level
                       << " at level " << readingLevel
                       << ": data crossing cores must go to a later level (the levels miss a dependency)";
  emitter(source.core).handOver(on);
  // One slot per level crossed, above every address the pass touches
  // (with allocate()'s slack: an MVM may read past a buffer's end).
  int64_t bytes = eb * (hi - lo);
  std::vector<int64_t> slots;
  for (int64_t k = 0; k < skipped; ++k) {
    std::optional<int64_t> address = emitter(on).memory.reserveUntouched(bytes + mvmSlack());
    if (!address)
      return taskError() << "core " << on << " has no room left for " << bytes
                         << " bytes loaded at the start of its pipelined pass (" << emitter(on).memory.peak()
                         << " of " << emitter(on).memory.size()
                         << " bytes reserved or used); choose a target with more local memory (memory.local_bytes)"
                    << memoryHint();
    slots.push_back(*address);
  }
  emitter(on).skewedLoad(slots, source.mailbox + eb * lo, bytes, source.core);
  Buffer dst;
  dst.core = on;
  dst.address = slots.back();
  dst.bytes = bytes;
  dst.type = buffers[buffer].type;
  dst.refs = 1; // held by the source's table of aged copies
  dst.pinned = true;
  dst.level = readingLevel;
  buffers.push_back(dst);
  return int(buffers.size() - 1);
}

FailureOr<TensorValue> Lowering::localValue(Value v) {
  auto it = values.find(v);
  if (it == values.end()) {
    emitError(v.getLoc()) << "raptor-lower-to-pim: task '" << taskName()
                          << "' reads a value no earlier task produced (the schedule is not in dependency order)";
    return failure();
  }
  TensorValue out = it->second;
  for (Piece &p : out.pieces) {
    FailureOr<Piece> local = localize(p, core);
    if (failed(local))
      return failure();
    p = *local;
  }
  return out;
}

FailureOr<Piece> Lowering::fresh(ArrayRef<int64_t> shape, const Layout &l, std::optional<ElementType> elements) {
  ElementType type = elements.value_or(realType());
  FailureOr<int> b = allocate(core, int64_t(bytesOf(type)) * l.cosize());
  if (failed(b))
    return failure();
  buffers[*b].type = type;
  Piece p;
  p.origin.assign(shape.size(), 0);
  p.sizes.assign(shape.begin(), shape.end());
  p.buffer = *b;
  p.layout = l;
  return p;
}

LogicalResult Lowering::kernel(ArrayRef<KernelOperand> operands,
                               function_ref<void(ArrayRef<Address>, int64_t)> body) {
  std::optional<KernelPlan> plan =
      planKernel(operands, [&](std::vector<float> v) { return placeConstant(std::move(v)); });
  if (!plan) {
    std::string text;
    for (const KernelOperand &o : operands)
      text += " " + o.layout.str();
    taskError() << "operand layouts without a common refinement:" << text;
    return failure();
  }
  CoreEmitter &e = here();
  Operation *before = e.lastOp();
  Block *block = e.block();
  emitKernel(e, *plan, body);
  // The IR shows each kernel's data movement: the operands' layouts (element
  // offsets over the kernel's domain) on its first loop or instruction.
  SmallVector<Attribute> layouts;
  for (const KernelOperand &o : operands)
    layouts.push_back(layout::LayoutAttr::get(chip.getContext(), o.layout));
  for (Operation *op = before ? before->getNextNode() : &block->front(); op; op = op->getNextNode())
    if (!op->hasTrait<ScalarUnit>() && !isa<SetbwOp>(op)) { // (setbw, as scalars, runs at decode)
      op->setAttr("access", ArrayAttr::get(chip.getContext(), layouts));
      break;
    }
  return success();
}

LogicalResult Lowering::copy(const KernelOperand &dst, const KernelOperand &src, bool accumulate) {
  CoreEmitter &e = here();
  if (dst.type != src.type) {
    taskError() << "copies " << nameOf(src.type) << " elements into an " << nameOf(dst.type)
                << " buffer (a codec is missing between them)";
    return failure();
  }
  if (accumulate)
    return kernel({dst, dst, src}, [&](ArrayRef<Address> a, int64_t run) {
      e.vector(Opcode::Vvadd, a[0], a[1], a[2], run, dst.type);
    });
  int64_t eb = bytesOf(dst.type);
  return kernel({dst, src}, [&](ArrayRef<Address> a, int64_t run) { e.lmv(a[0], a[1], eb * run); });
}

FailureOr<Piece> Lowering::materialize(Value v, function_ref<bool(const Piece &)> accept, const Layout &want) {
  FailureOr<TensorValue> value = localValue(v);
  if (failed(value))
    return failure();
  return materialize(*value, accept, want);
}

FailureOr<std::pair<int64_t, int64_t>> Lowering::rowsOfTask(int64_t rows) {
  auto range = task.getRows();
  if (!range)
    return std::pair<int64_t, int64_t>{0, rows};
  if ((*range)[1] > rows)
    return taskError() << "computes rows [" << (*range)[0] << ", " << (*range)[1] << ") of an output with " << rows;
  return std::pair<int64_t, int64_t>{(*range)[0], (*range)[1]};
}

FailureOr<Lowering::WindowRows> Lowering::windowRowsOfTask(int64_t outputRows, int64_t stride, int64_t kernel,
                                                           int64_t dilation) {
  FailureOr<std::pair<int64_t, int64_t>> rows = rowsOfTask(outputRows);
  if (failed(rows))
    return failure();
  WindowRows w{rows->first, rows->second, std::nullopt};
  if (task.getRows())
    w.paddedRows = std::pair<int64_t, int64_t>{w.first * stride, (w.last - 1) * stride + (kernel - 1) * dilation + 1};
  return w;
}

FailureOr<Piece> Lowering::materializeAs(Value v, const Layout &layout) {
  return materialize(v, [&](const Piece &p) { return sameLayout(p.layout, layout); }, layout);
}

FailureOr<Piece> Lowering::materializeAny(Value v) {
  auto it = values.find(v);
  if (it == values.end())
    return taskError() << "reads a value no earlier task produced";
  Layout want = storageOrder(it->second.pieces.front(), it->second.shape);
  return materialize(v, [](const Piece &) { return true; }, want);
}

FailureOr<Piece> Lowering::materialize(const TensorValue &value, function_ref<bool(const Piece &)> accept,
                                       const Layout &want) {
  std::vector<Piece> local;
  for (const Piece &p : value.pieces) {
    FailureOr<Piece> q = localize(p, core);
    if (failed(q))
      return failure();
    local.push_back(*q);
  }
  if (value.whole() && accept(local.front()))
    return local.front();
  FailureOr<Piece> out = fresh(value.shape, want, typeOf(value));
  if (failed(out))
    return failure();
  ++buffers[out->buffer].refs; // the caller's: freed with the task unless defined
  taskBuffers.push_back(out->buffer);
  SmallVector<int64_t, 4> origin(value.shape.size(), 0);
  if (failed(place(value, *out, origin)))
    return failure();
  return *out;
}

LogicalResult Lowering::place(const TensorValue &value, const Piece &into, ArrayRef<int64_t> origin) {
  std::vector<std::pair<SmallVector<int64_t, 4>, SmallVector<int64_t, 4>>> seen;
  for (const Piece &piece : value.pieces) {
    size_t made = buffers.size();
    FailureOr<Piece> local = localize(piece, core);
    if (failed(local))
      return failure();
    // Partial sums are added where an earlier piece covered the same box.
    std::optional<SmallVector<Piece, 1>> parts = alignedPartial(*local, value.pieces);
    if (!parts)
      return taskError() << "cannot align the boxes of partial sums to add them";
    for (const Piece &p : *parts) {
      std::optional<Piece> box = into;
      for (size_t d = 0; d < p.sizes.size() && box; ++d)
        box = sliced(*box, d, origin[d] + p.origin[d], p.sizes[d], 1);
      if (!box)
        return taskError() << "cannot address a box of layout " << into.layout.str();
      auto key = std::make_pair(p.origin, p.sizes);
      bool again = llvm::is_contained(seen, key);
      if (failed(copy(operand(*box), operand(p), again)))
        return failure();
      if (!again)
        seen.push_back(key);
    }
    // A reader of many lanes holds one lane's partial sums at a time.
    if (local->partial)
      forgetCopy(piece, *local, made);
  }
  return success();
}

FailureOr<std::optional<TensorValue>> Lowering::rangeOfValue(Value v, size_t dim, int64_t begin, int64_t end) {
  auto it = values.find(v);
  if (it == values.end())
    return taskError() << "reads a value no earlier task produced";
  if (std::optional<TensorValue> part = rangeOf(it->second, dim, begin, end))
    return part;
  // A piece that needs more than a few runs (rangeOf) is packed on its
  // core: the pack runs there late, when the reader is lowered, and holds
  // every later task of that core behind it.
  TensorValue compact = it->second;
  for (Piece &p : compact.pieces)
    if (buffers[p.buffer].core >= 0 && !rangeOf(TensorValue{compact.shape, {p}}, dim, begin, end)) {
      FailureOr<Piece> q = packed(p);
      if (failed(q))
        return failure();
      p = *q;
    }
  return rangeOf(compact, dim, begin, end);
}

FailureOr<Piece> Lowering::padded(Value v, ArrayRef<int64_t> before, ArrayRef<int64_t> after, uint8_t fill,
                                  std::optional<std::pair<int64_t, int64_t>> rows) {
  SmallVector<int64_t, 4> shape = shapeOf(v);
  int64_t C = shape[1], H = shape[2], Hp = H + before[0] + after[0], Wp = shape[3] + before[1] + after[1];
  auto it = values.find(v);
  if (it == values.end())
    return taskError() << "reads a value no earlier task produced";
  bool none = llvm::all_of(before, [](int64_t p) { return p == 0; }) &&
              llvm::all_of(after, [](int64_t p) { return p == 0; });
  // The padded rows built, and the input rows they hold.
  int64_t first = rows ? std::max<int64_t>(rows->first, 0) : 0, last = rows ? std::min(rows->second, Hp) : Hp;
  int64_t in0 = std::clamp<int64_t>(first - before[0], 0, H), in1 = std::clamp<int64_t>(last - before[0], 0, H);
  std::optional<TensorValue> part = it->second;
  if (first > 0 || last < Hp) {
    FailureOr<std::optional<TensorValue>> range = rangeOfValue(v, 2, in0, in1);
    if (failed(range))
      return failure();
    part = *range;
  }
  if (!part) // the rows are no view of the value's pieces: build them all
    return padded(v, before, after, fill);
  Layout l = channelsLast({shape[0], C, last - first, Wp});
  if (none && first == 0 && last == Hp)
    return materializeAs(v, l);
  ElementType type = typeOf(it->second);
  int64_t eb = bytesOf(type);
  FailureOr<int> buffer = scratch(eb * l.cosize());
  if (failed(buffer))
    return failure();
  buffers[*buffer].type = type;
  Piece out;
  out.origin = {0, 0, first, 0};
  out.sizes = {shape[0], C, last - first, Wp};
  out.buffer = *buffer;
  out.layout = l;
  if (!none)
    here().lldi(addressOf(out), fill, eb * l.cosize());
  if (failed(place(*part, out, {0, 0, in0 + before[0] - first, before[1]})))
    return failure();
  return out;
}

FailureOr<const nn::HostTensor *> Lowering::constantOf(Value v) { return constants.evaluate(v); }

namespace {
/// What identifies data by content: a hash of its bytes and element type,
/// and its size.
std::pair<uint64_t, size_t> contentKey(ArrayRef<char> bytes, DenseElementsAttr value) {
  uint64_t hash = llvm::hash_combine(llvm::hash_value(llvm::StringRef(bytes.data(), bytes.size())),
                                     value.getElementType().getIntOrFloatBitWidth(),
                                     value.getElementType().isInteger());
  return {hash, bytes.size()};
}
} // namespace

int64_t Lowering::globalData(ArrayRef<char> bytes, DenseElementsAttr value) {
  auto key = contentKey(bytes, value);
  auto it = dataByContent.find(key);
  if (it == dataByContent.end()) {
    int64_t address = globalAlloc(int64_t(bytes.size()));
    std::string name = "c" + std::to_string(nextData++);
    OpBuilder b(chip.getBody());
    b.setInsertionPointToStart(&chip.getBody().front());
    DataOp::create(b, chip.getLoc(), name, address, value);
    it = dataByContent.emplace(key, std::make_pair(address, name)).first;
  }
  return it->second.first;
}

/// The shortest prefix of `bytes` of at least kLoadChunk bytes that repeats
/// through all of them (a divisor of the size), else the size.
static int64_t repeatingPrefix(ArrayRef<char> bytes) {
  constexpr int64_t kLoadChunk = 256;
  int64_t n = int64_t(bytes.size());
  if (n <= 2 * kLoadChunk)
    return n;
  // The smallest period by the prefix function (Knuth-Morris-Pratt).
  std::vector<int64_t> border(size_t(n), 0);
  for (int64_t i = 1, k = 0; i < n; ++i) {
    while (k > 0 && bytes[size_t(i)] != bytes[size_t(k)])
      k = border[size_t(k - 1)];
    if (bytes[size_t(i)] == bytes[size_t(k)])
      ++k;
    border[size_t(i)] = k;
  }
  int64_t period = n - border[size_t(n - 1)];
  if (n % period != 0)
    return n;
  for (int64_t p = period; p < n; p += period)
    if (p >= kLoadChunk && n % p == 0)
      return p;
  return n;
}

Address Lowering::placeData(ArrayRef<char> bytes, DenseElementsAttr value) {
  auto key = contentKey(bytes, value);
  if (auto loaded = loadedByContent.find({core, key.first, key.second}); loaded != loadedByContent.end())
    return Address::at(loaded->second);
  FailureOr<int> local = scratch(int64_t(bytes.size()));
  if (failed(local))
    llvm::report_fatal_error("raptor-lower-to-pim: no local memory left for a constant");
  // A repeating constant (a scale or shift broadcast along a kernel's run)
  // is loaded once per period and doubled by local copies: global memory's
  // one controller serves every core, local memory each core alone.
  int64_t n = int64_t(bytes.size()), period = repeatingPrefix(bytes);
  Address at = Address::at(buffers[*local].address);
  loadConstant(at, bytes, value, period);
  for (int64_t filled = period; filled < n; filled += std::min(filled, n - filled))
    here().lmv(at.plus(filled), at, std::min(filled, n - filled));
  loadedByContent[{core, key.first, key.second}] = buffers[*local].address;
  return Address::at(buffers[*local].address);
}

std::vector<int32_t> Lowering::roundedIntegers(const std::vector<float> &values) {
  std::vector<int32_t> integers;
  integers.reserve(values.size());
  for (float v : values) // (NaN: 0, as the host's conversion)
    integers.push_back(std::isnan(v) ? 0 : int32_t(std::clamp<double>(std::nearbyint(v), INT32_MIN, INT32_MAX)));
  return integers;
}

namespace {
/// A vector of f32 or int32 as its bytes and its pim.data attribute.
template <typename T>
std::pair<ArrayRef<char>, DenseElementsAttr> dataOf(const std::vector<T> &values, Type element) {
  auto type = RankedTensorType::get({int64_t(values.size())}, element);
  return {{reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T)},
          DenseElementsAttr::get(type, llvm::ArrayRef(values))};
}
} // namespace

/// The most bytes of constants one task stages, and the largest period
/// staged (a larger one is loaded by itself).
static constexpr int64_t kStagingBytes = 32 * 1024, kLargestStaged = 8 * 1024;

void Lowering::beginConstants() { batch = ConstantBatch{core, here().mark(), {}, {}, std::nullopt}; }

std::optional<int64_t> Lowering::stage(ArrayRef<char> period, Type element) {
  int64_t size = (int64_t(period.size()) + 3) / 4 * 4; // whole words of the batch's data
  if (size > kLargestStaged || int64_t(batch->bytes.size()) + size > kStagingBytes)
    return std::nullopt;
  auto [window, first] = stagingWindow.try_emplace(core, -1);
  if (first)
    window->second = here().memory.reserveUntouched(kStagingBytes).value_or(-1);
  if (window->second < 0)
    return std::nullopt;
  int64_t offset = int64_t(batch->bytes.size());
  batch->bytes.insert(batch->bytes.end(), period.begin(), period.end());
  batch->bytes.resize(size_t(offset + size), 0);
  batch->element = offset == 0 || batch->element == element ? element : Type();
  return offset;
}

void Lowering::loadConstant(Address at, ArrayRef<char> bytes, DenseElementsAttr value, int64_t period) {
  CoreEmitter &e = here();
  ArrayRef<char> prefix = bytes.take_front(size_t(period));
  if (!batch || batch->core != core) {
    e.ld(at, globalData(bytes, value), period);
    return;
  }
  if (batch->bytes.empty() && !batch->first) { // the task's first: loaded by itself for now
    CoreEmitter::Bookmark before = e.mark();
    e.ld(at, globalData(bytes, value), period);
    batch->first = ConstantBatch::First{before, e.lastOp(), at.offset, {prefix.begin(), prefix.end()},
                                        value.getElementType()};
    return;
  }
  if (batch->first) { // a second one: the first moves into the batch
    ConstantBatch::First first = std::move(*batch->first);
    batch->first.reset();
    std::optional<int64_t> offset = stage(first.period, first.element);
    if (offset) {
      first.load->erase();
      int64_t window = stagingWindow.at(core);
      e.emitAt(first.before, [&] {
        e.lmv(Address::at(first.local), Address::at(window + *offset), int64_t(first.period.size()));
      });
    }
  }
  std::optional<int64_t> offset = stage(prefix, value.getElementType());
  if (!offset) {
    e.ld(at, globalData(bytes, value), period);
    return;
  }
  e.lmv(at, Address::at(stagingWindow.at(core) + *offset), period);
}

void Lowering::loadConstants() {
  std::optional<ConstantBatch> b = std::move(batch);
  batch.reset();
  if (!b || b->bytes.empty())
    return;
  // The data: f32 or int32 values as the constants were, raw words when
  // they mix.
  auto as = [&](auto word) {
    std::vector<decltype(word)> values(b->bytes.size() / 4);
    std::memcpy(values.data(), b->bytes.data(), b->bytes.size());
    return values;
  };
  DenseElementsAttr attr = b->element && b->element.isF32()
                              ? dataOf(as(float()), b->element).second
                              : dataOf(as(int32_t()), IntegerType::get(chip.getContext(), 32)).second;
  int64_t global = globalData(b->bytes, attr);
  CoreEmitter &e = emitter(b->core);
  int64_t window = stagingWindow.at(b->core), size = int64_t(b->bytes.size());
  e.emitAt(b->start, [&] { e.ld(Address::at(window), global, size); });
}

Address Lowering::placeConstant(std::vector<float> values) {
  if (integerOnly())
    return placeIntegers(roundedIntegers(values));
  auto [bytes, attr] = dataOf(values, Float32Type::get(chip.getContext()));
  return placeData(bytes, attr);
}

Address Lowering::placeIntegers(std::vector<int32_t> values) {
  auto [bytes, attr] = dataOf(values, IntegerType::get(chip.getContext(), 32));
  return placeData(bytes, attr);
}

int64_t Lowering::globalReals(std::vector<float> values) {
  if (integerOnly()) {
    std::vector<int32_t> integers = roundedIntegers(values);
    auto [bytes, attr] = dataOf(integers, IntegerType::get(chip.getContext(), 32));
    return globalData(bytes, attr);
  }
  auto [bytes, attr] = dataOf(values, Float32Type::get(chip.getContext()));
  return globalData(bytes, attr);
}

std::string Lowering::weightSymbol(Value v, const nn::HostTensor &tensor, int slice, int packing) {
  auto it = weights.find({v, slice, packing});
  if (it != weights.end())
    return it->second;
  std::string name = "w" + std::to_string(weights.size());
  OpBuilder b(chip.getBody());
  b.setInsertionPointToStart(&chip.getBody().front());
  auto type = RankedTensorType::get(tensor.shape, b.getF32Type());
  WeightOp::create(b, chip.getLoc(), name, DenseElementsAttr::get(type, llvm::ArrayRef(tensor.data)));
  weights[{v, slice, packing}] = name;
  return name;
}

LogicalResult Lowering::lowerView(Operation *op) {
  using R = LogicalResult;
  for (Value operand : op->getOperands())
    if (!values.count(operand) && !known.contains(operand)) {
      emitError(op->getLoc()) << "raptor-lower-to-pim: a view of a value no earlier task produced";
      return failure();
    }
  // A row copy of a view that keeps the rows (the compute graph's
  // followers: a channel shuffle's reshapes and permutation) sees its
  // operands and results through its rows alone: the operands' rows are
  // taken, the view is computed on them, its pieces are placed at those
  // rows. (Only the copy's rows move, on its own core; the whole value had
  // been gathered on one core per shuffle.)
  std::optional<std::pair<int64_t, int64_t>> rows;
  if (task && task.getRows())
    rows = std::pair<int64_t, int64_t>{(*task.getRows())[0], (*task.getRows())[1]};
  llvm::DenseMap<Value, TensorValue> parts;
  if (rows)
    for (Value operand : op->getOperands()) {
      size_t dim = raptor::pim::shapeOf(operand).size() - 2;
      FailureOr<std::optional<TensorValue>> part = rangeOfValue(operand, dim, rows->first, rows->second);
      if (failed(part))
        return failure();
      if (!*part)
        return taskError() << "cannot take rows [" << rows->first << ", " << rows->second << ") of a view's operand";
      parts[operand] = **part;
    }
  auto shapeOf = [&](Value v) {
    SmallVector<int64_t, 4> shape = raptor::pim::shapeOf(v);
    if (rows)
      shape[shape.size() - 2] = rows->second - rows->first;
    return shape;
  };
  auto define = [&](Value v, TensorValue value) {
    if (!rows)
      return Lowering::define(v, std::move(value));
    for (Piece &p : value.pieces) {
      p.origin[p.origin.size() - 2] += rows->first;
      definePiece(v, std::move(p));
    }
  };
  // A copy: defining results inserts into `values`, which would move what a
  // reference points at (a split defines several results in a row).
  auto input = [&](Value v) -> TensorValue {
    auto it = parts.find(v);
    return it != parts.end() ? it->second : values.find(v)->second;
  };
  // A row-major copy, also of a whole piece whose layout the view could not
  // cut (a nested mode: Swin's patch merging slices by 2 a map the window
  // reversal left nested), which retrying on the same piece would not.
  auto whole = [&](Value v) -> FailureOr<Piece> {
    Layout want = rowMajor(shapeOf(v));
    return materialize(input(v), [&](const Piece &p) { return sameLayout(p.layout, want); }, want);
  };
  // A view computed piece by piece, or on a row-major copy of the operand
  // when a piece's layout cannot express it.
  auto viewOrCopy = [&](Operation *o, Value self, Value result,
                        llvm::function_ref<std::optional<TensorValue>(const TensorValue &)> view) -> R {
    std::optional<TensorValue> out = view(input(self));
    if (!out) {
      FailureOr<Piece> w = whole(self);
      if (failed(w))
        return failure();
      TensorValue copy;
      copy.shape = shapeOf(self);
      copy.pieces.push_back(*w);
      out = view(copy);
      if (!out)
        return o->emitOpError("cannot be expressed on a row-major copy");
    }
    define(result, *out);
    return success();
  };
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](nn::CloneOp o) {
        define(o.getOut(), input(o.getSelf()));
        return success();
      })
      .Case([&](codec::ObserveOp o) { // calibrated at compile time: an identity
        define(o.getOutput(), input(o.getInput()));
        return success();
      })
      .Case([&](nn::KVCacheOp o) -> R {
        if (o.getPastLength() != 0)
          return o.emitOpError("with past_length > 0 needs the cache contents as model inputs, which the "
                               "PIM lowering does not support");
        define(o.getKeys(), input(o.getKey()));
        define(o.getValues(), input(o.getValue()));
        return success();
      })
      .Case([&](nn::PermuteOp o) {
        TensorValue out = input(o.getSelf());
        SmallVector<int64_t> dims;
        for (int64_t d : o.getDims())
          dims.push_back(d < 0 ? d + int64_t(out.shape.size()) : d);
        for (Piece &p : out.pieces)
          p = permuted(p, dims);
        out.shape = shapeOf(o.getOut());
        define(o.getOut(), out);
        return success();
      })
      .Case([&](nn::ExpandOp o) {
        TensorValue out = input(o.getSelf());
        SmallVector<int64_t, 4> shape = shapeOf(o.getOut());
        for (Piece &p : out.pieces)
          p = expanded(p, out.shape, shape);
        out.shape = shape;
        define(o.getOut(), out);
        return success();
      })
      .Case([&](nn::ViewOp o) -> R {
        SmallVector<int64_t, 4> shape = shapeOf(o.getOut());
        TensorValue in = input(o.getSelf());
        if (!in.whole()) { // piece by piece when each is a box of the view (row copies)
          TensorValue out;
          out.shape = shape;
          for (const Piece &piece : in.pieces)
            if (std::optional<Piece> q = reshapedBox(piece, in.shape, shape))
              out.pieces.push_back(*q);
          if (out.pieces.size() == in.pieces.size()) {
            define(o.getOut(), out);
            return success();
          }
        }
        std::optional<Piece> p = in.whole() ? reshaped(in.pieces[0], shape) : std::nullopt;
        if (!p && !in.whole()) { // one copy in the pieces' storage order, if the view composes with it
          TensorValue self = input(o.getSelf());
          FailureOr<Piece> w = materialize(self, [](const Piece &) { return true; },
                                           storageOrder(self.pieces.front(), self.shape));
          if (failed(w))
            return failure();
          p = reshaped(*w, shape);
        }
        if (!p) {
          FailureOr<Piece> w = whole(o.getSelf());
          if (failed(w))
            return failure();
          p = reshaped(*w, shape);
        }
        TensorValue out;
        out.shape = shape;
        out.pieces.push_back(*p);
        define(o.getOut(), out);
        return success();
      })
      .Case([&](nn::SliceOp o) -> R {
        TensorValue in = input(o.getSelf());
        int64_t rank = int64_t(in.shape.size()), dim = int64_t(o.getDim());
        if (dim < 0)
          dim += rank;
        int64_t n = in.shape[size_t(dim)], step = int64_t(o.getStep());
        int64_t start = o.getStart() ? int64_t(*o.getStart()) : 0;
        if (start < 0)
          start += n;
        SmallVector<int64_t, 4> shape = shapeOf(o.getOut());
        int64_t count = shape[size_t(dim)];
        start = std::clamp<int64_t>(start, 0, n);
        auto slice = [&](const TensorValue &value) -> std::optional<TensorValue> {
          TensorValue out;
          out.shape = shape;
          for (const Piece &p : value.pieces) {
            int64_t lo = p.origin[size_t(dim)], size = p.sizes[size_t(dim)];
            if (step != 1 && size != n)
              return std::nullopt;
            // Indices start + i * step inside [lo, lo + size).
            int64_t first = std::max<int64_t>(0, (lo - start + step - 1) / step);
            int64_t last = std::min<int64_t>(count - 1, (lo + size - 1 - start) / step);
            if (lo + size - 1 < start || first > last)
              continue;
            std::optional<Piece> q = sliced(p, size_t(dim), start + first * step - lo, last - first + 1, step);
            if (!q)
              return std::nullopt;
            q->origin[size_t(dim)] = first;
            out.pieces.push_back(*q);
          }
          return out;
        };
        return viewOrCopy(o, o.getSelf(), o.getOut(), slice);
      })
      .Case([&](nn::SelectOp o) -> R {
        // One index of a dimension (BLOOM's fused query, key and value):
        // the pieces holding it cut to it, that dimension then dropped.
        TensorValue in = input(o.getSelf());
        int64_t rank = int64_t(in.shape.size()), dim = int64_t(o.getDim());
        if (dim < 0)
          dim += rank;
        int64_t index = int64_t(o.getIndex());
        if (index < 0)
          index += in.shape[size_t(dim)];
        SmallVector<int64_t, 4> shape = shapeOf(o.getOut());
        auto select = [&](const TensorValue &value) -> std::optional<TensorValue> {
          TensorValue out;
          out.shape = shape;
          for (const Piece &p : value.pieces) {
            int64_t lo = p.origin[size_t(dim)];
            if (index < lo || index >= lo + p.sizes[size_t(dim)])
              continue;
            std::optional<Piece> q = sliced(p, size_t(dim), index - lo, 1, 1);
            if (!q)
              return std::nullopt;
            SmallVector<int64_t, 4> sizes(q->sizes);
            sizes.erase(sizes.begin() + dim);
            SmallVector<int64_t, 4> origin(q->origin);
            origin.erase(origin.begin() + dim);
            std::optional<Piece> r = reshaped(*q, sizes);
            if (!r)
              return std::nullopt;
            r->origin = origin;
            r->partial = q->partial;
            out.pieces.push_back(*r);
          }
          return out;
        };
        return viewOrCopy(o, o.getSelf(), o.getOut(), select);
      })
      .Case([&](nn::SplitWithSizesOp o) -> R {
        TensorValue in = input(o.getSelf());
        int64_t rank = int64_t(in.shape.size()), dim = int64_t(o.getDim());
        if (dim < 0)
          dim += rank;
        int64_t start = 0;
        for (auto [i, result] : llvm::enumerate(o.getOut())) {
          int64_t size = o.getSplitSizes()[i];
          TensorValue out;
          out.shape = shapeOf(result);
          for (const Piece &p : in.pieces) {
            int64_t lo = std::max(start, p.origin[size_t(dim)]);
            int64_t hi = std::min(start + size, p.origin[size_t(dim)] + p.sizes[size_t(dim)]);
            if (lo >= hi)
              continue;
            std::optional<Piece> q = sliced(p, size_t(dim), lo - p.origin[size_t(dim)], hi - lo, 1);
            if (!q)
              return o.emitOpError("cannot split a piece of layout ") << p.layout.str();
            q->origin[size_t(dim)] = lo - start;
            out.pieces.push_back(*q);
          }
          define(result, out);
          start += size;
        }
        return success();
      })
      .Case([&](nn::FanOutOp o) -> R {
        TensorValue out = input(o.getInput());
        int64_t rank = int64_t(out.shape.size()), dim = int64_t(o.getDim());
        if (dim < 0)
          dim += rank;
        if (!llvm::all_of(out.pieces, [&](const Piece &p) { return p.sizes[size_t(dim)] == out.shape[size_t(dim)]; })) {
          FailureOr<Piece> w = whole(o.getInput());
          if (failed(w))
            return failure();
          out.pieces = {*w};
        }
        for (Piece &p : out.pieces)
          p = repeated(p, size_t(dim), int64_t(o.getRepeats()));
        out.shape = shapeOf(o.getOut());
        define(o.getOut(), out);
        return success();
      })
      .Case([&](nn::UpsampleNearest2dOp o) -> R {
        TensorValue out = input(o.getInput());
        SmallVector<int64_t, 4> shape = shapeOf(o.getOut());
        if (shape.size() != 4 || shape[2] % out.shape[2] || shape[3] % out.shape[3])
          return o.emitOpError("the PIM lowering needs integer upsampling factors");
        int64_t fh = shape[2] / out.shape[2], fw = shape[3] / out.shape[3];
        // Each piece (a row copy's rows, a lane's channels) is upsampled
        // where it is, origin and sizes scaled: readers bring the rows they
        // read. Gathering the whole map on the view's core first had put
        // U-Net's decoder behind one core per upsampling.
        for (Piece &p : out.pieces)
          p = repeated(repeated(p, 2, fh), 3, fw);
        out.shape = shape;
        define(o.getOut(), out);
        return success();
      })
      .Default([](Operation *o) { return o->emitOpError("is not a view"); });
}

std::optional<Operation *> withoutIntegerLowering(func::FuncOp func) {
  nn::CompileTimeValues known(func.front());
  for (Operation &op : func.front()) {
    bool compileTime = op.getNumResults() && llvm::all_of(op.getResults(), [&](Value v) { return known.contains(v); });
    if (!isView(&op) && !compileTime && !hasIntegerLowering(&op))
      return &op;
  }
  return std::nullopt;
}

LogicalResult Lowering::lowerTask(spatial::TaskOp t, Operation *op) {
  using R = LogicalResult;
  if (isView(op))
    return t.getLane() == 0 ? lowerView(op) : success();
  // Encoded data reaches only the operators with int8 lowerings (the
  // placement decodes it before every other one).
  if (!isa<nn::ConvolutionOp, nn::LinearOp, nn::ScaledDotProductAttentionOp, nn::MaxPool2dOp, nn::ConstantPadNdOp,
           nn::CatOp, codec::DecodeOp, codec::RescaleOp>(op))
    for (Value operand : op->getOperands())
      if (values.count(operand) && (isEncoded(operand) || holdsSums(operand)))
        return op->emitOpError() << "reads " << nameOf(typeOfValue(operand))
                                 << " (encoded) data, which its PIM lowering does not take: the codec placement "
                                    "must decode it first";
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](nn::ConvolutionOp o) {
        return spatial::isDepthwise(o) ? lowerDepthwise(o) : lowerConvolution(o);
      })
      .Case([&](nn::LinearOp o) { return lowerLinear(o); })
      .Case<nn::AddOp, nn::SubOp, nn::MulOp, nn::DivOp, nn::ReluOp, nn::GeluOp, nn::SiluOp, nn::SigmoidOp,
            nn::TanhOp, nn::NegOp, nn::RsqrtOp, nn::ExpOp, nn::Log1pOp, nn::HardtanhOp, nn::ClampOp>(
          [&](Operation *o) { return lowerElementwise(o); })
      .Case([&](nn::AvgPool2dOp o) {
        std::optional<int64_t> divisor;
        if (o.getDivisorOverride())
          divisor = int64_t(*o.getDivisorOverride());
        return lowerAvgPool(o.getSelf(), o.getOut(), o.getKernelSize(), o.getStride(), o.getPadding(),
                            o.getCountIncludePad(), divisor);
      })
      .Case([&](nn::AdaptiveAvgPool2dOp o) -> LogicalResult {
        SmallVector<int64_t, 4> in = shapeOf(o.getSelf()), out = shapeOf(o.getOut());
        int64_t H = in[in.size() - 2], W = in.back(), oh = out[out.size() - 2], ow = out.back();
        if (H % oh || W % ow)
          return o.emitOpError() << "the PIM lowering needs output sizes that divide the input (" << H << "x"
                                 << W << " to " << oh << "x" << ow << ")";
        int64_t k[2] = {H / oh, W / ow};
        return lowerAvgPool(o.getSelf(), o.getOut(), k, k, {}, true, std::nullopt);
      })
      .Case([&](nn::MaxPool2dOp o) { return lowerPooling(o); })
      .Case([&](nn::MeanOp o) { return lowerMean(o); })
      .Case([&](nn::CatOp o) { return lowerCat(o); })
      .Case([&](nn::ConstantPadNdOp o) { return lowerPad(o); })
      .Case([&](nn::AsStridedOp o) { return lowerAsStrided(o); })
      .Case([&](nn::SoftmaxOp o) { return lowerSoftmax(o); })
      .Case<nn::LayerNormOp, nn::RMSNormOp>([&](Operation *o) { return lowerNorm(o); })
      .Case([&](nn::ScaledDotProductAttentionOp o) { return lowerAttention(o); })
      .Case([&](nn::MatmulOp o) { return lowerMatmul(o); })
      .Case([&](nn::RotaryEmbeddingOp o) { return lowerRotary(o); })
      .Case([&](nn::EmbeddingOp o) { return lowerEmbedding(o); })
      .Case([&](nn::TokenPositionsOp o) { return lowerTokenPositions(o); })
      .Case([&](nn::LastTokenOp o) { return lowerLastToken(o); })
      .Case([&](nn::WhereOp o) {
        return o.emitOpError("on operands computed at run time has no PIM lowering (the instruction set has no "
                             "select; a where of compile-time operands is computed by the compiler, one whose "
                             "condition alone is known becomes products by it in raptor-expand-selects)");
      })
      .Case([&](codec::EncodeOp o) { return lowerEncode(o); })
      .Case([&](codec::DecodeOp o) { return lowerDecode(o); })
      .Case([&](codec::RescaleOp o) { return lowerRescale(o); })
      .Case([&](nn::BatchNormOp o) {
        return o.emitOpError("reaches the PIM lowering: run raptor-fold-batch-norm first");
      })
      .Default([&](Operation *o) {
        return o->emitOpError("has no PIM lowering (supported: convolution, linear, element-wise, "
                              "pooling, mean, norms, softmax, attention, embedding, views, as_strided, cat, pad)");
      });
}

LogicalResult Lowering::storeOutputs(Operation *op) {
  for (Output &out : outputs) {
    if (out.stored || out.value.getDefiningOp() != op)
      continue;
    auto it = values.find(out.value);
    if (it == values.end())
      return op->emitError("raptor-lower-to-pim: a model output was released before it was stored");
    // The output keeps the storage order it was computed in (the host reads
    // it through the layout the manifest records).
    out.layout = storageOrder(it->second.pieces.front(), it->second.shape);
    out.io.setLayoutAttr(layout::LayoutAttr::get(chip.getContext(), out.layout));
    if (isEncoded(out.value) || holdsSums(out.value))
      return op->emitError("raptor-lower-to-pim: a model output is ")
             << nameOf(typeOf(it->second)) << " data: decode it (codec.decode) before returning it";
    // A skewed pipeline gathers pieces from other cores a pass later (all
    // of them then, so that they hold one inference).
    int64_t level = readingLevel;
    if (skewed && llvm::any_of(it->second.pieces, [&](const Piece &q) { return buffers[q.buffer].core != core; }))
      lastLevel = std::max(lastLevel, ++readingLevel);
    FailureOr<Piece> p = materialize(
        it->second, [&](const Piece &q) { return q.layout == out.layout; }, out.layout);
    if (failed(p))
      return failure();
    here().st(out.address, addressOf(*p), 4 * out.layout.cosize());
    readingLevel = level;
    out.stored = true;
    if (--usesLeft[out.value] == 0) {
      release(values[out.value]);
      values.erase(out.value);
    }
  }
  return success();
}

LogicalResult Lowering::run() {
  OpBuilder b(chip.getBody());
  b.setInsertionPointToStart(&chip.getBody().front());
  Block &body = func.front();
  auto returnOp = cast<func::ReturnOp>(body.getTerminator());
  // Integer-only programs exchange int32 fixed point with the host.
  if (integerOnly()) {
    if (*fixedPointBits < 0 || *fixedPointBits > 30)
      return func.emitError() << "raptor.fixed_point_bits " << *fixedPointBits << " is outside 0..30";
    chip->setAttr("fixed_point_bits", b.getI64IntegerAttr(*fixedPointBits));
    if (Operation *op = withoutIntegerLowering(func).value_or(nullptr))
      return op->emitOpError("has no integer-only lowering (an int8 program on pimsim-nn's instruction set "
                             "needs one for every operator: allow extension instructions, or compile in float32)");
  }
  auto ioType = [&](RankedTensorType t) {
    return integerOnly() ? RankedTensorType::get(t.getShape(), b.getI32Type()) : t;
  };
  // Model inputs and outputs in global memory.
  for (BlockArgument arg : body.getArguments()) {
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), nn::NNDialect::kInputAttrName);
    if (!name)
      continue;
    auto type = cast<RankedTensorType>(arg.getType());
    // Integers are token ids (the host writes them as int32, unscaled).
    IntegerAttr vocabulary;
    if (type.hasStaticShape() && type.getElementType().isSignlessInteger()) {
      FailureOr<int64_t> rows = tokenVocabulary(arg, name.getValue());
      if (failed(rows))
        return failure();
      vocabulary = b.getI64IntegerAttr(*rows);
    } else if (!type.hasStaticShape() || !type.getElementType().isF32()) {
      return func.emitError() << "input '" << name.getValue()
                              << "' must be a static float32 tensor (or token ids of nn.embedding) for the PIM "
                                 "lowering";
    }
    SmallVector<int64_t, 4> shape = shapeOf(arg);
    Layout l = inputLayout(arg, shape);
    int64_t address = globalAlloc(4 * l.cosize());
    IoOp::create(b, chip.getLoc(), b.getStringAttr("in_" + name.getValue()), b.getStringAttr("input"), name,
                 b.getI64IntegerAttr(address),
                 TypeAttr::get(vocabulary ? RankedTensorType::get(type.getShape(), b.getI32Type()) : ioType(type)),
                 layout::LayoutAttr::get(chip.getContext(), l), vocabulary);
    Buffer g;
    g.type = vocabulary ? ElementType::I32 : realType();
    g.core = -1;
    g.address = address;
    g.bytes = 4 * l.cosize();
    buffers.push_back(g);
    Piece p;
    p.origin.assign(shape.size(), 0);
    p.sizes = shape;
    p.buffer = int(buffers.size() - 1);
    p.layout = l;
    TensorValue v;
    v.shape = shape;
    v.pieces.push_back(p);
    values[arg] = v;
    buffers.back().refs = 1; // global inputs are never freed
  }
  for (auto [i, result] : llvm::enumerate(returnOp.getOperands())) {
    auto type = cast<RankedTensorType>(result.getType());
    if (!type.hasStaticShape() || !type.getElementType().isF32())
      return returnOp.emitError("model outputs must be static float32 tensors for the PIM lowering");
    if (known.contains(result) || isa<BlockArgument>(result))
      return returnOp.emitError("a model output computed at compile time or returned unchanged is not "
                                "supported by the PIM lowering");
    SmallVector<int64_t, 4> shape = shapeOf(result);
    Layout l = rowMajor(shape); // replaced by the result's storage order when it is stored
    int64_t address = globalAlloc(4 * l.cosize());
    std::string name = "out" + std::to_string(i);
    auto io = IoOp::create(b, chip.getLoc(), b.getStringAttr(name), b.getStringAttr("output"),
                           b.getStringAttr(name), b.getI64IntegerAttr(address), TypeAttr::get(ioType(type)),
                           layout::LayoutAttr::get(chip.getContext(), l), IntegerAttr());
    outputs.push_back({result, address, l, false, io});
    usesLeft[result] += 1;
  }
  // Tasks in one global order; uses and lanes counted per task.
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  SmallVector<spatial::TaskOp> tasks(graph.getBody().getOps<spatial::TaskOp>());
  SmallVector<std::pair<spatial::TaskOp, Operation *>> order;
  for (spatial::TaskOp t : tasks) {
    if (!t.getSource() || !t.getCore() || !t.getStartNs())
      return t.emitError("raptor-lower-to-pim needs a scheduled compute graph (run raptor-schedule-spatial)");
    int64_t source = int64_t(*t.getSource());
    if (source < 0 || source >= int64_t(ops.size()))
      return t.emitError() << "names operator " << source << " of a function with " << ops.size();
    Operation *op = ops[size_t(source)];
    order.push_back({t, op});
    ++lanesLeft[op];
  }
  for (auto &[t, op] : order)
    for (Value operand : op->getOperands())
      if (!known.contains(operand))
        ++usesLeft[operand];
  if (skewed) {
    // Every operator's level from the placement (spatial::skewedLevels).
    llvm::DenseMap<Value, unsigned> index;
    std::vector<unsigned> operatorOf, cores;
    std::vector<std::pair<unsigned, unsigned>> deps;
    for (auto [i, t] : llvm::enumerate(tasks)) {
      index[t.getDone()] = unsigned(i);
      operatorOf.push_back(unsigned(*t.getSource()));
      cores.push_back(unsigned(*t.getCore()));
      for (Value dep : t.getDeps())
        if (auto it = index.find(dep); it != index.end())
          deps.push_back({it->second, unsigned(i)});
    }
    operatorLevel = spatial::skewedLevels(operatorOf, cores, deps);
  }
  // The scheduler's global order (`position`), else start times.
  auto positionOf = [](spatial::TaskOp t) { return int64_t(t.getPosition() ? *t.getPosition() : *t.getStartNs()); };
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return positionOf(a.first) < positionOf(b.first); });
  if (mailbox) {
    // The cores reading a task's results: its successors', through views
    // and concatenations (which move no data: their readers read the
    // producer's buffers). A reader the graph does not name (a strided
    // layer's copies read rows beyond their dependencies) is signalled when
    // it is lowered (mail()).
    // A view's or concatenation's readers are memoized: ShuffleNetV2's
    // splits, shuffles and concatenations of row pieces chain into a
    // lattice whose paths multiply (the walk without it took minutes).
    llvm::DenseMap<Operation *, std::set<int64_t>> passedOn;
    std::function<const std::set<int64_t> &(spatial::TaskOp)> readersOf =
        [&](spatial::TaskOp t) -> const std::set<int64_t> & {
      if (auto it = passedOn.find(t); it != passedOn.end())
        return it->second;
      std::set<int64_t> into;
      for (Operation *user : t->getUsers())
        if (auto reader = dyn_cast<spatial::TaskOp>(user)) {
          int64_t source = reader.getSource() ? int64_t(*reader.getSource()) : -1;
          if (source >= 0 && source < int64_t(ops.size()) && passesOn(ops[size_t(source)])) {
            const std::set<int64_t> &further = readersOf(reader);
            into.insert(further.begin(), further.end());
          } else if (reader.getCore()) {
            into.insert(int64_t(*reader.getCore()));
          }
        }
      return passedOn[t] = std::move(into);
    };
    for (auto &[t, op] : order)
      if (!passesOn(op))
        readerCores[t] = readersOf(t);
  }
  for (auto &[t, op] : order) {
    task = t;
    core = int64_t(*t.getCore());
    if (skewed) {
      readingLevel = operatorLevel[size_t(*t.getSource())];
      lastLevel = std::max(lastLevel, readingLevel);
    }
    size_t firstNewBuffer = buffers.size();
    ++tasksLowered;
    beginConstants();
    if (failed(lowerTask(t, op)))
      return failure();
    if (mailbox && !passesOn(op))
      mailResults(op, firstNewBuffer);
    loadConstants();
    for (int buffer : taskBuffers)
      release(buffer);
    taskBuffers.clear();
    loadedByContent.clear();
    for (Value operand : op->getOperands()) {
      if (known.contains(operand) || !usesLeft.count(operand))
        continue;
      if (--usesLeft[operand] == 0 && values.count(operand)) {
        release(values[operand]);
        values.erase(operand);
      }
    }
    if (--lanesLeft[op] == 0) {
      beginConstants();
      if (failed(storeOutputs(op)))
        return failure();
      loadConstants();
      for (int buffer : taskBuffers)
        release(buffer);
      taskBuffers.clear();
      loadedByContent.clear();
    }
  }
  for (Output &out : outputs)
    if (!out.stored)
      return returnOp.emitError("raptor-lower-to-pim: a model output was never produced by a task");
  // Every signal taken: a reader waits at its end for those of buffers it
  // did not read (so that its event registers end as they began).
  if (registers)
    for (auto &[id, e] : emitters)
      for (int64_t event = 0; event < registers->registers(); ++event)
        if (int64_t left = registers->outstanding(unsigned(id), event))
          e->wait(event, left);
  // Cores in id order, each program ended properly.
  std::vector<int64_t> ids;
  for (auto &[id, e] : emitters)
    ids.push_back(id);
  // A skewed pipeline's first inference leaves its last level after as
  // many passes as it has levels.
  if (skewed) {
    if (lastLevel + 1 > kMostFrames)
      return func.emitError() << "a skewed pipeline of " << lastLevel + 1 << " levels needs more than "
                              << kMostFrames << " passes for its first inference";
    chip.setFrames(lastLevel + 1);
    // Every region's second bank lies one extent of global memory above it.
    if (2 * globalTop >= (int64_t(1) << 31))
      return func.emitError() << "a skewed pipeline's two banks of " << globalTop
                              << " bytes of global memory exceed the 2 GiB its 32-bit addresses reach";
    for (auto &[id, e] : emitters)
      e->bankBytes = globalTop;
    globalTop *= 2;
  }
  for (int64_t id : ids)
    emitters[id]->finish();
  // Global memory's extent, including regions no data or io op names
  // (Crossing::Global's hand-over regions).
  chip->setAttr("global_bytes", IntegerAttr::get(IntegerType::get(chip.getContext(), 64), globalTop));
  Operation *anchor = nullptr;
  for (int64_t id : ids) {
    Operation *c = emitters[id]->core;
    if (anchor)
      c->moveAfter(anchor);
    else
      c->moveBefore(&chip.getBody().front(), chip.getBody().front().end());
    anchor = c;
  }
  return success();
}

} // namespace raptor::pim
