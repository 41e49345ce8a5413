//===- SafeTensors.cpp - Reading .safetensors weight files ------*- C++ -*-===//
#include "passes/nn/SafeTensors.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <cstring>

namespace raptor::nn {

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

unsigned safetensorsDtypeBytes(llvm::StringRef dtype) {
  return llvm::StringSwitch<unsigned>(dtype)
      .Cases({"F64", "I64", "U64"}, 8)
      .Cases({"F32", "I32", "U32"}, 4)
      .Cases({"F16", "BF16", "I16", "U16"}, 2)
      .Cases({"I8", "U8", "BOOL"}, 1)
      .Default(0);
}

llvm::Expected<std::unique_ptr<SafeTensorsFile>> SafeTensorsFile::open(llvm::StringRef path) {
  // Only a regular file: a FIFO would block the reader, a device (/dev/zero)
  // would be read to exhaustion.
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return failure("cannot read weights '" + path + "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return failure("cannot read weights '" + path + "': not a regular file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure("cannot read weights '" + path + "': " + buffer.getError().message());
  auto file = std::make_unique<SafeTensorsFile>();
  file->filePath = path.str();
  file->buffer = std::move(*buffer);
  llvm::StringRef bytes = file->buffer->getBuffer();
  if (bytes.size() < 8)
    return failure("'" + path + "' is not a safetensors file (shorter than its header)");
  uint64_t headerSize = llvm::support::endian::read64le(bytes.data());
  if (headerSize > bytes.size() - 8)
    return failure("'" + path + "' is not a safetensors file (its header runs past the end; truncated?)");
  llvm::Expected<llvm::json::Value> header = llvm::json::parse(bytes.substr(8, headerSize));
  if (!header)
    return failure("'" + path + "' has an invalid safetensors header: " + llvm::toString(header.takeError()));
  const llvm::json::Object *root = header->getAsObject();
  if (!root)
    return failure("'" + path + "': the safetensors header must be a JSON object");
  size_t dataStart = 8 + headerSize, dataBytes = bytes.size() - dataStart;
  for (const auto &[key, value] : *root) {
    if (key == "__metadata__")
      continue;
    const llvm::json::Object *o = value.getAsObject();
    std::string where = ("'" + path + "' tensor '" + key.str() + "'").str();
    if (!o)
      return failure(where + ": expected an object");
    Entry e;
    if (auto dtype = o->getString("dtype"))
      e.dtype = dtype->str();
    unsigned elementBytes = safetensorsDtypeBytes(e.dtype);
    if (!elementBytes)
      return failure(where + ": unsupported dtype '" + e.dtype + "'");
    const llvm::json::Array *shape = o->getArray("shape");
    const llvm::json::Array *offsets = o->getArray("data_offsets");
    if (!shape || !offsets || offsets->size() != 2)
      return failure(where + ": needs 'shape' and two 'data_offsets'");
    uint64_t elements = 1;
    for (const llvm::json::Value &d : *shape) {
      std::optional<int64_t> n = d.getAsInteger();
      if (!n || *n < 0 || *n > (int64_t(1) << 40))
        return failure(where + ": invalid shape");
      e.shape.push_back(*n);
      elements *= uint64_t(*n);
      if (elements > (uint64_t(1) << 40))
        return failure(where + ": too many elements");
    }
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger(), end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin || uint64_t(*end) > dataBytes)
      return failure(where + ": data offsets outside the file (truncated?)");
    if (uint64_t(*end - *begin) != elements * elementBytes)
      return failure(where + ": " + llvm::Twine(*end - *begin) + " data bytes for " + llvm::Twine(elements) +
                     " " + e.dtype + " elements");
    e.data = bytes.data() + dataStart + *begin;
    e.bytes = size_t(*end - *begin);
    file->entries[key] = std::move(e);
    file->order.push_back(key.str());
  }
  return std::move(file);
}

const SafeTensorsFile::Entry *SafeTensorsFile::find(llvm::StringRef name) const {
  auto it = entries.find(name);
  return it == entries.end() ? nullptr : &it->second;
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while (!(mantissa & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (mantissa & 0x3ff) << 13;
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000 | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::vector<float> SafeTensorsFile::floats(const Entry &e) const {
  size_t n = e.bytes / safetensorsDtypeBytes(e.dtype);
  std::vector<float> out(n);
  const char *p = e.data;
  for (size_t i = 0; i < n; ++i) {
    if (e.dtype == "F32") {
      std::memcpy(&out[i], p + 4 * i, 4);
    } else if (e.dtype == "F64") {
      double d;
      std::memcpy(&d, p + 8 * i, 8);
      out[i] = float(d);
    } else if (e.dtype == "F16") {
      out[i] = halfToFloat(llvm::support::endian::read16le(p + 2 * i));
    } else if (e.dtype == "BF16") {
      uint32_t bits = uint32_t(llvm::support::endian::read16le(p + 2 * i)) << 16;
      std::memcpy(&out[i], &bits, 4);
    } else if (e.dtype == "I64" || e.dtype == "U64") {
      out[i] = float(int64_t(llvm::support::endian::read64le(p + 8 * i)));
    } else if (e.dtype == "I32" || e.dtype == "U32") {
      out[i] = float(int32_t(llvm::support::endian::read32le(p + 4 * i)));
    } else if (e.dtype == "I16" || e.dtype == "U16") {
      out[i] = float(int16_t(llvm::support::endian::read16le(p + 2 * i)));
    } else if (e.dtype == "I8") {
      out[i] = float(int8_t(p[i]));
    } else { // U8, BOOL
      out[i] = float(uint8_t(p[i]));
    }
  }
  return out;
}

} // namespace raptor::nn
