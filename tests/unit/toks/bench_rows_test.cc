// llama-bench's CSV and SQL output and its SQLite database (toks/bench_rows.h) read as
// tok/s reports: llama.cpp's own README examples (fixtures/toks/llama-bench/README.md). Every figure asserted is the
// row's own avg_ts and stddev_ts; the SQL fixture was also run through sqlite3, which
// gives the same (512, 0, 7324.546977) and (0, 128, 120.346696).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "perfgate/toks/bench_report.h"
#include "support/file_text.h"
#include "unit/nsys/sql_util.h"

namespace perfgate::toks {
namespace {

using ::testing::HasSubstr;

const std::string kDir = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/llama-bench/";

// What both formats hold of the README's run: two tests, typed as the JSON types them.
void ExpectTheReadmeRun(const BenchReport& r, double pp_ts, double pp_sd, double tg_ts, double tg_sd) {
  ASSERT_EQ(r.TestIds(), (std::vector<std::string>{"pp512", "tg128"}));
  EXPECT_EQ(r.tests[0].avg_ts, pp_ts);
  EXPECT_EQ(r.tests[0].stddev_ts, pp_sd);
  EXPECT_EQ(r.tests[1].avg_ts, tg_ts);
  EXPECT_EQ(r.tests[1].stddev_ts, tg_sd);
  EXPECT_TRUE(r.tests[1].samples_ts.empty());
  EXPECT_EQ(r.tests[1].model, "models/Qwen2.5-7B-Instruct-Q4_K_M.gguf");
  EXPECT_EQ(r.tests[1].Backends(), "CUDA");
  EXPECT_EQ(r.tests[1].fields.at("use_mmap"), "true");  // "1" typed as llama-bench's JSON types it
  EXPECT_EQ(r.tests[1].fields.at("flash_attn"), "0");
  EXPECT_EQ(r.tests[1].fields.at("n_gpu_layers"), "99");
  EXPECT_EQ(r.tests[1].fields.at("cpu_info"), "\"AMD Ryzen 7 7800X3D 8-Core Processor\"");
  EXPECT_EQ(r.tests[1].Field("build_number"), "5163");
  EXPECT_EQ(r.unknown_fields, 0);
}

TEST(BenchRows, CsvOfTheReadme) {
  auto r = ReadBenchReport(kDir + "llama_cpp_readme_5163.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "csv");
  ExpectTheReadmeRun(*r, 7285.676949, 100.064434, 119.915244, 0.430617);
  EXPECT_EQ(r->tests[1].location.line, 3);
}

TEST(BenchRows, SqlOfTheReadme) {
  auto r = ReadBenchReport(kDir + "llama_cpp_readme_5163.sql");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "sql");
  ExpectTheReadmeRun(*r, 7324.546977, 54.032613, 120.346696, 0.504647);
  EXPECT_EQ(r->tests[0].location.line, 37);  // after the 35 lines of CREATE TABLE and a blank line
}

// The database compare-llama-bench.py reads, made as llama-bench's README says
// (`llama-bench -o sql | sqlite3 DB`): the SQL fixture run through SQLite. A second
// build's run appended to it must be chosen.
TEST(BenchRows, TheDatabaseCompareLlamaBenchReads) {
  const std::string sql = testing_support::ReadText(kDir + "llama_cpp_readme_5163.sql");
  const std::string db = testing_support::MakeDatabase(sql);
  ASSERT_FALSE(db.empty());
  auto r = ReadBenchReport(db);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "sqlite");
  ExpectTheReadmeRun(*r, 7324.546977, 54.032613, 120.346696, 0.504647);
  EXPECT_EQ(r->tests[1].location.line, 2);  // the second row
  std::string newer = sql.substr(sql.find("INSERT"));
  for (size_t at = 0; (at = newer.find("'8cf427ff', '5163'", at)) != std::string::npos;) newer.replace(at, 18, "'0253fb21', '9187'");
  const std::string two = testing_support::MakeDatabase(sql + newer);
  EXPECT_EQ(ReadBenchReport(two).status().code(), "toks.several_runs");
  auto chosen = ReadBenchReport(two, RunFilter{"5163", "", ""});
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  ExpectTheReadmeRun(*chosen, 7324.546977, 54.032613, 120.346696, 0.504647);
  // A value that is not UTF-8 (SQLite stores whatever bytes it is given) is refused at
  // its row and column, not passed on to JSON, which throws on it.
  const Status latin1 = ReadBenchReport(testing_support::MakeDatabase(
                                            "CREATE TABLE test (model_filename TEXT, n_prompt INTEGER, n_gen INTEGER, "
                                            "avg_ts REAL); INSERT INTO test VALUES (CAST(X'6DE9' AS TEXT), 0, 128, 5.0);"))
                            .status();
  EXPECT_EQ(latin1.code(), "toks.bad_utf8");
  EXPECT_EQ(latin1.location().line, 1);
  EXPECT_EQ(latin1.location().column, 1);
  EXPECT_THAT(latin1.message(), HasSubstr("row 1 of table test, column 1: bytes that are not UTF-8"));
  const Status other = ReadBenchReport(testing_support::MakeDatabase("CREATE TABLE other (x);")).status();
  EXPECT_EQ(other.code(), "toks.no_table");
  EXPECT_THAT(other.message(), HasSubstr("the SQLite database has no table 'test'"));
}

// 2023's schema (llama-bench as first merged, August 2023: per-backend flags cuda,
// opencl, metal, ..., f16_kv, mul_mat_q, low_vram, no n_depth), as CSV: the flags say
// the backend, the fields of no later version are kept and counted, the depth is 0.
TEST(BenchRows, The2023SchemaReads) {
  const std::string text =
      "build_commit,build_number,cuda,opencl,metal,gpu_blas,blas,cpu_info,gpu_info,model_filename,model_type,"
      "model_size,model_n_params,n_batch,n_threads,f16_kv,n_gpu_layers,main_gpu,mul_mat_q,low_vram,tensor_split,"
      "n_prompt,n_gen,test_time,avg_ns,stddev_ns,avg_ts,stddev_ts\n"
      "\"097e121\",\"1011\",\"1\",\"0\",\"0\",\"1\",\"1\",\"cpu\",\"gpu\",\"models/7B/ggml-model-q4_0.gguf\","
      "\"llama 7B mostly Q4_0\",\"3825065984\",\"6738415616\",\"512\",\"16\",\"1\",\"99\",\"0\",\"1\",\"0\","
      "\"0.00\",\"0\",\"128\",\"2023-08-18T10:46:06Z\",\"967562500\",\"4018315\",\"132.292\",\"0.548\"\n";
  auto r = ParseBenchReport(text, "2023.csv");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->tests.size(), 1u);
  const BenchTest& t = r->tests[0];
  EXPECT_EQ(t.id, "tg128");
  EXPECT_EQ(t.n_depth, 0);
  EXPECT_EQ(t.avg_ts, 132.292);
  EXPECT_EQ(t.Backends(), "cuda, gpu_blas, blas");
  const auto* unknown = r->diagnostics.Find("toks.unknown_field");
  ASSERT_NE(unknown, nullptr);
  EXPECT_EQ(unknown->count, 3);  // f16_kv, mul_mat_q, low_vram
  EXPECT_EQ(t.fields.at("f16_kv"), "\"1\"");
}

