// llama-bench JSON / JSONL / Markdown and engine tok/s reports (perfgate/toks/bench_report.h).
#include "perfgate/toks/bench_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <tuple>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/json_member_offsets.h"
#include "core/text_input.h"
#include "core/json_document.h"
#include "core/sqlite_db.h"
#include "toks/bench_rows.h"
#include "toks/bench_markdown.h"
#include "perfgate/core/names.h"
#include "perfgate/stats/summary.h"

namespace perfgate::toks {
namespace {

const internal::JsonDocumentCodes kCodes{"toks.bad_json", "toks.too_deep"};

// Every field of test::get_fields() in the two llama.cpp versions the tests use
// (examples/llama-bench at 20e30b2, tools/llama-bench at 0104b15), the samples
// printed after them, and the per-backend booleans of older versions and forks.
const std::set<std::string, std::less<>>& KnownFields() {
  static const std::set<std::string, std::less<>> kFields = {
      "build_commit", "build_number", "cpu_info", "gpu_info", "backends", "model_filename", "model_type",
      "model_size", "model_n_params", "n_batch", "n_ubatch", "n_threads", "cpu_mask", "cpu_strict", "poll",
      "type_k", "type_v", "n_gpu_layers", "n_cpu_moe", "split_mode", "main_gpu", "no_kv_offload", "flash_attn",
      "devices", "tensor_split", "tensor_buft_overrides", "use_mmap", "load_mode", "embeddings", "no_op_offload",
      "no_host", "fit_target", "fit_min_ctx", "n_prompt", "n_gen", "n_depth", "test_time", "avg_ns", "stddev_ns",
      "avg_ts", "stddev_ts", "samples_ns", "samples_ts", "cuda", "vulkan", "kompute", "metal", "sycl", "rpc",
      "gpu_blas", "blas", "opencl", "hip", "cann", "musa"};
  return kFields;
}

// The per-backend booleans older llama-bench versions (and forks) print instead of
// the `backends` string.
constexpr std::string_view kBackendFlags[] = {"cuda", "vulkan", "kompute", "metal", "sycl", "rpc",
                                              "gpu_blas", "blas", "opencl", "hip", "cann", "musa"};

// Reads the test objects of one JSON text: the whole document, or one JSONL line
// (`line` > 0: errors are located on that line of the file).
class TestReader {
 public:
  TestReader(const std::string& path, std::string_view text, int line) : path_(path), text_(text), line_(line) {}

  StatusOr<BenchTest> Read(const nlohmann::json& j, const std::string& at, SourceLocation location,
                           bool llama_bench_schema, Diagnostics* diagnostics) const {
    BenchTest t;
    t.location = std::move(location);
    PERFGATE_ASSIGN_OR_RETURN(t.n_prompt, Count(j, at, "n_prompt", true));
    PERFGATE_ASSIGN_OR_RETURN(t.n_gen, Count(j, at, "n_gen", true));
    PERFGATE_ASSIGN_OR_RETURN(t.n_depth, Count(j, at, "n_depth", false));
    if (t.n_prompt + t.n_gen == 0) {
      return Bad("toks.bad_field", at + "/n_prompt", "a test with n_prompt and n_gen both 0 runs no tokens");
    }
    t.id = TestId(t.n_prompt, t.n_gen, t.n_depth);
    PERFGATE_RETURN_IF_ERROR(ReadSamples(j, at, &t));
    PERFGATE_RETURN_IF_ERROR(ReadRates(j, at, llama_bench_schema, &t));
    PERFGATE_RETURN_IF_ERROR(ReadConfig(j, at, &t));
    for (const auto& [key, value] : j.items()) {
      if (KnownFields().count(key) == 0) {
        diagnostics->Add("toks.unknown_field", t.location,
                         "field '" + key + "' of test " + t.id + " is none of llama-bench's; kept as text, not read");
      }
      if (key != "samples_ns" && key != "samples_ts") t.fields[key] = value.dump();
    }
    return t;
  }

  Status Bad(const std::string& code, const std::string& pointer, const std::string& message) const {
    return Status::Error(code, message, Locate(pointer));
  }

