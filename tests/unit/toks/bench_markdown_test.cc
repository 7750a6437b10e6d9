// llama-bench's default output, its Markdown table, read as a tok/s report: real logs
// and llama.cpp's README examples (fixtures/toks/llama-bench/README.md says where each is
// from). Every figure asserted is the table's own t/s cell, "MEAN ± STDDEV".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "perfgate/toks/bench_report.h"
#include "toks/bench_markdown.h"

namespace perfgate::toks {
namespace {

using ::testing::HasSubstr;

const std::string kMarkdown = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/llama-bench/";

TEST(BenchMarkdownTestName, EveryShapeLlamaBenchPrints) {
  const auto shape = [](const char* name) {
    const auto s = markdown::ParseTestName(name);
    return s ? std::to_string(s->n_prompt) + "/" + std::to_string(s->n_gen) + "/" + std::to_string(s->n_depth)
             : std::string("none");
  };
  EXPECT_EQ(shape("pp512"), "512/0/0");
  EXPECT_EQ(shape("tg128"), "0/128/0");
  EXPECT_EQ(shape("pp512+tg128"), "512/128/0");
  EXPECT_EQ(shape("pp2048 @ d65536"), "2048/0/65536");
  EXPECT_EQ(shape("tg128@d512"), "0/128/512");  // with or without the spaces around "@"
  EXPECT_EQ(shape("pp 512"), "512/0/0");        // 2023's names
  EXPECT_EQ(shape("tg 128"), "0/128/0");
  for (const char* bad : {"", "pp", "tg", "512", "pp512 tg128", "pp0", "tg128 @", "tg128 @ 512", "pp512+", "bs128"}) {
    EXPECT_EQ(shape(bad), "none") << bad;
  }
}

// A real run's log: device lines before the table, the build line after it.
TEST(BenchMarkdown, AStrixHaloRunReadsItsTableAndBuild) {
  auto r = ReadBenchReport(kMarkdown + "strix_halo_glm45_vulkan_radv.log");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "markdown");
  ASSERT_EQ(r->tests.size(), 2u);
  const BenchTest& pp = r->tests[0];
  const BenchTest& tg = r->tests[1];
  EXPECT_EQ(pp.id, "pp512");
  EXPECT_EQ(pp.n_prompt, 512);
  EXPECT_EQ(pp.avg_ts, 212.60);
  EXPECT_EQ(pp.stddev_ts, 0.74);
  EXPECT_EQ(tg.id, "tg128");
  EXPECT_EQ(tg.n_gen, 128);
  EXPECT_EQ(tg.avg_ts, 24.18);
  EXPECT_EQ(tg.stddev_ts, 0.03);
  // No samples: the median is the table's mean, and nothing pretends otherwise.
  EXPECT_TRUE(tg.samples_ts.empty());
  EXPECT_EQ(tg.MedianTs(), 24.18);
  EXPECT_EQ(tg.model, "glm4moe 106B.A12B Q4_K - Medium");  // wider than its column
  EXPECT_EQ(tg.Backends(), "Vulkan");
  EXPECT_EQ(tg.fields.at("n_gpu_layers"), "\"99\"");
  EXPECT_EQ(tg.fields.at("use_mmap"), "\"0\"");
  EXPECT_EQ(tg.fields.at("build_commit"), "\"f1fbffb5\"");
  EXPECT_EQ(tg.fields.at("build_number"), "\"6486\"");
  EXPECT_EQ(tg.location.line, 6);
  // The two device lines are counted, the first quoted.
  const auto* ignored = r->diagnostics.Find("toks.ignored_line");
  ASSERT_NE(ignored, nullptr);
  EXPECT_EQ(ignored->count, 2);
  EXPECT_EQ(ignored->first_location.line, 1);
  EXPECT_THAT(ignored->first_detail, HasSubstr("'ggml_vulkan: Found 1 Vulkan devices:'"));
  auto found = r->Find("tg128");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->avg_ts, 24.18);
}

TEST(BenchMarkdown, TestNamesOf2023AndAtADepthMatchTodaysIds) {
  auto old = ReadBenchReport(kMarkdown + "llama_cpp_readme_2023.md");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->TestIds(), (std::vector<std::string>{"pp512", "tg128"}));
  EXPECT_EQ(old->tests[0].avg_ts, 2368.80);
  EXPECT_EQ(old->tests[0].stddev_ts, 93.24);
  auto depth = ReadBenchReport(kMarkdown + "llama_cpp_readme_depth.md");
  ASSERT_TRUE(depth.ok()) << depth.status().ToString();
  EXPECT_EQ(depth->TestIds(), (std::vector<std::string>{"pp512", "tg128", "pp512 @ d512", "tg128 @ d512"}));
  auto at = depth->Find("tg128 @ d512");
  ASSERT_TRUE(at.ok());
  EXPECT_EQ((*at)->n_depth, 512);
  EXPECT_EQ((*at)->avg_ts, 116.71);
  // A gate's test is found however llama-bench spelled it.
  for (const char* spelling : {"tg128@d512", "tg 128 @ d512", "tg128 @d512"}) {
    auto found = depth->Find(spelling);
    ASSERT_TRUE(found.ok()) << spelling << ": " << found.status().ToString();
    EXPECT_EQ(*found, *at) << spelling;
  }
  EXPECT_EQ(depth->Find("tg128 @ d1024").status().code(), "toks.unknown_test");
  EXPECT_TRUE(depth->diagnostics.empty());
}

