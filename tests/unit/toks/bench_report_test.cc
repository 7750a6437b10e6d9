// llama-bench JSON / JSONL and engine tok/s reports. The inputs are built here from
// test::get_fields() of two llama.cpp versions (fixtures/toks/README.md says which):
// examples/llama-bench/llama-bench.cpp at 20e30b2 (use_mmap, flash_attn a bool) and
// tools/llama-bench/llama-bench.cpp at 0104b15 (load_mode, flash_attn an int).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "perfgate/toks/bench_report.h"

namespace perfgate::toks {
namespace {

// One test of the older version, every field of its get_fields() plus the samples.
std::string OldTest(int n_prompt, int n_gen, const std::string& samples_ns, const std::string& samples_ts,
                    const std::string& model = "m.gguf") {
  return R"({"build_commit": "20e30b25", "build_number": 5200, "cpu_info": "Apple M5 Max", "gpu_info": "Apple M5 Max",
 "backends": "Metal,BLAS", "model_filename": ")" + model + R"(", "model_type": "qwen35moe 35B Q4_0",
 "model_size": 19700000000, "model_n_params": 35000000000, "n_batch": 2048, "n_ubatch": 512, "n_threads": 12,
 "cpu_mask": "0x0", "cpu_strict": false, "poll": 50, "type_k": "f16", "type_v": "f16", "n_gpu_layers": 99,
 "split_mode": "layer", "main_gpu": 0, "no_kv_offload": false, "flash_attn": true, "tensor_split": "0.00",
 "tensor_buft_overrides": "none", "use_mmap": true, "embeddings": false, "n_prompt": )" +
         std::to_string(n_prompt) + R"(, "n_gen": )" + std::to_string(n_gen) +
         R"(, "n_depth": 0, "test_time": "2026-04-29T23:01:22Z", "avg_ns": 2000000000, "stddev_ns": 1000,
 "avg_ts": 64.0, "stddev_ts": 0.1, "samples_ns": [)" + samples_ns + R"(], "samples_ts": [)" + samples_ts + "]}";
}

// One JSONL line of the newer version.
std::string NewLine(int n_prompt, int n_gen, int n_depth, const std::string& samples_ns) {
  return R"({"build_commit": "0104b151", "build_number": 7400, "cpu_info": "x", "gpu_info": "y", "backends": "CUDA", )"
         R"("model_filename": "m.gguf", "model_type": "t", "model_size": 1, "model_n_params": 2, "n_batch": 2048, )"
         R"("n_ubatch": 512, "n_threads": 8, "cpu_mask": "0x0", "cpu_strict": false, "poll": 50, "type_k": "f16", )"
         R"("type_v": "f16", "n_gpu_layers": 99, "n_cpu_moe": 0, "split_mode": "layer", "main_gpu": 0, )"
         R"("no_kv_offload": false, "flash_attn": -1, "devices": "auto", "tensor_split": "0.00", )"
         R"("tensor_buft_overrides": "none", "load_mode": "mmap", "embeddings": false, "no_op_offload": 0, )"
         R"("no_host": false, "fit_target": 0, "fit_min_ctx": 0, "n_prompt": )" +
         std::to_string(n_prompt) + R"(, "n_gen": )" + std::to_string(n_gen) + R"(, "n_depth": )" +
         std::to_string(n_depth) + R"(, "test_time": "t", "avg_ns": 1, "stddev_ns": 0, "avg_ts": 50.5, )"
         R"("stddev_ts": 0.5, "samples_ns": [)" + samples_ns + R"(], "samples_ts": [1, 2, 3]})";
}

TEST(ToksTestId, AsLlamaBenchMarkdownNamesThem) {
  EXPECT_EQ(TestId(512, 0, 0), "pp512");
  EXPECT_EQ(TestId(0, 128, 0), "tg128");
  EXPECT_EQ(TestId(512, 128, 0), "pp512+tg128");
  EXPECT_EQ(TestId(0, 128, 512), "tg128 @ d512");
  EXPECT_EQ(TestId(512, 128, 4096), "pp512+tg128 @ d4096");
}