  SourceLocation Locate(const std::string& pointer) const {
    SourceLocation loc = internal::LocateJsonPointerOrAncestor(text_, path_, pointer);
    if (line_ > 0) loc.line = line_;  // a JSONL line: the column is within it
    return loc;
  }

 private:
  StatusOr<int64_t> Count(const nlohmann::json& j, const std::string& at, const char* key, bool required) const {
    auto it = j.find(key);
    if (it == j.end()) {
      if (!required) return int64_t{0};
      return Bad("toks.missing_field", at, std::string("test has no ") + key + " (" + Needs() + ")");
    }
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > (int64_t{1} << 40)) {
      return Bad("toks.bad_field", at + "/" + key, std::string(key) + " must be a whole number >= 0");
    }
    return it->get<int64_t>();
  }

  static std::string Needs() { return "each test needs n_prompt, n_gen and avg_ts or samples"; }

  // Numbers > 0 of `key`, or an empty list without it.
  StatusOr<std::vector<double>> PositiveArray(const nlohmann::json& j, const std::string& at, const char* key) const {
    std::vector<double> out;
    auto it = j.find(key);
    if (it == j.end()) return out;
    if (!it->is_array()) return Bad("toks.bad_field", at + "/" + key, std::string(key) + " must be an array of numbers");
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& v = (*it)[i];
      const std::string where = at + "/" + key + "/" + std::to_string(i);
      if (!v.is_number()) return Bad("toks.bad_field", where, std::string(key) + "[" + std::to_string(i) + "] is not a number");
      const double d = v.get<double>();
      if (!(d > 0) || !std::isfinite(d)) {
        return Bad("toks.bad_time", where, std::string(key) + "[" + std::to_string(i) + "] = " + v.dump() +
                                               ": a repetition's time and tok/s must be > 0");
      }
      out.push_back(d);
    }
    return out;
  }

  Status ReadSamples(const nlohmann::json& j, const std::string& at, BenchTest* t) const {
    PERFGATE_ASSIGN_OR_RETURN(std::vector<double> ns, PositiveArray(j, at, "samples_ns"));
    PERFGATE_ASSIGN_OR_RETURN(std::vector<double> ts, PositiveArray(j, at, "samples_ts"));
    if (j.contains("samples_ns") && j.contains("samples_ts") && ns.size() != ts.size()) {
      return Bad("toks.sample_mismatch", at + "/samples_ts",
                 "samples_ns has " + std::to_string(ns.size()) + " repetitions but samples_ts " +
                     std::to_string(ts.size()) + " (one of each per repetition)");
    }
    if (!ns.empty()) {
      // llama-bench's test::get_ts(): 1e9 * n_tokens / t, n_tokens = n_prompt + n_gen.
      const auto n_tokens = static_cast<double>(t->n_prompt + t->n_gen);
      for (size_t i = 0; i < ns.size(); ++i) {
        t->samples_ts.push_back(1e9 * n_tokens / ns[i]);
        if (!std::isfinite(t->samples_ts.back())) {
          return Bad("toks.bad_time", at + "/samples_ns/" + std::to_string(i),
                     "samples_ns[" + std::to_string(i) + "] is too small a time to give a finite tok/s");
        }
      }
      t->samples_from_ns = true;
    } else {
      t->samples_ts = std::move(ts);
    }
    return Status();
  }

  Status ReadRates(const nlohmann::json& j, const std::string& at, bool llama_bench_schema, BenchTest* t) const {
    auto avg = j.find("avg_ts");
    if (avg == j.end()) {
      if (llama_bench_schema || t->samples_ts.empty()) return Bad("toks.missing_field", at, "test has no avg_ts (" + Needs() + ")");
    } else {
      if (!avg->is_number()) return Bad("toks.bad_field", at + "/avg_ts", "avg_ts must be a number");
      t->avg_ts = avg->get<double>();
      if (!(t->avg_ts > 0) || !std::isfinite(t->avg_ts)) return Bad("toks.bad_time", at + "/avg_ts", "avg_ts must be > 0");
    }
    if (auto sd = j.find("stddev_ts"); sd != j.end()) {
      if (!sd->is_number() || !(sd->get<double>() >= 0)) return Bad("toks.bad_field", at + "/stddev_ts", "stddev_ts must be a number >= 0");
      t->stddev_ts = sd->get<double>();
    }
    return Status();
  }

