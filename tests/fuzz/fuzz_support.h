// Helpers shared by the libFuzzer targets in this directory (not part of perfgate).
//
// The targets call the readers' public in-memory entry points. A reader that has only
// a path API gets the fuzz input through a ScratchFile: one temp file per process,
// rewritten for every input, so `-fork`/`-jobs` workers never share one.
#ifndef PERFGATE_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define PERFGATE_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace perfgate::fuzz {

inline std::string AsString(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// An ostream that discards everything: the writers still format every value.
class NullStream : public std::ostream {
 public:
  NullStream() : std::ostream(&buffer_) {}

 private:
  struct Discard : std::streambuf {
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  };
  Discard buffer_;
};

// A per-process temp file that holds the current input; removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(std::string_view name) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    path_ = (dir / ("perfgate-fuzz-" + std::to_string(getpid()) + "-" + std::string(name))).string();
  }
  ~ScratchFile() { std::remove(path_.c_str()); }

  // Replaces the file's bytes; aborts when it cannot (a broken fuzzing setup, not a
  // finding in perfgate).
  const std::string& Write(const uint8_t* data, size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
      std::fprintf(stderr, "fuzz: cannot write %s\n", path_.c_str());
      std::abort();
    }
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace perfgate::fuzz

#endif  // PERFGATE_TESTS_FUZZ_FUZZ_SUPPORT_H_
