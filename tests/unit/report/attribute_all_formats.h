// One `perfgate attribute ... --format all` run from a report test: its four reports,
// read back from a folder of the test process's own, and its progress lines.
#ifndef PERFGATE_TESTS_UNIT_REPORT_ATTRIBUTE_ALL_FORMATS_H_
#define PERFGATE_TESTS_UNIT_REPORT_ATTRIBUTE_ALL_FORMATS_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/run_command.h"

namespace perfgate::testing_support {

struct AllFormats {
  int exit_code = -1;
  std::string progress;  // stderr
  std::string text, markdown, json, svg;
};

// The folder is named by `tag` and the process id: ctest -j runs each test as its own
// process, and one test may make several runs.
inline AllFormats AttributeAllFormats(const std::string& args, const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("perfgate-" + tag + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string prefix = (dir / "report").string();
  const auto r = RunPerfgate("attribute " + args + " --format all --output " + prefix);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  AllFormats out{r.exit_code,           r.err, SlurpFile(prefix + ".txt"), SlurpFile(prefix + ".md"),
                 SlurpFile(prefix + ".json"), SlurpFile(prefix + ".svg")};
  fs::remove_all(dir);
  return out;
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_REPORT_ATTRIBUTE_ALL_FORMATS_H_