  // The fields whose type differs between versions: checked so that a value of neither
  // version's type is named, kept as text.
  Status ReadConfig(const nlohmann::json& j, const std::string& at, BenchTest* t) const {
    if (auto fa = j.find("flash_attn"); fa != j.end() && !fa->is_boolean() && !fa->is_number_integer()) {
      return Bad("toks.bad_field", at + "/flash_attn", "flash_attn must be a boolean (older llama-bench) or an integer");
    }
    if (auto mm = j.find("use_mmap"); mm != j.end() && !mm->is_boolean()) {
      return Bad("toks.bad_field", at + "/use_mmap", "use_mmap must be a boolean");
    }
    if (auto lm = j.find("load_mode"); lm != j.end() && !lm->is_string()) {
      return Bad("toks.bad_field", at + "/load_mode", "load_mode must be a string");
    }
    for (const char* key : {"model_filename", "model_type"}) {
      auto m = j.find(key);
      if (m == j.end()) continue;
      if (!m->is_string()) return Bad("toks.bad_field", at + "/" + key, std::string(key) + " must be a string");
      if (t->model.empty()) t->model = m->get<std::string>();
    }
    if (auto m = j.find("model"); t->model.empty() && m != j.end() && m->is_string()) t->model = m->get<std::string>();
    return Status();
  }

  const std::string& path_;
  std::string_view text_;
  int line_;
};

// A line that opens a JSON value: an object or an array (JSONL holds nothing else).
bool OpensJsonValue(char c) { return c == '{' || c == '['; }

// The text of the formats read by hand (llama-bench's Markdown, CSV and SQL, JSONL's
// stderr lines) becomes JSON text and report text: a byte that breaks UTF-8 is
// refused where it is (JSON's own parser refuses it in JSON). `line` > 1: `text` is
// that line of the file.
Status RequireUtf8(std::string_view text, const std::string& path, int line = 1) {
  const size_t bad = internal::FindInvalidUtf8(text);
  if (bad == std::string_view::npos) return Status();
  SourceLocation at = internal::LineIndex(text).Locate(path, bad);
  at.line += line - 1;
  return Status::Error("toks.bad_utf8", "the report is not UTF-8 (a byte that breaks it)", at);
}

// The run a test belongs to, in a file that appends several: its build, backends and
// GPU.
std::string RunKey(const BenchTest& t) {
  return t.Field("build_commit") + "\x1f" + t.Field("build_number") + "\x1f" + t.Backends() + "\x1f" +
         t.Field("gpu_info");
}

// (model, test id, run) -> the index of the first test with them.
using SeenTests = std::map<std::tuple<std::string, std::string, std::string>, size_t>;

// Adds `t`, refusing a second test of one id for one model in one run.
Status AddTest(BenchTest t, BenchReport* report, SeenTests* seen) {
  auto [it, inserted] = seen->emplace(std::make_tuple(t.model, t.id, RunKey(t)), report->tests.size());
  if (!inserted) {
    const BenchTest& earlier = report->tests[it->second];
    return Status::Error("toks.duplicate_test",
                         "test " + t.id + (t.model.empty() ? "" : " of model '" + t.model + "'") +
                             " is given twice (first at line " + std::to_string(earlier.location.line) +
                             "): one result per test and model",
                         t.location);
  }
  report->tests.push_back(std::move(t));
  return Status();
}

