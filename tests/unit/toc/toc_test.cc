// Tests for the `xctrace export --toc` reader: real TOCs from shared/corpus (read in
// place; skipped when the corpus is absent), hand-written TOCs for every error path,
// and the JSON that `perfgate toc` prints.
#include "perfgate/xctrace/toc.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/corpus.h"

namespace perfgate::xctrace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;

constexpr char kMetalToc[] = "xctrace/probe-cli/fixture-metal-system-trace.toc.xml";
constexpr char kSystemToc[] = "xctrace/probe-cli/fixture-system-trace.toc.xml";
constexpr char kTimeProfilerToc[] = "xctrace/probe-cli/fixture-time-profiler.toc.xml";
constexpr char kXctraceprofToc[] = "xctrace/xctraceprof/time-prof-toc.xml";

// Reads a corpus TOC, failing the test (not crashing) when it does not read.
Toc MustRead(const std::string& path) {
  StatusOr<Toc> toc = ReadTocFile(path);
  EXPECT_TRUE(toc.ok()) << toc.status().ToString();
  if (!toc.ok()) return Toc{};
  return std::move(toc).value();
}

// The compiler-form error of reading `xml`, or "ok".
std::string ErrorOf(std::string xml, std::string path = "toc.xml") {
  StatusOr<Toc> toc = ReadTocBuffer(std::move(xml), std::move(path));
  return toc.ok() ? "ok" : toc.status().ToString();
}

std::string CodeOf(std::string xml) {
  StatusOr<Toc> toc = ReadTocBuffer(std::move(xml), "toc.xml");
  return toc.ok() ? "ok" : toc.status().code();
}

std::string AttributeOr(const TocTable* table, std::string_view name, std::string fallback) {
  if (table == nullptr) return "<no table>";
  std::optional<std::string_view> value = FindAttribute(*table, name);
  return value ? std::string(*value) : fallback;
}

// ---------------------------------------------------------------------------------
// Real TOCs.

TEST(TocCorpusTest, MetalSystemTraceSummary) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  EXPECT_EQ(toc.path, path);
  const TocRun& run = toc.runs[0];
  EXPECT_EQ(run.number, 1);
  EXPECT_EQ(run.instruments_version, "26.0 (17C529)");
  EXPECT_EQ(run.template_name, "Metal System Trace");
  EXPECT_EQ(run.recording_mode, "Deferred");
  EXPECT_EQ(run.time_limit, "5 seconds");
  EXPECT_EQ(run.end_reason, "Time limit reached");
  EXPECT_EQ(run.start_date, "2026-04-09T23:30:15.850-03:00");
  EXPECT_EQ(run.end_date, "2026-04-09T23:30:21.498-03:00");
  ASSERT_TRUE(run.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*run.duration_s, 5.647984);
  EXPECT_THAT(run.tracks, IsEmpty());
}

TEST(TocCorpusTest, MetalSystemTraceDevicesAndTarget) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const TocRun& run = toc.runs[0];
  EXPECT_EQ(run.device.uuid, "4015AB8A-185C-4334-8019-EBDE113852E5");
  EXPECT_EQ(run.device.model, "Simulated iPhone 17 Pro");
  EXPECT_EQ(run.device.name, "iPhone 17 Pro");
  EXPECT_EQ(run.device.os_version, "26.3.1 (23D8133)");
  EXPECT_EQ(run.device.platform, "iOS Simulator");
  ASSERT_TRUE(run.host_device.has_value());
  EXPECT_EQ(run.host_device->uuid, "4220D4B9-5546-54BE-998B-C12B4DF9905D");
  EXPECT_EQ(run.host_device->model, "Mac mini");
  EXPECT_EQ(run.host_device->name, "Guilherme\xE2\x80\x99s Mac mini");  // U+2019
  EXPECT_EQ(run.host_device->os_version, "26.3.1 (25D2128)");
  EXPECT_EQ(run.host_device->platform, "macOS");

  ASSERT_TRUE(run.has_target_process);
  EXPECT_EQ(run.target_process.name, "ProbeFixture");
  EXPECT_EQ(run.target_process.pid, 27364);
  EXPECT_EQ(run.target_process.type, "attached");
  EXPECT_EQ(run.target_process.return_exit_status, "0");
  EXPECT_EQ(run.target_process.termination_reason, "exit(0)");
  EXPECT_EQ(run.target_process.arguments, "");
  EXPECT_EQ(run.target_process.path, "");
}