TEST(ToksReader, OlderVersionJsonArray) {
  const std::string text = "[\n" + OldTest(512, 0, "400000000, 410000000", "1280, 1248.78") + ",\n" +
                           OldTest(0, 128, "2000000000, 1900000000, 2100000000", "64, 67.3684, 60.9524") + "\n]\n";
  auto r = ParseBenchReport(text, "old.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "json");
  ASSERT_EQ(r->tests.size(), 2u);
  EXPECT_EQ(r->TestIds(), (std::vector<std::string>{"pp512", "tg128"}));
  const BenchTest& tg = r->tests[1];
  EXPECT_EQ(tg.n_gen, 128);
  EXPECT_EQ(tg.model, "m.gguf");
  EXPECT_TRUE(tg.samples_from_ns);
  // llama-bench's get_ts(): 1e9 * n_tokens / ns, bit for bit.
  EXPECT_EQ(tg.samples_ts, (std::vector<double>{1e9 * 128 / 2000000000.0, 1e9 * 128 / 1900000000.0,
                                                1e9 * 128 / 2100000000.0}));
  EXPECT_DOUBLE_EQ(tg.MedianTs(), 64.0);
  EXPECT_EQ(tg.fields.at("use_mmap"), "true");
  EXPECT_EQ(tg.fields.at("flash_attn"), "true");
  EXPECT_EQ(tg.Backends(), "Metal,BLAS");
  EXPECT_EQ(r->unknown_fields, 0);
  const std::string first = OldTest(512, 0, "400000000, 410000000", "1280, 1248.78");
  EXPECT_EQ(tg.location.line, 2 + std::count(first.begin(), first.end(), '\n') + 1);  // "[", test 0, then test 1
}

TEST(ToksReader, NewerVersionJsonlWithDepthAndPg) {
  const std::string text = NewLine(512, 0, 0, "1, 2, 3") + "\n" + NewLine(512, 128, 512, "6400000000, 6400000000, 3200000000") + "\n";
  auto r = ParseBenchReport(text, "new.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "jsonl");
  EXPECT_EQ(r->TestIds(), (std::vector<std::string>{"pp512", "pp512+tg128 @ d512"}));
  const BenchTest& pg = r->tests[1];
  // tokens = n_prompt + n_gen = 640, as llama-bench counts a pg test (the depth is not timed).
  EXPECT_EQ(pg.samples_ts, (std::vector<double>{100, 100, 200}));
  EXPECT_EQ(pg.fields.at("flash_attn"), "-1");
  EXPECT_EQ(pg.fields.at("load_mode"), "\"mmap\"");
  EXPECT_EQ(pg.Backends(), "CUDA");
  EXPECT_EQ(pg.location.line, 2);
  EXPECT_EQ(r->unknown_fields, 0);
}

// JSONL as `llama-bench -o jsonl > f 2>&1` keeps it: the device lines of stderr before
// and between the tests (the first as ggml_cuda_init prints it). They are counted and
// the first quoted; the tests are read as without them.
TEST(ToksReader, JsonlWithStderrLinesMixedIn) {
  const std::string text = "ggml_cuda_init: found 1 CUDA devices:\n"
                           "  Device 0: NVIDIA H200, compute capability 9.0, VMM: yes\n" +
                           NewLine(512, 0, 0, "1, 2, 3") + "\nload_backend: loaded CUDA backend\n\n" +
                           NewLine(0, 128, 0, "6400000000, 6400000000, 3200000000") + "\n";
  auto r = ParseBenchReport(text, "mixed.jsonl");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "jsonl");
  EXPECT_EQ(r->TestIds(), (std::vector<std::string>{"pp512", "tg128"}));
  EXPECT_EQ(r->tests[0].location.line, 3);
  EXPECT_EQ(r->tests[1].location.line, 6);
  EXPECT_EQ(r->tests[1].samples_ts, (std::vector<double>{20, 20, 40}));  // 128 tokens in 6.4 s and 3.2 s
  const auto* ignored = r->diagnostics.Find("toks.ignored_line");
  ASSERT_NE(ignored, nullptr);
  EXPECT_EQ(ignored->count, 3);
  EXPECT_EQ(ignored->first_location.line, 1);
  EXPECT_EQ(ignored->first_detail, "'ggml_cuda_init: found 1 CUDA devices:'");
  // A line that opens JSON and is no test object is still an error, as is a broken one.
  EXPECT_EQ(ParseBenchReport(text + "[1, 2]\n", "x.jsonl").status().code(), "toks.bad_line");
  EXPECT_EQ(ParseBenchReport(text + "{\"n_gen\": }\n", "x.jsonl").status().code(), "toks.bad_json");
  // A stderr line that is not UTF-8 is refused at its byte, not quoted into the notes.
  const Status latin1 = ParseBenchReport(text + "ggml \xE9 device\n", "x.jsonl").status();
  EXPECT_EQ(latin1.code(), "toks.bad_utf8");
  EXPECT_EQ(latin1.location().line, 7);
  EXPECT_EQ(latin1.location().column, 6);
}

// A JSONL file that appends runs of two builds and two backends (as a benchmarker keeps
// one results file): the same tests in each run. Without a selection which one a gate
// reads would be a guess, so the error lists the runs; --build, --backend and --gpu
// choose.
TEST(ToksReader, AppendedRunsMustBeChosenAndAreListed) {
  const auto run = [](const std::string& commit, int number, const std::string& backend, const std::string& ns) {
    std::string line = NewLine(0, 128, 0, ns);
    line.replace(line.find("0104b151"), 8, commit);
    line.replace(line.find("7400"), 4, std::to_string(number));
    line.replace(line.find("\"CUDA\""), 6, "\"" + backend + "\"");
    return line + "\n";
  };
  const std::string text = run("0253fb21", 9187, "CUDA", "3.2e9, 3.2e9, 3.2e9") +
                           run("0253fb21", 9187, "Vulkan", "6.4e9, 6.4e9, 6.4e9") +
                           run("70a83091", 9033, "CUDA", "1.6e9, 1.6e9, 1.6e9");
  const Status several = ParseBenchReport(text, "runs.jsonl").status();
  EXPECT_EQ(several.code(), "toks.several_runs");
  EXPECT_EQ(several.location().line, 2);
  EXPECT_NE(several.message().find("test tg128 of model 'm.gguf' is in several runs of the file (builds 0253fb21 "
                                   "(9187), 70a83091 (9033); backends CUDA, Vulkan; GPUs y): choose one with --build, "
                                   "--backend or --gpu"),
            std::string::npos)
      << several.message();
  // 128 tokens in 3.2 s: 40 tok/s, the CUDA run of build 9187.
  auto cuda = ParseBenchReport(text, "runs.jsonl", RunFilter{"9187", "cuda", ""});
  ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
  ASSERT_EQ(cuda->tests.size(), 1u);
  EXPECT_EQ(cuda->tests[0].samples_ts, (std::vector<double>{40, 40, 40}));
  auto old = ParseBenchReport(text, "runs.jsonl", RunFilter{"70a8", "", ""});  // a commit prefix
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->tests[0].samples_ts, (std::vector<double>{80, 80, 80}));
  // One criterion can leave two runs: still refused.
  EXPECT_EQ(ParseBenchReport(text, "runs.jsonl", RunFilter{"", "CUDA", ""}).status().code(), "toks.several_runs");
  const Status none = ParseBenchReport(text, "runs.jsonl", RunFilter{"", "Metal", ""}).status();
  EXPECT_EQ(none.code(), "toks.no_run");
  EXPECT_NE(none.message().find("holds no run of the selection (build '', backend 'Metal', GPU ''); it holds builds "
                                "0253fb21 (9187), 70a83091 (9033); backends CUDA, Vulkan; GPUs y"),
            std::string::npos)
      << none.message();
  // One test twice in one run is still a duplicate.
  EXPECT_EQ(ParseBenchReport(run("a", 1, "CUDA", "1, 1, 1") + run("a", 1, "CUDA", "2, 2, 2"), "d.jsonl").status().code(),
            "toks.duplicate_test");
}