// `tests` is the array at `at` ("" or "/tests") of `text`.
Status ReadArray(const nlohmann::json& tests, const std::string& at, const std::string& text, const TestReader& reader,
                 bool llama_bench, BenchReport* report) {
  SeenTests seen;
  // Every test's position from one pass over the text (an escaped "tests" key, the one
  // way the pass can miss, falls back to locating each test alone).
  const std::vector<internal::MemberOffset> starts = internal::MemberOffsets(text, at.empty() ? "" : at.substr(1));
  const internal::LineIndex lines(text);
  for (size_t i = 0; i < tests.size(); ++i) {
    const std::string p = at + "/" + std::to_string(i);
    if (!tests[i].is_object()) return reader.Bad("toks.bad_field", p, "test " + std::to_string(i) + " is not an object");
    SourceLocation where = starts.size() == tests.size() ? lines.Locate(report->path, starts[i].offset) : reader.Locate(p);
    PERFGATE_ASSIGN_OR_RETURN(BenchTest t, reader.Read(tests[i], p, std::move(where), llama_bench, &report->diagnostics));
    PERFGATE_RETURN_IF_ERROR(AddTest(std::move(t), report, &seen));
  }
  return Status();
}

// JSONL: one test object per non-blank line. A line that is no JSON and opens no
// object or array (the device lines llama-bench prints to stderr, kept in the same
// file) is counted, not read; any other line that is no test object is an error.
Status ReadLines(const std::string& text, const std::string& path, BenchReport* report) {
  report->format = "jsonl";
  SeenTests seen;
  size_t start = 0;
  for (int line = 1; start <= text.size(); ++line) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view s(text.data() + start, end - start);
    const size_t first = s.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      auto j = internal::ParseJsonDocument(s, path, kCodes);
      if (!j.ok() && !OpensJsonValue(s[first])) {  // stderr's
        PERFGATE_RETURN_IF_ERROR(RequireUtf8(s, path, line));
        const size_t last = s.find_last_not_of(" \t\r");
        report->diagnostics.Add("toks.ignored_line", {path, line, static_cast<int>(first) + 1},
                                "'" + std::string(s.substr(first, std::min<size_t>(last - first + 1, 120))) + "'");
        start = end + 1;
        continue;
      }
      if (!j.ok()) {
        SourceLocation loc = j.status().location();
        loc.line = line;
        return Status::Error(j.status().code(), j.status().message() + " (JSONL line " + std::to_string(line) + ")", loc);
      }
      if (!j->is_object()) {
        return Status::Error("toks.bad_line",
                             "JSONL line " + std::to_string(line) + " is not a test object (it is " +
                                 std::string(j->type_name()) + ")",
                             {path, line, static_cast<int>(first) + 1});
      }
      TestReader reader(path, s, line);
      PERFGATE_ASSIGN_OR_RETURN(BenchTest t, reader.Read(*j, "", {path, line, static_cast<int>(first) + 1}, true,
                                                         &report->diagnostics));
      PERFGATE_RETURN_IF_ERROR(AddTest(std::move(t), report, &seen));
    }
    start = end + 1;
  }
  return Status();
}

Status ReadDocument(const nlohmann::json& doc, const std::string& text, const std::string& path, BenchReport* report) {
  TestReader reader(path, text, 0);
  if (doc.is_array()) {
    report->format = "json";
    return ReadArray(doc, "", text, reader, true, report);
  }
  if (doc.is_object() && doc.contains("tests")) {
    report->format = "minimal";
    const nlohmann::json& tests = doc["tests"];
    if (!tests.is_array()) return reader.Bad("toks.bad_field", "/tests", "tests must be an array of test objects");
    for (const auto& [key, _] : doc.items()) {
      if (key != "tests" && key != "engine" && key != "model") {
        const std::string& name = key;  // a structured binding cannot be captured (C++17)
        report->diagnostics.AddLocated(
            "toks.unknown_field", [&] { return reader.Locate("/" + internal::EscapeJsonPointerToken(name)); },
            "top-level key '" + key + "' is none of tests, engine, model; not read");
      }
    }
    auto model = doc.find("model");
    if (model != doc.end() && !model->is_string()) return reader.Bad("toks.bad_field", "/model", "model must be a string");
    PERFGATE_RETURN_IF_ERROR(ReadArray(tests, "/tests", text, reader, false, report));
    for (BenchTest& t : report->tests) {
      if (t.model.empty() && model != doc.end()) t.model = model->get<std::string>();
    }
    return Status();
  }
  if (doc.is_object()) {  // JSONL of one line
    report->format = "jsonl";
    const size_t first = text.find_first_not_of(" \t\r\n");
    const internal::LineIndex lines(text);
    PERFGATE_ASSIGN_OR_RETURN(BenchTest t, reader.Read(doc, "", lines.Locate(path, first), true, &report->diagnostics));
    report->tests.push_back(std::move(t));
    return Status();
  }
  return reader.Bad("toks.bad_json", "",
                    "expected llama-bench output (a JSON array of tests, or JSONL) or {\"tests\": [...]}, not a " +
                        std::string(doc.type_name()));
}

