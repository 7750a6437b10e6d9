// Reading a test's output files whole: the recorder tests' helpers.
#ifndef PERFGATE_TESTS_SUPPORT_FILE_TEXT_H_
#define PERFGATE_TESTS_SUPPORT_FILE_TEXT_H_

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace perfgate::testing_support {

// The file's bytes; "" when it cannot be read (the assertions on its content then fail).
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json ReadJson(const std::filesystem::path& path) { return nlohmann::json::parse(ReadText(path)); }

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_SUPPORT_FILE_TEXT_H_