TEST(ToksReader, ForkPerBackendBooleansAndUnknownFieldsAreKept) {
  const std::string text = R"([{"metal": true, "cuda": false, "blas": true, "my_fork_knob": 3, "n_prompt": 0,
    "n_gen": 64, "avg_ts": 40.5}])";
  auto r = ParseBenchReport(text, "fork.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tests[0].Backends(), "metal, blas");
  EXPECT_EQ(r->unknown_fields, 1);
  EXPECT_EQ(r->tests[0].fields.at("my_fork_knob"), "3");
  // No samples: the median is avg_ts, a mean.
  EXPECT_TRUE(r->tests[0].samples_ts.empty());
  EXPECT_EQ(r->tests[0].MedianTs(), 40.5);
}

TEST(ToksReader, SamplesNsWinOverPrintedSamplesTs) {
  // samples_ts as printed (6 significant digits) differs from the exact tok/s of ns.
  const std::string text = "[" + OldTest(0, 256, "2243654690", "114.1") + "]";
  auto r = ParseBenchReport(text, "x.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tests[0].samples_ts[0], 1e9 * 256 / 2243654690.0);
  EXPECT_NE(r->tests[0].samples_ts[0], 114.1);
  // Without samples_ns the printed values are all there is.
  auto ts_only = ParseBenchReport(R"([{"n_prompt": 0, "n_gen": 256, "avg_ts": 114.1, "samples_ts": [114.1, 113.9]}])", "t.json");
  ASSERT_TRUE(ts_only.ok()) << ts_only.status().ToString();
  EXPECT_FALSE(ts_only->tests[0].samples_from_ns);
  EXPECT_EQ(ts_only->tests[0].samples_ts, (std::vector<double>{114.1, 113.9}));
}

TEST(ToksReader, MinimalEngineReport) {
  auto r = ParseBenchReport(
      "{\"engine\": \"hf2q\", \"model\": \"m.gguf\",\n \"host\": \"x\", \"tests\": [{\"n_prompt\": 0, \"n_gen\": 128, "
      "\"samples_ns\": [1e9, 2e9, 4e9]}]}",
      "engine.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->format, "minimal");
  EXPECT_EQ(r->tests[0].id, "tg128");
  EXPECT_EQ(r->tests[0].MedianTs(), 64);
  EXPECT_EQ(r->tests[0].model, "m.gguf");  // the top-level model names its tests'
  // "engine" and "model" are the minimal schema's; "host" is counted, named and located.
  EXPECT_EQ(r->unknown_fields, 1);
  const Diagnostics::Entry* host = r->diagnostics.Find("toks.unknown_field");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->count, 1);
  EXPECT_EQ(host->severity, Severity::kInfo);
  EXPECT_NE(host->first_detail.find("top-level key 'host'"), std::string::npos) << host->first_detail;
  EXPECT_EQ(host->first_location.line, 2);
  auto bad_model = ParseBenchReport(R"({"model": 1, "tests": [{"n_prompt": 0, "n_gen": 1, "avg_ts": 1}]})", "e.json");
  ASSERT_FALSE(bad_model.ok());
  EXPECT_EQ(bad_model.status().code(), "toks.bad_field");
}

// Fields of a newer llama-bench (or a fork) are kept and counted as a named diagnostic,
// the first one named and located at its test.
TEST(ToksReader, UnknownFieldsAreANamedDiagnostic) {
  auto r = ParseBenchReport("[{\"n_prompt\": 0, \"n_gen\": 128, \"avg_ts\": 1, \"new_knob\": 3},\n"
                            " {\"n_prompt\": 512, \"n_gen\": 0, \"avg_ts\": 1, \"new_knob\": 3, \"other\": true}]",
                            "b.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->unknown_fields, 3);
  const Diagnostics::Entry* e = r->diagnostics.Find("toks.unknown_field");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->count, 3);
  EXPECT_EQ(e->first_detail, "field 'new_knob' of test tg128 is none of llama-bench's; kept as text, not read");
  EXPECT_EQ(e->first_location.line, 1);
  EXPECT_EQ(r->tests[1].fields.at("new_knob"), "3");
}

struct BadCase {
  const char* name;
  std::string text;
  const char* code;
  int line;
  int column;
  const char* message;
};

class ToksReaderErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ToksReaderErrors, AreLocated) {
  const BadCase& c = GetParam();
  auto r = ParseBenchReport(c.text, "r.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
  EXPECT_EQ(r.status().location().line, c.line) << r.status().ToString();
  if (c.column > 0) {
    EXPECT_EQ(r.status().location().column, c.column) << r.status().ToString();
  }
  EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(
    All, ToksReaderErrors,
    ::testing::Values(
        BadCase{"not_json", "[{\"n_prompt\": 0,\n \"n_gen\": }]", "toks.bad_json", 2, 0, ""},
        BadCase{"scalar", "42", "toks.bad_json", 1, 1, "not a number"},
        BadCase{"no_n_gen", "[\n{\"n_prompt\": 0, \"avg_ts\": 1}]", "toks.missing_field", 2, 1, "no n_gen"},
        BadCase{"no_avg_ts", "[{\"n_prompt\": 0, \"n_gen\": 1, \"samples_ns\": [5]}]", "toks.missing_field", 1, 2,
                "no avg_ts"},
        BadCase{"minimal_without_samples_or_avg", "{\"tests\": [{\"n_prompt\": 0, \"n_gen\": 1}]}",
                "toks.missing_field", 1, 0, "no avg_ts"},
        BadCase{"sample_lengths", "[{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1,\n \"samples_ns\": [5, 6], \"samples_ts\": [1]}]",
                "toks.sample_mismatch", 2, 24, "samples_ns has 2 repetitions but samples_ts 1"},
        BadCase{"zero_ns", "[{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1, \"samples_ns\": [5, 0]}]", "toks.bad_time", 1,
                0, "samples_ns[1] = 0"},
        BadCase{"negative_ts", "[{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": -3}]", "toks.bad_time", 1, 0, "avg_ts"},
        BadCase{"negative_n", "[{\"n_prompt\": -1, \"n_gen\": 1, \"avg_ts\": 1}]", "toks.bad_field", 1, 0,
                "n_prompt must be"},
        BadCase{"no_tokens", "[{\"n_prompt\": 0, \"n_gen\": 0, \"avg_ts\": 1}]", "toks.bad_field", 1, 0, "both 0"},
        BadCase{"flash_attn_string", "[{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1, \"flash_attn\": \"on\"}]",
                "toks.bad_field", 1, 0, "flash_attn"},
        BadCase{"duplicate", "[{\"n_prompt\": 0, \"n_gen\": 8, \"avg_ts\": 1},\n {\"n_prompt\": 0, \"n_gen\": 8, \"avg_ts\": 2}]",
                "toks.duplicate_test", 2, 2, "test tg8 is given twice (first at line 1)"},
        BadCase{"jsonl_array_line", "{\"n_prompt\": 0, \"n_gen\": 8, \"avg_ts\": 1}\n  [1, 2]\n", "toks.bad_line", 2, 3,
                "JSONL line 2 is not a test object"},
        BadCase{"jsonl_bad_line", "{\"n_prompt\": 0, \"n_gen\": 8, \"avg_ts\": 1}\n\n{\"n_prompt\": }\n", "toks.bad_json", 3,
                0, "JSONL line 3"},
        BadCase{"jsonl_missing_field", "{\"n_prompt\": 0, \"n_gen\": 8, \"avg_ts\": 1}\n{\"n_prompt\": 0, \"avg_ts\": 1}\n",
                "toks.missing_field", 2, 1, "no n_gen"},
        BadCase{"empty_array", "[]", "toks.no_tests", 1, 1, "no test"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(ToksReader, FindNamesTheKnownTests) {
  auto r = ParseBenchReport(R"([{"n_prompt": 512, "n_gen": 0, "avg_ts": 1}, {"n_prompt": 0, "n_gen": 128, "avg_ts": 1}])",
                            "b.json");
  ASSERT_TRUE(r.ok());
  auto missing = r->Find("tg256");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), "toks.unknown_test");
  EXPECT_NE(missing.status().message().find("its tests: pp512, tg128"), std::string::npos) << missing.status().ToString();
  // One id for two models: which one a gate reads would be a guess.
  auto two = ParseBenchReport(R"([{"model_filename": "a", "n_prompt": 0, "n_gen": 8, "avg_ts": 1},
                                  {"model_filename": "b", "n_prompt": 0, "n_gen": 8, "avg_ts": 1}])", "two.json");
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  auto ambiguous = two->Find("tg8");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.status().code(), "toks.ambiguous_test");
}

