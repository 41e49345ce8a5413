//===- Program.cpp - Compiled PIM programs and their files ------*- C++ -*-===//
#include "simulator/Program.h"

#include "algebra/LayoutAlgebra.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <cstring>
#include <map>

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace raptor::pim {

namespace {
Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

constexpr int64_t kRecordBytes = 20, kHeaderBytes = 12;
constexpr uint32_t kVersion = 1;

/// The 20-byte record: u8 opcode, rd, rs1, flags; i32 a, g1, g2, g3.
struct Record {
  uint8_t opcode = 0, rd = 0, rs1 = 0, flags = 0;
  int32_t a = 0, g1 = 0, g2 = 0, g3 = 0;
};

Record encode(const Instruction &in, bool compact) {
  Record r;
  r.opcode = uint8_t(in.opcode);
  r.rd = in.rd;
  r.rs1 = in.rs1;
  const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
  switch (in.opcode) {
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    r.a = in.rs2;
    break;
  case Opcode::Sldi:
  case Opcode::Saddi:
  case Opcode::Smuli:
    r.a = in.imm;
    break;
  case Opcode::Setbw:
    r.g1 = in.ibiw;
    r.g2 = in.obiw;
    break;
  case Opcode::Mvmul:
    r.a = in.mbiw;
    r.g1 = in.relu;
    r.g2 = int32_t(in.group);
    break;
  case Opcode::Ld:
  case Opcode::St:
    r.g3 = int32_t(in.size);
    break;
  case Opcode::Lldi:
    r.a = in.imm;
    r.g3 = int32_t(in.len);
    break;
  case Opcode::Lmv:
    r.g3 = int32_t(in.len);
    break;
  case Opcode::Send:
  case Opcode::Recv:
    r.a = in.core;
    r.g3 = int32_t(in.size);
    if (compact)
      r.g2 = int32_t(in.tag);
    break;
  case Opcode::Sync:
    r.a = in.core;
    r.g1 = in.event;
    break;
  case Opcode::Wait:
    r.g1 = in.event;
    r.g2 = in.waitValue;
    break;
  case Opcode::RepeatBegin:
    r.a = int32_t(in.len);
    r.rd = uint8_t(in.size);
    break;
  default:
    if (info && info->unit == Unit::Vector) {
      r.a = in.rs2;
      r.g3 = int32_t(in.len);
      if (compact) { // low nibble: the type; high: a conversion's source type + 1
        r.flags = uint8_t(uint8_t(in.type) | (in.from ? uint8_t(uint8_t(*in.from) + 1) << 4 : 0));
        r.g1 = int32_t(in.rows);
      }
    }
  }
  return r;
}

void putRecord(const Record &r, llvm::raw_ostream &os) {
  char bytes[kRecordBytes];
  bytes[0] = char(r.opcode), bytes[1] = char(r.rd), bytes[2] = char(r.rs1), bytes[3] = char(r.flags);
  int32_t fields[4] = {r.a, r.g1, r.g2, r.g3};
  for (int i = 0; i < 4; ++i)
    llvm::support::endian::write32le(bytes + 4 + 4 * i, uint32_t(fields[i]));
  os.write(bytes, kRecordBytes);
}

Record getRecord(const char *bytes) {
  Record r;
  r.opcode = uint8_t(bytes[0]), r.rd = uint8_t(bytes[1]), r.rs1 = uint8_t(bytes[2]);
  r.flags = uint8_t(bytes[3]);
  int32_t *fields[4] = {&r.a, &r.g1, &r.g2, &r.g3};
  for (int i = 0; i < 4; ++i)
    *fields[i] = int32_t(llvm::support::endian::read32le(bytes + 4 + 4 * i));
  return r;
}

Instruction decode(const Record &r, bool compact) {
  Instruction in;
  in.opcode = Opcode(r.opcode);
  in.rd = r.rd;
  in.rs1 = r.rs1;
  const OpcodeInfo *info = lookupOpcode(r.opcode);
  switch (in.opcode) {
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    in.rs2 = uint8_t(r.a);
    break;
  case Opcode::Sldi:
  case Opcode::Saddi:
  case Opcode::Smuli:
    in.imm = r.a;
    break;
  case Opcode::Setbw:
    in.ibiw = r.g1;
    in.obiw = r.g2;
    break;
  case Opcode::Mvmul:
    in.mbiw = r.a;
    in.relu = r.g1 != 0;
    in.group = r.g2;
    break;
  case Opcode::Ld:
  case Opcode::St:
    in.size = r.g3;
    break;
  case Opcode::Lldi:
    in.imm = r.a;
    in.len = r.g3;
    break;
  case Opcode::Lmv:
    in.len = r.g3;
    break;
  case Opcode::Send:
  case Opcode::Recv:
    in.core = r.a;
    in.size = r.g3;
    if (compact)
      in.tag = r.g2;
    break;
  case Opcode::Sync:
    in.core = r.a;
    in.event = r.g1;
    break;
  case Opcode::Wait:
    in.event = r.g1;
    in.waitValue = r.g2;
    break;
  case Opcode::RepeatBegin:
    in.len = r.a;
    in.size = r.rd;
    break;
  case Opcode::RepeatStride:
    in.imm = r.a;
    break;
  default:
    if (info && info->unit == Unit::Vector) {
      in.rs2 = uint8_t(r.a);
      in.len = r.g3;
      if (compact) {
        in.type = ElementType(r.flags & 0xF);
        if (r.flags >> 4)
          in.from = ElementType((r.flags >> 4) - 1);
        in.rows = r.g1;
      }
    }
  }
  return in;
}

/// Calls `visit` on every instruction of [begin, end) with loops unrolled.
template <typename Visit>
void forEachUnrolled(const CoreProgram &p, size_t begin, size_t end, Visit &visit) {
  for (size_t i = begin; i < end; ++i) {
    const Instruction &in = p.code[i];
    if (in.opcode != Opcode::RepeatBegin) {
      visit(in);
      continue;
    }
    size_t close = size_t(in.tag);
    int64_t count = in.len;
    auto strides = llvm::ArrayRef(p.strides).slice(size_t(in.rows), size_t(in.size));
    for (int64_t it = 0; it < count; ++it) {
      forEachUnrolled(p, i + 1, close, visit);
      for (const Stride &s : strides) {
        Instruction step;
        step.opcode = Opcode::Saddi;
        step.rd = step.rs1 = s.reg;
        step.imm = it + 1 < count ? s.stride : int32_t(-int64_t(s.stride) * (count - 1));
        if (it + 1 < count || count > 1)
          visit(step);
      }
    }
    i = close;
  }
}

void offsetField(llvm::raw_ostream &os) { os << ", \"offset\": {\"offset_select\": 0, \"offset_value\": 0}"; }

void writeJsonInstruction(const Instruction &in, llvm::raw_ostream &os) {
  const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
  os << "{\"op\": \"" << info->name << "\"";
  auto field = [&](const char *name, int64_t v) { os << ", \"" << name << "\": " << v; };
  switch (in.opcode) {
  case Opcode::Nop:
    break;
  case Opcode::Sldi:
    field("rd", in.rd), field("imm", in.imm);
    break;
  case Opcode::Sld:
    field("rd", in.rd), field("rs1", in.rs1), field("offset_value", 0);
    break;
  case Opcode::Sadd:
  case Opcode::Ssub:
  case Opcode::Smul:
    field("rd", in.rd), field("rs1", in.rs1), field("rs2", in.rs2);
    break;
  case Opcode::Saddi:
  case Opcode::Smuli:
    field("rd", in.rd), field("rs1", in.rs1), field("imm", in.imm);
    break;
  case Opcode::Setbw:
    field("ibiw", in.ibiw), field("obiw", in.obiw);
    break;
  case Opcode::Mvmul:
    field("rd", in.rd), field("rs1", in.rs1), field("mbiw", in.mbiw), field("group", in.group);
    field("relu", in.relu);
    break;
  case Opcode::Ld:
  case Opcode::St:
    field("rd", in.rd), field("rs1", in.rs1), field("size", in.size), offsetField(os);
    break;
  case Opcode::Lldi:
    field("rd", in.rd), field("imm", in.imm), field("len", in.len), offsetField(os);
    break;
  case Opcode::Lmv:
    // pimsim-nn times lmv by `len` and tracks hazards by `size`: both.
    field("rd", in.rd), field("rs1", in.rs1), field("len", in.len), field("size", in.len);
    offsetField(os);
    break;
  case Opcode::Send:
    // The target takes a send's source from rd; rs1 = rd.
    field("rd", in.rd), field("rs1", in.rd), field("core", in.core), field("size", in.size);
    offsetField(os);
    break;
  case Opcode::Recv:
    field("rd", in.rd), field("core", in.core), field("size", in.size), offsetField(os);
    break;
  case Opcode::Sync:
    field("core", in.core), field("event_register", in.event);
    break;
  case Opcode::Wait:
    field("event_register", in.event), field("wait_value", in.waitValue);
    break;
  default:
    field("rd", in.rd), field("rs1", in.rs1);
    if (info->shape == VectorShape::Binary || info->shape == VectorShape::DotProduct ||
        info->shape == VectorShape::ScalarShift)
      field("rs2", in.rs2);
    field("len", in.len), offsetField(os);
  }
  os << "}";
}

Expected<int64_t> intField(const llvm::json::Object &o, StringRef key, StringRef where, bool required = true) {
  if (const llvm::json::Value *v = o.get(key)) {
    if (std::optional<int64_t> i = v->getAsInteger())
      return *i;
    return failure(where + ": '" + key + "' must be an integer");
  }
  if (required)
    return failure(where + ": missing '" + key + "'");
  return 0;
}

Expected<uint8_t> regField(const llvm::json::Object &o, StringRef key, StringRef where) {
  Expected<int64_t> r = intField(o, key, where);
  if (!r)
    return r.takeError();
  if (*r < 0 || *r >= 32)
    return failure(where + ": register '" + key + "' = " + llvm::Twine(*r) + " is outside 0..31");
  return uint8_t(*r);
}

/// A program directory is untrusted input: a file is read only when it is
/// a regular file (a FIFO would block, a device like /dev/zero would be read
/// without end) and, when the manifest gives its size, only once the size
/// on disk matches.
Error checkRegularFile(StringRef path, int64_t expectedSize) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return failure("cannot read '" + path + "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return failure("'" + path + "' is not a regular file");
  if (expectedSize >= 0 && int64_t(status.getSize()) != expectedSize)
    return failure("'" + path + "' has " + llvm::Twine(status.getSize()) + " bytes but the manifest says " +
                   llvm::Twine(expectedSize) + " (truncated?)");
  return Error::success();
}

Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(StringRef path, int64_t expectedSize = -1) {
  if (Error e = checkRegularFile(path, expectedSize))
    return std::move(e);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure("cannot read '" + path + "': " + buffer.getError().message());
  if (expectedSize >= 0 && int64_t((*buffer)->getBufferSize()) != expectedSize)
    return failure("'" + path + "' has " + llvm::Twine((*buffer)->getBufferSize()) +
                   " bytes but the manifest says " + llvm::Twine(expectedSize) + " (truncated?)");
  return std::move(*buffer);
}

Error writeFile(StringRef path, llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return failure("cannot write '" + path + "': " + ec.message());
  write(os);
  os.close();
  if (os.has_error())
    return failure("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

std::string pathIn(StringRef dir, const llvm::Twine &name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

} // namespace

Expected<std::string> memberPath(StringRef dir, StringRef name, StringRef where) {
  auto refused = [&] {
    return failure(where + ": '" + name + "' is not a file inside the program directory");
  };
  if (name.empty() || llvm::sys::path::is_absolute(name))
    return refused();
  for (auto it = llvm::sys::path::begin(name), end = llvm::sys::path::end(name); it != end; ++it)
    if (*it == "..")
      return refused();
  std::string path = pathIn(dir, name);
  llvm::SmallString<256> realDir, realPath;
  if (!llvm::sys::fs::real_path(dir, realDir) && !llvm::sys::fs::real_path(path, realPath) &&
      !llvm::StringRef(realPath).starts_with((realDir + llvm::sys::path::get_separator()).str()))
    return refused();
  return path;
}

namespace {

llvm::json::Object ioJson(const IoBuffer &io) {
  llvm::json::Object o{{"name", io.name},
                       {"shape", llvm::json::Array(io.shape)},
                       {"dtype", io.dtype},
                       {"address", io.address},
                       {"layout", io.layout}};
  if (io.dtype == "int32")
    o["fixed_point_bits"] = io.fixedPointBits;
  if (io.vocabulary)
    o["vocabulary"] = io.vocabulary;
  return o;
}

Expected<IoBuffer> ioFrom(const llvm::json::Value &v, StringRef where, int64_t globalBytes) {
  const llvm::json::Object *o = v.getAsObject();
  if (!o)
    return failure(where + ": expected an object");
  IoBuffer io;
  if (auto name = o->getString("name"))
    io.name = name->str();
  else
    return failure(where + ": missing 'name'");
  const llvm::json::Array *shape = o->getArray("shape");
  if (!shape)
    return failure(where + ": missing 'shape'");
  int64_t elements = 1;
  for (const llvm::json::Value &d : *shape) {
    std::optional<int64_t> n = d.getAsInteger();
    if (!n || *n < 0 || *n > (int64_t(1) << 40) || llvm::MulOverflow(elements, *n, elements))
      return failure(where + ": 'shape' must list sizes whose product int64 counts");
    io.shape.push_back(*n);
  }
  if (auto dtype = o->getString("dtype"))
    io.dtype = dtype->str();
  if (io.dtype != "float32" && io.dtype != "int32")
    return failure(where + ": dtype '" + io.dtype + "' is not supported (float32, int32)");
  if (io.dtype == "int32") {
    Expected<int64_t> bits = intField(*o, "fixed_point_bits", where);
    if (!bits)
      return bits.takeError();
    if (*bits < 0 || *bits > 30)
      return failure(where + ": fixed_point_bits " + llvm::Twine(*bits) + " is outside 0..30");
    io.fixedPointBits = *bits;
  }
  if (o->get("vocabulary")) {
    Expected<int64_t> vocabulary = intField(*o, "vocabulary", where);
    if (!vocabulary)
      return vocabulary.takeError();
    if (io.dtype != "int32" || io.fixedPointBits != 0 || *vocabulary < 1 || *vocabulary > (int64_t(1) << 24))
      return failure(where + ": 'vocabulary' needs an int32 buffer without fixed point and a size in 1..2^24");
    io.vocabulary = *vocabulary;
  }
  Expected<int64_t> address = intField(*o, "address", where);
  if (!address)
    return address.takeError();
  io.address = *address;
  if (auto layout = o->getString("layout"))
    io.layout = layout->str();
  layout::Checked l = layout::parseLayout(io.layout);
  if (!l.ok)
    return failure(where + ": layout '" + io.layout + "': " + l.error);
  if (l.layout.size() != elements)
    return failure(where + ": layout " + io.layout + " does not have the shape's " +
                   llvm::Twine(elements) + " elements");
  // Compared without overflow: an address near 2^63 wrapped the sum negative
  // (accepted, then the simulator read far outside memory.bin).
  if (io.address < 0 || l.layout.cosize() > globalBytes / 4 || io.address > globalBytes - 4 * l.layout.cosize())
    return failure(where + ": the buffer leaves the " + llvm::Twine(globalBytes) + "-byte global memory");
  return io;
}
} // namespace

Expected<llvm::json::Value> readJsonFile(StringRef path) {
  if (Error e = checkRegularFile(path, -1))
    return std::move(e);
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return failure("cannot read '" + path + "': " + buffer.getError().message());
  Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return failure("'" + path + "' is not valid JSON: " + llvm::toString(json.takeError()));
  return std::move(*json);
}

int64_t CrossbarGroup::columnsOf(int64_t crossbar, int64_t xbarCols) const {
  return std::max<int64_t>(0, std::min(xbarCols, cols - crossbar * xbarCols));
}

Error linkLoops(CoreProgram &p) {
  std::vector<size_t> open;
  for (size_t i = 0; i < p.code.size(); ++i) {
    Instruction &in = p.code[i];
    if (!lookupOpcode(uint8_t(in.opcode)) && in.opcode != Opcode::RepeatBegin &&
        in.opcode != Opcode::RepeatEnd)
      return failure("record " + llvm::Twine(i) + " has unknown opcode " + llvm::Twine(unsigned(in.opcode)));
    if ((in.opcode == Opcode::Sync || in.opcode == Opcode::Wait) && (in.event < 0 || in.event >= 32))
      return failure("record " + llvm::Twine(i) + ": event register " + llvm::Twine(in.event) +
                     " is outside 0..31");
    if (in.opcode != Opcode::RepeatBegin && (in.len < 0 || in.size < 0 || in.waitValue < 0))
      return failure("record " + llvm::Twine(i) + " has a negative length, size or wait value");
    if (in.opcode == Opcode::RepeatBegin) {
      if (in.len < 1 || in.len > INT32_MAX)
        return failure("record " + llvm::Twine(i) + ": a loop must repeat between 1 and 2^31-1 times");
      if (in.rows < 0 || in.size < 0 || size_t(in.rows + in.size) > p.strides.size())
        return failure("record " + llvm::Twine(i) + ": loop strides outside the stride table");
      open.push_back(i);
    } else if (in.opcode == Opcode::RepeatEnd) {
      if (open.empty())
        return failure("record " + llvm::Twine(i) + ": a loop end without a loop");
      size_t begin = open.back();
      // A loop must execute an instruction per iteration: an empty body
      // would let a few records spin for billions of iterations.
      bool body = false;
      for (size_t k = begin + 1; k < i && !body; ++k)
        body = p.code[k].opcode != Opcode::RepeatBegin && p.code[k].opcode != Opcode::RepeatEnd;
      if (!body)
        return failure("record " + llvm::Twine(begin) + ": a loop without an instruction in its body");
      p.code[begin].tag = int64_t(i);
      in.tag = int64_t(begin);
      open.pop_back();
    }
  }
  if (!open.empty())
    return failure("record " + llvm::Twine(open.back()) + ": a loop that never ends");
  return Error::success();
}

ProgramSize sizeOf(const CoreProgram &p) {
  ProgramSize size;
  for (const Instruction &in : p.code)
    if (in.opcode != Opcode::RepeatBegin && in.opcode != Opcode::RepeatEnd)
      ++size.compact;
  // Unrolled size by recursion on the loop structure (without visiting).
  std::function<int64_t(size_t, size_t)> count = [&](size_t begin, size_t end) {
    int64_t n = 0;
    for (size_t i = begin; i < end; ++i) {
      const Instruction &in = p.code[i];
      if (in.opcode != Opcode::RepeatBegin) {
        ++n;
        continue;
      }
      int64_t body = count(i + 1, size_t(in.tag)), k = in.size;
      n += in.len * body + (in.len - 1) * k + (in.len > 1 ? k : 0);
      i = size_t(in.tag);
    }
    return n;
  };
  size.unrolled = count(0, p.code.size());
  return size;
}

std::vector<std::pair<std::string, int64_t>> extensionsUsed(const CoreProgram &p) {
  std::map<std::string, int64_t> counts;
  for (const Instruction &in : p.code)
    if (const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode)); info && info->extension)
      ++counts[info->name];
  return {counts.begin(), counts.end()};
}

void writePimsimJson(const CoreProgram &p, llvm::raw_ostream &os) {
  os << "[";
  bool first = true;
  auto visit = [&](const Instruction &in) {
    os << (first ? "\n  " : ",\n  ");
    first = false;
    writeJsonInstruction(in, os);
  };
  forEachUnrolled(p, 0, p.code.size(), visit);
  os << (first ? "]\n" : "\n]\n");
}

void writePimsimBinary(const CoreProgram &p, llvm::raw_ostream &os) {
  os << "PIMB";
  char header[8];
  llvm::support::endian::write32le(header, kVersion);
  llvm::support::endian::write32le(header + 4, uint32_t(sizeOf(p).unrolled));
  os.write(header, 8);
  auto visit = [&](const Instruction &in) { putRecord(encode(in, /*compact=*/false), os); };
  forEachUnrolled(p, 0, p.code.size(), visit);
}

void writeCompact(const CoreProgram &p, llvm::raw_ostream &os) {
  os << "RPIM";
  int64_t records = 0;
  for (const Instruction &in : p.code)
    records += 1 + (in.opcode == Opcode::RepeatBegin ? in.size : 0);
  char header[8];
  llvm::support::endian::write32le(header, kVersion);
  llvm::support::endian::write32le(header + 4, uint32_t(records));
  os.write(header, 8);
  for (const Instruction &in : p.code) {
    putRecord(encode(in, /*compact=*/true), os);
    if (in.opcode == Opcode::RepeatBegin)
      for (const Stride &s : llvm::ArrayRef(p.strides).slice(size_t(in.rows), size_t(in.size))) {
        Record r;
        r.opcode = uint8_t(Opcode::RepeatStride);
        r.rd = s.reg;
        r.a = s.stride;
        putRecord(r, os);
      }
  }
}

Expected<CoreProgram> readBinary(StringRef bytes, StringRef source, bool compact) {
  StringRef magic = compact ? "RPIM" : "PIMB";
  if (bytes.size() < size_t(kHeaderBytes) || !bytes.starts_with(magic))
    return failure("'" + source + "' is not a " + (compact ? "Raptor compact" : "pimsim-nn binary") +
                   " program (no '" + magic + "' header)");
  uint32_t version = llvm::support::endian::read32le(bytes.data() + 4);
  uint32_t count = llvm::support::endian::read32le(bytes.data() + 8);
  if (version != kVersion)
    return failure("'" + source + "' has format version " + llvm::Twine(version) + " (expected 1)");
  if (bytes.size() != size_t(kHeaderBytes) + size_t(count) * kRecordBytes)
    return failure("'" + source + "' holds " + llvm::Twine((bytes.size() - kHeaderBytes) / kRecordBytes) +
                   " whole records but its header says " + llvm::Twine(count) + " (truncated?)");
  CoreProgram p;
  p.code.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    Record r = getRecord(bytes.data() + kHeaderBytes + size_t(i) * kRecordBytes);
    const OpcodeInfo *info = lookupOpcode(r.opcode);
    bool structure = compact && (r.opcode == uint8_t(Opcode::RepeatBegin) || r.opcode == uint8_t(Opcode::RepeatEnd));
    if (r.opcode == uint8_t(Opcode::RepeatStride))
      return failure("'" + source + "' record " + llvm::Twine(i) + ": a loop stride outside a loop header");
    if (!info && !structure)
      return failure("'" + source + "' record " + llvm::Twine(i) + " has unknown opcode " +
                     llvm::Twine(unsigned(r.opcode)));
    if (info && info->extension && !compact)
      return failure("'" + source + "' record " + llvm::Twine(i) + " is the extension " + info->name +
                     ", which pimsim-nn programs cannot hold");
    if (r.rd >= 32 || r.rs1 >= 32)
      return failure("'" + source + "' record " + llvm::Twine(i) + " names a register outside 0..31");
    Instruction in = decode(r, compact);
    if (in.type > ElementType::I32 || (in.from && *in.from > ElementType::I32))
      return failure("'" + source + "' record " + llvm::Twine(i) + " has element type code " +
                     llvm::Twine(unsigned(r.flags)));
    if (in.from && in.opcode != Opcode::Vmv)
      return failure("'" + source + "' record " + llvm::Twine(i) + ": only vmv converts element types");
    if (in.opcode == Opcode::RepeatBegin) {
      in.rows = int64_t(p.strides.size());
      for (int64_t s = 0; s < in.size; ++s) {
        if (++i >= count)
          return failure("'" + source + "': the last loop header lacks its strides");
        Record sr = getRecord(bytes.data() + kHeaderBytes + size_t(i) * kRecordBytes);
        if (sr.opcode != uint8_t(Opcode::RepeatStride) || sr.rd >= 32)
          return failure("'" + source + "' record " + llvm::Twine(i) + ": expected a loop stride");
        p.strides.push_back({sr.rd, sr.a});
      }
    }
    p.code.push_back(in);
  }
  if (Error e = linkLoops(p))
    return failure("'" + source + "': " + llvm::toString(std::move(e)));
  return p;
}

Expected<CoreProgram> readPimsimJson(StringRef text, StringRef source) {
  Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return failure("'" + source + "' is not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Array *list = json->getAsArray();
  if (!list)
    return failure("'" + source + "' must be a JSON array of instructions");
  CoreProgram p;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string where = (source + " instruction " + llvm::Twine(i)).str();
    const llvm::json::Object *o = (*list)[i].getAsObject();
    if (!o)
      return failure(where + ": expected an object");
    std::optional<StringRef> name = o->getString("op");
    const OpcodeInfo *info = name ? lookupOpcode(*name) : nullptr;
    if (!info || info->extension)
      return failure(where + ": unknown op '" + (name ? *name : StringRef("?")) + "'");
    Instruction in;
    in.opcode = info->opcode;
    auto reg = [&](StringRef key, uint8_t &out) -> Error {
      Expected<uint8_t> r = regField(*o, key, where);
      if (!r)
        return r.takeError();
      out = *r;
      return Error::success();
    };
    auto num = [&](StringRef key, auto &out) -> Error {
      Expected<int64_t> v = intField(*o, key, where);
      if (!v)
        return v.takeError();
      out = decltype(out + 0)(*v);
      return Error::success();
    };
    Error e = Error::success();
    auto all = [&](std::initializer_list<std::function<Error()>> steps) -> Error {
      for (auto &step : steps)
        if (Error err = step())
          return err;
      return Error::success();
    };
    (void)e.operator bool();
    switch (in.opcode) {
    case Opcode::Nop:
      break;
    case Opcode::Sldi:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return num("imm", in.imm); }});
      break;
    case Opcode::Sld:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); }});
      break;
    case Opcode::Sadd:
    case Opcode::Ssub:
    case Opcode::Smul:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); },
               [&] { return reg("rs2", in.rs2); }});
      break;
    case Opcode::Saddi:
    case Opcode::Smuli:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); },
               [&] { return num("imm", in.imm); }});
      break;
    case Opcode::Setbw:
      e = all({[&] { return num("ibiw", in.ibiw); }, [&] { return num("obiw", in.obiw); }});
      break;
    case Opcode::Mvmul: {
      int64_t relu = 0;
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); },
               [&] { return num("mbiw", in.mbiw); }, [&] { return num("group", in.group); },
               [&] { return num("relu", relu); }});
      in.relu = relu != 0;
      break;
    }
    case Opcode::Ld:
    case Opcode::St:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); },
               [&] { return num("size", in.size); }});
      break;
    case Opcode::Lldi:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return num("imm", in.imm); },
               [&] { return num("len", in.len); }});
      break;
    case Opcode::Lmv:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); },
               [&] { return num("len", in.len); }});
      break;
    case Opcode::Send:
    case Opcode::Recv:
      e = all({[&] { return reg("rd", in.rd); }, [&] { return num("core", in.core); },
               [&] { return num("size", in.size); }});
      break;
    case Opcode::Sync:
      e = all({[&] { return num("core", in.core); }, [&] { return num("event_register", in.event); }});
      break;
    case Opcode::Wait:
      e = all({[&] { return num("event_register", in.event); },
               [&] { return num("wait_value", in.waitValue); }});
      break;
    default: {
      bool two = info->shape == VectorShape::Binary || info->shape == VectorShape::DotProduct ||
                 info->shape == VectorShape::ScalarShift;
      e = all({[&] { return reg("rd", in.rd); }, [&] { return reg("rs1", in.rs1); },
               [&] { return two ? reg("rs2", in.rs2) : Error::success(); },
               [&] { return num("len", in.len); }});
    }
    }
    if (e)
      return std::move(e);
    p.code.push_back(in);
  }
  if (Error e = linkLoops(p))
    return failure("'" + source + "': " + llvm::toString(std::move(e)));
  return p;
}