TEST(TocCorpusTest, MetalSystemTraceProcesses) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const std::vector<TocProcess>& processes = toc.runs[0].processes;
  ASSERT_THAT(processes, SizeIs(60));
  EXPECT_EQ(processes.front().name, "avconferenced");
  EXPECT_EQ(processes.front().pid, 549);
  EXPECT_EQ(processes.front().path, "/usr/libexec/avconferenced");
  EXPECT_EQ(processes.back().name, "Spotlight");
  EXPECT_EQ(processes.back().pid, 510);
  // Names repeat (one process per pid); the kernel is pid 0.
  EXPECT_EQ(std::count_if(processes.begin(), processes.end(),
                          [](const TocProcess& p) { return p.name == "SimMetalHost"; }),
            3);
  auto kernel = std::find_if(processes.begin(), processes.end(),
                             [](const TocProcess& p) { return p.name == "kernel.release.t8103"; });
  ASSERT_NE(kernel, processes.end());
  EXPECT_EQ(kernel->pid, 0);
  auto target = std::find_if(processes.begin(), processes.end(),
                             [](const TocProcess& p) { return p.pid == 27364; });
  ASSERT_NE(target, processes.end());
  EXPECT_EQ(target->name, "ProbeFixture");
  EXPECT_EQ(target->path.substr(target->path.size() - 29), "ProbeFixture.app/ProbeFixture");
}

TEST(TocCorpusTest, MetalSystemTraceTables) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const TocRun& run = toc.runs[0];
  EXPECT_THAT(run.tables, SizeIs(106));

  // target-pid="SINGLE" (format doc §9): present on these ...
  for (const char* schema :
       {"metal-gpu-intervals", "metal-application-command-buffer-submissions",
        "metal-shader-profiler-shader-list", "metal-shader-profiler-intervals",
        "metal-application-event-interval"}) {
    EXPECT_EQ(AttributeOr(FindTable(run, schema), "target-pid", "<absent>"), "SINGLE") << schema;
  }
  // ... and absent from these.
  for (const char* schema : {"metal-gpu-execution-points", "metal-gpu-state-intervals",
                             "metal-gpu-submission-to-command-buffer-id"}) {
    EXPECT_EQ(AttributeOr(FindTable(run, schema), "target-pid", "<absent>"), "<absent>")
        << schema;
  }

  // Each Metal schema appears once: 39 of them.
  std::map<std::string, int> metal;
  for (const TocTable& table : run.tables) {
    if (table.schema.rfind("metal-", 0) == 0) ++metal[table.schema];
  }
  EXPECT_THAT(metal, SizeIs(39));
  for (const auto& [schema, count] : metal) EXPECT_EQ(count, 1) << schema;

  EXPECT_EQ(FindTable(run, "metal-nonexistent"), nullptr);
  EXPECT_THAT(FindTables(run, "metal-nonexistent"), IsEmpty());
}

TEST(TocCorpusTest, MetalSystemTraceRepeatedSchemas) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const TocRun& run = toc.runs[0];
  EXPECT_THAT(FindTables(run, "kdebug"), SizeIs(22));
  EXPECT_THAT(FindTables(run, "kdebug-strings"), SizeIs(2));
  EXPECT_THAT(FindTables(run, "os-signpost"), SizeIs(4));
  std::vector<const TocTable*> ticks = FindTables(run, "tick");
  ASSERT_THAT(ticks, SizeIs(2));
  EXPECT_EQ(AttributeOr(ticks[0], "frequency", "<absent>"), "<absent>");
  EXPECT_EQ(AttributeOr(ticks[1], "frequency", "<absent>"), "1");
  EXPECT_LT(ticks[0], ticks[1]);  // TOC order

  // FindTable gives the first; attributes keep document order and decode entities.
  const TocTable* kdebug = FindTable(run, "kdebug");
  ASSERT_EQ(kdebug, &run.tables[0]);
  EXPECT_EQ(kdebug, FindTables(run, "kdebug")[0]);
  EXPECT_THAT(kdebug->attributes, ElementsAre(Pair("codes", "\"0x2b,0xd8\""),
                                              Pair("schema", "kdebug"), Pair("target", "SINGLE")));
  const TocTable* sample = FindTable(run, "time-sample");
  ASSERT_NE(sample, nullptr);
  EXPECT_THAT(sample->attributes,
              ElementsAre(Pair("callstack", "user"), Pair("target", "SINGLE"),
                          Pair("schema", "time-sample"),
                          Pair("sample-rate-micro-seconds", "1000"),
                          Pair("all-thread-states", "NO")));
  const std::vector<const TocTable*> signposts = FindTables(run, "os-signpost");
  ASSERT_THAT(signposts, SizeIs(4));
  EXPECT_EQ(AttributeOr(signposts[3], "category", "<absent>"), "\"CAMetalLayer.Stalls\"");
  EXPECT_EQ(AttributeOr(signposts[3], "subsystem", "<absent>"), "\"com.apple.coreanimation\"");
}

TEST(TocCorpusTest, MetalSystemTraceRecordingSettings) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  EXPECT_THAT(toc.runs[0].recording_settings,
              ElementsAre(Pair("Hangs/Reporting Threshold",
                               "Include Brief Unresponsiveness (>100 ms)"),
                          Pair("Metal Application/GPU", "Counter Set: (null)"),
                          Pair("Metal Application/GPU", "Shader Timeline: Disabled"),
                          Pair("Metal Application/GPU", "Induced GPU Performance State: Default")));
}

