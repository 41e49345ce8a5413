//===- CoreEmitter.cpp - Building one core's program ------------*- C++ -*-===//
#include "passes/conversion/SpatialToPim/CoreEmitter.h"
#include "passes/spatial/QueueModel.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace raptor::pim {

static constexpr unsigned kFirstTemp = 2, kTemps = 6, kFirstWalker = 8;

CoreEmitter::CoreEmitter(CoreOp core, int64_t localMemory)
    : core(core), memory(localMemory), loc(core.getLoc()), builder(core.getContext()) {
  builder.setInsertionPointToEnd(&core.getBody().front());
  Instruction widths;
  widths.opcode = Opcode::Setbw;
  widths.ibiw = widths.obiw = 32; // fp32 data; see docs/pim.md
  append(widths);
}

Operation *CoreEmitter::lastOp() {
  Block *b = builder.getInsertionBlock();
  return b->empty() || builder.getInsertionPoint() == b->begin() ? nullptr
                                                                 : &*std::prev(builder.getInsertionPoint());
}

Block *CoreEmitter::block() { return builder.getInsertionBlock(); }

CoreEmitter::Bookmark CoreEmitter::mark() { return Bookmark{lastOp(), registers}; }

void CoreEmitter::emitAt(const Bookmark &at, llvm::function_ref<void()> emit) {
  OpBuilder::InsertPoint end = builder.saveInsertionPoint();
  Registers now = registers;
  if (at.after)
    builder.setInsertionPointAfter(at.after);
  else
    builder.setInsertionPointToStart(block());
  registers = at.registers;
  emit();
  // What the instructions after `at` were emitted expecting.
  const Registers &want = at.registers;
  for (auto [reg, value, held] :
       {std::tuple{0, want.globalHi, registers.globalHi}, std::tuple{1, want.globalLo, registers.globalLo}})
    if (value && held != value) {
      Instruction in;
      in.opcode = Opcode::Sldi;
      in.rd = uint8_t(reg);
      in.imm = int32_t(*value);
      append(in);
    }
  for (unsigned i = 0; i < kTemps; ++i) {
    const Temp &expected = want.temps[i], &held = registers.temps[i];
    if (!expected.valid || (held.valid && held.reg == expected.reg && held.offset == expected.offset))
      continue;
    Instruction in;
    in.opcode = expected.reg < 0 ? Opcode::Sldi : Opcode::Saddi;
    in.rd = uint8_t(kFirstTemp + i);
    if (expected.reg >= 0)
      in.rs1 = uint8_t(expected.reg);
    in.imm = int32_t(expected.offset);
    append(in);
  }
  if (registers.ibiw != want.ibiw || registers.obiw != want.obiw)
    setWidths(want.ibiw, want.obiw);
  builder.restoreInsertionPoint(end);
  registers = now;
}

bool CoreEmitter::empty() {
  for (Operation &op : core.getBody().front())
    if (!isa<GroupOp, SetbwOp>(op))
      return false;
  return true;
}

void CoreEmitter::append(const Instruction &in) { buildInstruction(builder, loc, in); }

void CoreEmitter::invalidate() {
  for (Temp &t : registers.temps)
    t.valid = false;
}

static void checkImmediate(int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX)
    llvm::report_fatal_error("raptor-lower-to-pim: an address does not fit a 32-bit immediate");
}

unsigned CoreEmitter::resolve(Address a, llvm::SmallVectorImpl<unsigned> &locked) {
  if (a.reg >= 0 && a.offset == 0)
    return unsigned(a.reg);
  for (unsigned i = 0; i < kTemps; ++i)
    if (registers.temps[i].valid && registers.temps[i].reg == a.reg && registers.temps[i].offset == a.offset) {
      registers.temps[i].used = ++registers.clock;
      locked.push_back(kFirstTemp + i);
      return kFirstTemp + i;
    }
  unsigned victim = kTemps;
  for (unsigned i = 0; i < kTemps; ++i) {
    if (llvm::is_contained(locked, kFirstTemp + i))
      continue;
    if (victim == kTemps || !registers.temps[i].valid || registers.temps[i].used < registers.temps[victim].used)
      victim = i;
    if (!registers.temps[i].valid)
      break;
  }
  unsigned reg = kFirstTemp + victim;
  checkImmediate(a.offset);
  Instruction in;
  if (a.reg < 0) {
    in.opcode = Opcode::Sldi;
    in.rd = uint8_t(reg);
  } else {
    in.opcode = Opcode::Saddi;
    in.rd = uint8_t(reg);
    in.rs1 = uint8_t(a.reg);
  }
  in.imm = int32_t(a.offset);
  append(in);
  registers.temps[victim] = {true, a.reg, a.offset, ++registers.clock};
  locked.push_back(reg);
  return reg;
}

