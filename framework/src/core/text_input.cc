#include "text_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <stdexcept>

#include <sys/stat.h>
#include <zlib.h>

#include "perfgate/core/input_limits.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfgate::internal {

namespace {

// What kind of thing a non-regular file is, for the error that refuses it.
const char* FileKind(mode_t mode) {
  return S_ISDIR(mode)                    ? "a directory"
         : S_ISFIFO(mode)                 ? "a FIFO"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
         : S_ISSOCK(mode)                 ? "a socket"
                                          : "not a regular file";
}

std::string Mebibytes(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string LimitHint() {
  return std::string("; raise it with --max-input-bytes or ") + kMaxInputBytesEnv;
}

Status TooLarge(const std::string& path, uint64_t size, uint64_t limit) {
  return Status::Error("io.too_large",
                       "the file holds " + std::to_string(size) + " bytes" +
                           (size >= (uint64_t{1} << 20) ? " (" + Mebibytes(size) + ")" : std::string()) + ", more than the input limit of " + std::to_string(limit) + " bytes" + LimitHint(),
                       {path});
}

Status NotAFile(const std::string& path, mode_t mode) {
  return Status::Error("io.not_a_file", std::string("expected a regular file, found ") + FileKind(mode), {path});
}

}  // namespace

// Looks at `path` by name before opening it: opening a device node or a FIFO can have
// side effects (a tape rewinds, a writer is released), so only a regular file is opened.
// Opens it without blocking and checks again, on the descriptor rather than the name,
// that it is a regular file within the limit: that second check closes the race of a
// file swapped between the stat and the open.
StatusOr<int> OpenRegularFile(const std::string& path, uint64_t max_bytes, uint64_t* size) {
  struct stat by_name;
  if (::stat(path.c_str(), &by_name) != 0) return PathError(path, errno, "cannot open");
  if (!S_ISREG(by_name.st_mode)) return NotAFile(path, by_name.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return PathError(path, errno, "cannot open");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return PathError(path, err, "cannot stat");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return NotAFile(path, st.st_mode);
  }
  *size = static_cast<uint64_t>(st.st_size);
  if (*size > max_bytes) {
    ::close(fd);
    return TooLarge(path, *size, max_bytes);
  }
  return fd;
}

namespace {

// Reads at most max_bytes + 1 bytes (a file that grows past the limit while read is
// caught by the extra byte).
StatusOr<std::string> ReadDescriptor(int fd, const std::string& path, uint64_t size_hint, uint64_t max_bytes) {
  std::string out;
  // Room past the end for a parser that reads ahead (simdjson reads up to 64 bytes
  // past it), so a trace is not copied again to make that room.
  out.reserve(static_cast<size_t>(size_hint) + 64);
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return PathError(path, errno, "cannot read");
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) return TooLarge(path, out.size(), max_bytes);
  }
  return out;
}

}  // namespace

StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes) {
  uint64_t size = 0;
  auto fd = OpenRegularFile(path, max_bytes, &size);
  if (!fd.ok()) return fd.status();
  ScopedFd closer(*fd);
  return ReadDescriptor(*fd, path, size, max_bytes);
}

namespace {

StatusOr<std::string> ReadWithLimits(const std::string& path, const InputLimits& limits) {
  auto bytes = ReadRegularFile(path, limits.max_input_bytes);
  if (!bytes.ok() || !IsGzip(*bytes)) return bytes;
  return Gunzip(*bytes, path);
}

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

ScopedFd::~ScopedFd() {
  if (fd_ >= 0) ::close(fd_);
}

Status PathError(const std::string& path, int err, std::string_view doing) {
  const char* code = err == ENOENT                        ? "io.not_found"
                     : err == EACCES || err == EPERM        ? "io.permission_denied"
                     : err == ELOOP                         ? "io.symlink_loop"
                     : err == ENAMETOOLONG || err == ENOTDIR ? "io.bad_path"
                                                            : "io.read_failed";
  return Status::Error(code, std::string(doing) + ": " + std::strerror(err), {path});
}

Status CheckReadableFile(const std::string& path) {
  auto limits = CurrentInputLimits();
  if (!limits.ok()) return limits.status();
  uint64_t size = 0;
  auto fd = OpenRegularFile(path, limits->max_input_bytes, &size);
  if (!fd.ok()) return fd.status();
  ::close(*fd);
  return Status();
}

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  auto limits = CurrentInputLimits();
  if (!limits.ok()) return limits.status();
  try {
    return ReadWithLimits(path, *limits);
  } catch (const std::bad_alloc&) {
    return Status::Error("resource.out_of_memory", "not enough memory to read the file; lower the input or free memory",
                         {path}, ErrorKind::kEnvironment);
  } catch (const std::length_error&) {
    return Status::Error("resource.out_of_memory", "the file is too large to hold in memory", {path},
                         ErrorKind::kEnvironment);
  }
}

