// `perfgate new-suite`'s pure parts: name rules, literals, paths, commands, and the
// budgets it measures from the bundled recordings.
#include "new_suite_render.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <random>

#include "perfgate/suite/suite.h"

namespace {

using namespace perfgate::cli::scaffold;
using perfgate::attribution::DecodeWindow;
using perfgate::suite::EngineSpec;
using perfgate::suite::SuiteConfig;
using perfgate::suite::SuiteData;

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings";

TEST(NewSuiteNames, ValidSuiteNamesPass) {
  for (const char* name : {"my_decode", "q4", "Hf2q_Decode_2", "a"}) {
    EXPECT_TRUE(CheckSuiteName(name).ok()) << name << ": " << CheckSuiteName(name).ToString();
  }
}

TEST(NewSuiteNames, BadSuiteNamesFailSayingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "is empty"},
      {"1decode", "does not start with a letter"},
      {"_decode", "does not start with a letter"},
      {"my-decode", "holds a character other than"},
      {"my decode", "holds a character other than"},
      {"d\xc3\xa9" "code", "holds a character other than"},
      {"my__decode", "holds \"__\""},
      {"class", "is a C++ keyword"},
      {"test", "is a target name CMake reserves"},
      {"ALL_BUILD", "is a target name CMake reserves"},
      {"NightlyMemCheck", "is a target name CMake reserves"},
      {"perfgate_decode", "starts with 'perfgate'"},
      {"NULL", "a macro of the C library"},
      {"e_o_f", "makes the test fixture 'EOF'"},
      {"success", "makes the test fixture 'Success'"},
      {"TRUE", "a macro of the C library"},
  };
  for (const auto& [name, why] : cases) {
    const perfgate::Status s = CheckSuiteName(name);
    EXPECT_EQ(s.code(), "scaffold.bad_name") << name;
    EXPECT_NE(s.message().find(why), std::string::npos) << name << ": " << s.message();
  }
}

TEST(NewSuiteNames, EngineNamesAreFileNames) {
  for (const char* name : {"hf2q", "llama.cpp", "torch-eager", "graphs_2"}) {
    EXPECT_TRUE(CheckEngineName(name).ok()) << name;
  }
  for (const char* name : {"", ".hidden", "-x", "a/b", "a b", "a;b"}) {
    EXPECT_EQ(CheckEngineName(name).code(), "scaffold.bad_engine_name") << name;
  }
}

TEST(NewSuiteNames, FixtureClassNamesAreCamelCase) {
  EXPECT_EQ(FixtureClassName("my_decode"), "MyDecode");
  EXPECT_EQ(FixtureClassName("q4"), "Q4");
  EXPECT_EQ(FixtureClassName("hf2q_decode_h200"), "Hf2qDecodeH200");
}

