// A regular file mapped read-only into memory: a reader that only looks at its bytes
// (the trace-event JSON reader) reads them in the page cache instead of copying them
// into fresh memory, which on a 200 MB trace cost more than the parse of it.
#ifndef PERFGATE_SRC_CORE_MAPPED_FILE_H_
#define PERFGATE_SRC_CORE_MAPPED_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "perfgate/core/status.h"

namespace perfgate::internal {

// The mapping, unmapped when destroyed. At least kPadding zero bytes past the end
// stay readable (simdjson reads up to 64 bytes ahead of the input it parses).
class MappedFile {
 public:
  static constexpr size_t kPadding = 64;

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {base_, size_}; }
  // Bytes readable past the end of bytes().
  size_t padding() const { return mapped_ - size_; }

 private:
  friend StatusOr<MappedFile> MapRegularFile(const std::string& path);
  char* base_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // the whole reservation, padding included
};

// Maps `path` with ReadWholeFile's checks (a regular file, opened without blocking,
// within the input limit) and its errors. Where the file system cannot map files the
// error is io.cannot_map, and the caller reads the file instead. A file cut short
// while mapped cannot be caught here (its missing pages would raise SIGBUS), which is
// why only whole recordings, never files still being written, are mapped.
StatusOr<MappedFile> MapRegularFile(const std::string& path);

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_CORE_MAPPED_FILE_H_