TEST(TocCorpusTest, SystemTrace) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kSystemToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const TocRun& run = toc.runs[0];
  EXPECT_EQ(run.template_name, "System Trace");
  EXPECT_EQ(run.recording_mode, "Windowed (5 seconds)");
  EXPECT_EQ(run.instruments_version, "26.0 (17C529)");
  ASSERT_TRUE(run.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*run.duration_s, 5.103499);
  EXPECT_EQ(run.target_process.pid, 27364);
  EXPECT_THAT(run.tables, SizeIs(49));
  EXPECT_THAT(FindTables(run, "kdebug"), SizeIs(14));
  EXPECT_THAT(FindTables(run, "os-log"), SizeIs(2));
  EXPECT_THAT(FindTables(run, "os-signpost"), SizeIs(2));
  std::vector<const TocTable*> ticks = FindTables(run, "tick");
  ASSERT_THAT(ticks, SizeIs(2));
  EXPECT_EQ(AttributeOr(ticks[0], "frequency", "<absent>"), "1");
  EXPECT_EQ(AttributeOr(ticks[1], "frequency", "<absent>"), "100");
  ASSERT_THAT(run.processes, SizeIs(2));
  EXPECT_EQ(run.processes[0].name, "kernel.release.t8103");
  EXPECT_EQ(run.processes[0].pid, 0);
  EXPECT_EQ(run.processes[1].name, "ProbeFixture");
  EXPECT_THAT(run.recording_settings,
              ElementsAre(Pair("Hangs/Reporting Threshold", "Include Microhangs (>250ms)")));
}

TEST(TocCorpusTest, ProbeCliTimeProfiler) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kTimeProfilerToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const TocRun& run = toc.runs[0];
  EXPECT_EQ(run.template_name, "Time Profiler");
  EXPECT_EQ(run.recording_mode, "Deferred");
  ASSERT_TRUE(run.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*run.duration_s, 5.866323);
  EXPECT_EQ(run.target_process.name, "ProbeFixture");
  EXPECT_THAT(run.tables, SizeIs(32));
  ASSERT_FALSE(run.tables.empty());
  EXPECT_EQ(run.tables[0].schema, "time-profile");
  EXPECT_EQ(AttributeOr(&run.tables[0], "target-pid", "<absent>"), "SINGLE");
  EXPECT_THAT(FindTables(run, "kdebug"), SizeIs(9));
  EXPECT_THAT(FindTables(run, "tick"), SizeIs(1));
  ASSERT_THAT(run.processes, SizeIs(2));
  EXPECT_EQ(run.processes[0].pid, 27364);
  EXPECT_EQ(run.processes[1].pid, 0);
}

TEST(TocCorpusTest, XctraceprofInstruments14) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kXctraceprofToc);
  Toc toc = MustRead(path);
  ASSERT_THAT(toc.runs, SizeIs(1));
  const TocRun& run = toc.runs[0];
  EXPECT_EQ(run.number, 1);
  EXPECT_EQ(run.instruments_version, "14.3.1 (14E300c)");
  EXPECT_EQ(run.template_name, "Prof2");
  EXPECT_EQ(run.end_reason, "Target app exited");
  EXPECT_EQ(run.time_limit, "12 hours");
  ASSERT_TRUE(run.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*run.duration_s, 0.348425);
  EXPECT_EQ(run.device.model, "MacBook Pro");
  EXPECT_EQ(run.device.platform, "macOS");
  EXPECT_EQ(run.device.os_version, "13.5.1 (22G90)");
  EXPECT_FALSE(run.host_device.has_value());  // not a simulator
  ASSERT_TRUE(run.has_target_process);
  EXPECT_EQ(run.target_process.name, "java");
  EXPECT_EQ(run.target_process.pid, 12968);
  EXPECT_EQ(run.target_process.arguments, "Test");
  EXPECT_EQ(run.target_process.type, "");  // Instruments 14 writes no type
  EXPECT_THAT(run.recording_settings, IsEmpty());  // no settings element before 26.0
  ASSERT_THAT(run.processes, SizeIs(2));
  EXPECT_EQ(run.processes[0].path, "/Users/fzhinkin/.sdkman/candidates/java/current/bin/java");
  EXPECT_EQ(run.processes[1].name, "kernel");
  EXPECT_EQ(run.processes[1].pid, 0);
  EXPECT_THAT(run.tables, SizeIs(19));
  EXPECT_THAT(FindTables(run, "kdebug"), SizeIs(10));
  std::vector<const TocTable*> ticks = FindTables(run, "tick");
  ASSERT_THAT(ticks, SizeIs(2));
  EXPECT_EQ(AttributeOr(ticks[0], "frequency", "<absent>"), "1");
  EXPECT_EQ(AttributeOr(ticks[1], "frequency", "<absent>"), "10");
  EXPECT_THAT(run.tables[6].attributes,
              ElementsAre(Pair("target", "SINGLE"), Pair("schema", "kdebug"),
                          Pair("codes", "\"33,0x11\"")));
}

// ---------------------------------------------------------------------------------
// Hand-written TOCs: shape.