// True when the line holding `at` is a JSON object on its own.
bool LineIsObject(const std::string& text, size_t at, const std::string& path) {
  if (at == std::string::npos || text[at] != '{') return false;
  const size_t end = text.find('\n', at);
  auto j = internal::ParseJsonDocument(std::string_view(text).substr(at, end == std::string::npos ? end : end - at),
                                       path, kCodes);
  return j.ok() && j->is_object();
}

// JSONL, not a pretty-printed document with an error further on (whose own error is
// the one to give): the first line that opens a JSON value is an object on its own,
// whatever lines that open none (stderr's) come before it.
bool IsJsonLines(const std::string& text, const std::string& path) {
  for (size_t start = 0; start < text.size();) {
    const size_t first = text.find_first_not_of(" \t\r\n", start);
    if (first == std::string::npos) return false;
    if (OpensJsonValue(text[first])) return LineIsObject(text, first, path);
    const size_t end = text.find('\n', first);
    if (end == std::string::npos) return false;
    start = end + 1;
  }
  return false;
}

// Adds `tests`, one per test id, model and run.
Status AddTests(std::vector<BenchTest> tests, BenchReport* report) {
  SeenTests seen;
  for (BenchTest& t : tests) PERFGATE_RETURN_IF_ERROR(AddTest(std::move(t), report, &seen));
  return Status();
}

// llama-bench's CSV, SQL or database rows: each a test object of its JSON schema, read
// as JSON's are, located at its line.
Status ReadRows(const StatusOr<std::vector<rows::Row>>& parsed, const std::string& path, BenchReport* report) {
  if (!parsed.ok()) return parsed.status();
  std::vector<BenchTest> tests;
  for (const rows::Row& row : *parsed) {
    const TestReader reader(path, "", row.line);
    PERFGATE_ASSIGN_OR_RETURN(BenchTest t, reader.Read(row.test, "", {path, row.line, 1}, true, &report->diagnostics));
    tests.push_back(std::move(t));
  }
  return AddTests(std::move(tests), report);
}

// The formats of llama-bench that are neither JSON nor JSONL, as a text's first lines
// show them.
enum class TextFormat { kNone, kCsv, kSql, kMarkdown };

TextFormat TextFormatOf(const std::string& text) {
  if (rows::HasBenchCsvHeader(text)) return TextFormat::kCsv;
  if (rows::HasBenchSqlInsert(text)) return TextFormat::kSql;
  return markdown::HasBenchTable(text) ? TextFormat::kMarkdown : TextFormat::kNone;
}

// llama-bench's CSV, SQL or Markdown (its default output).
Status ReadTextFormat(TextFormat format, const std::string& text, const std::string& path, BenchReport* report) {
  PERFGATE_RETURN_IF_ERROR(RequireUtf8(text, path));
  switch (format) {
    case TextFormat::kCsv:
      report->format = "csv";
      return ReadRows(rows::ReadBenchCsv(text, path), path, report);
    case TextFormat::kSql:
      report->format = "sql";
      return ReadRows(rows::ReadBenchSql(text, path), path, report);
    default:
      report->format = "markdown";
      PERFGATE_ASSIGN_OR_RETURN(std::vector<BenchTest> tests,
                                markdown::ReadBenchMarkdown(text, path, &report->diagnostics));
      return AddTests(std::move(tests), report);
  }
}