TEST(NewSuiteLiterals, CppStringsEscapeWhatCppNeeds) {
  EXPECT_EQ(CppString("output_head.fused_norm_lm_argmax"), "\"output_head.fused_norm_lm_argmax\"");
  EXPECT_EQ(CppString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(CppString("line\nnext\ttab"), "\"line\\nnext\\ttab\"");
  // Octal, three digits: a hex escape would swallow the 'a' that follows.
  EXPECT_EQ(CppString(std::string("\x01" "a", 2)), "\"\\001a\"");
  EXPECT_EQ(CppString("µs"), "\"µs\"");
}

TEST(NewSuiteLiterals, RoundedUpIsShortAndNeverBelowTheValue) {
  EXPECT_EQ(RoundedUp(2827.0 / 62 + 0.5), "46.0968");  // hf2q's 45.5968 submissions/token + 0.5
  EXPECT_EQ(RoundedUp(205.0 / 64 + 0.5), "3.70313");   // llama's 3.203125 + 0.5, rounded up
  EXPECT_EQ(RoundedUp(20), "20");
  EXPECT_EQ(RoundedUp(0), "0");
  EXPECT_EQ(RoundedUp(-247.98245), "-247.982");  // up is towards +inf: looser
  EXPECT_EQ(RoundedUp(123456789), "1.23457e+08");
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> mantissa(-10, 10);
  std::uniform_int_distribution<int> exponent(-8, 8);
  for (int i = 0; i < 20000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    const double back = std::strtod(RoundedUp(v).c_str(), nullptr);
    ASSERT_GE(back, v) << RoundedUp(v);
    ASSERT_LE(back - v, std::fabs(v) * 2e-5) << RoundedUp(v);  // one step of the 6th digit
  }
}

TEST(NewSuitePaths, CMakePathsAreRelativeBelowACommonDirectory) {
  EXPECT_EQ(*CMakePathFrom("/w/repo/suites/my", "/w/repo/golden/my"), "${CMAKE_CURRENT_SOURCE_DIR}/../../golden/my");
  EXPECT_EQ(*CMakePathFrom("/w/repo/suites/my", "/w/repo/suites/my"), "${CMAKE_CURRENT_SOURCE_DIR}");
  EXPECT_EQ(*CMakePathFrom("/w/repo/suites/my", "/w/repo/suites/my/golden"), "${CMAKE_CURRENT_SOURCE_DIR}/golden");
  // Only the root in common: a relative path would climb out of everything.
  EXPECT_EQ(*CMakePathFrom("/tmp/x/suites/my", "/work/rec/decode"), "/work/rec/decode");
  for (const char* bad : {"/w/a;b", "/w/a\"b", "/w/a$b", "/w/a\\b", "/w/a\nb"}) {
    auto p = CMakePathFrom("/w/suites/my", bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), "scaffold.bad_path");
  }
}

TEST(NewSuiteCommands, ShellWordsAreQuotedOnlyWhenNeeded) {
  EXPECT_EQ(ShellQuote("suites/my_decode"), "suites/my_decode");
  EXPECT_EQ(ShellQuote("/opt/perf gate"), "'/opt/perf gate'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote(""), "''");
}

TEST(NewSuiteCommands, TheTwoCommandsBuildThenRun) {
  auto [build, run] = BuildAndRunCommands("suites/my_decode", "build/my_decode", "/opt/perfgate");
  EXPECT_EQ(build,
            "cmake -S suites/my_decode -B build/my_decode -DCMAKE_PREFIX_PATH=/opt/perfgate && cmake --build "
            "build/my_decode");
  EXPECT_EQ(run, "ctest --test-dir build/my_decode -L perf --no-tests=error --output-on-failure");
  auto [no_prefix, _] = BuildAndRunCommands("s", "b", "");
  EXPECT_EQ(no_prefix, "cmake -S s -B b && cmake --build b");
}

SuiteConfig TwoEngines() {
  SuiteConfig c;
  c.suite = "my_decode";
  EngineSpec hf2q;
  hf2q.name = "hf2q";
  hf2q.options.window = DecodeWindow::Label("output_head.fused_norm_lm_argmax");
  hf2q.options.token_label = "output_head.fused_norm_lm_argmax";
  EngineSpec llama;
  llama.name = "llama";
  llama.options.window = DecodeWindow::SkipSubmissions(6);
  llama.options.tokens = 64;
  c.engines = {hf2q, llama};
  c.baseline = "llama";
  return c;
}

TEST(NewSuiteGoldens, TheFirstEngineOwnsGoldenJsonAsTheFixtureNamesIt) {
  auto files = GoldenFiles(TwoEngines());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], std::make_pair(std::string("hf2q"), std::string("Golden.json")));
  EXPECT_EQ(files[1], std::make_pair(std::string("llama"), std::string("Golden.llama.json")));
}