bool CoreEmitter::hasFreeWalker() const {
  for (unsigned r = kFirstWalker; r < 32; ++r)
    if (!walkers[r])
      return true;
  return false;
}

std::optional<unsigned> CoreEmitter::allocateWalker() {
  for (unsigned r = kFirstWalker; r < 32; ++r)
    if (!walkers[r]) {
      walkers[r] = true;
      return r;
    }
  return std::nullopt;
}

void CoreEmitter::nest(ArrayRef<int64_t> counts, ArrayRef<Walk> operands,
                       function_ref<void(ArrayRef<Address>)> body) {
  SmallVector<unsigned> levels;
  for (unsigned i = 0; i < counts.size(); ++i)
    if (counts[i] > 1)
      levels.push_back(i);
  SmallVector<Address> inner;
  if (levels.empty()) {
    for (const Walk &w : operands)
      inner.push_back(w.base);
    body(inner);
    return;
  }
  // One walking register per (base register, strides) class. A class
  // based at an enclosing loop's register with offset 0 walks that register
  // itself (a loop restores the registers it strides); loop-invariant
  // operands get a register too while there are free ones, so that their
  // address is set once before the loops rather than in every iteration.
  struct Class {
    int baseReg;
    SmallVector<int64_t, 4> strides;
    int64_t baseOffset;
    unsigned reg;
  };
  SmallVector<Class> classes;
  SmallVector<unsigned> walkersTaken;
  SmallVector<unsigned> reused;
  for (const Walk &w : operands) {
    SmallVector<int64_t, 4> strides;
    for (unsigned l : levels)
      strides.push_back(w.strides[l]);
    bool moves = llvm::any_of(strides, [](int64_t s) { return s != 0; });
    // Operands of one stride vector share a register (and get their address
    // by a saddi per use) only when registers run out.
    Class *found = nullptr, *shared = nullptr;
    for (Class &c : classes)
      if (c.baseReg == w.base.reg && c.strides == strides) {
        if (c.baseOffset == w.base.offset)
          found = &c;
        else if (moves)
          shared = &c;
      }
    if (!found && shared && !hasFreeWalker())
      found = shared;
    if (!found) {
      std::optional<unsigned> reg;
      if (moves && w.base.reg >= 0 && w.base.offset == 0 && !llvm::is_contained(reused, unsigned(w.base.reg))) {
        reg = unsigned(w.base.reg);
        reused.push_back(*reg);
      } else {
        reg = allocateWalker();
        if (!reg && moves)
          llvm::report_fatal_error("raptor-lower-to-pim: a loop nest needs more than 24 walking registers");
        if (!reg) { // no register left for an invariant: resolved where used
          inner.push_back(w.base);
          continue;
        }
        walkersTaken.push_back(*reg);
        checkImmediate(w.base.offset);
        Instruction init;
        init.rd = uint8_t(*reg);
        init.imm = int32_t(w.base.offset);
        if (w.base.reg < 0) {
          init.opcode = Opcode::Sldi;
        } else {
          init.opcode = Opcode::Saddi;
          init.rs1 = uint8_t(w.base.reg);
        }
        append(init);
      }
      classes.push_back({w.base.reg, strides, w.base.offset, *reg});
      found = &classes.back();
    }
    inner.push_back({int(found->reg), w.base.offset - found->baseOffset});
  }
  OpBuilder::InsertPoint outside = builder.saveInsertionPoint();
  Operation *outer = nullptr;
  for (unsigned i = 0; i < levels.size(); ++i) {
    SmallVector<int32_t> regs, strides;
    for (const Class &c : classes)
      if (c.strides[i] != 0) {
        checkImmediate(c.strides[i]);
        regs.push_back(int32_t(c.reg));
        strides.push_back(int32_t(c.strides[i]));
      }
    auto repeat = RepeatOp::create(builder, loc, counts[levels[i]], regs, strides);
    repeat.getBody().emplaceBlock();
    builder.setInsertionPointToStart(&repeat.getBody().front());
    if (!outer)
      outer = repeat;
  }
  invalidate();
  std::pair<int32_t, int32_t> entry{registers.ibiw, registers.obiw};
  body(inner);
  // Every iteration must start with the widths the body was emitted for.
  if (integerOnly && std::pair{registers.ibiw, registers.obiw} != entry)
    setWidths(entry.first, entry.second);
  invalidate();
  builder.setInsertionPointAfter(outer);
  (void)outside;
  for (unsigned r : walkersTaken)
    walkers[r] = false;
}