constexpr char kTwoRuns[] =
    "<?xml version=\"1.0\"?>\n"
    "<trace-toc>\n"
    "  <run number=\"1\">\n"
    "    <info>\n"
    "      <target>\n"
    "        <device uuid=\"U\" model=\"Mac15,14\" name=\"Studio\" os-version=\"26.1\""
    " platform=\"macOS\" future=\"x\"/>\n"
    "        <process type=\"launched\" arguments=\"--n 4\" name=\"bench\" pid=\"42\"/>\n"
    "      </target>\n"
    "      <summary>\n"
    "        <duration>\n   12.5\n  </duration>\n"
    "        <future-field>ignored</future-field>\n"
    "        <intruments-recording-settings>\n"
    "          <instrument name=\"Metal\"><array><dictionary>\n"
    "            <key name=\"A &amp; B\">one</key>\n"
    "            <key name=\"List\"><value>x</value><value>y</value></key>\n"
    "            <key name=\"Empty\"/>\n"
    "          </dictionary></array></instrument>\n"
    "        </intruments-recording-settings>\n"
    "      </summary>\n"
    "    </info>\n"
    "    <processes/>\n"
    "    <data>\n"
    "      <table schema=\"metal-gpu-intervals\" target-pid=\"SINGLE\"/>\n"
    "      <unknown-entity schema=\"not-a-table\"/>\n"
    "      <table documentation=\"Doc\" schema=\"metal-gpu-execution-points\"/>\n"
    "    </data>\n"
    "    <tracks>\n"
    "      <track name=\"GPU\"><details><detail name=\"Intervals\"/>"
    "<detail name=\"Counters\"/></details></track>\n"
    "    </tracks>\n"
    "  </run>\n"
    "  <!-- an all-processes recording: no target process, no summary -->\n"
    "  <run number=\"2\">\n"
    "    <info><target><device model=\"iPhone\"/></target></info>\n"
    "  </run>\n"
    "</trace-toc>\n";

TEST(TocShapeTest, TwoRunsWithUnknownElements) {
  StatusOr<Toc> toc = ReadTocBuffer(kTwoRuns, "mem.toc.xml");
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  EXPECT_EQ(toc->path, "mem.toc.xml");
  ASSERT_THAT(toc->runs, SizeIs(2));

  const TocRun& first = toc->runs[0];
  EXPECT_EQ(first.number, 1);
  EXPECT_EQ(first.device.model, "Mac15,14");
  EXPECT_EQ(first.device.os_version, "26.1");
  EXPECT_FALSE(first.host_device.has_value());
  ASSERT_TRUE(first.has_target_process);
  EXPECT_EQ(first.target_process.type, "launched");
  EXPECT_EQ(first.target_process.arguments, "--n 4");
  EXPECT_EQ(first.target_process.pid, 42);
  EXPECT_EQ(first.target_process.termination_reason, "");
  ASSERT_TRUE(first.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*first.duration_s, 12.5);  // surrounding whitespace is trimmed
  EXPECT_EQ(first.template_name, "");
  EXPECT_THAT(first.recording_settings,
              ElementsAre(Pair("Metal/A & B", "one"), Pair("Metal/List", "x"),
                          Pair("Metal/List", "y"), Pair("Metal/Empty", "")));
  EXPECT_THAT(first.processes, IsEmpty());
  ASSERT_THAT(first.tables, SizeIs(2));
  EXPECT_EQ(first.tables[0].schema, "metal-gpu-intervals");
  EXPECT_EQ(first.tables[1].schema, "metal-gpu-execution-points");
  EXPECT_THAT(first.tables[1].attributes,
              ElementsAre(Pair("documentation", "Doc"),
                          Pair("schema", "metal-gpu-execution-points")));
  ASSERT_THAT(first.tracks, SizeIs(1));
  EXPECT_EQ(first.tracks[0].name, "GPU");
  EXPECT_THAT(first.tracks[0].details, ElementsAre("Intervals", "Counters"));

  const TocRun& second = toc->runs[1];
  EXPECT_EQ(second.number, 2);
  EXPECT_EQ(second.device.model, "iPhone");
  EXPECT_FALSE(second.has_target_process);
  EXPECT_EQ(second.target_process.pid, -1);
  EXPECT_FALSE(second.duration_s.has_value());
  EXPECT_THAT(second.tables, IsEmpty());
  EXPECT_THAT(second.recording_settings, IsEmpty());
}

TEST(TocShapeTest, CorrectlySpelledSettingsElementIsAcceptedToo) {
  StatusOr<Toc> toc = ReadTocBuffer(
      "<trace-toc><run number=\"1\"><info><summary><instruments-recording-settings>"
      "<instrument name=\"Hangs\"><key name=\"T\">v</key></instrument>"
      "</instruments-recording-settings></summary></info></run></trace-toc>",
      "toc.xml");
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  EXPECT_THAT(toc->runs[0].recording_settings, ElementsAre(Pair("Hangs/T", "v")));
}