namespace {

Status GzipBomb(const std::string& path, size_t compressed, uint64_t limit, const InputLimits& limits) {
  const bool by_ratio = limit < limits.max_input_bytes;
  return Status::Error(
      "io.gzip_bomb",
      std::to_string(compressed) + " compressed bytes inflate past " + std::to_string(limit) + " bytes (" +
          (by_ratio ? std::to_string(limits.max_gzip_ratio) + " times the compressed size; raise it with "
                                                              "--max-gzip-ratio or " + std::string(kMaxGzipRatioEnv) + ")"
                    : "the input limit" + LimitHint() + ")"),
      {path});
}

}  // namespace

StatusOr<std::string> Gunzip(std::string_view compressed, const std::string& path) {
  auto limits = CurrentInputLimits();
  if (!limits.ok()) return limits.status();
  const uint64_t max_out = limits->MaxInflatedBytes(compressed.size());
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Status::Error("io.bad_gzip", "zlib init failed", {path});
  std::string out;
  out.reserve(static_cast<size_t>(std::min<uint64_t>(compressed.size() * uint64_t{8}, max_out)));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(compressed.size(), UINT32_MAX));
  size_t fed = zs.avail_in;  // bytes handed to zlib so far (inputs over 4 GiB go in pieces)
  char buf[1 << 16];
  int rc = Z_OK;
  while (true) {
    if (zs.avail_in == 0 && fed < compressed.size()) {
      zs.avail_in = static_cast<uInt>(std::min<size_t>(compressed.size() - fed, UINT32_MAX));
      fed += zs.avail_in;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > max_out) {
      inflateEnd(&zs);
      return GzipBomb(path, compressed.size(), max_out, *limits);
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0 && fed == compressed.size()) break;
      inflateReset(&zs);  // another gzip member follows
      continue;
    }
    if (rc != Z_OK) break;
    if (zs.avail_in == 0 && fed == compressed.size() && zs.avail_out != 0) break;  // input ended mid-stream
  }
  const size_t consumed = fed - zs.avail_in;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    return Status::Error("io.bad_gzip",
                         "corrupt or truncated gzip data after " + std::to_string(consumed) + " compressed bytes" +
                             (zs.msg != nullptr ? std::string(" (") + zs.msg + ")" : std::string()),
                         {path});
  }
  return out;
}

namespace {

// Opens a new file beside `path` with a name no other writer (thread or process)
// uses: `<name>.tmp-<pid>-<counter>-<random>`, created with O_EXCL.
int OpenUniqueTemp(const std::string& path, std::string* temp_path) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   (static_cast<uint64_t>(::getpid()) << 32) ^
                                   reinterpret_cast<uintptr_t>(&counter)};
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[96];
    std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%llu-%08llx", static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(counter.fetch_add(1)),
                  static_cast<unsigned long long>(rng() & 0xffffffffULL));
    *temp_path = path + suffix;
    int fd = ::open(temp_path->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

Status WriteFileAtomic(const std::string& path, std::string_view text, std::string_view error_code) {
  auto failed = [&](const std::string& what, int err) {
    return Status::Error(std::string(error_code), what + ": " + std::strerror(err), {path}, ErrorKind::kEnvironment);
  };
  std::string temp;
  int fd = OpenUniqueTemp(path, &temp);
  if (fd < 0) return failed("cannot create a temporary file beside it", errno);
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(temp.c_str());
      return failed("cannot write " + temp, err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return failed("cannot flush " + temp, err);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return failed("cannot close " + temp, err);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return failed("cannot rename " + temp + " over it", err);
  }
  return Status();
}

double RoundSignificant(double v, int digits) {
  if (!std::isfinite(v) || v == 0) return v;
  digits = std::clamp(digits, 1, 17);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return std::strtod(buf, nullptr);
}

namespace {

// Calls on_line_start(offset) for every line start after a '\n' in [from, n).
template <typename OnLineStart>
void ScanLineStarts(const char* base, size_t from, size_t n, OnLineStart on_line_start) {
  size_t i = from;
#if defined(__SSE2__)
  // Lines of a few hundred bytes make a memchr call per line cost more than this
  // one read of the buffer with a 32-byte newline mask per step.
  const __m128i newline = _mm_set1_epi8('\n');
  for (; i + 32 <= n; i += 32) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i + 16));
    uint32_t mask = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, newline))) |
                    (static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(b, newline))) << 16);
    while (mask != 0) {
      on_line_start(i + static_cast<size_t>(__builtin_ctz(mask)) + 1);
      mask &= mask - 1;
    }
  }
#endif
  for (; i < n; ++i) {
    if (base[i] == '\n') on_line_start(i + 1);
  }
}

