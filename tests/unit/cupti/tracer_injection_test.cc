// libperfgate_cupti.so loaded as NVTX and the CUDA driver load it, on a machine
// without a GPU: its NVTX handlers record every range on the thread that opened it,
// and InitializeInjection without a driver fails cleanly into a trace that says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/text_input.h"
#include "perfgate/core/process.h"
#include "perfgate/json_trace/reader.h"

namespace perfgate::cupti {
namespace {

namespace fs = std::filesystem;

class TracerInjection : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    out_ = fs::temp_directory_path() / ("perfgate-cupti-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(out_);
  }
  void TearDown() override { fs::remove_all(out_); }

  // Runs the target with the tracer as NVTX's injection; returns its pid's files.
  ProcessResult Run(std::vector<std::string> extra = {}) {
    ProcessOptions p;
    p.argv = {PERFGATE_NVTX_TARGET_PATH};
    p.argv.insert(p.argv.end(), extra.begin(), extra.end());
    p.set_env = {{"NVTX_INJECTION64_PATH", PERFGATE_CUPTI_TRACER_PATH},
                 {"PERFGATE_CUPTI_OUTPUT_DIR", out_.string()}};
    p.timeout_ms = 30000;
    auto r = RunProcess(p);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->ok()) << r->Describe() << r->stderr_text;
    return *r;
  }

  std::vector<fs::path> Traces() {
    std::vector<fs::path> traces;
    for (const auto& e : fs::directory_iterator(out_)) {
      if (e.path().extension() == ".json") traces.push_back(e.path());
    }
    return traces;
  }

  // The one trace the run wrote.
  fs::path OnlyTrace() {
    std::vector<fs::path> traces = Traces();
    EXPECT_EQ(traces.size(), 1u);
    return traces.empty() ? fs::path() : traces[0];
  }

  fs::path out_;
};

TEST_F(TracerInjection, EveryNvtxRangeBecomesAHostAnnotationOnItsThread) {
  Run();
  auto trace = json_trace::ReadTraceJsonFile(OnlyTrace().string());
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  std::map<std::string, int> names;
  std::map<std::string, int64_t> tids;
  for (const auto& a : trace->host_spans) {
    ++names[a.name];
    tids[a.name] = a.tid;
  }
  EXPECT_EQ(names["prefill"], 1);
  EXPECT_EQ(names["decode_step"], 3);
  EXPECT_EQ(names["attention"], 3);
  EXPECT_EQ(names["registered_range"], 1);  // a domain's registered string
  EXPECT_EQ(names["spanning"], 1);          // nvtxRangeStart/End
  EXPECT_EQ(names["handed_over"], 1);       // started on one thread, ended on another
  EXPECT_EQ(names["worker_step"], 1);
  EXPECT_EQ(names.count("left_open"), 0u);  // never closed: counted below, not written
  EXPECT_EQ(trace->host_spans.size(), 11u);
  EXPECT_EQ(tids["decode_step"], tids["prefill"]);
  EXPECT_NE(tids["worker_step"], tids["decode_step"]);
  EXPECT_EQ(tids["handed_over"], tids["decode_step"]);  // a range belongs to the thread that opened it
  // Nesting: each attention range lies inside a decode_step.
  for (const auto& inner : trace->host_spans) {
    if (inner.name != "attention") continue;
    bool enclosed = false;
    for (const auto& outer : trace->host_spans) {
      enclosed |= outer.name == "decode_step" && outer.start_ns <= inner.start_ns && inner.end_ns <= outer.end_ns;
    }
    EXPECT_TRUE(enclosed);
  }
}

TEST_F(TracerInjection, WhatWasNotWrittenIsCounted) {
  Run();
  auto text = internal::ReadWholeFile(OnlyTrace().string());
  ASSERT_TRUE(text.ok());
  const auto t = nlohmann::json::parse(*text).at("perfgate_tracer");
  EXPECT_EQ(t.at("complete"), true);
  EXPECT_EQ(t.at("cuda_initialized"), false);  // NVTX alone loaded it
  EXPECT_EQ(t.at("unclosed_nvtx_ranges"), 1);
  EXPECT_EQ(t.at("other_records").at("nvtx_pop_without_push"), 1);
  EXPECT_EQ(t.at("records").at("nvtx_range"), 11);
  EXPECT_EQ(t.at("records").at("nvtx_mark"), 1);
  // Only CUDA opens the log: an NVTX-only process leaves its trace alone.
  EXPECT_FALSE(fs::exists(out_ / ("cupti-" + std::to_string(t.at("pid").get<int>()) + ".log")));
}

TEST_F(TracerInjection, AForkedChildWritesOnlyItsOwnRanges) {
  ProcessResult r = Run({"--fork"});
  ASSERT_NE(r.stdout_text.find("exited 0"), std::string::npos) << r.stdout_text;
  const std::vector<fs::path> traces = Traces();
  ASSERT_EQ(traces.size(), 2u);
  std::map<std::string, size_t> ranges_by_file;
  for (const fs::path& path : traces) {
    auto trace = json_trace::ReadTraceJsonFile(path.string());
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();
    const bool child = trace->host_spans.size() == 1;
    if (child) {
      EXPECT_EQ(trace->host_spans[0].name, "child_step");
    }
    ranges_by_file[child ? "child" : "parent"] = trace->host_spans.size();
  }
  // The parent's 11 ranges are written once, by the parent; the child's range by the child.
  EXPECT_EQ(ranges_by_file["parent"], 11u);
  EXPECT_EQ(ranges_by_file["child"], 1u);
}

TEST_F(TracerInjection, WithoutADriverTheTraceSaysTracingNeverStarted) {
  ProcessResult r = Run({"--cuda-init", PERFGATE_CUPTI_TRACER_PATH});
  EXPECT_NE(r.stdout_text.find("InitializeInjection: 0"), std::string::npos) << r.stdout_text;
  auto text = internal::ReadWholeFile(OnlyTrace().string());
  ASSERT_TRUE(text.ok());
  const auto t = nlohmann::json::parse(*text).at("perfgate_tracer");
  EXPECT_EQ(t.at("cuda_initialized"), true);
  EXPECT_EQ(t.at("tracing"), false);
  ASSERT_FALSE(t.at("errors").empty());
  EXPECT_NE(t.at("errors").at(0).get<std::string>().find("cupti"), std::string::npos) << t.dump();
  EXPECT_EQ(t.at("records").at("kernel"), 0);
  auto log = internal::ReadWholeFile((out_ / ("cupti-" + std::to_string(t.at("pid").get<int>()) + ".log")).string());
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find("started: pid"), std::string::npos);
  EXPECT_NE(log->find("not tracing"), std::string::npos);
  EXPECT_FALSE(fs::exists(OnlyTrace().string() + ".partial"));
}

}  // namespace
}  // namespace perfgate::cupti