void CoreEmitter::vector(Opcode op, Address rd, Address rs1, std::optional<Address> rs2, int64_t len,
                         ElementType type, std::optional<ElementType> from) {
  // An integer-only program holds no f32 data: its real values are int32
  // fixed point, and the setbw before each instruction gives pimsim-nn its
  // widths.
  if (integerOnly) {
    if (type == ElementType::F32)
      type = ElementType::I32;
    setWidths(int32_t(8 * bytesOf(from.value_or(type))), int32_t(8 * bytesOf(type)));
  }
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = op;
  in.type = type;
  in.from = from;
  in.len = len;
  in.rd = uint8_t(resolve(rd, locked));
  in.rs1 = uint8_t(resolve(rs1, locked));
  if (rs2)
    in.rs2 = uint8_t(resolve(*rs2, locked));
  append(in);
}

void CoreEmitter::matrixVector(Opcode op, Address rd, Address matrix, Address vec, int64_t rows, int64_t len) {
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = op;
  in.rows = rows;
  in.len = len;
  in.rd = uint8_t(resolve(rd, locked));
  in.rs1 = uint8_t(resolve(matrix, locked));
  in.rs2 = uint8_t(resolve(vec, locked));
  append(in);
}

void CoreEmitter::mvmul(Address rd, Address rs1, int64_t group, int32_t mbiw) {
  if (integerOnly) // (vector instructions in between set their own widths)
    setWidths(matrixIbiw, matrixObiw);
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = Opcode::Mvmul;
  in.group = group;
  in.mbiw = mbiw;
  in.rd = uint8_t(resolve(rd, locked));
  in.rs1 = uint8_t(resolve(rs1, locked));
  append(in);
}

void CoreEmitter::widths(int32_t input, int32_t output) {
  matrixIbiw = input, matrixObiw = output;
  setWidths(input, output);
}

void CoreEmitter::setWidths(int32_t input, int32_t output) {
  if (input == registers.ibiw && output == registers.obiw)
    return;
  Instruction in;
  in.opcode = Opcode::Setbw;
  in.ibiw = registers.ibiw = input;
  in.obiw = registers.obiw = output;
  append(in);
}

void CoreEmitter::lmv(Address rd, Address rs1, int64_t bytes) {
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = Opcode::Lmv;
  in.len = bytes;
  in.rd = uint8_t(resolve(rd, locked));
  in.rs1 = uint8_t(resolve(rs1, locked));
  append(in);
}

void CoreEmitter::lldi(Address rd, uint8_t byte, int64_t bytes) {
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = Opcode::Lldi;
  in.imm = byte;
  in.len = bytes;
  in.rd = uint8_t(resolve(rd, locked));
  append(in);
}

void CoreEmitter::setGlobal(int64_t address) {
  int64_t hi = address >> 32, lo = int64_t(int32_t(uint32_t(address & 0xffffffff)));
  for (auto [reg, value, cached] : {std::tuple{0, hi, &registers.globalHi}, std::tuple{1, lo, &registers.globalLo}}) {
    if (*cached == value)
      continue;
    Instruction in;
    in.opcode = Opcode::Sldi;
    in.rd = uint8_t(reg);
    in.imm = int32_t(value);
    append(in);
    *cached = value;
  }
}

