//===- SafeTensors.h - Reading .safetensors weight files --------*- C++ -*-===//
//
// The format: an 8-byte little-endian header length, a JSON header mapping
// tensor names to {dtype, shape, data_offsets: [begin, end]}, then the data.
// Raptor keeps a model's weights there, keyed by the nn.param names.
//
//===----------------------------------------------------------------------===//
#ifndef RAPTOR_PASSES_NN_SAFETENSORS_H
#define RAPTOR_PASSES_NN_SAFETENSORS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <vector>

namespace raptor::nn {

class SafeTensorsFile {
public:
  struct Entry {
    std::string dtype;
    std::vector<int64_t> shape;
    const char *data = nullptr;
    size_t bytes = 0;
  };

  /// Opens and validates `path` (header, offsets inside the file, sizes
  /// matching dtype and shape); the error says what is wrong.
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>> open(llvm::StringRef path);

  const Entry *find(llvm::StringRef name) const;
  /// The tensors' names, in the order of the file's header.
  const std::vector<std::string> &names() const { return order; }
  llvm::StringRef path() const { return filePath; }
  /// The entry's values as float32 (F32, F16, BF16, F64 and integer dtypes).
  std::vector<float> floats(const Entry &entry) const;

private:
  std::string filePath;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringMap<Entry> entries;
  std::vector<std::string> order;
};

/// Bytes per element of a safetensors dtype, 0 if unknown.
unsigned safetensorsDtypeBytes(llvm::StringRef dtype);

} // namespace raptor::nn

#endif // RAPTOR_PASSES_NN_SAFETENSORS_H