Error checkReplaceable(StringRef dir) {
  namespace fs = llvm::sys::fs;
  if (fs::is_symlink_file(dir))
    return failure("'" + dir + "' is a symbolic link: give the program directory itself");
  if (!fs::exists(dir))
    return Error::success();
  if (!fs::is_directory(dir))
    return failure("'" + dir + "' exists and is not a program directory: choose another output");
  std::vector<std::string> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec, /*follow_symlinks=*/false), end; it != end && !ec; it.increment(ec))
    entries.push_back(llvm::sys::path::filename(it->path()).str());
  if (ec)
    return failure("cannot read '" + dir + "': " + ec.message());
  if (entries.empty())
    return Error::success();
  std::string manifest = pathIn(dir, "manifest.json");
  Expected<llvm::json::Value> json =
      fs::is_regular_file(manifest) && !fs::is_symlink_file(manifest) ? readJsonFile(manifest)
                                                                       : Expected<llvm::json::Value>(failure(""));
  const llvm::json::Object *m = json ? json->getAsObject() : nullptr;
  if (!json)
    llvm::consumeError(json.takeError());
  llvm::sort(entries);
  if (!m || m->getString("format") != "raptor-pim" || !m->getInteger("version")) {
    // Named, so that the user sees what would have been replaced.
    std::string found = llvm::is_contained(entries, "manifest.json")
                            ? "its manifest.json is not a Raptor manifest"
                            : "no Raptor manifest; it holds '" + entries.front() + "'";
    return failure("'" + dir + "' exists and is not a program directory (" + found + "): choose another output");
  }
  static const llvm::Regex own("^(manifest\\.json|memory\\.bin|config\\.json|chip\\.json|network\\.json|"
                               "core_[0-9]+\\.(pim|json)|raptor|weights|reports)$");
  for (const std::string &name : entries)
    if (!own.match(name) || fs::is_symlink_file(pathIn(dir, name)))
      return failure("'" + dir + "' holds '" + name + "', which Raptor did not write: move it or choose another output");
  return Error::success();
}

