// The summary cache on disk (bundle/summary_cache.h): keys, entry files, and the
// lookup around a source's summarize.
#include "perfgate/bundle/summary_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include "bundle/summary_codec.h"
#include "core/byte_codec.h"
#include "core/text_input.h"
#include "perfgate/core/input_limits.h"
#include "perfgate/core/version.h"

namespace perfgate::bundle {
namespace {

namespace fs = std::filesystem;
using perfgate::internal::ByteReader;
using perfgate::internal::ByteWriter;

constexpr std::string_view kMagic = "perfgate summary cache 1\n";

// dev, inode, size and both times of `path`, as key bytes; false when it cannot be stat'ed.
bool PutIdentity(const std::string& path, ByteWriter* w) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
#if defined(__APPLE__)
  const struct timespec mtime = st.st_mtimespec, ctime = st.st_ctimespec;
#else
  const struct timespec mtime = st.st_mtim, ctime = st.st_ctim;
#endif
  w->Put(static_cast<uint64_t>(st.st_dev)), w->Put(static_cast<uint64_t>(st.st_ino));
  w->Put(static_cast<int64_t>(st.st_size)), w->Put(static_cast<int64_t>(st.st_mode));
  w->Put(static_cast<int64_t>(mtime.tv_sec)), w->Put(static_cast<int64_t>(mtime.tv_nsec));
  w->Put(static_cast<int64_t>(ctime.tv_sec)), w->Put(static_cast<int64_t>(ctime.tv_nsec));
  return true;
}

// The running executable's file: a rebuild changes its identity.
std::string ExecutablePath() {
#if defined(__APPLE__)
  char buffer[4096];
  uint32_t size = sizeof(buffer);
  return _NSGetExecutablePath(buffer, &size) == 0 ? std::string(buffer) : std::string();
#else
  return "/proc/self/exe";
#endif
}

// Every regular file of the trial (the trial itself, or those under its directory),
// in name order, each with its identity; false when one cannot be examined.
bool PutTrialFiles(const std::string& trial, ByteWriter* w) {
  std::error_code ec;
  std::vector<std::string> files;
  if (fs::is_directory(trial, ec)) {
    for (fs::recursive_directory_iterator it(trial, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(it->path().string());
    }
    if (ec) return false;
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(trial);
  }
  w->Put(static_cast<uint64_t>(files.size()));
  for (const std::string& f : files) {
    w->Put(f);
    if (!PutIdentity(f, w)) return false;
  }
  return true;
}

// The whole key of a trial's entry, or "" when some part of it cannot be known (then
// nothing is cached).
std::string EntryKey(const Trial& trial, const attribution::AttributionOptions& options) {
  auto limits = CurrentInputLimits();
  if (!limits.ok()) return "";
  ByteWriter w;
  w.Put(kMagic), w.Put(Version()), w.Put(BuildCommit());
  if (!PutIdentity(ExecutablePath(), &w)) return "";
  w.Put(trial.source->descriptor.name), w.Put(trial.path);
  if (!PutTrialFiles(trial.path, &w)) return "";
  w.Put(attribution::OptionsKey(options));
  w.Put(limits->max_input_bytes), w.Put(limits->max_gzip_ratio);
  return w.Take();
}

// FNV-1a, 64 bits: the entry's file name and its payload check. Keys are compared
// whole, so a collision costs a miss, never a wrong summary.
uint64_t Fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string EntryPath(const std::string& dir, const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.summary", static_cast<unsigned long long>(Fnv1a(key)));
  return (fs::path(dir) / name).string();
}

// An entry larger than any summary is written as (the key, with a few thousand file
// identities, and the summary of the largest trial) is no entry.
constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;

bool LoadEntry(const std::string& path, const std::string& key, attribution::TrialSummary* summary) {
  // Only from a regular file of at most kMaxEntryBytes: an entry replaced by a FIFO, a
  // device or a link to one is a miss, never a hang or a 4 GB read.
  auto text = perfgate::internal::ReadRegularFile(path, kMaxEntryBytes);
  if (!text.ok()) return false;
  ByteReader r(*text);
  std::string stored_key, payload;
  uint64_t check = 0;
  r.Get(&stored_key), r.Get(&payload), r.Get(&check);
  if (r.failed() || !r.at_end() || stored_key != key || check != Fnv1a(payload)) return false;
  return internal::DecodeTrialSummary(payload, summary);
}

void WarnOnce(const std::string& dir, const std::string& why) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  std::cerr << "perfgate: warning: the summary cache at " << dir << " is not written (" << why
            << "): every read attributes its trials afresh\n";
}

// Writes the entry beside its final name, then renames it there: readers never see
// half an entry, and of two concurrent writers the last rename wins whole.
bool StoreEntry(const std::string& dir, const std::string& key, const attribution::TrialSummary& summary) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    WarnOnce(dir, ec.message());
    return false;
  }
  ByteWriter w;
  const std::string payload = internal::EncodeTrialSummary(summary);
  w.Put(key), w.Put(payload), w.Put(Fnv1a(payload));
  static std::atomic<unsigned> serial{0};
  const std::string path = EntryPath(dir, key);
  const std::string temporary = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(w.bytes().data(), static_cast<std::streamsize>(w.bytes().size()));
    out.close();
    if (!out) {
      fs::remove(temporary, ec);
      WarnOnce(dir, "cannot write " + temporary);
      return false;
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    fs::remove(temporary, ec);
    WarnOnce(dir, ec.message());
    return false;
  }
  return true;
}

// CMake's false constants, in any case: OFF, 0, NO, FALSE, N, IGNORE, NOTFOUND.
bool IsFalseConstant(std::string_view value) {
  std::string upper;
  for (char c : value) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view f : {"OFF", "0", "NO", "FALSE", "N", "IGNORE", "NOTFOUND"}) {
    if (upper == f) return true;
  }
  return upper.size() > 9 && upper.compare(upper.size() - 9, 9, "-NOTFOUND") == 0;
}

}  // namespace

std::string SummaryCacheDir() {
  if (const char* off = std::getenv(kCacheEnv); off != nullptr && IsFalseConstant(off)) return "";
  const char* dir = std::getenv(kCacheDirEnv);
  if (dir == nullptr || std::string_view(dir).empty() || IsFalseConstant(dir)) return "";
  return dir;
}

StatusOr<attribution::TrialSummary> CachedSummary(const std::string& dir, const Trial& trial,
                                                  const attribution::AttributionOptions& options,
                                                  CacheOutcome* outcome) {
  CacheOutcome ignored;
  CacheOutcome& result = outcome ? *outcome : ignored;
  result = CacheOutcome::kNoCache;
  const std::string key = dir.empty() ? std::string() : EntryKey(trial, options);
  if (key.empty()) return trial.source->summarize(trial.path, options);
  const std::string path = EntryPath(dir, key);
  attribution::TrialSummary cached;
  if (LoadEntry(path, key, &cached)) {
    result = CacheOutcome::kHit;
    return cached;
  }
  auto summary = trial.source->summarize(trial.path, options);
  if (!summary.ok()) return summary;
  // A file rewritten while it was read gives no entry: its summary may be of either version.
  const bool unchanged = EntryKey(trial, options) == key;
  result = unchanged && StoreEntry(dir, key, *summary) ? CacheOutcome::kStored : CacheOutcome::kNotStored;
  return summary;
}

}  // namespace perfgate::bundle