TEST(TocShapeTest, DurationForms) {
  auto duration = [](const std::string& text) -> std::optional<double> {
    StatusOr<Toc> toc = ReadTocBuffer("<trace-toc><run number=\"1\"><info><summary><duration>" +
                                          text + "</duration></summary></info></run></trace-toc>",
                                      "toc.xml");
    if (!toc.ok()) return std::nullopt;
    return toc->runs[0].duration_s;
  };
  EXPECT_EQ(duration("5"), 5.0);
  EXPECT_EQ(duration("0.000001"), 0.000001);
  EXPECT_EQ(duration(" 0.348425 "), 0.348425);
  for (const char* bad : {"", "-1", "+1", "1e3", "nan", "inf", "5.", ".5", "5,6", "5.6s", "1 2"}) {
    EXPECT_EQ(duration(bad), std::nullopt) << "'" << bad << "'";
  }
}

// ---------------------------------------------------------------------------------
// Hand-written TOCs: errors, with exact positions.

TEST(TocErrorTest, EmptyFile) {
  EXPECT_EQ(ErrorOf("", "empty.xml"),
            "empty.xml: error[xctrace.empty_file]: the file is empty; expected the output of "
            "`xctrace export --toc`");
}

TEST(TocErrorTest, BadUtf8PointsAtTheByte) {
  // Line 3: four spaces, <info> (5-10), <target> (11-18), <device (19-25), space,
  // name=" (27-32), C a f (33-35), é as two bytes (36-37), space (38), 0xFF (39).
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <info><target><device name=\"Caf\xC3\xA9 \xFF\"/></target></info>\n"
                    "  </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:3:39: error[xctrace.bad_utf8]: byte 0xFF is not valid UTF-8");
}

TEST(TocErrorTest, MalformedXmlUsesPugixmlOffsetAndDescription) {
  // pugixml points at the name of the mismatched end tag; the reader moves that to
  // its '<', as the export reader does: line 3, after four spaces and <data> (5-10).
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <data></date>\n"
                    "  </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:3:11: error[xctrace.not_xml]: not well-formed XML: Start-end tags mismatch");
  // A bad attribute on line 2.
  EXPECT_EQ(ErrorOf("<trace-toc>\n<run number=1>\n</run></trace-toc>\n"),
            "toc.xml:2:13: error[xctrace.not_xml]: not well-formed XML: Error parsing element "
            "attribute");
  EXPECT_EQ(CodeOf("not xml at all"), "xctrace.not_xml");
  EXPECT_EQ(CodeOf("   \n  "), "xctrace.not_xml");
}

TEST(TocErrorTest, TruncatedInput) {
  // pugixml reports the last byte: the final newline after line 4's 28 characters.
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <data>\n"
                    "      <table schema=\"tick\"/>\n"),
            "toc.xml:4:29: error[xctrace.truncated]: the input ends before every element is "
            "closed (Start-end tags mismatch); was the export cut short?");
  EXPECT_EQ(CodeOf("<trace-toc><run number=\"1\">"), "xctrace.truncated");
}

TEST(TocErrorTest, SecondRootElement) {
  EXPECT_EQ(ErrorOf("<trace-toc><run number=\"1\"/></trace-toc>\n"
                    "<trace-toc><run number=\"2\"/></trace-toc>\n"),
            "toc.xml:2:1: error[xctrace.not_xml]: not well-formed XML: a second root element "
            "<trace-toc> follows <trace-toc>");
}

TEST(TocErrorTest, UnexpectedRoot) {
  EXPECT_EQ(ErrorOf("<?xml version=\"1.0\"?>\n"
                    "<trace-query-result>\n"
                    "<node xpath='//trace-toc[1]/run[1]/data[1]/table[1]'/>\n"
                    "</trace-query-result>\n",
                    "export.xml"),
            "export.xml:2:1: error[xctrace.unexpected_root]: the root element is "
            "<trace-query-result>, expected <trace-toc> (this is an `xctrace export --xpath` "
            "result, not a --toc)");
  EXPECT_EQ(ErrorOf("<?xml version=\"1.0\"?>\n\n  <plist version=\"1.0\"/>\n"),
            "toc.xml:3:3: error[xctrace.unexpected_root]: the root element is <plist>, "
            "expected <trace-toc>");
}

TEST(TocErrorTest, NoRun) {
  EXPECT_EQ(ErrorOf("<?xml version=\"1.0\"?>\n"
                    "\n"
                    "<trace-toc>\n"
                    "    <runs/>\n"
                    "</trace-toc>\n"),
            "toc.xml:3:1: error[xctrace.bad_toc]: <trace-toc> has no <run>: the trace holds no "
            "recording");
  EXPECT_EQ(ErrorOf("  <trace-toc/>"),
            "toc.xml:1:3: error[xctrace.bad_toc]: <trace-toc> has no <run>: the trace holds no "
            "recording");
}

TEST(TocErrorTest, RunWithoutNumber) {
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "    <run>\n"
                    "    </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:2:5: error[xctrace.bad_toc]: <run> has no number attribute");
}