// Today's README example names one column more in its header than its rows hold: read
// as written, the values would slide one column; it is refused, located.
TEST(BenchRows, AHeaderThatDoesNotMatchItsRowsIsRefused) {
  const std::string path = kDir + "llama_cpp_readme_header_mismatch.csv";
  const Status s = ReadBenchReport(path).status();
  EXPECT_EQ(s.code(), "toks.bad_row");
  EXPECT_EQ(s.location().path, path);
  EXPECT_EQ(s.location().line, 2);
  EXPECT_THAT(s.message(), HasSubstr("a row with 41 values under 42 columns"));
}

// Quoted commas and doubled quotes in CSV and SQL values; bad rows of each, located.
TEST(BenchRows, QuotingAndBadRows) {
  const std::string head = "model_filename,cpu_info,n_prompt,n_gen,avg_ts,stddev_ts\n";
  auto csv = ParseBenchReport(head + "\"m.gguf\",\"Intel(R) Core(TM) Ultra 7, 20 threads \"\"x\"\"\",\"0\",\"128\",\"18.5\",\"0.2\"\n",
                              "q.csv");
  ASSERT_TRUE(csv.ok()) << csv.status().ToString();
  EXPECT_EQ(csv->tests[0].Field("cpu_info"), "Intel(R) Core(TM) Ultra 7, 20 threads \"x\"");
  EXPECT_EQ(csv->tests[0].avg_ts, 18.5);
  EXPECT_EQ(ParseBenchReport(head + "\"m\",\"open,\"0\",\"128\",\"1\",\"0\"\n", "q.csv").status().code(), "toks.bad_row");
  const Status latin1 = ParseBenchReport(head + "\"m\xE9\",\"c\",\"0\",\"128\",\"1\",\"0\"\n", "q.csv").status();
  EXPECT_EQ(latin1.code(), "toks.bad_utf8");
  EXPECT_EQ(latin1.location().line, 2);
  EXPECT_EQ(latin1.location().column, 3);
  const Status typed = ParseBenchReport(head + "\"m\",\"c\",\"0\",\"many\",\"1\",\"0\"\n", "q.csv").status();
  EXPECT_EQ(typed.code(), "toks.bad_field");  // n_gen that is no whole number, named by the JSON reader
  EXPECT_EQ(typed.location().line, 2);
  const std::string insert = "INSERT INTO test (model_filename, cpu_info, n_prompt, n_gen, avg_ts, stddev_ts) VALUES (";
  auto sql = ParseBenchReport(insert + "'m.gguf', 'it''s, quoted', '0', '128', '18.5', '0.2');\n", "q.sql");
  ASSERT_TRUE(sql.ok()) << sql.status().ToString();
  EXPECT_EQ(sql->tests[0].Field("cpu_info"), "it's, quoted");
  for (const char* bad : {"'m', 'c', '0', '128', '1');\n", "'m', 'c', '0', '128', '1', '0'\n", "'m', 'c, '0', '128', '1', '0');\n"}) {
    const Status s = ParseBenchReport(insert + bad, "q.sql").status();
    EXPECT_EQ(s.code(), "toks.bad_row") << bad;
    EXPECT_EQ(s.location().line, 1) << bad;
  }
}

}  // namespace
}  // namespace perfgate::toks