TEST(NewSuiteSource, TheConfigIsWrittenAsTypedOptions) {
  SuiteConfig c = TwoEngines();
  c.engines[0].options.process_prefix = "hf2q-server";
  c.engines[1].options.all_processes = true;
  c.engines[1].options.run = 2;
  c.engines[1].options.window = DecodeWindow::TimeRange(100, 900);
  c.min_trials = 5;
  c.buckets = {{"fast", 0, 10000, ""}, {"slow", 10000, perfgate::attribution::Bucket::kOpenEnd, "gemm"}};
  for (EngineSpec& e : c.engines) e.options.kernel_families = {"k_", {{"mul_mv", "mv"}, {"fa\"x", "attn"}}};
  const std::string s = RenderSource(c, SuiteData(), "rec (3 trials of hf2q, 3 trials of llama)");
  for (const char* line : {
           "class MyDecode : public perfgate::testing::PerfSuiteFixture {",
           "      e.name = \"hf2q\";\n"
           "      e.options.process_prefix = \"hf2q-server\";\n"
           "      e.options.window = DecodeWindow::Label(\"output_head.fused_norm_lm_argmax\");\n"
           "      e.options.token_label = \"output_head.fused_norm_lm_argmax\";\n"
           "      e.options.kernel_families = KernelFamilies();\n",
           "      e.name = \"llama\";\n"
           "      e.options.all_processes = true;\n"
           "      e.options.window = DecodeWindow::TimeRange(100, 900);\n"
           "      e.options.tokens = 64;\n"
           "      e.options.run = 2;\n",
           "    c.buckets = {\n"
           "        {\"fast\", 0, 10000, \"\"},\n"
           "        {\"slow\", 10000, perfgate::attribution::Bucket::kOpenEnd, \"gemm\"},\n"
           "    };\n",
           "    c.min_trials = 5;\n",
           "  t.strip_prefix = \"k_\";\n  t.rules = {\n      {\"mul_mv\", \"mv\"},\n      {\"fa\\\"x\", \"attn\"},\n",
           "    c.baseline = \"llama\";\n",
           "TEST_F(MyDecode, Golden) {\n"
           "  PERFGATE_EXPECT_MATCHES_GOLDEN(\"hf2q\");  // Golden.json\n"
           "  PERFGATE_EXPECT_MATCHES_GOLDEN(\"llama\");  // Golden.llama.json\n}",
       }) {
    EXPECT_NE(s.find(line), std::string::npos) << "missing:\n" << line << "\nin:\n" << s;
  }
}

TEST(NewSuiteSource, DefaultsAreNotWrittenOut) {
  const std::string s = RenderSource(TwoEngines(), SuiteData(), "rec");
  for (const char* absent : {"c.buckets", "c.min_trials", "KernelFamilies", "process_prefix", "all_processes",
                             "options.run"}) {
    EXPECT_EQ(s.find(absent), std::string::npos) << absent;
  }
}

// The number a budget statement gives its limit (its last argument).
double LimitOf(const std::string& statement) {
  const size_t close = statement.rfind(')');
  const size_t comma = statement.rfind(',', close);
  return std::strtod(statement.substr(comma + 1, close - comma - 1).c_str(), nullptr);
}

const Budget* FindBudget(const std::vector<Budget>& budgets, const std::string& start) {
  for (const Budget& b : budgets) {
    if (b.statement.rfind(start, 0) == 0) return &b;
  }
  return nullptr;
}