TEST(TocErrorTest, RunNumberNotPositiveInteger) {
  // The second run is the bad one: the position must follow it.
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\"/>\n"
                    "  <run number=\"one\"/>\n"
                    "</trace-toc>\n"),
            "toc.xml:3:3: error[xctrace.bad_toc]: <run number=\"one\">: the run number is not a "
            "positive decimal integer");
  for (const char* bad : {"", "0", "-1", "+1", " 1", "1.0", "99999999999"}) {
    EXPECT_EQ(CodeOf(std::string("<trace-toc><run number=\"") + bad + "\"/></trace-toc>"),
              "xctrace.bad_toc")
        << "'" << bad << "'";
  }
  EXPECT_EQ(CodeOf("<trace-toc><run number=\"2147483647\"/></trace-toc>"), "ok");
}

TEST(TocErrorTest, NonNumericTargetPid) {
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <info>\n"
                    "      <target>\n"
                    "        <process name=\"app\" pid=\"27x\"/>\n"
                    "      </target>\n"
                    "    </info>\n"
                    "  </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:5:9: error[xctrace.bad_toc]: <process name=\"app\" pid=\"27x\">: the pid is "
            "not a decimal integer");
}

TEST(TocErrorTest, NonNumericPidInProcessList) {
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <processes>\n"
                    "      <process name=\"java\" pid=\"12968\" path=\"/bin/java\"/>\n"
                    "      <process name=\"kernel\" pid=\"\" path=\"kernel\"/>\n"
                    "    </processes>\n"
                    "  </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:5:7: error[xctrace.bad_toc]: <process name=\"kernel\" pid=\"\">: the pid is "
            "not a decimal integer");
  EXPECT_EQ(CodeOf("<trace-toc><run number=\"1\"><processes><process pid=\"-5\"/></processes>"
                   "</run></trace-toc>"),
            "xctrace.bad_toc");
}

TEST(TocErrorTest, NonNumericDuration) {
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <info>\n"
                    "      <summary>\n"
                    "        <start-date>2026-04-09T23:30:15.850-03:00</start-date>\n"
                    "        <duration>5.6s</duration>\n"
                    "      </summary>\n"
                    "    </info>\n"
                    "  </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:6:9: error[xctrace.bad_toc]: <duration>5.6s</duration> is not a "
            "non-negative decimal number of seconds");
  EXPECT_EQ(ErrorOf("<trace-toc>\n<run number=\"1\"><info><summary>\n\t<duration/>\n"
                    "</summary></info></run></trace-toc>\n"),
            "toc.xml:3:2: error[xctrace.bad_toc]: <duration></duration> is not a non-negative "
            "decimal number of seconds");
}

TEST(TocErrorTest, TableWithoutSchema) {
  EXPECT_EQ(ErrorOf("<trace-toc>\n"
                    "  <run number=\"1\">\n"
                    "    <data>\n"
                    "      <table schema=\"tick\"/><table target-pid=\"SINGLE\"/>\n"
                    "    </data>\n"
                    "  </run>\n"
                    "</trace-toc>\n"),
            "toc.xml:4:29: error[xctrace.bad_toc]: <table> has no schema attribute, so no "
            "--xpath can select it");
}

TEST(TocErrorTest, MissingFile) {
  StatusOr<Toc> toc = ReadTocFile("/nonexistent-perfgate-dir/toc.xml");
  ASSERT_FALSE(toc.ok());
  EXPECT_EQ(toc.status().code(), "io.not_found");
  EXPECT_EQ(toc.status().location().path, "/nonexistent-perfgate-dir/toc.xml");
}

TEST(TocErrorTest, FileErrorsNameTheFile) {
  // The same checks through ReadTocFile: the path is the one given.
  PERFGATE_CORPUS_FILE_OR_SKIP(path,
                               "xctrace/probe-cli/metal-system-trace.metal-gpu-intervals.xml");
  StatusOr<Toc> toc = ReadTocFile(path);
  ASSERT_FALSE(toc.ok());
  EXPECT_EQ(toc.status().code(), "xctrace.unexpected_root");
  EXPECT_EQ(toc.status().location().path, path);
  EXPECT_GE(toc.status().location().line, 1);
}

// ---------------------------------------------------------------------------------
// JSON.

