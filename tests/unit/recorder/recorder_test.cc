// The recording pipeline (RecordInterleaved) against the xctrace stand-in: bundles that
// attribution loads, interleaving, resume, refusals, and every failure path (hang,
// crash, empty export, missing table, no target rows, failed target, interruption).
#include "perfgate/xctrace/recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <sstream>
#include <thread>

#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/trials.h"
#include "recorder_support.h"
#include "xctrace/recorder_internal.h"

namespace perfgate::xctrace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_support::ReadJson;
using testing_support::ReadText;
namespace fs = std::filesystem;

const std::string kPoints = "metal-gpu-execution-points";
const std::string kMap = "metal-gpu-submission-to-command-buffer-id";

class Recorder : public testing_support::RecorderSandbox {
 protected:
  EngineRecordSpec Engine(const std::string& name, int64_t tokens = 4) const {
    EngineRecordSpec e;
    e.engine = name;
    e.command = {Bin(name), "--max-tokens", "{tokens}"};
    e.tokens = tokens;
    return e;
  }

  RecordOptions Options(int trials = 2) {
    RecordOptions o;
    o.trials = trials;
    o.record_timeout_ms = 1000;
    o.export_timeout_ms = 1000;
    o.kill_grace_ms = 300;
    o.progress = &progress_;
    o.source_directory = root_.string();  // not a git work tree: meta.json "git" is null
    return o;
  }

  StatusOr<RecordingResult> Record(const std::vector<EngineRecordSpec>& engines, const RecordOptions& o) {
    return RecordInterleaved(engines, o, out_);
  }

  // The trial is marked incomplete, with the error in meta.json.
  void ExpectIncomplete(const std::string& dir, const std::string& code) {
    EXPECT_TRUE(fs::exists(fs::path(dir) / "INCOMPLETE")) << dir;
    auto meta = ReadJson(fs::path(dir) / "meta.json");
    EXPECT_EQ(meta["complete"], false);
    EXPECT_EQ(meta["error"]["code"], code);
    Status s = CheckTrialComplete(dir);
    EXPECT_EQ(s.code(), "record.incomplete_bundle");
    EXPECT_THAT(s.message(), HasSubstr(code));
  }

  std::ostringstream progress_;
};

