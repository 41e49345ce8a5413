//===- Program.h - Compiled PIM programs and their files --------*- C++ -*-===//
//
// A compiled model as the chip runs it: per-core instruction lists (Raptor's
// compact form keeps loops), crossbar contents, global memory and the model's
// input/output buffers; and the directory that holds it:
//
//   config.json        pimsim-nn: core count and array-group map
//   core_<i>.pim|json  pimsim-nn: core i's program, loops unrolled
//   chip.json, network.json  pimsim-nn's chip and network configuration
//   manifest.json      Raptor: geometry, inputs/outputs, groups, files
//   memory.bin         the global memory image
//   weights/c<i>.bin   core i's crossbar contents (float32)
//   raptor/c<i>.rpim   core i's program in Raptor's compact form
//   raptor/o<i>.bin    the operator of each of its instructions (int32)
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_SIMULATOR_PROGRAM_H
#define RAPTOR_SIMULATOR_PROGRAM_H

#include "simulator/Isa.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace raptor::pim {

/// An array group: crossbars sharing an input vector. Crossbar j holds the
/// group's columns [j * xbarCols, ...): `rows` x that many float32 values,
/// row-major, stored crossbar after crossbar in `values`.
struct CrossbarGroup {
  int64_t id = 0, crossbars = 0, rows = 0, cols = 0;
  std::string weight; // the weight tile's name, for reports
  std::vector<float> values;
  int64_t columnsOf(int64_t crossbar, int64_t xbarCols) const;
};

struct CoreProgram {
  int64_t id = 0;
  std::vector<Instruction> code; // may hold RepeatBegin/RepeatEnd records
  std::vector<Stride> strides;   // the strides RepeatBegin records point at
  std::vector<CrossbarGroup> groups;
  int64_t localBytes = 0; // the program's local-memory high-water mark
  bool empty() const { return code.empty(); }
};

/// A model input or output in global memory: element (coordinates in
/// reversed torch order, CuTe-style) at `address + 4 * layout(coordinates)`.
struct IoBuffer {
  std::string name;
  std::vector<int64_t> shape;
  /// float32, or int32 holding fixed-point values x * 2^fixedPointBits
  /// (integer-only programs: the host converts, rounding half to even).
  std::string dtype = "float32";
  int64_t fixedPointBits = 0;
  /// Token ids (an embedding's indices): int32 integers in [0, vocabulary),
  /// written unscaled; 0 for any other buffer.
  int64_t vocabulary = 0;
  int64_t address = 0;
  std::string layout;
};

struct Program {
  int64_t cores = 0, crossbarsPerCore = 0, xbarRows = 0, xbarCols = 0;
  int64_t cellBits = 8, weightBits = 8, localMemory = 0;
  std::vector<CoreProgram> programs; // one per core id, 0..cores-1
  std::vector<uint8_t> globalMemory;
  std::vector<IoBuffer> inputs, outputs;
  /// Integer-only arithmetic: no f32 data anywhere, 32-bit vector
  /// elements are int32 (pimsim-nn's forms give widths only).
  bool integerOnly = false;
  /// The passes of every core's program that make the first inference (a
  /// skewed pipeline's levels; 1 otherwise): the simulators run that many.
  int64_t frames = 1;
  /// The operators instructions come from ("<op> <task>"), for per-operator
  /// counts (Instruction::origin indexes it).
  std::vector<std::string> operators;
  /// Reports beside the program (schedule, transfers, sizes) for the manifest.
  llvm::json::Object reports;
};

/// Instructions in the compact form (loop records excluded) and once
/// unrolled for pimsim-nn (a `saddi` per stride between iterations and one
/// restoring each strided register after the loop).
struct ProgramSize {
  int64_t compact = 0, unrolled = 0;
};
ProgramSize sizeOf(const CoreProgram &program);

/// A JSON file, or an error naming the file (unreadable or not JSON).
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

/// The path of `name` inside the program directory `dir`, or an error
/// (naming `where`) when it leaves it: an absolute path, a `..`, or a
/// symbolic link resolving outside. A program directory is untrusted input:
/// every file of it is read through this.
llvm::Expected<std::string> memberPath(llvm::StringRef dir, llvm::StringRef name, llvm::StringRef where);

/// Matches RepeatBegin/RepeatEnd records (their `tag`s), checks loops are
/// well formed and that event registers, lengths and sizes are in range;
/// the error names the record.
llvm::Error linkLoops(CoreProgram &program);

/// Names of the extension instructions a program uses, with counts.
std::vector<std::pair<std::string, int64_t>> extensionsUsed(const CoreProgram &program);

enum class PimsimFiles { None, Json, Binary, Both };
struct WriteOptions {
  PimsimFiles pimsim = PimsimFiles::Binary;
  /// pimsim-nn files are skipped (and the manifest says why) when the
  /// unrolled program would hold more instructions than this (0: no limit).
  int64_t unrollLimit = 0;
  /// pimsim-nn's chip and network configuration (chip.json, network.json).
  llvm::json::Value chipConfig = nullptr, networkConfig = nullptr;
};

/// Writes the directory (which must exist and be empty).
llvm::Error writeDirectory(const Program &program, llvm::StringRef dir, const WriteOptions &options);
/// Whether a new program may replace `dir`: it does not exist, is an empty
/// directory, or is a program directory Raptor wrote (a manifest of format
/// raptor-pim with an integer version, and only the entries writeDirectory
/// and raptor compile write, none of them a symbolic link). Anything else
/// (a user's files, a web app's manifest.json, the model being compiled) is
/// an error saying what was found, in one line.
llvm::Error checkReplaceable(llvm::StringRef dir);

/// Which program files a reader executes: Raptor's compact form, or
/// pimsim-nn's files (the binary one where both exist, as pimsim-nn does).
enum class ProgramForm { Compact, Pimsim };
/// Reads a directory written by writeDirectory; a malformed or truncated
/// directory is an error naming the file and what is wrong.
llvm::Expected<Program> readDirectory(llvm::StringRef dir, ProgramForm form);

// The single-file forms, exposed for tests and tools.
void writePimsimJson(const CoreProgram &program, llvm::raw_ostream &os);
void writePimsimBinary(const CoreProgram &program, llvm::raw_ostream &os);
void writeCompact(const CoreProgram &program, llvm::raw_ostream &os);
llvm::Expected<CoreProgram> readPimsimJson(llvm::StringRef text, llvm::StringRef source);
llvm::Expected<CoreProgram> readBinary(llvm::StringRef bytes, llvm::StringRef source, bool compact);

} // namespace raptor::pim

#endif // RAPTOR_SIMULATOR_PROGRAM_H