// Expected limits from the figures in golden/hf2q_decode/*.json (written by the suite's
// own golden test, not by new-suite) plus the catalogue's margins: counts + 0.5, total
// GPU time + 5 %, bucket times + max(10 %, 20 µs).
TEST(NewSuiteBudgets, MeasuredOnTheBundledMetalRecordingsWithTheCataloguesMargins) {
  SuiteConfig c = TwoEngines();
  c.recordings_dir = kFixtures + "/decode_q4_0";
  auto load = perfgate::suite::LoadSuite(c);
  ASSERT_TRUE(load.error.ok()) << load.error.ToString();
  ASSERT_TRUE(load.data);
  const auto budgets = Budgets(c, *load.data);
  struct Expected {
    const char* start;
    double limit;
  } expected[] = {
      {"PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine(\"hf2q\")", 45.5968 + 0.5},
      {"PERFGATE_EXPECT_METRIC_AT_MOST(engine(\"hf2q\"), \"gpu_us_per_token\"", 9752.06 * 1.05},
      {"PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine(\"llama\")", 3.20312 + 0.5},
      {"PERFGATE_EXPECT_METRIC_AT_MOST(engine(\"llama\"), \"gpu_us_per_token\"", 8938.98 * 1.05},
      {"PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine(\"hf2q\"), engine(\"llama\")", 9752.06 / 8938.98 * 1.05},
      {"PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(engine(\"hf2q\"), engine(\"llama\"), \"md_8_32us\"",
       17.5144 - 3.60881 + 20},
  };
  for (const Expected& e : expected) {
    const Budget* b = FindBudget(budgets, e.start);
    ASSERT_NE(b, nullptr) << e.start;
    EXPECT_NEAR(LimitOf(b->statement), e.limit, e.limit * 2e-5) << b->statement;
  }
  EXPECT_EQ(FindBudget(budgets, "PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine(\"hf2q\")")->comment,
            "hf2q: measured 45.5968 submissions/token; + 0.5 (exact tolerance)");
  // Every limit holds the figure it was measured from, however it was rounded.
  const auto& hf2q = load.data->engines.at("hf2q");
  EXPECT_GE(LimitOf(FindBudget(budgets, expected[0].start)->statement), hf2q.items_per_token.median + 0.5);
  EXPECT_EQ(budgets.size(), 4u + 1u + 5u);  // two figures per engine, the ratio, five buckets
}

perfgate::attribution::TrialMedian Median(double v) { return {v, {v, v, v}}; }

// An engine of trace-event JSON trials with the H200 graphs mode's figures (the README's
// table: 160 kernels and 3 host launches per token, 470.2 GPU µs).
perfgate::attribution::EngineSummary TraceJsonEngine(const std::string& name, double kernels, double launches,
                                                     double gpu_us) {
  perfgate::attribution::EngineSummary e;
  e.name = name;
  e.trials.resize(3);
  for (auto& t : e.trials) t.source = "trace_json";
  e.items_per_token = Median(kernels);
  e.gpu_us_per_token = Median(gpu_us);
  e.busy_us_per_token = Median(gpu_us);
  e.extras = {{"kernels_per_token", Median(kernels)}, {"launches_per_token", Median(launches)}};
  return e;
}

TEST(NewSuiteBudgets, TraceEventJsonIsGatedOnKernelsAndHostLaunches) {
  SuiteConfig c;
  c.suite = "torch_decode";
  c.engines.resize(2);
  c.engines[0].name = "graphs";
  c.engines[1].name = "eager";
  c.baseline = "eager";
  SuiteData data;
  data.engines.emplace("graphs", TraceJsonEngine("graphs", 160, 3, 470.2));
  data.engines.emplace("eager", TraceJsonEngine("eager", 423, 423, 827.6));
  const auto budgets = Budgets(c, data);
  const Budget* kernels =
      FindBudget(budgets, "PERFGATE_EXPECT_METRIC_AT_MOST(engine(\"graphs\"), \"extras/kernels_per_token\"");
  ASSERT_NE(kernels, nullptr);
  EXPECT_EQ(LimitOf(kernels->statement), 160.5);  // a count: + 0.5, as submissions_per_token
  EXPECT_EQ(kernels->comment, "graphs: measured 160 kernels/token; + 0.5 (exact tolerance)");
  const Budget* launches =
      FindBudget(budgets, "PERFGATE_EXPECT_LAUNCHES_PER_TOKEN_AT_MOST(engine(\"eager\")");
  ASSERT_NE(launches, nullptr);
  EXPECT_EQ(LimitOf(launches->statement), 423.5);  // a count: + 0.5, the catalogue's policy for launch counts
  for (const Budget& b : budgets) {
    EXPECT_EQ(b.statement.find("SUBMISSIONS"), std::string::npos) << "Metal words for kernels: " << b.statement;
  }
}