TEST(TocJsonTest, MetalSystemTraceRoundTrips) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, kMetalToc);
  Toc toc = MustRead(path);
  const std::string text = TocToJson(toc);
  nlohmann::json j = nlohmann::json::parse(text);

  // Layout: sorted keys, 2-space indent, one trailing newline (re-dumping the parsed
  // value reproduces the text exactly).
  EXPECT_EQ(j.dump(2) + "\n", text);
  EXPECT_EQ(text.substr(0, 4), "{\n  ");
  ASSERT_GE(text.size(), 2u);
  EXPECT_EQ(text.substr(text.size() - 2), "}\n");

  EXPECT_EQ(j["path"], path);
  ASSERT_EQ(j["runs"].size(), 1u);
  const nlohmann::json& run = j["runs"][0];
  EXPECT_TRUE(run["number"].is_number_integer());
  EXPECT_EQ(run["number"], 1);
  EXPECT_TRUE(run["duration_s"].is_number_float());
  EXPECT_DOUBLE_EQ(run["duration_s"].get<double>(), 5.647984);
  EXPECT_NE(text.find("\"duration_s\": 5.647984,"), std::string::npos);
  EXPECT_EQ(run["instruments_version"], "26.0 (17C529)");
  EXPECT_EQ(run["template_name"], "Metal System Trace");
  EXPECT_EQ(run["device"]["model"], "Simulated iPhone 17 Pro");
  EXPECT_EQ(run["device"]["os_version"], "26.3.1 (23D8133)");
  EXPECT_EQ(run["host_device"]["name"], "Guilherme\xE2\x80\x99s Mac mini");
  EXPECT_TRUE(run["target_process"]["pid"].is_number_integer());
  EXPECT_EQ(run["target_process"]["pid"], 27364);
  EXPECT_EQ(run["target_process"]["name"], "ProbeFixture");
  EXPECT_EQ(run["processes"].size(), 60u);
  EXPECT_EQ(run["processes"][0]["pid"], 549);
  ASSERT_EQ(run["tables"].size(), 106u);
  EXPECT_EQ(run["tables"][0],
            (nlohmann::json{
                {"codes", "\"0x2b,0xd8\""}, {"schema", "kdebug"}, {"target", "SINGLE"}}));
  ASSERT_EQ(run["recording_settings"].size(), 4u);
  EXPECT_EQ(run["recording_settings"][2],
            (nlohmann::json{{"key", "Metal Application/GPU"},
                            {"value", "Shader Timeline: Disabled"}}));
  EXPECT_EQ(run["tracks"], nlohmann::json::array());

  // Every key of a run, always present.
  std::vector<std::string> keys;
  for (auto it = run.begin(); it != run.end(); ++it) keys.push_back(it.key());
  EXPECT_THAT(keys, ElementsAre("device", "duration_s", "end_date", "end_reason", "host_device",
                                "instruments_version", "number", "processes", "recording_mode",
                                "recording_settings", "start_date", "tables", "target_process",
                                "template_name", "time_limit", "tracks"));
}

TEST(TocJsonTest, AbsentValuesAreNull) {
  StatusOr<Toc> toc = ReadTocBuffer(kTwoRuns, "mem.toc.xml");
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  nlohmann::json j = nlohmann::json::parse(TocToJson(*toc));
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_TRUE(j["runs"][0]["host_device"].is_null());
  EXPECT_EQ(j["runs"][0]["duration_s"], 12.5);
  EXPECT_EQ(j["runs"][0]["target_process"]["arguments"], "--n 4");
  EXPECT_EQ(j["runs"][0]["tracks"][0]["details"], (nlohmann::json{"Intervals", "Counters"}));
  EXPECT_EQ(j["runs"][1]["number"], 2);
  EXPECT_TRUE(j["runs"][1]["target_process"].is_null());
  EXPECT_TRUE(j["runs"][1]["duration_s"].is_null());
  EXPECT_EQ(j["runs"][1]["tables"], nlohmann::json::array());
}

TEST(TocJsonTest, ProcessWithoutPidIsNullAndBadUtf8IsReplaced) {
  Toc toc;
  toc.path = "built.xml";
  TocRun run;
  run.number = 3;
  run.has_target_process = true;
  run.target_process.name = "bad \xFF name";  // built by hand: never from the reader
  run.processes.push_back(TocProcess{});
  toc.runs.push_back(run);
  nlohmann::json j = nlohmann::json::parse(TocToJson(toc));  // must not throw
  EXPECT_TRUE(j["runs"][0]["target_process"]["pid"].is_null());
  EXPECT_TRUE(j["runs"][0]["processes"][0]["pid"].is_null());
  EXPECT_EQ(j["runs"][0]["target_process"]["name"], "bad \xEF\xBF\xBD name");  // U+FFFD
}


// ---------------------------------------------------------------------------------
// Hardening (issue #12): depth, decoded size, forbidden characters.

std::string SettingsToc(const std::string& settings) {
  return "<?xml version=\"1.0\"?>\n<trace-toc><run number=\"1\"><info><summary>"
         "<intruments-recording-settings>" + settings +
         "</intruments-recording-settings></summary></info></run></trace-toc>\n";
}

std::string NestedArrays(int depth) {
  std::string open, close;
  for (int i = 0; i < depth; ++i) {
    open += "<array>";
    close += "</array>";
  }
  return "<instrument name=\"i\">" + open + "<key name=\"k\">v</key>" + close + "</instrument>";
}

