//===- CoreEmitter.h - Building one core's program --------------*- C++ -*-===//
//
// Appends instructions to a pim.core in program order. Operands are
// addresses: constants or an enclosing loop's register plus a constant.
// The emitter keeps registers: r0/r1 form the global address pair, r2-r7
// hold addresses for one instruction (reused while still valid), r8-r31
// walk loop operands (one per distinct stride vector of a loop nest).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_COREEMITTER_H
#define RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_COREEMITTER_H

#include "dialects/pim/PimDialect.h"
#include "passes/conversion/SpatialToPim/LocalMemory.h"

#include "mlir/IR/Builders.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <set>
#include <utility>
#include <vector>

namespace raptor::pim {

/// A local address at the current program point: `offset` alone (reg < 0),
/// or register `reg` plus `offset`.
struct Address {
  int reg = -1;
  int64_t offset = 0;
  static Address at(int64_t address) { return {-1, address}; }
  Address plus(int64_t bytes) const { return {reg, offset + bytes}; }
};

/// A loop-nest operand: its address at entry and its stride per loop.
struct Walk {
  Address base;
  llvm::SmallVector<int64_t, 4> strides; // bytes, outermost loop first
};

class CoreEmitter {
  /// A register r2..r7 holding an address: absolute (reg < 0) or register
  /// `reg` plus `offset`.
  struct Temp {
    bool valid = false;
    int reg = -1;
    int64_t offset = 0;
    uint64_t used = 0;
  };
  /// What the emitter knows the registers hold where the program is: the
  /// temporaries r2..r7 (with their use clock), the global address pair
  /// r0/r1, and the widths of the last setbw.
  struct Registers {
    std::array<Temp, 6> temps;
    uint64_t clock = 0;
    std::optional<int64_t> globalHi, globalLo;
    int32_t ibiw = 32, obiw = 32;
  };

public:
  CoreEmitter(CoreOp core, int64_t localMemory);

  CoreOp core;
  LocalMemory memory;
  mlir::Location loc;
  /// An integer-only program (docs/quantization.md): f32 instructions are
  /// emitted as int32 ones and every vector instruction states its widths.
  bool integerOnly = false;

  /// Loops of counts[i] iterations (outermost first, 1s skipped); inside the
  /// innermost, `body` gets each operand's address for the iteration.
  void nest(llvm::ArrayRef<int64_t> counts, llvm::ArrayRef<Walk> operands,
            llvm::function_ref<void(llvm::ArrayRef<Address>)> body);

  /// One vector instruction of `len` elements of `type` (`from`: rs1's
  /// type, for a vmv that converts).
  void vector(Opcode op, Address rd, Address rs1, std::optional<Address> rs2, int64_t len,
              ElementType type = ElementType::F32, std::optional<ElementType> from = std::nullopt);
  void matrixVector(Opcode op, Address rd, Address matrix, Address vector, int64_t rows, int64_t len);
  void mvmul(Address rd, Address rs1, int64_t group, int32_t mbiw);
  /// The element widths of the MVMs that follow (a setbw when they change):
  /// 32/32 for f32, 8/32 for int8 inputs summed in int32.
  void widths(int32_t ibiw, int32_t obiw);
  void lmv(Address rd, Address rs1, int64_t bytes);
  void lldi(Address rd, uint8_t byte, int64_t bytes);
  void ld(Address local, int64_t global, int64_t bytes);
  /// Row `LMem[id]` (an int32 read by `sld`) of a table of `rowBytes` rows
  /// at global address `table` (below 2^31) loaded to `local`: the address
  /// is computed in r1, which then holds no known global address.
  void gather(Address local, Address id, int64_t table, int64_t rowBytes);
  /// Row `LMem[index]` (an int32 read by `sld`) of `rowBytes` rows starting
  /// at the absolute local address `rows`, copied to `local` by `lmv`: the
  /// source address is computed in r1, as `gather` does.
  void gatherLocal(Address local, Address index, int64_t rows, int64_t rowBytes);
  void st(int64_t global, Address local, int64_t bytes);
  void send(Address local, int64_t core, int64_t bytes, int64_t tag);
  void recv(Address local, int64_t core, int64_t bytes, int64_t tag);
  /// One token to event register `event` of core `peer`; block until the
  /// local register `event` holds `count` tokens, and take them.
  void sync(int64_t peer, int64_t event);
  void wait(int64_t event, int64_t count);
  /// A transfer at the iteration boundary of a pipelined program: receives
  /// run before the program's first instruction and sends after its last,
  /// each side in increasing `order` (emitted by finish()). With every core
  /// receiving only from earlier stages and sending only to later ones, one
  /// global order makes the boundary deadlock-free, and a transfer never
  /// waits for work in the middle of its peer's iteration.
  void boundaryRecv(int64_t local, int64_t core, int64_t bytes, int64_t tag, std::pair<int64_t, int64_t> order);
  void boundarySend(int64_t local, int64_t core, int64_t bytes, int64_t tag, std::pair<int64_t, int64_t> order);

  /// A transfer to a later pipeline stage through global memory
  /// (spatial::Crossing::Global): the store and the load go where they are
  /// emitted; finish() adds the tokens that hand the region over (the
  /// receiver's FREE signals and READY wait before its first instruction,
  /// the sender's FREE wait before its first such store and READY signals
  /// after its last instruction). A region may have several readers
  /// (handOver), each loading it from `sender`.
  void boundaryStore(int64_t global, Address local, int64_t bytes);
  void boundaryLoad(Address local, int64_t global, int64_t bytes, int64_t sender);
  /// A relay of such a transfer across a skipped level: `bytes` from region
  /// `from` (stored by `sender`) copied to region `to` after the last
  /// instruction, in spatial::relayChunkBytes chunks.
  void boundaryRelay(int64_t from, int64_t to, int64_t bytes, int64_t sender);
  /// One more reader of the regions this core stores or relays: they are
  /// handed over to `receiver` too, and overwritten once every reader has
  /// freed them.
  void handOver(int64_t receiver) { regionReceivers.insert(receiver); }