Error writeDirectory(const Program &program, StringRef dir, const WriteOptions &options) {
  for (StringRef sub : {"raptor", "weights"})
    if (std::error_code ec = llvm::sys::fs::create_directories(pathIn(dir, sub)))
      return failure("cannot create '" + pathIn(dir, sub) + "': " + ec.message());
  llvm::json::Array cores, groupMap;
  llvm::json::Object arrayGroups;
  int64_t compact = 0, unrolled = 0;
  std::map<std::string, int64_t> extensions;
  for (const CoreProgram &p : program.programs) {
    llvm::json::Array sizes;
    for (const CrossbarGroup &g : p.groups)
      sizes.push_back(g.crossbars);
    arrayGroups[("core" + llvm::Twine(p.id)).str()] = std::move(sizes);
    ProgramSize size = sizeOf(p);
    compact += size.compact;
    unrolled += size.unrolled;
    for (auto &[name, n] : extensionsUsed(p))
      extensions[name] += n;
    if (p.empty() && p.groups.empty())
      continue;
    std::string programFile = ("raptor/c" + llvm::Twine(p.id) + ".rpim").str();
    std::string weightsFile = ("weights/c" + llvm::Twine(p.id) + ".bin").str();
    int64_t records = 0;
    for (const Instruction &in : p.code)
      records += 1 + (in.opcode == Opcode::RepeatBegin ? in.size : 0);
    llvm::json::Array groups;
    int64_t offset = 0;
    for (const CrossbarGroup &g : p.groups) {
      groups.push_back(llvm::json::Object{{"id", g.id}, {"crossbars", g.crossbars}, {"rows", g.rows},
                                          {"cols", g.cols}, {"weight", g.weight}, {"offset", offset}});
      offset += int64_t(g.values.size()) * 4;
    }
    if (Error e = writeFile(pathIn(dir, programFile), [&](llvm::raw_ostream &os) { writeCompact(p, os); }))
      return e;
    std::string originsFile = ("raptor/o" + llvm::Twine(p.id) + ".bin").str();
    if (!program.operators.empty())
      if (Error e = writeFile(pathIn(dir, originsFile), [&](llvm::raw_ostream &os) {
            for (const Instruction &in : p.code) {
              char bytes[4];
              llvm::support::endian::write32le(bytes, uint32_t(in.origin));
              os.write(bytes, 4);
            }
          }))
        return e;
    if (Error e = writeFile(pathIn(dir, weightsFile), [&](llvm::raw_ostream &os) {
          for (const CrossbarGroup &g : p.groups)
            os.write(reinterpret_cast<const char *>(g.values.data()), g.values.size() * 4);
        }))
      return e;
    llvm::json::Object core{
        {"id", p.id}, {"program", programFile}, {"records", records}, {"instructions", size.compact},
        {"unrolled_instructions", size.unrolled}, {"local_bytes", p.localBytes},
        {"weights", weightsFile}, {"weights_bytes", offset}, {"groups", std::move(groups)}};
    if (!program.operators.empty())
      core["origins"] = originsFile;
    cores.push_back(std::move(core));
  }
  bool compatible = extensions.empty();
  PimsimFiles pimsim = compatible ? options.pimsim : PimsimFiles::None;
  std::string skipped;
  if (!compatible && options.pimsim != PimsimFiles::None)
    skipped = "the program uses extension instructions pimsim-nn lacks";
  if (pimsim != PimsimFiles::None && options.unrollLimit > 0 && unrolled > options.unrollLimit) {
    skipped = llvm::formatv("the unrolled program has {0} instructions ({1} MB in binary form), above "
                            "the limit of {2}", unrolled, unrolled * kRecordBytes / 1000000, options.unrollLimit)
                  .str();
    pimsim = PimsimFiles::None;
  }
  for (const CoreProgram &p : program.programs) {
    if (pimsim == PimsimFiles::Json || pimsim == PimsimFiles::Both)
      if (Error e = writeFile(pathIn(dir, "core_" + llvm::Twine(p.id) + ".json"),
                              [&](llvm::raw_ostream &os) { writePimsimJson(p, os); }))
        return e;
    if (pimsim == PimsimFiles::Binary || pimsim == PimsimFiles::Both)
      if (Error e = writeFile(pathIn(dir, "core_" + llvm::Twine(p.id) + ".pim"),
                              [&](llvm::raw_ostream &os) { writePimsimBinary(p, os); }))
        return e;
  }
  // pimsim-nn's configuration travels with every directory: Raptor's
  // timing simulator reads it too.
  llvm::json::Object config{{"core_cnt", program.cores}, {"array_group_map", std::move(arrayGroups)}};
  if (Error e = writeFile(pathIn(dir, "config.json"), [&](llvm::raw_ostream &os) {
        os << llvm::formatv("{0:2}", llvm::json::Value(std::move(config))) << "\n";
      }))
    return e;
  for (auto [name, value] : {std::pair{"chip.json", &options.chipConfig},
                             std::pair{"network.json", &options.networkConfig}})
    if (value->kind() != llvm::json::Value::Null)
      if (Error e = writeFile(pathIn(dir, name), [&](llvm::raw_ostream &os) {
            os << llvm::formatv("{0:2}", *value) << "\n";
          }))
        return e;
  if (Error e = writeFile(pathIn(dir, "memory.bin"), [&](llvm::raw_ostream &os) {
        os.write(reinterpret_cast<const char *>(program.globalMemory.data()), program.globalMemory.size());
      }))
    return e;
  llvm::json::Array inputs, outputs;
  for (const IoBuffer &io : program.inputs)
    inputs.push_back(ioJson(io));
  for (const IoBuffer &io : program.outputs)
    outputs.push_back(ioJson(io));
  llvm::json::Object ext;
  for (auto &[name, n] : extensions)
    ext[name] = n;
  static const char *files[] = {"none", "json", "binary", "both"};
  llvm::json::Object manifest{
      {"format", "raptor-pim"},
      {"version", int64_t(kVersion)},
      {"chip", llvm::json::Object{{"cores", program.cores},
                                  {"crossbars_per_core", program.crossbarsPerCore},
                                  {"xbar_size", llvm::json::Array{program.xbarRows, program.xbarCols}},
                                  {"cell_bits", program.cellBits},
                                  {"weight_bits", program.weightBits},
                                  {"local_memory_bytes", program.localMemory}}},
      {"global_memory_bytes", int64_t(program.globalMemory.size())},
      {"operators", llvm::json::Array(program.operators)},
      {"inputs", std::move(inputs)},
      {"outputs", std::move(outputs)},
      {"cores", std::move(cores)},
      {"program", llvm::json::Object{{"instructions", compact},
                                     {"unrolled_instructions", unrolled},
                                     {"pimsim_compatible", compatible},
                                     {"pimsim_files", files[int(pimsim)]},
                                     {"pimsim_skipped", skipped},
                                     {"arithmetic", program.integerOnly ? "integer" : "float"},
                                     {"frames", program.frames},
                                     {"extensions", std::move(ext)}}},
  };
  for (const auto &[key, value] : program.reports)
    manifest[key] = value;
  return writeFile(pathIn(dir, "manifest.json"), [&](llvm::raw_ostream &os) {
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))) << "\n";
  });
}