TEST(ToksReader, ReadsEveryFixture) {
  for (const char* f : {"qwen3.6-35b-a3b-dwq46/llama-bench.json", "gemma-26B-dwq/llama-bench.jsonl",
                        "gemma-26B-dwq/engine.json"}) {
    auto r = ReadBenchReport(std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/hf2q/" + f);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto tg = r->Find("tg256");
    ASSERT_TRUE(tg.ok()) << tg.status().ToString();
    EXPECT_EQ((*tg)->samples_ts.size(), 5u);
    EXPECT_EQ(r->unknown_fields, 0) << f;  // engine.json: "engine" and "model" are the minimal schema's
    EXPECT_TRUE(r->diagnostics.empty()) << f;
  }
}

}  // namespace
}  // namespace perfgate::toks

namespace perfgate::toks {
namespace {

// Each test's position comes from one pass over the text; an escaped "tests" key (the
// pass matches keys as written) falls back to locating each test alone, to the same place.
TEST(ToksReader, LocatesEveryTest) {
  const std::string body = "[\n  {\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1},\n   {\"n_prompt\": 0, \"n_gen\": 2, \"avg_ts\": 1}]}";
  // "tests" inside another member must not be taken for the report's.
  const std::string plain = "{\"engine\": {\"tests\": [1]},\n \"tests\": " + body;
  const std::string escaped = "{\"engine\": {\"tests\": [1]},\n \"\\u0074ests\": " + body;
  for (const std::string& text : {plain, escaped}) {
    auto r = ParseBenchReport(text, "m.json");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->tests.size(), 2u) << text;
    EXPECT_EQ(r->tests[0].location.line, 3) << text;
    EXPECT_EQ(r->tests[1].location.line, 4) << text;
    EXPECT_EQ(r->tests[1].location.column, 4) << text;
  }
  auto jsonl = ParseBenchReport("{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1}\n\n  {\"n_prompt\": 0, \"n_gen\": 2, \"avg_ts\": 1}\n",
                                "l.jsonl");
  ASSERT_TRUE(jsonl.ok()) << jsonl.status().ToString();
  EXPECT_EQ(jsonl->tests[1].location.line, 3);
  EXPECT_EQ(jsonl->tests[1].location.column, 3);
}

}  // namespace
}  // namespace perfgate::toks