void CoreEmitter::ld(Address local, int64_t global, int64_t bytes) {
  SmallVector<unsigned> locked;
  setGlobal(global);
  Instruction in;
  in.opcode = Opcode::Ld;
  in.size = bytes;
  in.rd = uint8_t(resolve(local, locked));
  in.rs1 = 0;
  append(in);
}

void CoreEmitter::gather(Address local, Address id, int64_t table, int64_t rowBytes) {
  SmallVector<unsigned> locked;
  if (registers.globalHi != 0) {
    Instruction hi;
    hi.opcode = Opcode::Sldi;
    hi.rd = 0;
    hi.imm = 0;
    append(hi);
    registers.globalHi = 0;
  }
  rowAddress(id, table, rowBytes, locked);
  Instruction in;
  in.opcode = Opcode::Ld;
  in.size = rowBytes;
  in.rd = uint8_t(resolve(local, locked));
  in.rs1 = 0;
  append(in);
}

void CoreEmitter::rowAddress(Address index, int64_t rows, int64_t rowBytes, SmallVectorImpl<unsigned> &locked) {
  checkImmediate(rows);
  checkImmediate(rowBytes);
  Instruction in;
  in.opcode = Opcode::Sld;
  in.rd = 1;
  in.rs1 = uint8_t(resolve(index, locked));
  append(in);
  in = Instruction();
  in.opcode = Opcode::Smuli;
  in.rd = in.rs1 = 1;
  in.imm = int32_t(rowBytes);
  append(in);
  in.opcode = Opcode::Saddi;
  in.imm = int32_t(rows);
  append(in);
  registers.globalLo.reset();
}

void CoreEmitter::gatherLocal(Address local, Address index, int64_t rows, int64_t rowBytes) {
  SmallVector<unsigned> locked;
  rowAddress(index, rows, rowBytes, locked);
  Instruction in;
  in.opcode = Opcode::Lmv;
  in.len = rowBytes;
  in.rd = uint8_t(resolve(local, locked));
  in.rs1 = 1;
  append(in);
}

void CoreEmitter::st(int64_t global, Address local, int64_t bytes) {
  SmallVector<unsigned> locked;
  setGlobal(global);
  Instruction in;
  in.opcode = Opcode::St;
  in.size = bytes;
  in.rd = 0;
  in.rs1 = uint8_t(resolve(local, locked));
  append(in);
}

void CoreEmitter::send(Address local, int64_t peer, int64_t bytes, int64_t tag) {
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = Opcode::Send;
  in.core = int32_t(peer);
  in.size = bytes;
  in.tag = tag;
  in.rd = in.rs1 = uint8_t(resolve(local, locked));
  append(in);
}

void CoreEmitter::recv(Address local, int64_t peer, int64_t bytes, int64_t tag) {
  SmallVector<unsigned> locked;
  Instruction in;
  in.opcode = Opcode::Recv;
  in.core = int32_t(peer);
  in.size = bytes;
  in.tag = tag;
  in.rd = uint8_t(resolve(local, locked));
  append(in);
}

void CoreEmitter::boundaryRecv(int64_t local, int64_t peer, int64_t bytes, int64_t tag,
                               std::pair<int64_t, int64_t> order) {
  boundaryRecvs.push_back({order, local, peer, bytes, tag, loc});
}

void CoreEmitter::boundarySend(int64_t local, int64_t peer, int64_t bytes, int64_t tag,
                               std::pair<int64_t, int64_t> order) {
  boundarySends.push_back({order, local, peer, bytes, tag, loc});
}

void CoreEmitter::emitBoundary(std::vector<Boundary> &transfers, bool receive) {
  llvm::stable_sort(transfers, [](const Boundary &a, const Boundary &b) { return a.order < b.order; });
  mlir::Location saved = loc;
  for (const Boundary &t : transfers) {
    loc = t.loc;
    if (receive)
      recv(Address::at(t.local), t.peer, t.bytes, t.tag);
    else
      send(Address::at(t.local), t.peer, t.bytes, t.tag);
  }
  loc = saved;
  transfers.clear();
}