// A run that failed before printing its table names the file and quotes its last line.
TEST(BenchMarkdown, ARunThatPrintedNoTableIsAClearError) {
  const std::string path = kMarkdown + "strix_halo_kimi_rocm7_beta_failed.log";
  auto r = ReadBenchReport(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "toks.no_table");
  EXPECT_EQ(r.status().location().path, path);
  EXPECT_EQ(r.status().location().line, 6);
  EXPECT_THAT(r.status().message(), HasSubstr("no llama-bench table (a head with test and t/s), JSON or JSONL"));
  EXPECT_THAT(r.status().message(), HasSubstr("Kimi-Dev-72B-UD-Q8_K_XL-00001-of-00002 failed (exit 134)'"));
  // Text that starts as JSON keeps the JSON error.
  EXPECT_EQ(ParseBenchReport("[{\"n_prompt\": 1,", "x.json").status().code(), "toks.bad_json");
}

// Appended runs are read table by table, each build line naming the tests above it; a
// text mangled by a Latin-1 round trip ("Â±") still reads.
TEST(BenchMarkdown, AppendedRunsAndAMangledPlusMinusSign) {
  const std::string head =
      "| model | backend | threads | test | t/s |\n| --- | --- | ---: | ---: | ---: |\n";
  const std::string text = head + "| qwen3 1.7B Q8_0 | CPU | 6 | pp512 | 66.68 \xC3\x82\xC2\xB1 6.00 |\n\nbuild: 70a830911 (9033)\n\n" +
                           head + "| qwen3 1.7B Q8_0 | CPU | 6 | tg128 | 18.46 \xC2\xB1 0.17 |\n\nbuild: 0253fb21f (9187)\n";
  auto r = ParseBenchReport(text, "two.md");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->tests.size(), 2u);
  EXPECT_EQ(r->tests[0].avg_ts, 66.68);
  EXPECT_EQ(r->tests[0].stddev_ts, 6.00);
  EXPECT_EQ(r->tests[0].fields.at("build_number"), "\"9033\"");
  EXPECT_EQ(r->tests[1].fields.at("build_commit"), "\"0253fb21f\"");
  EXPECT_EQ(r->tests[1].fields.at("n_threads"), "\"6\"");
  EXPECT_TRUE(r->diagnostics.empty());
}

// Bad input: a row that does not fit its head, a test name of no known shape, a t/s
// that is no positive number, one test twice; each located.
TEST(BenchMarkdown, BadRowsAreLocatedErrors) {
  const std::string head = "| model | test | t/s |\n| --- | ---: | ---: |\n";
  const auto error = [&](const std::string& rows) { return ParseBenchReport(head + rows, "bad.md").status(); };
  const Status short_row = error("| m | tg128 |\n");
  EXPECT_EQ(short_row.code(), "toks.bad_row");
  EXPECT_EQ(short_row.location().line, 3);
  EXPECT_THAT(short_row.message(), HasSubstr("2 cells under 3 columns (model, test, t/s)"));
  EXPECT_EQ(error("| m | decode | 5 ± 1 |\n").code(), "toks.bad_field");
  EXPECT_THAT(error("| m | decode | 5 ± 1 |\n").message(), HasSubstr("test 'decode' is no llama-bench test name"));
  for (const char* ts : {"0 ± 1", "-3 ± 1", "fast", "5 ± -1", "nan ± 0", "", "5 ± x"}) {
    const Status s = error(std::string("| m | tg128 | ") + ts + " |\n");
    EXPECT_EQ(s.code(), "toks.bad_time") << ts;
    EXPECT_EQ(s.location().line, 3) << ts;
  }
  const Status twice = error("| m | tg128 | 5 ± 1 |\n| m | tg 128 | 6 ± 1 |\n");
  EXPECT_EQ(twice.code(), "toks.duplicate_test");
  EXPECT_EQ(twice.location().line, 4);
  // Bytes that are no UTF-8 (found by fuzzing: the cell's JSON text threw) are located.
  const Status latin1 = error("| m\xE9 | tg128 | 5 ± 1 |\n");
  EXPECT_EQ(latin1.code(), "toks.bad_utf8");
  EXPECT_EQ(latin1.location().line, 3);
  EXPECT_EQ(latin1.location().column, 4);
  // A table cut after its head (a run killed before its first test) holds no test.
  EXPECT_EQ(ParseBenchReport(head, "cut.md").status().code(), "toks.no_tests");
  // A table of something else is no llama-bench table.
  EXPECT_EQ(ParseBenchReport("| a | b |\n| --- | --- |\n| 1 | 2 |\n", "other.md").status().code(), "toks.no_table");
}

}  // namespace
}  // namespace perfgate::toks
