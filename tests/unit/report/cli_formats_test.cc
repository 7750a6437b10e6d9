// --format and --output, declared once for every report subcommand: each takes
// `--format all -o PREFIX` and writes one file per format, each the same bytes as that
// format alone; `all` without a prefix is a usage error; a format that cannot render
// leaves no file behind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_command.h"

namespace perfgate {
namespace {

namespace fs = std::filesystem;
using testing_support::RunPerfgate;
using testing_support::SlurpFile;

const std::string kRoot = PERFGATE_SOURCE_DIR;
const std::string kRec = kRoot + "/fixtures/recordings/decode_q4_0";

struct Subcommand {
  std::string name;
  std::string args;  // everything but --format and --output
  std::vector<std::pair<std::string, std::string>> formats;  // format, extension
};

std::vector<Subcommand> Subcommands() {
  const std::vector<std::pair<std::string, std::string>> four = {
      {"text", ".txt"}, {"markdown", ".md"}, {"json", ".json"}, {"svg", ".svg"}};
  // A report document's: every registered format that applies (document::FormatsOf).
  const std::vector<std::pair<std::string, std::string>> document = {
      {"text", ".txt"}, {"markdown", ".md"}, {"json", ".json"}, {"csv", ".csv"}, {"svg", ".svg"}};
  const std::vector<std::pair<std::string, std::string>> one_table = {
      {"text", ".txt"}, {"markdown", ".md"}, {"json", ".json"}, {"csv", ".csv"}};
  const std::string cell = kRoot + "/fixtures/toks/hf2q/qwen3.6-27b-dwq46/";
  return {
      {"attribute", "attribute --trace llama=" + kRec + "/llama --tokens 64 --window skip:6", four},
      {"diff", "diff " + kRec + "/llama " + kRec + "/hf2q --tokens 64 --window skip:6", four},
      {"toks-ratio",
       "toks-ratio --engine " + cell + "engine.json --baseline " + cell + "llama-bench.json --floor 1.0", one_table},
      {"history", "history " + kRoot + "/fixtures/counters/decode_q4_0/hf2q/trial-1/counters.txt", document},
  };
}

class CliFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perfgate-cli-formats-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CliFormats, AllWritesEveryFormatAsEachAloneWouldPrintIt) {
  for (const Subcommand& c : Subcommands()) {
    const std::string prefix = (dir_ / c.name).string();
    const auto all = RunPerfgate(c.args + " --format all -o " + prefix);
    ASSERT_EQ(all.exit_code, 0) << c.name << ": " << all.err;
    EXPECT_TRUE(all.out.empty()) << c.name << ": " << all.out;
    for (const auto& [format, extension] : c.formats) {
      const auto alone = RunPerfgate(c.args + " --format " + format);
      ASSERT_EQ(alone.exit_code, 0) << c.name << " " << format << ": " << alone.err;
      EXPECT_FALSE(alone.out.empty()) << c.name << " " << format;
      // attribute's JSON records the flags it was given: --format all there.
      std::string written = SlurpFile(prefix + extension);
      const std::string flag = "\"format\": \"all\"";
      if (const size_t at = written.find(flag); at != std::string::npos) {
        written.replace(at, flag.size(), "\"format\": \"" + format + "\"");
      }
      EXPECT_EQ(written, alone.out) << c.name << " " << format;
      EXPECT_NE(all.err.find("wrote: "), std::string::npos) << c.name;
    }
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir_)) files += e.path().stem() == c.name ? 1 : 0;
    EXPECT_EQ(files, c.formats.size()) << c.name << ": one file per format, no other";
  }
}

TEST_F(CliFormats, AllWithoutAPrefixIsAUsageError) {
  for (const Subcommand& c : Subcommands()) {
    const auto r = RunPerfgate(c.args + " --format all");
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.out;
    EXPECT_NE(r.err.find("--format all needs --output PREFIX (writes PREFIX.txt/.md/.json"), std::string::npos)
        << c.name << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.name;
  }
}

TEST_F(CliFormats, AFormatOfAnotherSubcommandIsRefused) {
  const auto r = RunPerfgate("kernel-report x.json --format svg");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
}

// A history whose counter is text cannot be charted: --format all fails before it
// writes anything, so no partial set of files is left.
TEST_F(CliFormats, AFormatThatCannotRenderLeavesNoFile) {
  const fs::path history = dir_ / "history.txt";
  {
    std::ofstream(history) << "model: qwen\nmedian_tok_per_sec: 10\n\n"
                              "# ============================================================\n"
                              "# run 2\n"
                              "# ============================================================\n"
                              "model: gemma\nmedian_tok_per_sec: 11\n";
  }
  const std::string prefix = (dir_ / "out").string();
  const auto r = RunPerfgate("history " + history.string() + " --counters model --format all -o " + prefix);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("counters.text_counter"), std::string::npos) << r.err;
  for (const char* extension : {".txt", ".md", ".json", ".csv", ".svg"}) {
    EXPECT_FALSE(fs::exists(prefix + extension)) << extension;
  }
}

}  // namespace
}  // namespace perfgate
