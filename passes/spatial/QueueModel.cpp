//===- QueueModel.cpp - Predicted execution of a placed schedule -*- C++ -*-===//
#include "passes/spatial/QueueModel.h"
#include "passes/spatial/EventRegisters.h"
#include "passes/spatial/PipelineStages.h"
#include "passes/spatial/WorkingMemory.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <functional>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>

namespace raptor::spatial {

QueueProgram programOf(const PlacedGraph &g) {
  QueueProgram p;
  p.cores.resize(g.cores);
  p.tasks = int64_t(g.work.size());
  std::vector<std::vector<unsigned>> inputs(g.work.size());
  for (unsigned i = 0; i < g.edges.size(); ++i)
    inputs[g.edges[i].to].push_back(i);
  std::set<std::pair<unsigned, unsigned>> delivered; // (producer task, core)
  std::map<unsigned, unsigned> lanesOf;                // operator -> lanes storing an output
  std::map<unsigned, std::vector<unsigned>> stored;    // operator -> lanes done so far
  for (unsigned t = 0; t < g.storeBytes.size(); ++t)
    if (g.storeBytes[t] > 0)
      ++lanesOf[t < g.group.size() ? g.group[t] : t];
  PipelineStages stages;
  // Crossing::Skewed: every operator's level (skewedLevels) and each task's.
  bool skewed = g.crossing == Crossing::Skewed;
  std::vector<int64_t> taskLevel(g.work.size(), 0);
  if (skewed) {
    std::vector<unsigned> operatorOf(g.work.size());
    for (unsigned t = 0; t < g.work.size(); ++t)
      operatorOf[t] = t < g.group.size() ? g.group[t] : t;
    std::vector<std::pair<unsigned, unsigned>> deps;
    for (const PlacedGraph::Edge &e : g.edges)
      deps.push_back({e.from, e.to});
    std::vector<int64_t> level = skewedLevels(operatorOf, g.core, deps);
    for (unsigned t = 0; t < g.work.size(); ++t)
      taskLevel[t] = level[operatorOf[t]];
  }
  // Crossing::Skewed and the mailbox: the tasks whose buffers a task's
  // output is (itself, or through views and concatenations their
  // producers), each with its share of the bytes.
  bool mailbox = g.mailbox && g.crossing == Crossing::Interleaved;
  // Each with the rows of the task's output it holds (all: {0, max}),
  // followed through the views that map rows.
  struct Owner {
    unsigned task;
    double share;
    std::pair<int64_t, int64_t> rows;
  };
  std::vector<std::vector<Owner>> owners(skewed || mailbox ? g.work.size() : 0);
  auto passes = [&](unsigned t) { return t < g.passThrough.size() && g.passThrough[t]; };
  for (unsigned t = 0; t < owners.size(); ++t) { // (tasks in graph order: producers first)
    if (!passes(t)) {
      owners[t] = {{t, 1.0, t < g.taskRows.size() ? g.taskRows[t] : kAllRows}};
      continue;
    }
    double total = 0;
    for (unsigned e : inputs[t])
      total += double(g.edges[e].bytes);
    int64_t scale = t < g.rowScale.size() ? g.rowScale[t] : 0;
    std::map<unsigned, Owner> merged; // one entry per owner, however many paths lead to it
    for (unsigned e : inputs[t])
      for (const Owner &o : owners[g.edges[e].from]) {
        std::pair<int64_t, int64_t> rows = kAllRows;
        if (scale > 0 && o.rows.second != kAllRows.second)
          rows = {o.rows.first * scale, o.rows.second * scale};
        double share = o.share * (total > 0 ? double(g.edges[e].bytes) / total : 1.0);
        auto [it, fresh] = merged.try_emplace(o.task, Owner{o.task, share, rows});
        if (!fresh) {
          it->second.share += share;
          it->second.rows = {std::min(it->second.rows.first, rows.first), std::max(it->second.rows.second, rows.second)};
        }
      }
    for (auto &[task, owner] : merged)
      owners[t].push_back(owner);
  }
  if (g.crossing != Crossing::Interleaved && !skewed) {
    std::vector<std::pair<int64_t, int64_t>> edges;
    for (const PlacedGraph::Edge &e : g.edges)
      edges.push_back({g.core[e.from], g.core[e.to]});
    std::map<unsigned, std::vector<unsigned>> outputLanes; // operator -> cores
    for (unsigned t = 0; t < g.storeBytes.size(); ++t)
      if (g.storeBytes[t] > 0)
        outputLanes[t < g.group.size() ? g.group[t] : t].push_back(g.core[t]);
    for (auto &[op, lanes] : outputLanes)
      for (size_t i = 1; i < lanes.size(); ++i) {
        edges.push_back({lanes[0], lanes[i]});
        edges.push_back({lanes[i], lanes[0]});
      }
    stages = PipelineStages(int64_t(g.cores), edges);
  }
  // Boundary transfers by core, with their global order (sender's stage, transfer).
  using Keyed = std::pair<std::pair<int64_t, int64_t>, QueueAction>;
  std::vector<std::vector<Keyed>> prologue(g.cores), epilogue(g.cores);
  std::vector<int64_t> held(g.cores, 0);
  // A transfer: the send on the producer's list, the receive on the consumer's.
  // Crossing::Global: each core's senders and receivers, the position of
  // its first store to a region, and the copies it relays after its last
  // instruction (in chunks, each loaded then stored).
  std::vector<std::set<int64_t>> senders(g.cores), receivers(g.cores);
  std::vector<int64_t> firstStore(g.cores, -1);
  std::vector<std::vector<QueueAction>> relays(g.cores);
  auto memory = [&](int64_t bytes, bool write, unsigned core) {
    return QueueAction{QueueAction::Memory, g.globalServiceNs(bytes, write), g.globalOverheadNs(bytes, write, core),
                       -1, -1};
  };
  // Crossing::Global: a region per level after the producer's, stored by
  // the producer, then by a relay of every level, each read by every
  // reader of its level that takes the whole value, as the lowering builds
  // them: (producer, bytes) -> the cores storing them.
  std::map<std::pair<int64_t, int64_t>, std::vector<unsigned>> chains;
  // The producer of the input being moved (`move` keys copies by it only
  // when the reader takes the whole value; the mailbox loads its buffers).
  // Crossing::Skewed: the most any reader reads of each producer's output
  // (stored once after its work), each core's slot-ageing copies at its
  // frame start, the (producer, core, level) loaded already, and the
  // levels of the data moving.
  std::map<unsigned, int64_t> skewMost;
  std::vector<std::vector<QueueAction>> ageing(g.cores);
  std::set<std::tuple<unsigned, unsigned, int64_t>> skewLoaded;
  int64_t reading = 0, producing = 0;
  int64_t moving = -1;
  std::pair<int64_t, int64_t> movingRows = kAllRows; // the rows of `moving` read
  // Mailbox: a producer stores its output (storeOf: its results when it
  // computes all rows, else the most any reader reads of it) after its
  // work and signals every core reading it (through views),
  // each on an event register of the reader handed out as the lowering
  // does (EventRegisters, called in the same global order); a reader
  // without one receives by rendezvous, the send placed where the sender's
  // program is when the reader is lowered.
  std::optional<EventRegisters> registers;
  std::map<std::pair<unsigned, unsigned>, std::pair<int64_t, int64_t>> signalOf; // (producer, reader) -> signal
  std::vector<int64_t> storeOf(g.work.size(), 0);
  std::map<unsigned, std::set<unsigned>> readersOf;
  std::vector<std::vector<unsigned>> outputs(g.work.size());
  std::function<const std::set<unsigned> &(unsigned)> readers = [&](unsigned t) -> const std::set<unsigned> & {
    if (auto it = readersOf.find(t); it != readersOf.end())
      return it->second;
    std::set<unsigned> into;
    for (unsigned u : outputs[t]) {
      if (passes(u)) {
        const std::set<unsigned> &further = readers(u);
        into.insert(further.begin(), further.end());
      } else {
        into.insert(g.core[u]);
      }
    }
    return readersOf[t] = std::move(into);
  };
  // Mailbox: per producer task stored after its work, the position right
  // after its store on its core's list and its clock then; the reads that
  // knew the store done; per (reader, register) the core that signals it
  // last and the position of that signal (Lowering::mail's order check).
  struct Stored {
    size_t position;
    EventRegisters::Clock clock;
  };
  std::map<unsigned, Stored> storedAfter;
  std::vector<std::vector<unsigned>> storedOn(g.cores);                        // the tasks, per core
  std::vector<std::set<std::pair<unsigned, int64_t>>> signalledFrom(g.cores); // lastSignalAt's keys, per core
  std::set<std::pair<unsigned, unsigned>> knownReads;
  std::map<std::pair<unsigned, int64_t>, std::pair<unsigned, size_t>> lastSignalAt;
  // A reader's first read of a producer's output: known stored, or
  // signalled from right after the store (Lowering::mail), else left to a
  // rendezvous.
  auto mailAtRead = [&](unsigned owner, unsigned reader) {
    unsigned at = g.core[owner];
    Stored &s = storedAfter.at(owner);
    if (registers->knows(reader, at, s.clock)) {
      knownReads.insert({owner, reader});
      return;
    }
    std::optional<int64_t> event = registers->registerFor(reader, at, &s.clock, /*peek=*/true);
    if (!event)
      return;
    if (auto last = lastSignalAt.find({reader, *event});
        last != lastSignalAt.end() && last->second.first == at && last->second.second >= s.position)
      return;
    registers->registerFor(reader, at, &s.clock);
    QueueAction signal{QueueAction::Signal, 0, 0, -1, -1, g.transfer(1, reader, at), reader};
    signal.event = kEventRegisters + *event;
    size_t position = s.position;
    std::vector<QueueAction> &actions = p.cores[at];
    actions.insert(actions.begin() + long(position), signal);
    for (unsigned task : storedOn[at])
      if (Stored &other = storedAfter.at(task); other.position > position)
        ++other.position;
    for (const std::pair<unsigned, int64_t> &key : signalledFrom[at])
      if (size_t &where = lastSignalAt.at(key).second; where >= position)
        ++where;
    std::pair<unsigned, int64_t> key{reader, *event};
    if (auto last = lastSignalAt.find(key); last != lastSignalAt.end())
      signalledFrom[last->second.first].erase(key);
    lastSignalAt[key] = {at, position};
    signalledFrom[at].insert(key);
    signalOf[{owner, reader}] = {*event, registers->signal(at, reader, *event, &s.clock)};
  };
  if (mailbox) {
    registers.emplace(g.cores, kEventRegisters);
    for (const PlacedGraph::Edge &e : g.edges) {
      outputs[e.from].push_back(e.to);
      storeOf[e.from] = std::max(storeOf[e.from], e.bytes);
    }
    for (unsigned t = 0; t < g.wholeBytes.size(); ++t)
      storeOf[t] = std::max(storeOf[t], g.wholeBytes[t]);
  }
  auto move = [&](int64_t bytes, unsigned from, unsigned to, int64_t producer) {
    if (skewed) {
      // The producer stores its output once, right after its work (the
      // most any reader reads of it); each reader loads what it reads
      // where its task reads it (from the bank of the pass before), the
      // slots of data skipping levels aged at the start of every pass.
      if (moving >= 0) {
        int64_t &most = skewMost[unsigned(moving)];
        most = std::max(most, bytes);
      } else { // an output lane's piece, gathered where the sender is now
        if (firstStore[from] < 0)
          firstStore[from] = int64_t(p.cores[from].size());
        p.cores[from].push_back(memory(bytes, true, from));
      }
      receivers[from].insert(to);
      senders[to].insert(from);
      int64_t slots = std::max<int64_t>(1, reading - producing);
      for (int64_t k = 1; k < slots; ++k) // the oldest slot first
        ageing[to].push_back({QueueAction::Compute, g.localCopyNs ? g.localCopyNs(bytes) : 0.0});
      p.cores[to].push_back(memory(bytes, false, to));
      held[to] += slots * bytes;
      return;
    }
    if (g.crossing == Crossing::Global && !stages.empty() && stages.crosses(from, to)) {
      std::vector<unsigned> own, &chain = producer >= 0 ? chains[{producer, bytes}] : own;
      if (chain.empty()) {
        if (firstStore[from] < 0)
          firstStore[from] = int64_t(p.cores[from].size());
        p.cores[from].push_back(memory(bytes, true, from));
        chain.push_back(from);
      }
      size_t level = size_t(stages.levelOf(to) - stages.levelOf(from));
      if (chain.size() < level)
        for (int64_t hop : stages.route(chain.back(), to)) {
          if (unsigned(hop) == to)
            break;
          receivers[chain.back()].insert(hop);
          senders[size_t(hop)].insert(chain.back());
          int64_t chunk = relayChunkBytes(bytes, g.localMemoryBytes);
          for (int64_t done = 0; done < bytes; done += chunk) {
            relays[size_t(hop)].push_back(memory(std::min(chunk, bytes - done), false, unsigned(hop)));
            relays[size_t(hop)].push_back(memory(std::min(chunk, bytes - done), true, unsigned(hop)));
          }
          chain.push_back(unsigned(hop));
        }
      unsigned writer = chain[std::min(level, chain.size()) - 1];
      receivers[writer].insert(to);
      senders[to].insert(writer);
      p.cores[to].push_back(memory(bytes, false, to));
      return;
    }
    if (!stages.empty() && stages.crosses(from, to)) {
      unsigned at = from;
      held[from] += bytes;
      for (int64_t hop : stages.route(from, to)) {
        held[size_t(hop)] += bytes;
        TransferParts parts = g.transfer(bytes, at, unsigned(hop));
        std::pair<int64_t, int64_t> key{stages.stageOf(at), p.transfers};
        epilogue[at].push_back({key, {QueueAction::Send, 0, 0, p.transfers, -1, parts, hop}});
        prologue[size_t(hop)].push_back({key, {QueueAction::Recv, 0, 0, p.transfers, -1, parts, at}});
        ++p.transfers;
        at = unsigned(hop);
      }
      return;
    }
    if (mailbox && moving >= 0) {
      // The buffers read are the producers' (through views) holding the
      // rows read: each one signalled to this reader is waited for and
      // loaded, the others received by rendezvous.
      const std::vector<Owner> &all = owners[unsigned(moving)];
      auto holds = [&](const Owner &o) { return o.rows.first < movingRows.second && movingRows.first < o.rows.second; };
      double holding = 0;
      for (const Owner &o : all)
        holding += holds(o) ? o.share : 0;
      for (const Owner &o : all) {
        if (holding > 0 && !holds(o))
          continue;
        unsigned owner = o.task;
        int64_t part = std::max<int64_t>(1, int64_t(double(bytes) * o.share / (holding > 0 ? holding : 1.0)));
        unsigned at = g.core[owner];
        if (at == to)
          continue;
        if (!signalOf.count({owner, to}) && !knownReads.count({owner, to}) && storedAfter.count(owner))
          mailAtRead(owner, to);
        if (knownReads.count({owner, to})) {
          p.cores[to].push_back(memory(part, false, to));
          continue;
        }
        if (auto it = signalOf.find({owner, to}); it != signalOf.end()) {
          auto [event, number] = it->second;
          if (int64_t tokens = registers->waitFor(to, event, number)) {
            QueueAction w{QueueAction::Wait};
            w.event = kEventRegisters + event;
            w.count = tokens;
            p.cores[to].push_back(w);
          }
          p.cores[to].push_back(memory(part, false, to));
          continue;
        }
        TransferParts parts = g.transfer(part, at, to);
        p.cores[at].push_back({QueueAction::Send, 0, 0, p.transfers, -1, parts, to});
        p.cores[to].push_back({QueueAction::Recv, 0, 0, p.transfers, -1, parts, at});
        ++p.transfers;
        registers->rendezvous(at, to);
      }
      return;
    }
    TransferParts parts = g.transfer(bytes, from, to);
    p.cores[from].push_back({QueueAction::Send, 0, 0, p.transfers, -1, parts, to});
    p.cores[to].push_back({QueueAction::Recv, 0, 0, p.transfers, -1, parts, from});
    ++p.transfers;
  };
  for (unsigned t : g.order) {
    unsigned here = g.core[t];
    for (unsigned e : inputs[t]) {
      const PlacedGraph::Edge &edge = g.edges[e];
      unsigned there = g.core[edge.from];
      bool own = t < g.readsRows.size() && g.readsRows[t];
      if (skewed) {
        // Data from another core, or from an earlier level of this one,
        // waits a pass or more in global memory and local slots. A view
        // moves nothing: its readers load its producers' buffers.
        if (passes(t))
          continue;
        for (auto [owner, share, rows] : owners[edge.from]) {
          unsigned at = g.core[owner];
          reading = taskLevel[t], producing = taskLevel[owner];
          if ((at == here && reading == producing) ||
              (!own && !skewLoaded.insert({owner, here, reading}).second))
            continue;
          moving = int64_t(owner);
          move(std::max<int64_t>(1, int64_t(double(edge.bytes) * share)), at, here, own ? -1 : int64_t(owner));
          moving = -1;
        }
        continue;
      }
      if (there == here || (!own && !delivered.insert({edge.from, here}).second))
        continue;
      // A task reading its own rows takes a range no other reader does.
      moving = int64_t(edge.from);
      movingRows = edge.rows;
      move(edge.bytes, there, here, own ? -1 : int64_t(edge.from));
      moving = -1;
      movingRows = kAllRows;
    }
    if (t < g.loadBytes.size() && g.loadBytes[t] > 0)
      p.cores[here].push_back(memory(g.loadBytes[t], false, here));
    p.cores[here].push_back({QueueAction::Compute, g.work[t], 0, -1, int64_t(t)});
    if (mailbox && !passes(t) && llvm::any_of(readers(t), [&](unsigned reader) { return reader != here; })) {
      // Stored after the work; each reader signalled when it reads.
      p.cores[here].push_back(memory(std::max<int64_t>(1, storeOf[t]), true, here));
      storedAfter[t] = {p.cores[here].size(), registers->stored(here)};
      storedOn[here].push_back(t);
    }
    if (t >= g.storeBytes.size() || g.storeBytes[t] == 0)
      continue;
    unsigned op = t < g.group.size() ? g.group[t] : t;
    std::vector<unsigned> &lanes = stored[op];
    lanes.push_back(t);
    if (lanes.size() < lanesOf[op])
      continue;
    int64_t bytes = 0;
    // A skewed pipeline gathers the lanes' pieces a pass later (all of
    // them, so that they hold one inference).
    bool gathers = skewed && llvm::any_of(lanes, [&](unsigned lane) { return g.core[lane] != here; });
    reading = taskLevel[t] + 1, producing = taskLevel[t];
    for (unsigned lane : lanes) {
      bytes += g.storeBytes[lane];
      unsigned there = g.core[lane];
      if (there == here && !gathers)
        continue;
      move(g.storeBytes[lane], there, here, -1);
    }
    p.cores[here].push_back(memory(bytes, true, here));
  }
  for (int64_t bytes : held)
    p.boundaryBytes = std::max(p.boundaryBytes, bytes);
  if (g.crossing != Crossing::Interleaved) {
    std::vector<int64_t> working = workingBytes(g, [&](unsigned from, unsigned to) {
      if (skewed)
        return from != to;
      return g.crossing == Crossing::Local && !stages.empty() && stages.crosses(from, to);
    });
    for (unsigned c = 0; c < g.cores; ++c)
      p.localBytes = std::max(p.localBytes, held[c] + working[c]);
  }
  // A token is a one-byte message, timed like a receive's permission.
  auto signal = [&](unsigned from, int64_t to, int64_t event) {
    QueueAction a{QueueAction::Signal, 0, 0, -1, -1, g.transfer(1, unsigned(to), from), to};
    a.event = event;
    return a;
  };
  auto wait = [](int64_t event, int64_t count) {
    QueueAction a{QueueAction::Wait};
    a.event = event;
    a.count = count;
    return a;
  };
  if (g.crossing == Crossing::Skewed) {
    for (unsigned c = 0; c < g.cores; ++c) {
      // The stores after their producers' work, the FREE wait before the
      // first (CoreEmitter's frame).
      std::vector<QueueAction> &actions = p.cores[c];
      std::vector<QueueAction> body;
      bool stored = false;
      for (size_t i = 0; i < actions.size(); ++i) {
        const QueueAction &a = actions[i];
        bool store = a.kind == QueueAction::Memory && int64_t(i) == firstStore[c];
        if (store && !stored) {
          body.push_back(wait(kFreeEvent, int64_t(receivers[c].size())));
          stored = true;
        }
        body.push_back(a);
        auto it = a.kind == QueueAction::Compute ? skewMost.find(unsigned(a.task)) : skewMost.end();
        if (it == skewMost.end())
          continue;
        if (!stored) {
          body.push_back(wait(kFreeEvent, int64_t(receivers[c].size())));
          stored = true;
        }
        // (the lowering stores the producer's whole buffer, every row any
        // reader takes: a copy's rows, a task's share of all rows; not the
        // most one reader reads)
        size_t t = size_t(a.task);
        int64_t buffer = std::max(t < g.rowBytes.size() ? g.rowBytes[t] : 0, t < g.wholeBytes.size() ? g.wholeBytes[t] : 0);
        body.push_back(memory(std::max(it->second, buffer), true, c));
        body.back().task = a.task;
      }
      // The frame's start: READY to the readers, the READY wait, FREE to
      // the senders, the slots age.
      std::vector<QueueAction> entry;
      for (int64_t to : receivers[c])
        entry.push_back(signal(c, to, kReadyEvent));
      if (!senders[c].empty())
        entry.push_back(wait(kReadyEvent, int64_t(senders[c].size())));
      for (int64_t from : senders[c])
        entry.push_back(signal(c, from, kFreeEvent));
      entry.insert(entry.end(), ageing[c].begin(), ageing[c].end());
      body.insert(body.begin(), entry.begin(), entry.end());
      actions = std::move(body);
    }
    p.firstFrame.assign(g.work.size(), 0);
    for (unsigned t = 0; t < g.work.size(); ++t) {
      p.firstFrame[t] = unsigned(taskLevel[t]);
      p.frames = std::max(p.frames, unsigned(taskLevel[t]) + 1);
    }
    for (const std::vector<unsigned> &lanes : llvm::make_second_range(stored)) // gathered a pass later
      if (!lanes.empty() && llvm::any_of(lanes, [&](unsigned l) { return g.core[l] != g.core[lanes.back()]; }))
        p.frames = std::max(p.frames, unsigned(taskLevel[lanes.back()]) + 2);
  }
  for (unsigned c = 0; c < g.cores && g.crossing != Crossing::Skewed; ++c) {
    std::vector<QueueAction> &actions = p.cores[c];
    if (firstStore[c] < 0 && !relays[c].empty())
      firstStore[c] = int64_t(actions.size()) + 1; // the first relayed chunk's store
    actions.insert(actions.end(), relays[c].begin(), relays[c].end());
    if (!receivers[c].empty()) {
      actions.insert(actions.begin() + firstStore[c], wait(kFreeEvent, int64_t(receivers[c].size())));
      for (int64_t to : receivers[c])
        actions.push_back(signal(c, to, kReadyEvent));
    }
    if (!senders[c].empty()) {
      std::vector<QueueAction> entry;
      for (int64_t from : senders[c])
        entry.push_back(signal(c, from, kFreeEvent));
      entry.push_back(wait(kReadyEvent, int64_t(senders[c].size())));
      actions.insert(actions.begin(), entry.begin(), entry.end());
    }
  }
  auto byKey = [](const Keyed &a, const Keyed &b) { return a.first < b.first; };
  for (unsigned c = 0; c < g.cores; ++c) {
    if (prologue[c].empty() && epilogue[c].empty())
      continue;
    std::stable_sort(prologue[c].begin(), prologue[c].end(), byKey);
    std::stable_sort(epilogue[c].begin(), epilogue[c].end(), byKey);
    std::vector<QueueAction> actions;
    for (Keyed &k : prologue[c])
      actions.push_back(k.second);
    actions.insert(actions.end(), p.cores[c].begin(), p.cores[c].end());
    for (Keyed &k : epilogue[c])
      actions.push_back(k.second);
    p.cores[c] = std::move(actions);
  }
  return p;
}

namespace {
/// The seed's convergence rule over generation end times: two adjacent
/// two-generation windows within 1%; the interval is their mean.
bool converged(const std::vector<double> &end, double &interval) {
  size_t k = end.size();
  if (k < 5)
    return false;
  double recent = (end[k - 1] - end[k - 3]) / 2, earlier = (end[k - 3] - end[k - 5]) / 2;
  if (std::abs(recent - earlier) > 0.01 * std::max(recent, earlier))
    return false;
  interval = (recent + earlier) / 2;
  return true;
}
} // namespace

QueueRun runQueueModel(const QueueProgram &program, const QueueOptions &options) {
  QueueRun run;
  unsigned cores = unsigned(program.cores.size());
  // Crossing::Skewed: the first inference takes `frames` passes (the
  // earlier ones fill the pipeline), and throughput counts after them.
  unsigned frames = std::max(1u, program.frames);
  unsigned generations = options.throughput ? std::max(5u, options.maxGenerations) + frames - 1 : frames;
  auto firstFrameOf = [&](int64_t task) {
    return task >= 0 && size_t(task) < program.firstFrame.size() ? program.firstFrame[size_t(task)] : 0u;
  };
  run.taskStartNs.assign(size_t(program.tasks), 0);
  run.coreBusyNs.assign(cores, 0);
  for (unsigned c = 0; c < cores; ++c)
    for (const QueueAction &a : program.cores[c])
      run.coreBusyNs[c] += a.ns + a.overheadNs;

  struct State {
    size_t pc = 0;
    unsigned generation = 0;
    bool done = false;
  };
  std::vector<State> state(cores);
  // Events (time, tie, core): the earliest first; simultaneous ones by core
  // index (or the reverse).
  using Event = std::tuple<double, int64_t, unsigned>;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  auto wake = [&](unsigned c, double t) {
    events.push({t, options.reverseTies ? -int64_t(c) : int64_t(c), c});
  };
  unsigned active = 0;
  for (unsigned c = 0; c < cores; ++c) {
    if (program.cores[c].empty()) {
      state[c].done = true;
      continue;
    }
    ++active;
    wake(c, 0);
  }
  std::vector<unsigned> finishedCores; // per generation
  std::vector<double> generationEnd;
  // Rendezvous: (transfer, generation) -> the core waiting there since when
  // (a receiver: since its permission reached the sender).
  std::unordered_map<int64_t, std::pair<unsigned, double>> waiting;
  std::vector<double> queueFree(cores, 0); // each core's network queue
  auto message = [&](unsigned from, double at, double ns) {
    queueFree[from] = std::max(at, queueFree[from]) + ns;
    return queueFree[from];
  };
  double controllerFree = 0;
  // Event registers: (core, register) -> the delivery times of the tokens
  // not yet taken; the cores blocked in a wait.
  std::map<std::pair<unsigned, int64_t>, std::multiset<double>> tokens;
  std::vector<bool> blocked(cores, false);
  unsigned remaining = active;
  bool stop = false;
  while (!events.empty() && !stop) {
    auto [t, tie, c] = events.top();
    events.pop();
    State &s = state[c];
    const std::vector<QueueAction> &actions = program.cores[c];
    if (s.pc == actions.size()) { // a generation ends
      unsigned g = s.generation++;
      s.pc = 0;
      if (finishedCores.size() <= g) {
        finishedCores.resize(g + 1, 0);
        generationEnd.resize(g + 1, 0);
      }
      generationEnd[g] = std::max(generationEnd[g], t);
      if (++finishedCores[g] == active) {
        run.generationEndNs.push_back(generationEnd[g]);
        if (options.throughput && run.generationEndNs.size() >= frames &&
            converged(run.generationEndNs, run.intervalNs))
          stop = true;
      }
      if (s.generation == generations) {
        s.done = true;
        --remaining;
        continue;
      }
    }
    const QueueAction &a = actions[s.pc];
    switch (a.kind) {
    case QueueAction::Compute:
      if (s.generation == firstFrameOf(a.task) && a.task >= 0)
        run.taskStartNs[size_t(a.task)] = t;
      ++s.pc;
      wake(c, t + a.ns);
      break;
    case QueueAction::Memory: {
      double start = std::max(t, controllerFree);
      controllerFree = start + a.ns;
      run.maxMemoryWaitNs = std::max(run.maxMemoryWaitNs, start - t);
      ++s.pc;
      wake(c, start + a.ns + a.overheadNs);
      break;
    }
    case QueueAction::Signal: {
      unsigned to = unsigned(a.peer);
      tokens[{to, a.event}].insert(message(c, t, a.parts.permissionNs));
      ++s.pc;
      wake(c, t);
      if (blocked[to]) { // it checks again (a token delivered later waits for it)
        blocked[to] = false;
        wake(to, t);
      }
      break;
    }
    case QueueAction::Wait: {
      std::multiset<double> &held = tokens[{c, a.event}];
      if (int64_t(held.size()) < a.count) {
        blocked[c] = true;
        break;
      }
      auto last = std::next(held.begin(), a.count);
      double at = std::max(t, *std::prev(last));
      held.erase(held.begin(), last);
      ++s.pc;
      wake(c, at);
      break;
    }
    case QueueAction::Send:
    case QueueAction::Recv: {
      int64_t key = a.transfer * int64_t(generations) + s.generation;
      bool receiving = a.kind == QueueAction::Recv;
      // A receiver's time is when its permission reaches the sender.
      double here = receiving ? message(c, t, a.parts.permissionNs) : t;
      auto it = waiting.find(key);
      if (it == waiting.end()) {
        waiting[key] = {c, here}; // blocks until the peer arrives
        break;
      }
      auto [peer, there] = it->second;
      waiting.erase(it);
      unsigned sender = receiving ? peer : c, receiver = receiving ? c : peer;
      double readEnd = std::max(here, there) + a.parts.readNs;
      double delivered = message(sender, readEnd, a.parts.payloadNs);
      ++s.pc;
      ++state[peer].pc;
      wake(sender, readEnd);
      wake(receiver, delivered + a.parts.tailNs);
      break;
    }
    }
  }
  run.generations = unsigned(run.generationEndNs.size());
  run.latencyNs = run.generationEndNs.size() < frames ? 0 : run.generationEndNs[frames - 1];
  if (!stop && remaining > 0) {
    std::ostringstream os;
    os << remaining << " of " << active << " cores never finish:";
    unsigned listed = 0;
    for (auto &[key, who] : waiting)
      if (listed++ < 4)
        os << " core " << who.first << " waits at transfer " << key / int64_t(generations);
    for (unsigned c = 0; c < cores; ++c)
      if (blocked[c] && listed++ < 4)
        os << " core " << c << " waits for event register " << program.cores[c][state[c].pc].event;
    run.status = "deadlock";
    run.reason = os.str();
    return run;
  }
  if (options.throughput && !stop) {
    run.status = "unconverged";
    run.reason = "the interval did not settle within " + std::to_string(generations) + " generations";
    size_t k = run.generationEndNs.size();
    if (k >= 5)
      run.intervalNs = (run.generationEndNs[k - 1] - run.generationEndNs[k - 5]) / 4;
  }
  return run;
}

PeriodicReport periodicOf(const QueueProgram &program) {
  PeriodicGraphBuilder graph("actions");
  for (unsigned c = 0; c < program.cores.size(); ++c) {
    if (program.cores[c].empty())
      continue;
    graph.beginCore(c);
    for (const QueueAction &a : program.cores[c]) {
      switch (a.kind) {
      case QueueAction::Compute:
        graph.work(a.ns);
        break;
      case QueueAction::Memory:
        graph.work(a.ns + a.overheadNs);
        graph.global(a.ns);
        break;
      case QueueAction::Signal:
        graph.signal(a.peer, a.event, a.parts.permissionNs);
        break;
      case QueueAction::Wait:
        graph.wait(a.event, a.count);
        break;
      case QueueAction::Send:
      case QueueAction::Recv: {
        bool sending = a.kind == QueueAction::Send;
        const TransferParts &t = a.parts;
        int64_t from = sending ? c : a.peer, to = sending ? a.peer : c;
        graph.transfer(
            sending, a.peer,
            [&](int64_t k) { return "transfer " + std::to_string(k) + " of core " + std::to_string(from) +
                                    " to core " + std::to_string(to) + " (pair " + std::to_string(a.transfer) + ")"; },
            sending ? t.readNs : t.permissionNs + t.readNs + t.payloadNs + t.tailNs);
        break;
      }
      }
    }
    graph.endCore();
  }
  return graph.finish();
}

} // namespace raptor::spatial
