// Locating the real third-party exports (shared/corpus) that conformance tests read
// in place. PERFGATE_CORPUS_DIR in the environment wins over the CMake cache value.
#ifndef PERFGATE_TESTS_SUPPORT_CORPUS_H_
#define PERFGATE_TESTS_SUPPORT_CORPUS_H_

#include <cstdlib>
#include <filesystem>
#include <string>

#include "perfgate/core/environment.h"

namespace perfgate::testing_support {

inline std::string CorpusDir() {
  if (const char* env = std::getenv("PERFGATE_CORPUS_DIR"); env != nullptr && *env) return env;
#ifdef PERFGATE_DEFAULT_CORPUS_DIR
  return PERFGATE_DEFAULT_CORPUS_DIR;
#else
  return "";
#endif
}

// Path of a corpus file, or "" when the corpus is absent.
inline std::string CorpusFile(const std::string& relative) {
  std::string dir = CorpusDir();
  if (dir.empty()) return "";
  std::filesystem::path p = std::filesystem::path(dir) / relative;
  return std::filesystem::exists(p) ? p.string() : "";
}

}  // namespace perfgate::testing_support

// Skips the current test, visibly, when the corpus file is not there; under CI
// (perfgate's own detection, core/environment.h) it fails instead: CI always has the
// corpus beside the clone, so a missing one is a broken setup, not a reason to pass.
#define PERFGATE_CORPUS_FILE_OR_SKIP(var, relative)                                    \
  const std::string var = ::perfgate::testing_support::CorpusFile(relative);           \
  if (var.empty()) {                                                                   \
    if (auto ci = ::perfgate::CiVariable()) {                                          \
      FAIL() << "corpus file " << (relative) << " not found under '"                   \
             << ::perfgate::testing_support::CorpusDir() << "' under CI (" << *ci      \
             << " is set); set PERFGATE_CORPUS_DIR to shared/corpus";                  \
    }                                                                                  \
    GTEST_SKIP() << "corpus file " << (relative) << " not found under '"               \
                 << ::perfgate::testing_support::CorpusDir()                           \
                 << "'; set PERFGATE_CORPUS_DIR to shared/corpus to run this test";    \
  }

#endif  // PERFGATE_TESTS_SUPPORT_CORPUS_H_