TEST_F(Recorder, RecordsInterleavedBundlesThatAttributionLoads) {
  RecordOptions o = Options(2);
  o.source_directory = PERFGATE_SOURCE_DIR;
  const bool in_git = fs::exists(fs::path(PERFGATE_SOURCE_DIR) / ".git");
  auto r = Record({Engine("hf2q"), Engine("llama")}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString() << "\n" << progress_.str();

  // Interleaved: engine, baseline, engine, baseline.
  ASSERT_EQ(r->trials.size(), 4u);
  EXPECT_EQ(r->trials[0].path, TrialDir("hf2q", 1));
  EXPECT_EQ(r->trials[1].path, TrialDir("llama", 1));
  EXPECT_EQ(r->trials[2].path, TrialDir("hf2q", 2));
  EXPECT_EQ(r->trials[3].path, TrialDir("llama", 2));
  EXPECT_THAT(RecordOutputs(),
              ElementsAre(TrialDir("hf2q", 1) + "/trial-1.trace", TrialDir("llama", 1) + "/trial-1.trace",
                          TrialDir("hf2q", 2) + "/trial-2.trace", TrialDir("llama", 2) + "/trial-2.trace"));
  EXPECT_THAT(r->engine_dirs, ElementsAre(out_ + "/hf2q", out_ + "/llama"));

  // The exact command lines.
  std::vector<std::vector<std::string>> calls = Calls();
  ASSERT_GE(calls.size(), 9u);
  EXPECT_THAT(calls[0], ElementsAre("version"));
  EXPECT_THAT(calls[1],
              ElementsAre("record", "--template", "Metal System Trace", "--no-prompt", "--output",
                          TrialDir("hf2q", 1) + "/trial-1.trace", "--launch", "--", Bin("hf2q"), "--max-tokens", "4"));
  EXPECT_THAT(calls[2], ElementsAre("export", "--input", TrialDir("hf2q", 1) + "/trial-1.trace", "--toc"));
  std::vector<std::string> exported;
  for (size_t i = 3; i < calls.size() && calls[i][0] == "export"; ++i) {
    ASSERT_EQ(calls[i].size(), 5u);
    EXPECT_EQ(calls[i][3], "--xpath");
    exported.push_back(calls[i][4]);
  }
  EXPECT_THAT(exported,
              ElementsAre("/trace-toc/run[@number=\"1\"]/data/table[@schema=\"" + kPoints + "\"]",
                          "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"" + kMap + "\"]",
                          HasSubstr("metal-application-encoders-list"), HasSubstr("metal-shader-profiler-shader-list"),
                          HasSubstr("metal-shader-profiler-intervals"), HasSubstr("metal-gpu-intervals")));

  for (const std::string engine : {"hf2q", "llama"}) {
    for (int k = 1; k <= 2; ++k) {
      SCOPED_TRACE(engine + " trial " + std::to_string(k));
      const fs::path dir = TrialDir(engine, k);
      EXPECT_FALSE(fs::exists(dir / "INCOMPLETE"));
      EXPECT_TRUE(CheckTrialComplete(dir.string()).ok());
      for (const std::string& schema : DefaultRecordTables())
        EXPECT_TRUE(fs::exists(dir / (schema + ".xml"))) << schema;
      EXPECT_TRUE(fs::exists(dir / "toc.xml"));
      EXPECT_TRUE(fs::is_directory(dir / ("trial-" + std::to_string(k) + ".trace")));
      EXPECT_THAT(ReadText(dir / "xctrace-record.log"), HasSubstr("Output file saved as"));

      auto meta = ReadJson(dir / "meta.json");
      EXPECT_EQ(meta["complete"], true);
      EXPECT_EQ(meta["recorder"], "perfgate record");
      EXPECT_EQ(meta["format_version"], kBundleFormatVersion);
      EXPECT_EQ(meta["engine"], engine);
      EXPECT_EQ(meta["process_prefix"], engine);
      EXPECT_EQ(meta["tokens"], 4);
      EXPECT_EQ(meta["trial"], k);
      EXPECT_EQ(meta["trials"], 2);
      EXPECT_EQ(meta["command"], nlohmann::json({Bin(engine), "--max-tokens", "4"}));
      EXPECT_EQ(meta["template"], "Metal System Trace");
      EXPECT_EQ(meta["xctrace"]["found_by"], "PERFGATE_XCTRACE");
      EXPECT_THAT(meta["xctrace"]["version"].get<std::string>(), HasSubstr("stand-in"));
      EXPECT_FALSE(meta["host"].get<std::string>().empty());
      EXPECT_FALSE(meta["chip"].get<std::string>().empty());
      EXPECT_FALSE(meta["os_version"].get<std::string>().empty());
      EXPECT_THAT(meta["start_time"].get<std::string>(), ::testing::MatchesRegex("20[0-9-]+T[0-9:.]+Z"));
      EXPECT_TRUE(meta["end_time"].is_string());
      if (in_git) {
        EXPECT_THAT(meta["git"]["commit"].get<std::string>(), ::testing::MatchesRegex("[0-9a-f]{40}"));
        EXPECT_TRUE(meta["git"]["dirty"].is_boolean());
      }
      EXPECT_EQ(meta["job"]["interleaved_engines"], nlohmann::json({"hf2q", "llama"}));
      EXPECT_EQ(meta["toc"]["template"], "Metal System Trace");
      EXPECT_EQ(meta["toc"]["target_process"]["return_exit_status"], "0");
      EXPECT_EQ(meta["missing_tables"], nlohmann::json::array());
      EXPECT_GT(meta["tables"][kPoints]["rows"].get<int64_t>(), 0);
      EXPECT_GT(meta["tables"][kMap]["target_rows"].get<int64_t>(), 0);
      EXPECT_LT(meta["tables"][kMap]["target_rows"].get<int64_t>(), meta["tables"][kMap]["rows"].get<int64_t>());

      // What attribution reads.
      auto tables = attribution::LoadTrial(dir.string());
      ASSERT_TRUE(tables.ok()) << tables.status().ToString();
      EXPECT_TRUE(tables->submission_map.has_value());
      EXPECT_TRUE(tables->gpu_intervals.has_value());
      attribution::AttributionOptions options;
      options.process_prefix = engine;
      options.tokens = 4;
      auto summary = attribution::SummarizeTrial(*tables, options);
      ASSERT_TRUE(summary.ok()) << summary.status().ToString();
      EXPECT_GT(summary->items, 0);
    }
    auto recording = bundle::DiscoverTrials(out_ + "/" + engine);
    ASSERT_TRUE(recording.ok());
    std::vector<std::string> trials;
    for (const bundle::Trial& t : recording->trials) trials.push_back(t.path);
    EXPECT_THAT(trials, ElementsAre(TrialDir(engine, 1), TrialDir(engine, 2)));
  }

  const std::string progress = progress_.str();
  EXPECT_THAT(progress, HasSubstr("hf2q trial 1/2 (job 1/4): recording"));
  EXPECT_THAT(progress, HasSubstr("llama trial 2/2: done in"));
  EXPECT_THAT(progress, HasSubstr("exported metal-gpu-execution-points ("));
}

TEST_F(Recorder, ResumeKeepsCompleteTrials) {
  ASSERT_TRUE(Record({Engine("hf2q")}, Options(2)).ok()) << progress_.str();
  const std::string meta_before = ReadText(fs::path(TrialDir("hf2q", 1)) / "meta.json");
  ClearLog();
  auto again = Record({Engine("hf2q")}, Options(3));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_EQ(again->trials.size(), 3u);
  EXPECT_TRUE(again->trials[0].resumed);
  EXPECT_TRUE(again->trials[1].resumed);
  EXPECT_FALSE(again->trials[2].resumed);
  EXPECT_THAT(RecordOutputs(), ElementsAre(TrialDir("hf2q", 3) + "/trial-3.trace"));
  EXPECT_EQ(ReadText(fs::path(TrialDir("hf2q", 1)) / "meta.json"), meta_before);
  EXPECT_THAT(progress_.str(), HasSubstr("hf2q trial 1/3: already complete, kept"));
}

TEST_F(Recorder, AFailedTrialStaysIncompleteAndIsRedoneOnResume) {
  SetMode("crash_record", "/llama/trial-1/");
  auto r = Record({Engine("hf2q"), Engine("llama")}, Options(2));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.signaled");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_EQ(r.status().location().path, TrialDir("llama", 1));
  EXPECT_THAT(r.status().message(), HasSubstr("llama trial 1/2: `xctrace record` killed by signal 6 (SIGABRT)"));
  ExpectIncomplete(TrialDir("llama", 1), "process.signaled");
  EXPECT_TRUE(CheckTrialComplete(TrialDir("hf2q", 1)).ok());
  EXPECT_FALSE(fs::exists(TrialDir("hf2q", 2)));  // stopped at the first failure
  EXPECT_THAT(progress_.str(), HasSubstr("FAILED"));

  // Attribution must not read the engine's recording while a trial is incomplete.
  EXPECT_FALSE(CheckTrialComplete(TrialDir("llama", 1)).ok());

  SetMode("");
  ClearLog();
  auto resumed = Record({Engine("hf2q"), Engine("llama")}, Options(2));
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_THAT(RecordOutputs(),
              ElementsAre(TrialDir("llama", 1) + "/trial-1.trace", TrialDir("hf2q", 2) + "/trial-2.trace",
                          TrialDir("llama", 2) + "/trial-2.trace"));
  EXPECT_TRUE(CheckTrialComplete(TrialDir("llama", 1)).ok());
  EXPECT_FALSE(fs::exists(fs::path(TrialDir("llama", 1)) / "INCOMPLETE"));
  EXPECT_FALSE(ReadJson(fs::path(TrialDir("llama", 1)) / "meta.json").contains("error"));
}

TEST_F(Recorder, RefusesATrialOfAnotherRecordingUnlessForced) {
  ASSERT_TRUE(Record({Engine("hf2q", 4)}, Options(1)).ok());
  ClearLog();
  auto refused = Record({Engine("hf2q", 8)}, Options(1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), "record.bundle_mismatch");
  EXPECT_EQ(refused.status().kind(), ErrorKind::kUsage);
  EXPECT_THAT(refused.status().message(), HasSubstr("tokens 4 there, 8 now"));
  EXPECT_THAT(refused.status().message(), HasSubstr("--force"));
  EXPECT_TRUE(RecordOutputs().empty());

  RecordOptions forced = Options(1);
  forced.force = true;
  ASSERT_TRUE(Record({Engine("hf2q", 8)}, forced).ok());
  auto meta = ReadJson(fs::path(TrialDir("hf2q", 1)) / "meta.json");
  EXPECT_EQ(meta["tokens"], 8);
  EXPECT_EQ(meta["command"][2], "8");
}

TEST_F(Recorder, RefusesForeignDirectoriesAndExtraTrialsUnlessForced) {
  fs::create_directories(TrialDir("hf2q", 1));
  std::ofstream(fs::path(TrialDir("hf2q", 1)) / "notes.txt") << "mine";
  auto foreign = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.status().code(), "record.not_a_bundle");
  EXPECT_THAT(foreign.status().message(), HasSubstr("no meta.json"));
  EXPECT_TRUE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "notes.txt"));
  fs::remove_all(TrialDir("hf2q", 1));

  ASSERT_TRUE(Record({Engine("hf2q")}, Options(2)).ok());
  auto extra = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().code(), "record.extra_trials");
  EXPECT_THAT(extra.status().message(), HasSubstr("trial-2: beyond the 1 trials"));
  RecordOptions forced = Options(1);
  forced.force = true;
  ASSERT_TRUE(Record({Engine("hf2q")}, forced).ok());
  EXPECT_FALSE(fs::exists(TrialDir("hf2q", 2)));
  EXPECT_TRUE(CheckTrialComplete(TrialDir("hf2q", 1)).ok());
}