// A text that is no JSON and holds no llama-bench table: most often a run that failed
// before printing one, whose last line says why.
Status NoTable(const std::string& text, const std::string& path) {
  const size_t end = text.find_last_not_of(" \t\r\n");
  const size_t start = text.rfind('\n', end);
  const std::string last = text.substr(start == std::string::npos ? 0 : start + 1,
                                       end - (start == std::string::npos ? 0 : start + 1) + 1);
  const int lines = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n')) + 1;
  return Status::Error("toks.no_table",
                       "no llama-bench table (a head with test and t/s), JSON or JSONL in its " + std::to_string(lines) +
                           " lines: a run that failed before printing its table? Its last line: '" +
                           last.substr(0, 200) + "'",
                       {path, lines, 1});
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Matches(const BenchTest& t, const RunFilter& f) {
  const std::string commit = t.Field("build_commit");
  const bool commit_matches = !commit.empty() && commit.rfind(f.build, 0) == 0;  // a prefix of it
  if (!f.build.empty() && !commit_matches && t.Field("build_number") != f.build) return false;
  if (!f.backend.empty() && Lower(t.Backends()) != Lower(f.backend)) return false;
  return f.gpu.empty() || t.Field("gpu_info").find(f.gpu) != std::string::npos;
}

// Keeps the runs `f` selects; then each test of a model must be one run's.
Status SelectRuns(BenchReport* report, const RunFilter& f) {
  const auto chosen = [&f](const BenchTest& t) { return Matches(t, f); };
  if (!f.empty() && std::none_of(report->tests.begin(), report->tests.end(), chosen)) {
    return Status::Error("toks.no_run",
                         FormatPath(report->path) + " holds no run of the selection (build '" + f.build +
                             "', backend '" + f.backend + "', GPU '" + f.gpu + "'); it holds " +
                             DescribeRuns(*report),
                         {}, ErrorKind::kUsage);
  }
  if (!f.empty()) {
    report->tests.erase(std::remove_if(report->tests.begin(), report->tests.end(), std::not_fn(chosen)),
                        report->tests.end());
  }
  std::map<std::pair<std::string, std::string>, const BenchTest*> seen;
  for (const BenchTest& t : report->tests) {
    if (seen.emplace(std::make_pair(t.model, t.id), &t).second) continue;
    return Status::Error("toks.several_runs",
                         "test " + t.id + (t.model.empty() ? "" : " of model '" + t.model + "'") +
                             " is in several runs of the file (" + DescribeRuns(*report) +
                             "): choose one with --build, --backend or --gpu",
                         t.location);
  }
  return Status();
}

// A report read: its unknown fields counted, its runs chosen, and at least one test.
StatusOr<BenchReport> Finish(BenchReport report, const RunFilter& runs) {
  report.unknown_fields = static_cast<int>(report.diagnostics.Count("toks.unknown_field"));
  if (!report.tests.empty()) PERFGATE_RETURN_IF_ERROR(SelectRuns(&report, runs));
  if (report.tests.empty()) {
    return Status::Error("toks.no_tests", "the report holds no test (" + report.format + ")", {report.path, 1, 1});
  }
  return report;
}

}  // namespace

