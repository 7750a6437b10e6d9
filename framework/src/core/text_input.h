// Private helpers shared by the readers: whole-file loading, UTF-8 validation and
// byte-offset to line:column mapping.
#ifndef PERFGATE_SRC_CORE_TEXT_INPUT_H_
#define PERFGATE_SRC_CORE_TEXT_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::internal {

// Reads a whole regular file, inflating it when it is gzip-compressed (by its magic
// bytes, whatever its name), within the process's InputLimits. Opened without
// blocking only once stat() shows a regular file (opening a device node or FIFO can
// have side effects), then checked again on the descriptor, so none blocks or streams.
// Errors: io.not_found, io.permission_denied, io.symlink_loop, io.not_a_file,
// io.too_large, io.gzip_bomb, io.bad_gzip, io.read_failed, resource.out_of_memory
// (environment), input.bad_limit (a bad PERFGATE_MAX_* variable).
StatusOr<std::string> ReadWholeFile(const std::string& path);

// Checks that `path` opens as a regular file within the input limit (the errors of
// ReadWholeFile that come before reading), without reading it.
Status CheckReadableFile(const std::string& path);

// Opens `path` for reading only when it is a regular file of at most max_bytes: the
// name is checked with stat() before the open (opening a device or a FIFO can have side
// effects), then the descriptor again with fstat(). Sets *size; the caller closes it.
// Errors: as ReadWholeFile, less the gzip ones.
StatusOr<int> OpenRegularFile(const std::string& path, uint64_t max_bytes, uint64_t* size);

// The bytes of `path`, read only when it is a regular file of at most max_bytes
// (OpenRegularFile), never inflated; one that grows past max_bytes while read is
// io.too_large. ReadWholeFile is this under the input limits, then gunzip.
StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes);

// A file descriptor closed when it goes out of scope, unless released.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// True when `bytes` start with gzip's magic number (1f 8b), whatever the file's name.
bool IsGzip(std::string_view bytes);

// Inflates a gzip stream (several members are concatenated), at most as far as the
// input limits allow. Errors: io.bad_gzip, io.gzip_bomb.
StatusOr<std::string> Gunzip(std::string_view compressed, const std::string& path);

// The error for an errno from opening or reading `path`: io.not_found (ENOENT),
// io.permission_denied, io.symlink_loop (ELOOP), io.bad_path (ENAMETOOLONG, or
// ENOTDIR: a path through a regular file), else io.read_failed; the message is "<doing>: <strerror>".
Status PathError(const std::string& path, int err, std::string_view doing);

// Replaces `path` with `text` atomically: a new file beside it with a name no other
// writer (thread or process) uses, written, flushed to disk, then renamed over it.
// Parent directories must exist. Errors carry `error_code` (an environment error).
Status WriteFileAtomic(const std::string& path, std::string_view text,
                       std::string_view error_code = "io.write_failed");

// `v` rounded to `digits` significant decimal digits (non-finite values and 0
// unchanged), so derived floats in goldens and reports stay small and stable.
double RoundSignificant(double v, int digits = 6);

// Offset of the first byte that breaks UTF-8 (overlongs, surrogates and code points
// above U+10FFFF included), or npos when `bytes` is valid.
size_t FindInvalidUtf8(std::string_view bytes);

// Maps byte offsets to 1-based line and column (columns count bytes, as compilers do).
// Built once from the pristine buffer, before any in-situ parser rewrites it.
class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view bytes);
  // Which scan builds the index: the fastest this build has (SSE2 on x86-64), or the
  // portable word-at-a-time one that ARM builds run, so x86 tests can cover it.
  enum class ScanPath { kFastest, kPortable };
  // The index of `bytes`, built in the same read that checks UTF-8; sets
  // *first_invalid_utf8 as FindInvalidUtf8 returns it.
  static LineIndex BuildValidatingUtf8(std::string_view bytes, size_t* first_invalid_utf8,
                                       ScanPath path = ScanPath::kFastest);
  SourceLocation Locate(const std::string& path, size_t offset) const;

 private:
  void Add(size_t line_start);

  bool wide_ = false;
  std::vector<uint32_t> line_starts_;
  std::vector<uint64_t> line_starts_wide_;  // used only for inputs over 4 GiB
};

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_CORE_TEXT_INPUT_H_