TEST_F(Recorder, ARecordTimeoutKillsXctraceAndItsProcessGroup) {
  SetMode("hang_record_grandchild");
  RecordOptions o = Options(1);
  o.record_timeout_ms = 400;
  auto r = Record({Engine("hf2q")}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.timeout");
  EXPECT_THAT(r.status().message(), HasSubstr("`xctrace record` timed out after"));
  EXPECT_THAT(r.status().message(), HasSubstr("SIGINT"));
  ExpectIncomplete(TrialDir("hf2q", 1), "process.timeout");
  const pid_t grandchild = static_cast<pid_t>(std::stol(ReadText(root_ / "grandchild.pid")));
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::string stat = ReadText("/proc/" + std::to_string(grandchild) + "/stat");
    gone = (kill(grandchild, 0) != 0 && errno == ESRCH) || stat.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "xctrace's child survived the timeout";
}

TEST_F(Recorder, IgnoredSigintEscalatesToSigkill) {
  SetMode("hang_record_ignore_signals");
  RecordOptions o = Options(1);
  o.record_timeout_ms = 300;
  o.kill_grace_ms = 200;
  auto r = Record({Engine("hf2q")}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.timeout");
  EXPECT_THAT(r.status().message(), HasSubstr("SIGKILL"));
  ExpectIncomplete(TrialDir("hf2q", 1), "process.timeout");
}

TEST_F(Recorder, AnExportTimeoutFailsTheTrial) {
  SetMode("hang_export");
  RecordOptions o = Options(1);
  o.export_timeout_ms = 300;
  auto r = Record({Engine("hf2q")}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.timeout");
  EXPECT_THAT(r.status().message(), HasSubstr("`xctrace export --toc` timed out"));
  ExpectIncomplete(TrialDir("hf2q", 1), "process.timeout");
}

TEST_F(Recorder, CrashesAndFailuresOfXctraceAreReported) {
  struct Case {
    std::string mode, code, text;
  };
  for (const Case& c : std::vector<Case>{
           {"crash_export", "process.signaled", "`xctrace export --toc` killed by signal 6 (SIGABRT)"},
           {"fail_record", "process.exit_status", "simulated recording failure"},
           {"fail_export", "process.exit_status", "`xctrace export --toc` exited with status 5"},
           {"no_trace", "record.no_trace", "wrote no trace"},
           {"empty_toc", "record.bad_toc", "xctrace.empty_file"},
       }) {
    SCOPED_TRACE(c.mode);
    SetMode(c.mode);
    RecordOptions o = Options(1);
    o.force = true;
    auto r = Record({Engine("hf2q")}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), c.code);
    EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
    EXPECT_THAT(r.status().message(), HasSubstr(c.text));
    ExpectIncomplete(TrialDir("hf2q", 1), c.code);
    if (c.mode == "fail_record") {
      const std::string log = ReadText(fs::path(TrialDir("hf2q", 1)) / "xctrace-record.log");
      EXPECT_THAT(log, HasSubstr("simulated recording failure"));
      EXPECT_THAT(log, HasSubstr("--- exited with status 5 ---"));
    }
  }
}

TEST_F(Recorder, AnEmptyExportIsAnErrorNamingTheTable) {
  SetMode("empty_export");
  auto r = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.empty_export");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(r.status().message(), HasSubstr("export` of " + kPoints + " exited 0 with no <node>"));
  EXPECT_THAT(r.status().location().path, HasSubstr(kPoints + ".xml"));
  ExpectIncomplete(TrialDir("hf2q", 1), "record.empty_export");
}

TEST_F(Recorder, AnUnreadableExportIsAnError) {
  SetMode("garbage_export");
  auto r = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.bad_export");
  EXPECT_THAT(r.status().message(), HasSubstr("xctrace.not_xml"));
}

TEST_F(Recorder, AMissingOptionalTableIsReportedByName) {
  SetMode("omit_table=metal-gpu-intervals");
  auto r = Record({Engine("hf2q")}, Options(1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(r->trials[0].missing_tables, ElementsAre("metal-gpu-intervals"));
  EXPECT_THAT(progress_.str(), HasSubstr("warning: hf2q trial 1/1: the TOC has no metal-gpu-intervals table"));
  auto meta = ReadJson(fs::path(TrialDir("hf2q", 1)) / "meta.json");
  EXPECT_EQ(meta["missing_tables"], nlohmann::json({"metal-gpu-intervals"}));
  EXPECT_FALSE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "metal-gpu-intervals.xml"));
  auto tables = attribution::LoadTrial(TrialDir("hf2q", 1));
  ASSERT_TRUE(tables.ok());
  EXPECT_FALSE(tables->gpu_intervals.has_value());
}

TEST_F(Recorder, AMissingRequiredTableIsAnErrorNamingIt) {
  SetMode("omit_table=" + kPoints);
  auto r = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.missing_table");
  EXPECT_THAT(r.status().message(), HasSubstr("the trace has no " + kPoints + " table"));
  ExpectIncomplete(TrialDir("hf2q", 1), "record.missing_table");

  // Tables listed explicitly are all required.
  SetMode("omit_table=metal-gpu-intervals");
  RecordOptions o = Options(1);
  o.tables = {"metal-gpu-intervals"};
  auto listed = Record({Engine("hf2q")}, o);
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), "record.missing_table");
  EXPECT_THAT(listed.status().message(), HasSubstr("metal-gpu-intervals"));
}

TEST_F(Recorder, ExplicitTablesAreExportedWithTheRequiredOnes) {
  RecordOptions o = Options(1);
  o.tables = {"metal-gpu-intervals"};
  ASSERT_TRUE(Record({Engine("hf2q")}, o).ok());
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(TrialDir("hf2q", 1))) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_THAT(files, ElementsAre("metal-gpu-execution-points.xml", "metal-gpu-intervals.xml",
                                 "metal-gpu-submission-to-command-buffer-id.xml", "toc.xml"));
}

TEST_F(Recorder, NoRowsOfTheTargetProcessIsAnError) {
  EngineRecordSpec e = Engine("hf2q");
  e.process_prefix = "mlx-server";
  auto r = Record({e}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.no_target_rows");
  EXPECT_THAT(r.status().message(), HasSubstr("no GPU submission of a process named 'mlx-server…'"));
  EXPECT_THAT(r.status().message(), HasSubstr("hf2q ("));
  EXPECT_THAT(r.status().message(), HasSubstr("WindowServer ("));
  ExpectIncomplete(TrialDir("hf2q", 1), "record.no_target_rows");
}

TEST_F(Recorder, AFailedTargetCommandIsNotRecorded) {
  EngineRecordSpec e = Engine("hf2q");
  e.command[0] = (root_ / "bin-failing" / "hf2q").string();
  auto r = Record({e}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.target_failed");
  EXPECT_THAT(r.status().message(), HasSubstr("the recorded command exited with status 1"));
  ExpectIncomplete(TrialDir("hf2q", 1), "record.target_failed");
}

TEST_F(Recorder, PassesTheTimeLimitAndEnvironmentButRecordsOnlyVariableNames) {
  EngineRecordSpec e = Engine("hf2q");
  e.environment = {{"HF2Q_SECRET", "s3cret"}};
  RecordOptions o = Options(1);
  o.time_limit_ms = 1500;
  o.keep_trace = false;
  ASSERT_TRUE(Record({e}, o).ok()) << progress_.str();
  auto calls = Calls();
  ASSERT_GE(calls.size(), 2u);
  EXPECT_THAT(calls[1], ElementsAre("record", "--template", "Metal System Trace", "--no-prompt", "--output",
                                    TrialDir("hf2q", 1) + "/trial-1.trace", "--time-limit", "1500ms", "--env",
                                    "HF2Q_SECRET=s3cret", "--launch", "--", Bin("hf2q"), "--max-tokens", "4"));
  const std::string meta_text = ReadText(fs::path(TrialDir("hf2q", 1)) / "meta.json");
  EXPECT_THAT(meta_text, ::testing::Not(HasSubstr("s3cret")));
  auto meta = nlohmann::json::parse(meta_text);
  EXPECT_EQ(meta["environment_names"], nlohmann::json({"HF2Q_SECRET"}));
  EXPECT_EQ(meta["time_limit_ms"], 1500);
  EXPECT_TRUE(meta["git"].is_null());
  EXPECT_TRUE(meta["trace"].is_null());
  EXPECT_FALSE(fs::exists(fs::path(TrialDir("hf2q", 1)) / "trial-1.trace"));
}

TEST_F(Recorder, CancellationStopsXctraceAndLeavesTheTrialIncomplete) {
  SetMode("hang_record");
  std::atomic<bool> cancel{false};
  RecordOptions o = Options(1);
  o.record_timeout_ms = 5000;
  o.cancel = &cancel;
  std::thread raiser([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    cancel.store(true);
  });
  auto r = Record({Engine("hf2q")}, o);
  raiser.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.interrupted");
  ExpectIncomplete(TrialDir("hf2q", 1), "record.interrupted");
}

TEST_F(Recorder, CooldownSeparatesRecordings) {
  RecordOptions o = Options(2);
  o.cooldown_ms = 100;
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(Record({Engine("hf2q")}, o).ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
  EXPECT_THAT(progress_.str(), HasSubstr("cooling down for 0.1 s"));
}

TEST_F(Recorder, RejectsBadSpecs) {
  auto code = [this](std::vector<EngineRecordSpec> engines, RecordOptions o) {
    auto r = Record(engines, o);
    EXPECT_EQ(r.status().kind(), ErrorKind::kUsage);
    return r.ok() ? std::string("ok") : r.status().code();
  };
  EXPECT_EQ(code({}, Options(1)), "record.bad_spec");
  EngineRecordSpec bad = Engine("hf2q");
  bad.engine = "a/b";
  EXPECT_EQ(code({bad}, Options(1)), "record.bad_spec");
  EXPECT_EQ(code({Engine("hf2q"), Engine("hf2q")}, Options(1)), "record.bad_spec");
  EXPECT_EQ(code({Engine("hf2q", 0)}, Options(1)), "record.bad_spec");
  EngineRecordSpec no_command = Engine("hf2q");
  no_command.command.clear();
  EXPECT_EQ(code({no_command}, Options(1)), "record.bad_spec");
  EXPECT_EQ(code({Engine("hf2q")}, Options(0)), "record.bad_spec");
  EXPECT_TRUE(Calls().empty());
}

TEST_F(Recorder, LocatesXctraceOrSaysWhyNot) {
  auto found = LocateXctrace();
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->found_by, "PERFGATE_XCTRACE");
  EXPECT_THAT(found->argv, ElementsAre(PERFGATE_FAKE_XCTRACE));
  EXPECT_FALSE(WhyRecordingImpossible().has_value());

  // A wrong PERFGATE_XCTRACE is the error, with no fallback.
  setenv("PERFGATE_XCTRACE", (root_ / "no-such-xctrace").c_str(), 1);
  auto wrong = LocateXctrace();
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), "record.no_xctrace");
  EXPECT_EQ(wrong.status().kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(wrong.status().message(), HasSubstr("PERFGATE_XCTRACE="));
  auto r = Record({Engine("hf2q")}, Options(1));
  EXPECT_EQ(r.status().code(), "record.no_xctrace");
  EXPECT_FALSE(fs::exists(out_));

  // Unset, and neither xcrun nor xctrace in PATH.
  const std::string saved_path = getenv("PATH");
  unsetenv("PERFGATE_XCTRACE");
  setenv("PATH", (root_ / "bin").c_str(), 1);
  auto none = LocateXctrace();
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), "record.no_xctrace");
  auto why = WhyRecordingImpossible();
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("xctrace not found"));
  EXPECT_THAT(*why, HasSubstr("macOS"));

  // xctrace in PATH.
  fs::create_symlink(PERFGATE_FAKE_XCTRACE, root_ / "bin" / "xctrace");
  auto in_path = LocateXctrace();
  setenv("PATH", saved_path.c_str(), 1);
  ASSERT_TRUE(in_path.ok());
  EXPECT_EQ(in_path->found_by, "PATH");
  EXPECT_THAT(in_path->argv, ElementsAre((root_ / "bin" / "xctrace").string()));
}

TEST_F(Recorder, ACommandOrTemplateThatIsNotUtf8IsABadSpec) {
  // Both are stored in meta.json and compared on resume, so they must be text.
  EngineRecordSpec latin1 = Engine("hf2q");
  latin1.command.push_back("caf\xe9");
  std::optional<StatusOr<RecordingResult>> r;
  ASSERT_NO_THROW(r.emplace(Record({latin1}, Options(1))));
  EXPECT_EQ(r->status().code(), "record.bad_spec");
  EXPECT_EQ(r->status().kind(), ErrorKind::kUsage);
  EXPECT_THAT(r->status().message(), HasSubstr("UTF-8"));

  RecordOptions o = Options(1);
  o.template_name = "Metal \xff";
  ASSERT_NO_THROW(r.emplace(Record({Engine("hf2q")}, o)));
  EXPECT_EQ(r->status().code(), "record.bad_spec");
  EXPECT_TRUE(Calls().empty());
}

TEST_F(Recorder, AnErrorNamingAPathThatIsNotUtf8IsStillRecordedInMetaJson) {
  out_ = (root_ / "out-\xff").string();
  SetMode("no_trace");
  std::optional<StatusOr<RecordingResult>> r;
  ASSERT_NO_THROW(r.emplace(Record({Engine("hf2q")}, Options(1))));
  ASSERT_FALSE(r->ok());
  EXPECT_EQ(r->status().code(), "record.no_trace");
  ExpectIncomplete(TrialDir("hf2q", 1), "record.no_trace");
  auto meta = ReadJson(fs::path(TrialDir("hf2q", 1)) / "meta.json");
  EXPECT_THAT(meta["error"]["message"].get<std::string>(), HasSubstr("out-\xEF\xBF\xBD/"));  // U+FFFD
}

TEST_F(Recorder, AnEnvironmentNameThatIsNotUtf8IsRecordedReplaced) {
  EngineRecordSpec e = Engine("hf2q");
  e.environment = {{"HF2Q_\xff", "1"}};
  std::optional<StatusOr<RecordingResult>> r;
  ASSERT_NO_THROW(r.emplace(Record({e}, Options(1))));
  ASSERT_TRUE(r->ok()) << r->status().ToString();
  auto meta = ReadJson(fs::path(TrialDir("hf2q", 1)) / "meta.json");
  EXPECT_EQ(meta["environment_names"], nlohmann::json({"HF2Q_\xEF\xBF\xBD"}));
  EXPECT_EQ(meta["complete"], true);
}

TEST_F(Recorder, SyntheticBundlesAreNotTakenForIncompleteOnes) {
  const std::string synthetic = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0/hf2q/trial-1";
  EXPECT_TRUE(CheckTrialComplete(synthetic).ok());
  // ... but recording over one is refused.
  fs::create_directories(out_ + "/hf2q");
  fs::copy(synthetic, TrialDir("hf2q", 1));
  auto r = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.not_a_bundle");
  EXPECT_THAT(r.status().message(), HasSubstr("not written by perfgate record"));
}

// The resume path reads the INCOMPLETE marker like every input: a FIFO named
// INCOMPLETE used to block the recorder forever in an ifstream.
TEST_F(Recorder, AFifoForAnIncompleteMarkerIsRefusedNotOpened) {
  fs::create_directories(TrialDir("hf2q", 1));
  ASSERT_EQ(::mkfifo((fs::path(TrialDir("hf2q", 1)) / "INCOMPLETE").c_str(), 0600), 0);
  Status s = CheckTrialComplete(TrialDir("hf2q", 1));
  EXPECT_EQ(s.code(), "io.not_a_file");
  internal::TrialCheck check = internal::InspectTrial(TrialDir("hf2q", 1), nlohmann::json::object());
  EXPECT_EQ(check.state, internal::TrialState::kForeign);
  EXPECT_THAT(check.detail, HasSubstr("io.not_a_file"));
  auto r = Record({Engine("hf2q")}, Options(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.not_a_bundle");
}

// meta.json goes through the bundle's parser: a key given twice used to be "last
// wins" here while attribution refused the same file.
TEST_F(Recorder, ADuplicateKeyInMetaJsonIsALocatedError) {
  fs::create_directories(TrialDir("hf2q", 1));
  std::ofstream(fs::path(TrialDir("hf2q", 1)) / "meta.json")
      << "{\"recorder\": \"perfgate record\", \"complete\": true,\n \"complete\": false}";
  Status s = CheckTrialComplete(TrialDir("hf2q", 1));
  EXPECT_EQ(s.code(), "bundle.bad_meta");
  EXPECT_EQ(s.location().line, 2);
  EXPECT_EQ(s.location().column, 2);
  internal::TrialCheck check = internal::InspectTrial(TrialDir("hf2q", 1), nlohmann::json::object());
  EXPECT_EQ(check.state, internal::TrialState::kForeign);
  EXPECT_THAT(check.detail, HasSubstr("bundle.bad_meta"));
}

// Comparing a recorded identity with one that is not UTF-8 used to throw
// nlohmann's type_error 316 out of InspectTrial.
TEST_F(Recorder, AnIdentityThatIsNotUtf8IsComparedNotThrownOn) {
  ASSERT_TRUE(Record({Engine("hf2q")}, Options(1)).ok());
  nlohmann::json identity = {{"command", "caf\xe9"}};
  std::optional<internal::TrialCheck> check;
  ASSERT_NO_THROW(check.emplace(internal::InspectTrial(TrialDir("hf2q", 1), identity)));
  EXPECT_EQ(check->state, internal::TrialState::kMismatch);
  EXPECT_THAT(check->detail, HasSubstr("\"caf\xef\xbf\xbd\" now"));
}

}  // namespace
}  // namespace perfgate::xctrace