std::string DescribeRuns(const BenchReport& report) {
  std::vector<std::string> builds, backends, gpus;
  const auto add = [](std::vector<std::string>& list, const std::string& v) {
    if (!v.empty() && std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  for (const BenchTest& t : report.tests) {
    const std::string number = t.Field("build_number");
    add(builds, t.Field("build_commit") + (number.empty() ? "" : " (" + number + ")"));
    add(backends, t.Backends());
    add(gpus, t.Field("gpu_info"));
  }
  std::string out;
  for (const auto& [word, list] : {std::make_pair("builds ", &builds), std::make_pair("backends ", &backends),
                                   std::make_pair("GPUs ", &gpus)}) {
    if (!list->empty()) out += (out.empty() ? "" : "; ") + std::string(word) + ListNames(*list, "");
  }
  return out.empty() ? "runs that name no build, backend or GPU" : out;
}

std::string BenchTest::Field(const std::string& name) const {
  const auto it = fields.find(name);
  if (it == fields.end()) return "";
  const std::string& v = it->second;
  return v.size() >= 2 && v.front() == '"' ? nlohmann::json::parse(v).get<std::string>() : v;
}

double BenchTest::MedianTs() const { return samples_ts.empty() ? avg_ts : stats::Median(samples_ts); }

std::string BenchTest::Backends() const {
  if (fields.count("backends") != 0) return Field("backends");
  std::vector<std::string> on;
  for (std::string_view flag : kBackendFlags) {
    auto it = fields.find(std::string(flag));
    if (it != fields.end() && it->second == "true") on.emplace_back(flag);
  }
  return ListNames(on, "");
}

std::string TestId(int64_t n_prompt, int64_t n_gen, int64_t n_depth) {
  std::string id;
  if (n_prompt > 0 && n_gen == 0) {
    id = "pp" + std::to_string(n_prompt);
  } else if (n_gen > 0 && n_prompt == 0) {
    id = "tg" + std::to_string(n_gen);
  } else {
    id = "pp" + std::to_string(n_prompt) + "+tg" + std::to_string(n_gen);
  }
  if (n_depth > 0) id += " @ d" + std::to_string(n_depth);
  return id;
}

std::vector<std::string> BenchReport::TestIds() const {
  std::vector<std::string> ids;
  std::set<std::string_view> seen;
  for (const BenchTest& t : tests) {
    if (seen.insert(t.id).second) ids.push_back(t.id);
  }
  return ids;
}

StatusOr<const BenchTest*> BenchReport::Find(const std::string& name) const {
  // Spelled as llama-bench spells it: "tg128@d512" and 2023's "tg 128" are tg128 @ d512
  // and tg128.
  const std::optional<markdown::TestShape> shape = markdown::ParseTestName(name);
  const std::string id = shape ? TestId(shape->n_prompt, shape->n_gen, shape->n_depth) : name;
  const BenchTest* found = nullptr;
  std::vector<std::string> models;
  for (const BenchTest& t : tests) {
    if (t.id != id) continue;
    if (found == nullptr) found = &t;
    models.push_back("'" + t.model + "'");
  }
  if (found == nullptr) {
    return Status::Error("toks.unknown_test",
                         FormatPath(path) + " has no test '" + name + "' (its tests: " + ListNames(TestIds()) + ")", {},
                         ErrorKind::kUsage);
  }
  if (models.size() > 1) {
    return Status::Error("toks.ambiguous_test",
                         FormatPath(path) + " has test " + id + " for " + std::to_string(models.size()) +
                             " models (" + ListNames(models) + "): give one report per model",
                         found->location);
  }
  return found;
}

StatusOr<BenchReport> ParseBenchReport(const std::string& text, const std::string& path, const RunFilter& runs) {
  BenchReport report;
  report.path = path;
  auto doc = internal::ParseJsonDocument(text, path, kCodes);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (doc.ok()) {
    PERFGATE_RETURN_IF_ERROR(ReadDocument(*doc, text, path, &report));
  } else if (IsJsonLines(text, path)) {
    PERFGATE_RETURN_IF_ERROR(ReadLines(text, path, &report));  // several objects: JSONL
  } else if (const TextFormat format = TextFormatOf(text); format != TextFormat::kNone) {
    PERFGATE_RETURN_IF_ERROR(ReadTextFormat(format, text, path, &report));
  } else if (first != std::string::npos && text[first] != '[' && text[first] != '{') {
    return NoTable(text, path);
  } else {
    return doc.status();
  }
  return Finish(std::move(report), runs);
}

StatusOr<BenchReport> ReadBenchReport(const std::string& path, const RunFilter& runs) {
  if (internal::HasSqliteMagic(path)) {  // the database compare-llama-bench.py reads
    BenchReport report;
    report.path = path;
    report.format = "sqlite";
    PERFGATE_RETURN_IF_ERROR(ReadRows(rows::ReadBenchDatabase(path), path, &report));
    return Finish(std::move(report), runs);
  }
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseBenchReport(*text, path, runs);
}

}  // namespace perfgate::toks