#if defined(__SSE2__)
constexpr bool kHaveSse2 = true;

// Skips the ASCII bytes from i, 32 at a time, reporting their line starts; returns
// the offset of the first non-ASCII byte, or where fewer than 32 bytes remain.
template <typename OnLineStart>
size_t SkipAsciiSse2(const unsigned char* s, size_t i, size_t n, OnLineStart& on_line_start) {
  const __m128i newline = _mm_set1_epi8('\n');
  while (i + 32 <= n) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const uint32_t high = static_cast<uint32_t>(_mm_movemask_epi8(a)) |
                          (static_cast<uint32_t>(_mm_movemask_epi8(b)) << 16);
    uint32_t lines = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, newline))) |
                     (static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(b, newline))) << 16);
    const uint32_t ascii_prefix = high == 0 ? 32 : static_cast<uint32_t>(__builtin_ctz(high));
    if (ascii_prefix < 32) lines &= (uint32_t{1} << ascii_prefix) - 1;
    while (lines != 0) {
      on_line_start(i + static_cast<size_t>(__builtin_ctz(lines)) + 1);
      lines &= lines - 1;
    }
    i += ascii_prefix;
    if (ascii_prefix < 32) break;
  }
  return i;
}
#else
constexpr bool kHaveSse2 = false;
#endif

// Skips 8-byte words of ASCII without a newline; returns the offset of the first word
// that has one or a non-ASCII byte (the byte-wise code takes it from there).
size_t SkipPlainAsciiWords(const unsigned char* s, size_t i, size_t n) {
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, s + i, 8);
    const uint64_t x = w ^ 0x0A0A0A0A0A0A0A0AULL;  // a zero byte where w has '\n'
    const bool has_newline = ((x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL) != 0;
    if ((w & 0x8080808080808080ULL) != 0 || has_newline) break;
    i += 8;
  }
  return i;
}

// Validates UTF-8 and reports the line starts before the first invalid byte, in one
// read of the buffer: a pass over a 100 MB export costs about 14 ms here, a twentieth
// of its whole decode. Returns the offset of the first invalid byte, or npos. kSimd
// picks SSE2 where the build has it; the portable path is what ARM builds run.
template <bool kSimd, typename OnLineStart>
size_t ScanUtf8(std::string_view bytes, OnLineStart on_line_start) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
#if defined(__SSE2__)
    if constexpr (kSimd) i = SkipAsciiSse2(s, i, n, on_line_start);
#endif
    if constexpr (!kSimd) i = SkipPlainAsciiWords(s, i, n);
    if (i >= n) break;
    unsigned char c = s[i];
    if (c < 0x80) {
      if (c == '\n') on_line_start(i + 1);
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view bytes) {
  return ScanUtf8<kHaveSse2>(bytes, [](size_t) {});
}

void LineIndex::Add(size_t line_start) {
  if (wide_) line_starts_wide_.push_back(line_start);
  else line_starts_.push_back(static_cast<uint32_t>(line_start));
}

LineIndex::LineIndex(std::string_view bytes) : wide_(bytes.size() > UINT32_MAX) {
  Add(0);
  ScanLineStarts(bytes.data(), 0, bytes.size(), [this](size_t at) { Add(at); });
}

LineIndex LineIndex::BuildValidatingUtf8(std::string_view bytes, size_t* first_invalid_utf8,
                                         ScanPath path) {
  LineIndex index;
  index.wide_ = bytes.size() > UINT32_MAX;
  index.Add(0);
  auto add = [&index](size_t at) { index.Add(at); };
  *first_invalid_utf8 = path == ScanPath::kPortable ? ScanUtf8<false>(bytes, add) : ScanUtf8<kHaveSse2>(bytes, add);
  // The error's position needs the rest of the lines too.
  if (*first_invalid_utf8 != std::string_view::npos) {
    ScanLineStarts(bytes.data(), *first_invalid_utf8, bytes.size(), add);
  }
  return index;
}

SourceLocation LineIndex::Locate(const std::string& path, size_t offset) const {
  SourceLocation loc{path, 0, 0};
  if (!line_starts_wide_.empty()) {
    auto it = std::upper_bound(line_starts_wide_.begin(), line_starts_wide_.end(), offset);
    loc.line = static_cast<int>(it - line_starts_wide_.begin());
    loc.column = static_cast<int>(offset - *(it - 1)) + 1;
  } else if (!line_starts_.empty()) {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(),
                               static_cast<uint32_t>(std::min<size_t>(offset, UINT32_MAX)));
    loc.line = static_cast<int>(it - line_starts_.begin());
    loc.column = static_cast<int>(offset - *(it - 1)) + 1;
  }
  return loc;
}

}  // namespace perfgate::internal
