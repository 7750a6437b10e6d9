// Helpers of the ANE probe tests: temporary directories, scoped environment
// variables, the stand-in's path and small JSON readers.
#ifndef PERFGATE_TESTS_UNIT_ANE_ANE_TEST_UTIL_H_
#define PERFGATE_TESTS_UNIT_ANE_ANE_TEST_UTIL_H_

#include <nlohmann/json.hpp>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "perfgate/ane/probe.h"

namespace perfgate::ane::test {

// A fresh directory under /tmp, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "perfgate-ane-test-XXXXXX").string();
    path_ = ::mkdtemp(templ.data()) != nullptr ? templ : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Sets (or, with nullopt, unsets) an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline nlohmann::ordered_json ReadJson(const std::string& path) {
  return nlohmann::ordered_json::parse(Slurp(path), nullptr, false);
}

// The keys of a JSON object in order.
inline std::vector<std::string> Keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

inline std::string Standin() { return ANE_STANDIN_PATH; }

// A toolchain made of the stand-in, with a private lock file under `dir`.
inline NativeToolchain StandinToolchain(const std::string& dir) {
  NativeToolchain t;
  t.eval_host = Standin();
  t.model_generator = {Standin(), "--model-gen"};
  t.lock_path = dir + "/ane.lock";
  t.host_timeout_s = 20;
  t.model_timeout_s = 20;
  return t;
}

// A chip as the tests use it: unknown (Linux), 16 cores.
inline ChipInfo LinuxChip() {
  HostFacts f;
  f.platform = "Linux-6.1.0-x86_64";
  f.os = "Linux 6.1.0 (Debian GNU/Linux 12)";
  return ChipFromFacts(f);
}

}  // namespace perfgate::ane::test

#endif  // PERFGATE_TESTS_UNIT_ANE_ANE_TEST_UTIL_H_