  /// A skewed pipeline (spatial::Crossing::Skewed): every pass is a frame.
  /// Data read at a later level crosses through double-buffered regions: a
  /// region at global address a has its second bank at a + `bankBytes`
  /// (set before finish(), when the regions are known); each frame stores
  /// to one bank and loads from the other, whose offsets (0 or bankBytes)
  /// kBankRegister and kOtherBankRegister hold, exchanged at each frame's
  /// start. finish() places the tokens at the frame's start: READY signals
  /// to the readers (the frame before stored all it had to), the READY wait
  /// for every sender's, then FREE signals to the senders (the frame before
  /// loaded all it had to: the bank now written is free) and the slots'
  /// ageing copies; and the FREE wait before the first region store. (The
  /// FREE signals follow the READY wait so that no sender signals twice
  /// before both tokens of a register are taken: the senders' tokens share
  /// one register, and the readers' another.)
  void beginSkewed();
  bool skewed() const { return skewedFrames; }
  int64_t bankBytes = 0;
  /// `bytes` from region `global` (stored by `sender` in its previous
  /// frame) into `slots[0]`, here; at the frame's start slots[k] <-
  /// slots[k - 1] from the oldest: slots.back() then holds what the sender
  /// stored slots.size() frames ago.
  void skewedLoad(std::vector<int64_t> slots, int64_t global, int64_t bytes, int64_t sender);
  /// The registers holding the bank offsets in a skewed pipeline.
  static constexpr unsigned kBankRegister = 31, kOtherBankRegister = 30;

  /// Appends a group (its id is the next one) and returns the id; the id of
  /// the group declared before when another task (a later row block, a
  /// co-located copy) binds the same tiles of the same weight again.
  int64_t group(int64_t crossbars, llvm::StringRef weight, mlir::Attribute matrix,
                llvm::ArrayRef<int64_t> rows, llvm::ArrayRef<int64_t> cols);
  int64_t crossbarsUsed() const { return crossbars; }
  /// A point of the program emitted so far and what the registers hold
  /// there: emitAt() adds instructions at it later.
  struct Bookmark {
    mlir::Operation *after = nullptr; // null: the block's start
    Registers registers;
  };
  /// Where the program is now (outside any loop nest).
  Bookmark mark();
  /// Runs `emit` (instructions outside loop nests) as if the program were
  /// still at `at`: its instructions go there, ahead of those emitted
  /// since, and the registers they change are set back to what those
  /// expect. (A task's constants are loaded at its start by one request.)
  void emitAt(const Bookmark &at, llvm::function_ref<void()> emit);

  /// The op before the insertion point (null at a block's start) and the
  /// block instructions go to: callers find what they emitted after it.
  mlir::Operation *lastOp();
  mlir::Block *block();
  bool empty();
  /// Ends the program on a non-scalar instruction and records the memory peak.
  void finish();

private:
  struct Boundary {
    std::pair<int64_t, int64_t> order;
    int64_t local, peer, bytes, tag;
    mlir::Location loc;
  };
  std::vector<Boundary> boundaryRecvs, boundarySends;
  void emitBoundary(std::vector<Boundary> &transfers, bool receive);
  /// Crossing::Global: the peers in increasing order, the first store.
  std::set<int64_t> regionSenders, regionReceivers;
  mlir::Operation *firstRegionStore = nullptr;
  struct Relay {
    int64_t from, to, bytes;
    mlir::Location loc;
  };
  std::vector<Relay> relays;
  struct Ageing {
    std::vector<int64_t> slots;
    int64_t bytes;
    mlir::Location loc;
  };
  std::vector<Ageing> ageing;
  bool skewedFrames = false;
  /// r0/r1 = `global` plus the offset of the bank this frame stores to
  /// (`store`) or loads from.
  void setBankedGlobal(int64_t global, bool store);
  void emitRegionTokens();
  void emitFrameStart();

  mlir::OpBuilder builder;
  int64_t groups = 0, crossbars = 0;
  mlir::Operation *lastGroup = nullptr;
  /// Declared groups by (weight, matrix layout, rows, cols, crossbars).
  std::map<std::tuple<std::string, const void *, int64_t, int64_t, int64_t, int64_t, int64_t>, int64_t> declared;

  Registers registers;
  bool walkers[32] = {};
  /// The widths of the last setbw and
  /// those the MVMs need.
  int32_t matrixIbiw = 32, matrixObiw = 32;
  void setWidths(int32_t ibiw, int32_t obiw);

  unsigned resolve(Address a, llvm::SmallVectorImpl<unsigned> &locked);
  void invalidate();
  void append(const Instruction &in);
  std::optional<unsigned> allocateWalker();
  bool hasFreeWalker() const;
  void setGlobal(int64_t address);
  /// r1 = LMem[index] * rowBytes + rows (sld, smuli, saddi): the address of
  /// row LMem[index] of rows at `rows`; r1 then holds no known global address.
  void rowAddress(Address index, int64_t rows, int64_t rowBytes, llvm::SmallVectorImpl<unsigned> &locked);
};

} // namespace raptor::pim

#endif // RAPTOR_PASSES_CONVERSION_SPATIALTOPIM_COREEMITTER_H