void CoreEmitter::boundaryStore(int64_t global, Address local, int64_t bytes) {
  if (skewed()) { // to the current bank
    SmallVector<unsigned> locked;
    setBankedGlobal(global, /*store=*/true);
    Instruction in;
    in.opcode = Opcode::St;
    in.size = bytes;
    in.rd = 0;
    in.rs1 = uint8_t(resolve(local, locked));
    append(in);
  } else {
    st(global, local, bytes);
  }
  if (!firstRegionStore)
    firstRegionStore = lastOp();
}

void CoreEmitter::boundaryLoad(Address local, int64_t global, int64_t bytes, int64_t sender) {
  ld(local, global, bytes);
  regionSenders.insert(sender);
}

void CoreEmitter::boundaryRelay(int64_t from, int64_t to, int64_t bytes, int64_t sender) {
  relays.push_back({from, to, bytes, loc});
  regionSenders.insert(sender);
}

void CoreEmitter::beginSkewed() {
  skewedFrames = true;
  walkers[kBankRegister] = walkers[kOtherBankRegister] = true; // never a loop's
}

void CoreEmitter::setBankedGlobal(int64_t global, bool store) {
  // (The lowering keeps both banks below 2^31: the high half is 0.)
  setGlobal(global);
  Instruction in;
  in.opcode = Opcode::Sadd;
  in.rd = 1;
  in.rs1 = 1;
  in.rs2 = uint8_t(store ? kBankRegister : kOtherBankRegister);
  append(in);
  registers.globalLo.reset();
}

void CoreEmitter::skewedLoad(std::vector<int64_t> slots, int64_t global, int64_t bytes, int64_t sender) {
  SmallVector<unsigned> locked;
  setBankedGlobal(global, /*store=*/false);
  Instruction in;
  in.opcode = Opcode::Ld;
  in.size = bytes;
  in.rd = uint8_t(resolve(Address::at(slots.front()), locked));
  in.rs1 = 0;
  append(in);
  if (slots.size() > 1)
    ageing.push_back({std::move(slots), bytes, loc});
  regionSenders.insert(sender);
}

void CoreEmitter::emitFrameStart() {
  using spatial::kFreeEvent, spatial::kReadyEvent;
  if (firstRegionStore) {
    builder.setInsertionPoint(firstRegionStore);
    wait(kFreeEvent, int64_t(regionReceivers.size()));
  }
  if (lastGroup)
    builder.setInsertionPointAfter(lastGroup);
  else
    builder.setInsertionPointToStart(&core.getBody().front());
  // The banks trade places; readers may load what this core stored in the
  // frame before; once the senders' frames before are stored, they may
  // overwrite what this core loaded then; the slots age. (Registers are set by the program's own code before every use,
  // so these may take any temporary.)
  invalidate();
  // store bank = bankBytes - store bank (0 at the program's start: bank 1
  // in the first frame), load bank = bankBytes - store bank.
  checkImmediate(bankBytes);
  Instruction size;
  size.opcode = Opcode::Sldi;
  size.rd = 2;
  size.imm = int32_t(bankBytes);
  append(size);
  for (unsigned reg : {kBankRegister, kOtherBankRegister}) {
    Instruction exchange;
    exchange.opcode = Opcode::Ssub;
    exchange.rd = uint8_t(reg);
    exchange.rs1 = 2;
    exchange.rs2 = uint8_t(kBankRegister);
    append(exchange);
  }
  for (int64_t to : regionReceivers)
    sync(to, kReadyEvent);
  // The senders' tokens share one register: a sender may signal its next
  // pass only once this core has taken this pass's (its store waits for
  // the FREE below), so the count cannot take two of one sender's.
  if (!regionSenders.empty())
    wait(kReadyEvent, int64_t(regionSenders.size()));
  for (int64_t from : regionSenders)
    sync(from, kFreeEvent);
  mlir::Location saved = loc;
  for (const Ageing &a : ageing) {
    loc = a.loc;
    for (size_t k = a.slots.size() - 1; k > 0; --k)
      lmv(Address::at(a.slots[k]), Address::at(a.slots[k - 1]), a.bytes);
  }
  loc = saved;
  invalidate();
  ageing.clear();
}

void CoreEmitter::sync(int64_t peer, int64_t event) {
  Instruction in;
  in.opcode = Opcode::Sync;
  in.core = int32_t(peer);
  in.event = int32_t(event);
  append(in);
}