/// pimsim-nn's forms carry no element types: in an integer-only program a
/// vector instruction's operands have the widths of the setbw before it
/// (rs1 ibiw bits, rd obiw bits; a vmv between different widths converts).
static void typeFromWidths(CoreProgram &core) {
  auto integer = [](int32_t bits) {
    return bits == 8 ? ElementType::I8 : bits == 16 ? ElementType::I16 : ElementType::I32;
  };
  int32_t ibiw = 32, obiw = 32;
  for (Instruction &in : core.code) {
    if (in.opcode == Opcode::Setbw) {
      ibiw = in.ibiw, obiw = in.obiw;
      continue;
    }
    const OpcodeInfo *info = lookupOpcode(uint8_t(in.opcode));
    if (!info || info->unit != Unit::Vector)
      continue;
    in.type = integer(obiw);
    if (in.opcode == Opcode::Vmv && ibiw != obiw)
      in.from = integer(ibiw);
  }
}

Expected<Program> readDirectory(StringRef dir, ProgramForm form) {
  if (!llvm::sys::fs::is_directory(dir))
    return failure("'" + dir + "' is not a program directory");
  Expected<std::string> member = memberPath(dir, "manifest.json", ("'" + dir + "'").str());
  if (!member)
    return member.takeError();
  std::string manifestPath = *member;
  Expected<llvm::json::Value> json = readJsonFile(manifestPath);
  if (!json)
    return json.takeError();
  const llvm::json::Object *m = json->getAsObject();
  if (!m || m->getString("format") != "raptor-pim")
    return failure("'" + manifestPath + "' is not a Raptor program manifest");
  if (m->getInteger("version") != int64_t(kVersion))
    return failure("'" + manifestPath + "' has an unsupported format version");
  Program p;
  const llvm::json::Object *chip = m->getObject("chip");
  if (!chip)
    return failure("'" + manifestPath + "': missing 'chip'");
  for (auto [key, out] : {std::pair{"cores", &p.cores}, std::pair{"crossbars_per_core", &p.crossbarsPerCore},
                          std::pair{"cell_bits", &p.cellBits}, std::pair{"weight_bits", &p.weightBits},
                          std::pair{"local_memory_bytes", &p.localMemory}}) {
    Expected<int64_t> v = intField(*chip, key, manifestPath + " chip");
    if (!v)
      return v.takeError();
    if (*v < 1 || *v > (int64_t(1) << 31))
      return failure("'" + manifestPath + "': chip." + key + " = " + llvm::Twine(*v) + " is out of range");
    *out = *v;
  }
  const llvm::json::Array *xbar = chip->getArray("xbar_size");
  if (!xbar || xbar->size() != 2 || !(*xbar)[0].getAsInteger() || !(*xbar)[1].getAsInteger() ||
      *(*xbar)[0].getAsInteger() < 1 || *(*xbar)[1].getAsInteger() < 1 || p.cores > 100000)
    return failure("'" + manifestPath + "': chip.xbar_size must be [rows, cols] and cores at most 100000");
  p.xbarRows = *(*xbar)[0].getAsInteger();
  p.xbarCols = *(*xbar)[1].getAsInteger();
  Expected<int64_t> globalBytes = intField(*m, "global_memory_bytes", manifestPath);
  if (!globalBytes)
    return globalBytes.takeError();
  if (*globalBytes < 0)
    return failure("'" + manifestPath + "': global_memory_bytes must not be negative");
  Expected<std::string> memoryPath = memberPath(dir, "memory.bin", manifestPath);
  if (!memoryPath)
    return memoryPath.takeError();
  Expected<std::unique_ptr<llvm::MemoryBuffer>> memory = readFile(*memoryPath, *globalBytes);
  if (!memory)
    return memory.takeError();
  p.globalMemory.assign((*memory)->getBufferStart(), (*memory)->getBufferEnd());
  if (const llvm::json::Array *operators = m->getArray("operators"))
    for (const llvm::json::Value &name : *operators) {
      std::optional<StringRef> text = name.getAsString();
      if (!text)
        return failure("'" + manifestPath + "': 'operators' must hold strings");
      p.operators.push_back(text->str());
    }
  for (auto [key, list] : {std::pair{"inputs", &p.inputs}, std::pair{"outputs", &p.outputs}}) {
    const llvm::json::Array *items = m->getArray(key);
    if (!items)
      return failure("'" + manifestPath + "': missing '" + key + "'");
    for (size_t i = 0; i < items->size(); ++i) {
      Expected<IoBuffer> io = ioFrom((*items)[i], (manifestPath + " " + key + "[" + llvm::Twine(i) + "]").str(), *globalBytes);
      if (!io)
        return io.takeError();
      list->push_back(std::move(*io));
    }
  }
  p.programs.resize(size_t(p.cores));
  for (int64_t i = 0; i < p.cores; ++i)
    p.programs[size_t(i)].id = i;
  const llvm::json::Array *cores = m->getArray("cores");
  if (!cores)
    return failure("'" + manifestPath + "': missing 'cores'");
  for (const llvm::json::Value &v : *cores) {
    const llvm::json::Object *c = v.getAsObject();
    std::string where = manifestPath + " cores[]";
    if (!c)
      return failure(where + ": expected an object");
    Expected<int64_t> id = intField(*c, "id", where);
    if (!id)
      return id.takeError();
    if (*id < 0 || *id >= p.cores)
      return failure(where + ": core id " + llvm::Twine(*id) + " outside 0.." + llvm::Twine(p.cores - 1));
    CoreProgram &core = p.programs[size_t(*id)];
    Expected<int64_t> local = intField(*c, "local_bytes", where, false);
    if (!local)
      return local.takeError();
    core.localBytes = *local;
    std::optional<StringRef> weights = c->getString("weights");
    Expected<int64_t> weightBytes = intField(*c, "weights_bytes", where);
    const llvm::json::Array *groups = c->getArray("groups");
    if (!weights || !weightBytes || !groups)
      return weightBytes ? failure(where + ": core " + llvm::Twine(*id) + " lacks 'weights' or 'groups'")
                         : weightBytes.takeError();
    if (*weightBytes < 0)
      return failure(where + ": core " + llvm::Twine(*id) + ": weights_bytes must not be negative");
    Expected<std::string> weightsPath = memberPath(dir, *weights, where);
    if (!weightsPath)
      return weightsPath.takeError();
    Expected<std::unique_ptr<llvm::MemoryBuffer>> data = readFile(*weightsPath, *weightBytes);
    if (!data)
      return data.takeError();
    for (const llvm::json::Value &gv : *groups) {
      const llvm::json::Object *go = gv.getAsObject();
      if (!go)
        return failure(where + ": groups must be objects");
      CrossbarGroup g;
      for (auto [key, out] : {std::pair{"id", &g.id}, std::pair{"crossbars", &g.crossbars},
                              std::pair{"rows", &g.rows}, std::pair{"cols", &g.cols}}) {
        Expected<int64_t> n = intField(*go, key, where + " group");
        if (!n)
          return n.takeError();
        *out = *n;
      }
      Expected<int64_t> offset = intField(*go, "offset", where + " group");
      if (!offset)
        return offset.takeError();
      if (g.id != int64_t(core.groups.size()) || g.crossbars < 1 || g.rows < 1 || g.rows > p.xbarRows ||
          g.cols < 1 || g.cols > g.crossbars * p.xbarCols)
        return failure(where + ": core " + llvm::Twine(*id) + " group " + llvm::Twine(g.id) +
                       " has an impossible shape or id");
      if (auto name = go->getString("weight"))
        g.weight = name->str();
      // Without overflow: an offset near 2^63 wrapped the sum negative and the
      // copy below read outside the file (a crash).
      int64_t bytes = 0;
      if (*offset < 0 || __builtin_mul_overflow(g.rows, g.cols, &bytes) ||
          __builtin_mul_overflow(bytes, int64_t(4), &bytes) || bytes > *weightBytes - *offset)
        return failure(where + ": core " + llvm::Twine(*id) + " group " + llvm::Twine(g.id) +
                       " leaves its weights file");
      const float *start = reinterpret_cast<const float *>((*data)->getBufferStart() + *offset);
      g.values.assign(start, start + g.rows * g.cols);
      core.groups.push_back(std::move(g));
    }
    if (form == ProgramForm::Compact) {
      std::optional<StringRef> file = c->getString("program");
      Expected<int64_t> records = intField(*c, "records", where);
      if (!file || !records)
        return records ? failure(where + ": core " + llvm::Twine(*id) + " lacks 'program'") : records.takeError();
      // (Bounded before the size is computed: a count near 2^63 overflowed it.)
      if (*records < 0 || *records > (int64_t(1) << 40))
        return failure(where + ": core " + llvm::Twine(*id) + ": records " + llvm::Twine(*records) +
                       " is out of range");
      Expected<std::string> programPath = memberPath(dir, *file, where);
      if (!programPath)
        return programPath.takeError();
      Expected<std::unique_ptr<llvm::MemoryBuffer>> bytes =
          readFile(*programPath, kHeaderBytes + *records * kRecordBytes);
      if (!bytes)
        return bytes.takeError();
      Expected<CoreProgram> code = readBinary((*bytes)->getBuffer(), *programPath, /*compact=*/true);
      if (!code)
        return code.takeError();
      core.code = std::move(code->code);
      core.strides = std::move(code->strides);
      if (std::optional<StringRef> origins = c->getString("origins")) {
        Expected<std::string> originsPath = memberPath(dir, *origins, where);
        if (!originsPath)
          return originsPath.takeError();
        Expected<std::unique_ptr<llvm::MemoryBuffer>> table = readFile(*originsPath, int64_t(core.code.size()) * 4);
        if (!table)
          return table.takeError();
        const char *at = (*table)->getBufferStart();
        for (Instruction &in : core.code) {
          in.origin = int32_t(llvm::support::endian::read32le(at));
          at += 4;
          if (in.origin < -1 || in.origin >= int32_t(p.operators.size()))
            return failure("'" + pathIn(dir, *origins) + "': operator " + llvm::Twine(in.origin) +
                           " is not in the manifest's list of " + llvm::Twine(p.operators.size()));
        }
      }
    }
  }
  if (const llvm::json::Object *info = m->getObject("program")) {
    std::optional<StringRef> arithmetic = info->getString("arithmetic");
    if (arithmetic && *arithmetic != "integer" && *arithmetic != "float")
      return failure("'" + manifestPath + "': program.arithmetic '" + *arithmetic +
                     "' is neither 'integer' nor 'float'");
    p.integerOnly = arithmetic == "integer";
    if (info->get("frames")) {
      Expected<int64_t> frames = intField(*info, "frames", "'" + manifestPath + "': program");
      if (!frames)
        return frames.takeError();
      if (*frames < 1 || *frames > kMostFrames)
        return failure("'" + manifestPath + "': program.frames " + llvm::Twine(*frames) + " is outside 1.." +
                       llvm::Twine(kMostFrames));
      p.frames = *frames;
    }
  }
  if (form == ProgramForm::Pimsim) {
    const llvm::json::Object *info = m->getObject("program");
    if (!info || info->getString("pimsim_files") == "none")
      return failure("'" + dir + "' holds no pimsim-nn program files (the program is not "
                     "pimsim-compatible or was compiled without them)");
    for (CoreProgram &core : p.programs) {
      Expected<std::string> binary = memberPath(dir, "core_" + std::to_string(core.id) + ".pim", manifestPath);
      if (!binary)
        return binary.takeError();
      Expected<std::string> text = memberPath(dir, "core_" + std::to_string(core.id) + ".json", manifestPath);
      if (!text)
        return text.takeError();
      bool useBinary = llvm::sys::fs::exists(*binary);
      Expected<std::unique_ptr<llvm::MemoryBuffer>> bytes = readFile(useBinary ? *binary : *text);
      if (!bytes)
        return bytes.takeError();
      Expected<CoreProgram> code = useBinary ? readBinary((*bytes)->getBuffer(), *binary, false)
                                             : readPimsimJson((*bytes)->getBuffer(), *text);
      if (!code)
        return code.takeError();
      core.code = std::move(code->code);
      if (p.integerOnly)
        typeFromWidths(core);
    }
  }
  return p;
}

} // namespace raptor::pim