TEST(TocHardeningTest, DeeplyNestedSettingsAreAnErrorNotAStackOverflow) {
  const std::string xml = SettingsToc(NestedArrays(30000));
  // The 63rd <array> (settings element = level 0, instrument = 1) is the first past 64 levels.
  size_t at = 0;
  for (int i = 0; i < 63; ++i) at = xml.find("<array>", at) + 1;
  EXPECT_EQ(ErrorOf(xml).substr(0, ErrorOf(xml).find("]") + 1),
            "toc.xml:2:" + std::to_string(at - 1 - xml.find('\n')) + ": error[xctrace.too_deep]");
}

TEST(TocHardeningTest, SettingsJustWithinTheDepthBoundRead) {
  StatusOr<Toc> toc = ReadTocBuffer(SettingsToc(NestedArrays(62)), "toc.xml");
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  ASSERT_EQ(toc->runs[0].recording_settings.size(), 1u);
  EXPECT_EQ(toc->runs[0].recording_settings[0], (std::pair<std::string, std::string>{"i/k", "v"}));
}

TEST(TocHardeningTest, SettingsKeysStillJoinNamesInDocumentOrder) {
  StatusOr<Toc> toc = ReadTocBuffer(
      SettingsToc("<instrument name=\"A\">top<dictionary><key name=\"x\">1</key><key name=\"y\"><value>2</value>"
                  "<value>3</value></key></dictionary></instrument>"
                  "<instrument name=\"B\"><key name=\"z\"/></instrument>"),
      "toc.xml");
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  using KV = std::pair<std::string, std::string>;
  EXPECT_EQ(toc->runs[0].recording_settings,
            (std::vector<KV>{{"A", "top"}, {"A/x", "1"}, {"A/y", "2"}, {"A/y", "3"}, {"B/z", ""}}));
}

TEST(TocHardeningTest, AMillionEmptyRunsPassTheDecodeBudget) {
  std::string xml = "<?xml version=\"1.0\"?>\n<trace-toc>\n";
  for (int i = 0; i < 1000000; ++i) xml += "<run number=\"1\"/>\n";
  xml += "</trace-toc>\n";
  EXPECT_EQ(CodeOf(xml), "xctrace.toc_too_large");
}

TEST(TocHardeningTest, TheSmallestProcessesStayWithinTheDecodeFactor) {
  // A bare <process/> (11 bytes with its newline) decodes to about 230: within 32x,
  // so two million of them read, and the factor documented in toc.h holds.
  std::string xml = "<?xml version=\"1.0\"?>\n<trace-toc><run number=\"1\"><processes>\n";
  for (int i = 0; i < 2000000; ++i) xml += "<process/>\n";
  xml += "</processes></run></trace-toc>\n";
  StatusOr<Toc> toc = ReadTocBuffer(xml, "toc.xml");
  ASSERT_TRUE(toc.ok()) << toc.status().ToString();
  EXPECT_EQ(toc->runs[0].processes.size(), 2000000u);
  EXPECT_LE(toc->runs[0].processes.size() * sizeof(TocProcess), 32 * xml.size());
}

TEST(TocHardeningTest, ALongJoinedKeyOverManyLeavesPassesTheDecodeBudget) {
  std::string open, close;
  for (int i = 0; i < 60; ++i) {
    open += "<instrument name=\"" + std::string(1000, 'n') + "\">";
    close += "</instrument>";
  }
  std::string leaves;
  for (int i = 0; i < 20000; ++i) leaves += "<key name=\"k\"/>";
  EXPECT_EQ(CodeOf(SettingsToc(open + leaves + close)), "xctrace.toc_too_large");
  // The same names over a few leaves are fine.
  EXPECT_EQ(CodeOf(SettingsToc(open + "<key name=\"k\"/><key name=\"l\"/>" + close)), "ok");
}

TEST(TocHardeningTest, ForbiddenCharacterReferencesAreErrors) {
  for (const std::string ref : {"&#0;", "&#x1;", "&#xDFFF;", "&#xFFFF;", "&#1114112;"}) {
    const std::string xml = SettingsToc("<key name=\"k\">a" + ref + "</key>");
    EXPECT_EQ(ErrorOf(xml).substr(0, ErrorOf(xml).find("]") + 1),
              "toc.xml:2:" + std::to_string(xml.find(ref) - xml.find('\n')) + ": error[xctrace.bad_char]")
        << ref;
  }
  EXPECT_EQ(CodeOf(SettingsToc("<key name=\"k\">a\x01</key>")), "xctrace.bad_char");
  EXPECT_EQ(CodeOf(SettingsToc("<!-- &#0; --><key name=\"k\">&#x41;&#10;</key>")), "ok");
}

TEST(TocHardeningTest, MismatchedEndTagPointsAtItsAngleBracket) {
  const std::string xml = "<?xml version=\"1.0\"?>\n<trace-toc><run number=\"1\"></rum></trace-toc>\n";
  EXPECT_EQ(ErrorOf(xml).substr(0, ErrorOf(xml).find("]") + 1),
            "toc.xml:2:" + std::to_string(xml.find("</rum") - xml.find('\n')) + ": error[xctrace.not_xml]");
}

}  // namespace
}  // namespace perfgate::xctrace