void CoreEmitter::wait(int64_t event, int64_t count) {
  Instruction in;
  in.opcode = Opcode::Wait;
  in.event = int32_t(event);
  in.waitValue = int32_t(count);
  append(in);
}

void CoreEmitter::emitRegionTokens() {
  using spatial::kFreeEvent, spatial::kReadyEvent;
  if (skewed())
    return emitFrameStart();
  builder.setInsertionPointToEnd(&core.getBody().front());
  mlir::Location saved = loc;
  for (const Relay &r : relays) {
    loc = r.loc;
    int64_t chunk = spatial::relayChunkBytes(r.bytes, memory.size());
    // All of the iteration's buffers are free by now; the chunk (as the
    // queue model prices it) fits unless something stays pinned.
    std::optional<int64_t> buffer = memory.allocate(chunk);
    if (!buffer)
      llvm::report_fatal_error("raptor-lower-to-pim: no local memory left for a relay's chunk");
    for (int64_t done = 0; done < r.bytes; done += chunk) {
      int64_t n = std::min(chunk, r.bytes - done);
      ld(Address::at(*buffer), r.from + done, n);
      st(r.to + done, Address::at(*buffer), n);
      if (!firstRegionStore)
        firstRegionStore = lastOp();
    }
    memory.release(*buffer);
  }
  loc = saved;
  relays.clear();
  if (firstRegionStore) {
    builder.setInsertionPoint(firstRegionStore);
    wait(kFreeEvent, int64_t(regionReceivers.size()));
    builder.setInsertionPointToEnd(&core.getBody().front());
    for (int64_t to : regionReceivers)
      sync(to, kReadyEvent);
  }
  if (!regionSenders.empty()) {
    if (lastGroup)
      builder.setInsertionPointAfter(lastGroup);
    else
      builder.setInsertionPointToStart(&core.getBody().front());
    for (int64_t from : regionSenders)
      sync(from, kFreeEvent);
    wait(kReadyEvent, int64_t(regionSenders.size()));
  }
}

int64_t CoreEmitter::group(int64_t count, StringRef weight, Attribute matrix, ArrayRef<int64_t> rows,
                           ArrayRef<int64_t> cols) {
  auto key = std::make_tuple(weight.str(), matrix.getAsOpaquePointer(), rows[0], rows[1], cols[0], cols[1], count);
  if (auto it = declared.find(key); it != declared.end())
    return it->second;
  declared[key] = groups;
  OpBuilder b(core.getContext());
  Block &block = core.getBody().front();
  if (lastGroup)
    b.setInsertionPointAfter(lastGroup);
  else
    b.setInsertionPointToStart(&block);
  lastGroup = GroupOp::create(b, loc, groups, count, weight, matrix, rows, cols);
  crossbars += count;
  return groups++;
}

void CoreEmitter::finish() {
  // The iteration boundary: sends after the last instruction (registers as
  // the program left them), receives before the first one (after the group
  // declarations). The program's own code sets every register it reads, so
  // the receives may use any.
  emitRegionTokens();
  builder.setInsertionPointToEnd(&core.getBody().front());
  emitBoundary(boundarySends, /*receive=*/false);
  if (!boundaryRecvs.empty()) {
    if (lastGroup)
      builder.setInsertionPointAfter(lastGroup);
    else
      builder.setInsertionPointToStart(&core.getBody().front());
    invalidate();
    emitBoundary(boundaryRecvs, /*receive=*/true);
    invalidate();
  }
  Operation *last = nullptr;
  Block *block = &core.getBody().front();
  while (block && !block->empty()) {
    last = &block->back();
    auto repeat = dyn_cast<RepeatOp>(last);
    block = repeat ? &repeat.getBody().front() : nullptr;
  }
  builder.setInsertionPointToEnd(&core.getBody().front());
  if (!last || last->hasTrait<ScalarUnit>() || isa<GroupOp>(last)) {
    // pimsim-nn never finishes a program that ends in a scalar instruction;
    // an empty local move ends it on the transfer unit.
    SmallVector<unsigned> locked;
    lmv(Address::at(0), Address::at(0), 0);
  }
  core->setAttr("local_bytes", builder.getI64IntegerAttr(memory.peak()));
}

} // namespace raptor::pim
