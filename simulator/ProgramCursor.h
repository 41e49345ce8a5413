//===- ProgramCursor.h - Walking a compact program in execution order -*- C++ -*-===//
//
// Both simulators execute Raptor's compact programs, whose loop records
// (RepeatBegin ... RepeatEnd, with per-iteration register strides) stand for
// the unrolled instruction stream pimsim-nn runs. The cursor hides them: it
// always rests on the next instruction to execute, advancing strided
// registers between iterations and restoring them after a loop, exactly as
// the unrolled form's `saddi`s would (see sizeOf in Program.h).
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_PROGRAMCURSOR_H
#define RAPTOR_SIMULATOR_PROGRAMCURSOR_H

#include "simulator/Program.h"

#include <vector>

namespace raptor::pim {

class ProgramCursor {
public:
  /// `program` must have passed linkLoops (matched records, non-empty
  /// loop bodies), as every program readDirectory returns has.
  explicit ProgramCursor(const CoreProgram &program) : program(&program) { settle(); }

  bool done() const { return pc >= program->code.size(); }
  /// The instruction to execute next (not a loop record); only when !done().
  const Instruction &current() const { return program->code[pc]; }
  /// Its record index in the compact program (for diagnostics).
  size_t record() const { return pc; }

  /// Moves past the current instruction, through any loop records.
  void advance() {
    ++pc;
    settle();
  }
  /// Starts the program again from its first record (a looping program's
  /// next pass); registers keep their values, as on the hardware.
  void restart() {
    pc = 0;
    loops.clear();
    settle();
  }

  /// The `saddi`s the unrolled form executes where the cursor passed loop
  /// records (one per stride at each back edge and at each loop exit),
  /// since the last call: what a timing model charges for them.
  int64_t takeImplicitScalars() {
    int64_t n = implicitScalars;
    implicitScalars = 0;
    return n;
  }

  int32_t regs[32] = {};

private:
  struct Loop {
    size_t begin; // index of the RepeatBegin record
    int64_t iteration;
  };
  const CoreProgram *program;
  size_t pc = 0;
  std::vector<Loop> loops;
  int64_t implicitScalars = 0;

  void settle() {
    const std::vector<Instruction> &code = program->code;
    while (pc < code.size()) {
      const Instruction &in = code[pc];
      if (in.opcode == Opcode::RepeatBegin) {
        loops.push_back({pc, 0});
        ++pc;
      } else if (in.opcode == Opcode::RepeatEnd) {
        Loop &loop = loops.back();
        const Instruction &begin = code[loop.begin];
        auto strides = llvm::ArrayRef(program->strides).slice(size_t(begin.rows), size_t(begin.size));
        if (begin.len > 1)
          implicitScalars += int64_t(strides.size());
        if (++loop.iteration < begin.len) {
          for (const Stride &s : strides)
            regs[s.reg] = int32_t(uint32_t(regs[s.reg]) + uint32_t(s.stride));
          pc = loop.begin + 1;
        } else {
          for (const Stride &s : strides)
            regs[s.reg] = int32_t(uint32_t(regs[s.reg]) - uint32_t(int64_t(s.stride) * (begin.len - 1)));
          loops.pop_back();
          ++pc;
        }
      } else {
        return;
      }
    }
  }
};

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_PROGRAMCURSOR_H