TEST(NewSuiteBudgets, AFigureTheEngineLacksIsSaidNotDropped) {
  SuiteConfig c;
  c.engines.resize(2);
  c.engines[0].name = "graphs";
  c.engines[1].name = "eager";
  c.baseline = "eager";
  SuiteData data;
  data.engines.emplace("graphs", TraceJsonEngine("graphs", 160, 3, 470.2));
  data.engines.at("graphs").extras.erase("launches_per_token");
  data.engines.emplace("eager", TraceJsonEngine("eager", 423, 423, 0));
  const auto budgets = Budgets(c, data);
  auto said = [&](const std::string& start) {
    return std::any_of(budgets.begin(), budgets.end(),
                       [&](const Budget& b) { return b.statement.empty() && b.comment.rfind(start, 0) == 0; });
  };
  EXPECT_TRUE(
      said("graphs: no budget on host launches/token: engine 'graphs' has no metric 'extras/launches_per_token'"));
  EXPECT_TRUE(said("graphs/eager GPU time: no budget, eager has no GPU time"));
  const std::string source = RenderSource(c, data, "rec");
  EXPECT_NE(source.find("  // graphs: no budget on host launches/token: "), std::string::npos) << source;
}

// Text from the command line or the file system reaches the source only inside string
// literals or `//` comments: a line break there would end the comment and start a
// statement that compiles.
TEST(NewSuiteSource, CommentsCarryNoLineBreakOrSplice) {
  SuiteConfig c = TwoEngines();
  c.buckets = {{"x\nint injected_bucket = 0;", 0, 10000, ""}, {"tail\\", 10000, perfgate::attribution::Bucket::kOpenEnd, ""}};
  const std::string s = RenderSource(c, SuiteData(), "rec\nint injected_path = 0;\\");
  EXPECT_EQ(s.find("\nint injected"), std::string::npos) << s;
  EXPECT_NE(s.find("rec\\nint injected_path = 0;\\."), std::string::npos) << s;
  for (size_t at = s.find("//"); at != std::string::npos; at = s.find("//", at + 2)) {
    const size_t end = s.find('\n', at);
    EXPECT_NE(s[end - 1], '\\') << "a comment ends in a backslash: " << s.substr(at, end - at);
  }
}

// The scaffold of every name the check accepts that is close to a macro or a name the
// suite's headers use compiles (clang -fsyntax-only, all of them in one file).
TEST(NewSuiteSource, AcceptedNamesNearMacrosCompile) {
  std::string all;
  for (const char* name : {"null", "eof", "Main", "std", "testing", "perfgate_", "Test", "Suite", "status",
                           "linux", "unix", "assert_x", "errno", "stdin"}) {
    if (!CheckSuiteName(name).ok()) continue;
    SuiteConfig c = TwoEngines();
    c.suite = name;
    all += RenderSource(c, SuiteData(), "rec");
  }
  const std::string dir = std::string(SCAFFOLD_WORK_DIR) + "/names";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/all_perf.cc";
  std::ofstream(file) << all;
  const std::string command = std::string(PERFGATE_CXX_COMPILER) + " -std=c++17 -fsyntax-only -I" +
                              PERFGATE_SOURCE_DIR + "/framework/include -DPERFGATE_SUITE_NAME='\"s\"'" +
                              " -DPERFGATE_RECORDINGS_DIR='\"r\"' -DPERFGATE_GOLDEN_DIR='\"g\"' " + file + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << command << "\n" << out.substr(0, 4000);
}

}  // namespace
