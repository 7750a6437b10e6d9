#include "new_suite_render.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include "perfgate/core/names.h"
#include "perfgate/core/version.h"
#include "perfgate/gates/judge.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/sources/source.h"
#include "perfgate/stats/summary.h"

namespace perfgate::cli::scaffold {
namespace {

namespace fs = std::filesystem;
using attribution::AttributionOptions;
using attribution::DecodeWindow;
using attribution::EngineSummary;

Status BadName(const std::string& name, const std::string& why) {
  return Status::Error("scaffold.bad_name",
                       "suite name '" + FormatMessage(name) + "' " + why +
                           ": a suite name is a C++ and CMake identifier (a letter, then letters, digits and '_'), "
                           "e.g. my_decode",
                       {}, ErrorKind::kUsage);
}

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

const std::set<std::string>& CppKeywords() {
  static const std::set<std::string> kWords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  return kWords;
}

// Macros a suite's source sees (the C and POSIX headers GoogleTest includes, compilers'
// predefined ones, GoogleTest's and perfgate's): a fixture class of such a name is
// rewritten by the preprocessor, and the suite does not compile.
bool IsKnownMacro(const std::string& name) {
  static const std::set<std::string> kMacros = {
      "NULL", "EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "TMP_MAX", "SEEK_SET", "SEEK_CUR", "SEEK_END",
      "EXIT_SUCCESS", "EXIT_FAILURE", "RAND_MAX", "MB_CUR_MAX", "MB_LEN_MAX", "CHAR_BIT", "CHAR_MIN", "CHAR_MAX",
      "INT_MIN", "INT_MAX", "UINT_MAX", "LONG_MIN", "LONG_MAX", "LLONG_MIN", "LLONG_MAX", "SIZE_MAX", "PATH_MAX",
      "CLOCKS_PER_SEC", "TIME_UTC", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "EDOM", "ERANGE",
      "EILSEQ", "SIGABRT", "SIGFPE", "SIGILL", "SIGINT", "SIGSEGV", "SIGTERM", "SIG_DFL", "SIG_ERR", "SIG_IGN",
      "FLT_MAX", "FLT_MIN", "DBL_MAX", "DBL_MIN", "FLT_EPSILON", "DBL_EPSILON", "WEOF", "WCHAR_MAX", "WCHAR_MIN",
      "M_PI", "M_E", "TRUE", "FALSE", "PI", "BIG_ENDIAN", "LITTLE_ENDIAN", "BYTE_ORDER", "MAX", "MIN",
      "Success", "None", "Bool", "Status", "Always", "Above", "Below", "Complex", "Linux", "Unix",  // X11, glibc
      "TEST", "TEST_F", "TEST_P", "FAIL", "SUCCEED", "ADD_FAILURE", "FRIEND_TEST", "SCOPED_TRACE"};
  static const char* const kPrefixes[] = {"GTEST_", "EXPECT_", "ASSERT_", "PERFGATE_", "__"};
  if (kMacros.count(name) > 0) return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](const char* p) { return name.rfind(p, 0) == 0; });
}

// Target names CMake or its generators keep for themselves (case-insensitively, as
// Visual Studio and Xcode compare them).
bool IsCMakeReserved(const std::string& name) {
  static const std::set<std::string> kReserved = {
      "all", "clean", "help", "install", "install_strip", "install_local", "list_install_components", "test",
      "package", "package_source", "edit_cache", "rebuild_cache", "all_build", "zero_check", "run_tests",
      "experimental", "nightly", "continuous"};
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kReserved.count(lower) > 0 || lower.rfind("nightly", 0) == 0 || lower.rfind("experimental", 0) == 0 ||
         lower.rfind("continuous", 0) == 0;
}

// Short figures for comments: 6 significant digits.
std::string Short(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string Signed(double v) { return (v > 0 ? "+" : "") + Short(v); }

// "+ 0.5 (exact tolerance)", "+ max(5 % of 9752.06, 20)": the margin a budget got.
// `of` names the figure the relative part is taken of ("9752.06", "hf2q's 17.5144").
std::string DescribeMargin(const golden::FieldPolicy& p, const std::string& of) {
  if (p.kind == gates::Kind::kExact) return "+ " + Short(p.abs) + " (exact tolerance)";
  return "+ max(" + Short(p.rel * 100) + " % of " + of + ", " + Short(p.abs) + ")";
}

// The unit every trial of the engine was counted in (Metal's when unknown).
sources::Unit UnitOf(const EngineSummary& e) {
  const sources::TraceSource* source = sources::SourceOf(e);
  return source != nullptr ? source->descriptor.unit : sources::Unit::kSubmission;
}

std::string EngineRef(const std::string& name) { return "engine(" + CppString(name) + ")"; }

Budget Line(const std::string& statement, const std::string& comment) { return Budget{comment, statement}; }

// Text for a `//` comment of the source: control bytes (a line break would end the
// comment and start a statement) as C escapes, and no trailing backslash (which would
// splice the next line into the comment).
std::string CommentText(const std::string& text) {
  std::string out = FormatMessage(text);
  if (!out.empty() && out.back() == '\\') out += '.';
  return out;
}

// A figure's budget, with the catalogue's policy of `policy_path` (usually the figure's
// own). A figure the engine lacks gets a comment that says so, not a silent gap.
Budget MetricBudget(const EngineSummary& e, const std::string& path, const std::string& policy_path,
                    const std::string& what) {
  auto m = metrics::FindMetric(e, path);
  auto p = metrics::FindMetric(e, policy_path);
  if (!m.ok() || !p.ok() || !std::isfinite(m->value.median)) {
    const std::string why = !m.ok()   ? m.status().message()
                            : !p.ok() ? p.status().message()
                                      : "its median is not finite";
    return Budget{e.name + ": no budget on " + what + ": " + why, ""};
  }
  const double measured = m->value.median;
  const std::string limit = RoundedUp(measured + gates::ToleranceOf(p->policy, measured));
  const std::string comment =
      e.name + ": measured " + Short(measured) + " " + what + "; " + DescribeMargin(p->policy, Short(measured));
  if (path == "submissions_per_token") {
    return Line("PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(" + EngineRef(e.name) + ", " + limit + ");", comment);
  }
  if (path == "extras/launches_per_token") {
    return Line("PERFGATE_EXPECT_LAUNCHES_PER_TOKEN_AT_MOST(" + EngineRef(e.name) + ", " + limit + ");", comment);
  }
  return Line("PERFGATE_EXPECT_METRIC_AT_MOST(" + EngineRef(e.name) + ", " + CppString(path) + ", " + limit + ");",
              comment);
}

// The budgets of one engine's own figures, in its source's words.
void EngineBudgets(const EngineSummary& e, std::vector<Budget>* out) {
  if (UnitOf(e) == sources::Unit::kKernel) {
    // The catalogue files kernels per token under submissions_per_token (a count); the
    // source's own figure of the same number reads as what it is.
    out->push_back(MetricBudget(e, "extras/kernels_per_token", "submissions_per_token", "kernels/token"));
    out->push_back(MetricBudget(e, "extras/launches_per_token", "extras/launches_per_token", "host launches/token"));
  } else {
    out->push_back(MetricBudget(e, "submissions_per_token", "submissions_per_token", "submissions/token"));
  }
  out->push_back(MetricBudget(e, "gpu_us_per_token", "gpu_us_per_token", "GPU µs/token"));
}

// The budgets of an engine against the baseline: total GPU time ratio, and per
// duration bucket the µs/token it may take beyond the baseline's.
void ComparisonBudgets(const EngineSummary& e, const EngineSummary& b, std::vector<Budget>* out) {
  const std::string pair = EngineRef(e.name) + ", " + EngineRef(b.name);
  auto total = metrics::FindMetric(e, "gpu_us_per_token");
  const double base_total = b.gpu_us_per_token.median;
  if (!total.ok() || base_total <= 0) {
    out->push_back(Budget{e.name + "/" + b.name + " GPU time: no budget, " + b.name + " has no GPU time", ""});
  } else {
    const double ratio = e.gpu_us_per_token.median / base_total;
    const double rel = total->policy.kind == gates::Kind::kExact ? 0 : total->policy.rel;
    out->push_back(Line("PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(" + pair + ", " + RoundedUp(ratio * (1 + rel)) + ");",
                        e.name + "/" + b.name + " GPU time: measured " + Short(ratio) + "; + " +
                            Short(rel * 100) + " % of it"));
  }
  for (const auto& entry : e.buckets) {
    const std::string& bucket = entry.first;  // a plain name: C++17 lambdas cannot capture bindings
    auto metric = metrics::FindMetric(e, "buckets/" + bucket + "/us_per_token");
    auto base = std::find_if(b.buckets.begin(), b.buckets.end(), [&](const auto& p) { return p.first == bucket; });
    if (!metric.ok() || base == b.buckets.end()) {
      out->push_back(Budget{e.name + " - " + b.name + " in " + bucket + ": no budget, not a bucket of both", ""});
      continue;
    }
    // The Δ the bucket delta assertion will judge (stats::CompareTrials).
    const stats::Delta compared =
        stats::CompareTrials(base->second.us_per_token.per_trial, entry.second.us_per_token.per_trial);
    const double mine = compared.after, delta = compared.delta;
    const double allowance = delta + gates::ToleranceOf(metric->policy, mine);
    out->push_back(Line("PERFGATE_EXPECT_BUCKET_DELTA_AT_MOST_US(" + pair + ", " + CppString(bucket) + ", " +
                            RoundedUp(allowance) + ");",
                        e.name + " - " + b.name + " in " + bucket + ": measured " + Signed(delta) +
                            " µs/token; " + DescribeMargin(metric->policy, e.name + "'s " + Short(mine))));
  }
}

bool SameKernelFamilies(const attribution::KernelFamilyTable& a, const attribution::KernelFamilyTable& b) {
  if (a.strip_prefix != b.strip_prefix || a.rules.size() != b.rules.size()) return false;
  for (size_t i = 0; i < a.rules.size(); ++i) {
    if (a.rules[i].prefix != b.rules[i].prefix || a.rules[i].family != b.rules[i].family) return false;
  }
  return true;
}

bool SameBuckets(const std::vector<attribution::Bucket>& a, const std::vector<attribution::Bucket>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].lo_ns != b[i].lo_ns || a[i].hi_ns != b[i].hi_ns || a[i].hint != b[i].hint) {
      return false;
    }
  }
  return true;
}

// An exact label as a string literal (as before), else LabelMatch::Prefix/Regex(...).
std::string LabelSource(const attribution::LabelMatch& l) {
  using Kind = attribution::LabelMatch::Kind;
  if (l.kind == Kind::kExact) return CppString(l.text);
  return std::string("perfgate::attribution::LabelMatch::") + (l.kind == Kind::kPrefix ? "Prefix(" : "Regex(") +
         CppString(l.text) + ")";
}

std::string WindowSource(const DecodeWindow& w) {
  switch (w.mode) {
    case DecodeWindow::Mode::kLabel:
      return "DecodeWindow::Label(" + LabelSource(w.label) + ")";
    case DecodeWindow::Mode::kSkipSubmissions:
      return "DecodeWindow::SkipSubmissions(" + std::to_string(w.skip) + ")";
    case DecodeWindow::Mode::kTimeRange:
      return "DecodeWindow::TimeRange(" + std::to_string(w.start_ns) + ", " + std::to_string(w.end_ns) + ")";
    case DecodeWindow::Mode::kWholeTrace:
      break;
  }
  return "";
}

// The statements that set one engine's options away from the defaults.
std::string EngineOptionsSource(const AttributionOptions& o, bool custom_families) {
  const AttributionOptions d;
  std::string s;
  if (!o.process_prefix.empty()) s += "      e.options.process_prefix = " + CppString(o.process_prefix) + ";\n";
  if (o.process_id) s += "      e.options.process_id = " + std::to_string(*o.process_id) + ";\n";
  if (o.all_processes) s += "      e.options.all_processes = true;\n";
  if (o.device) s += "      e.options.device = " + std::to_string(*o.device) + ";\n";
  if (o.lenient) s += "      e.options.lenient = true;\n";
  if (const std::string w = WindowSource(o.window); !w.empty()) s += "      e.options.window = " + w + ";\n";
  if (o.tokens) s += "      e.options.tokens = " + std::to_string(*o.tokens) + ";\n";
  if (!o.token_label.empty()) s += "      e.options.token_label = " + LabelSource(o.token_label) + ";\n";
  if (o.run != d.run) s += "      e.options.run = " + std::to_string(o.run) + ";\n";
  if (custom_families) s += "      e.options.kernel_families = KernelFamilies();\n";
  return s;
}

std::string KernelFamiliesSource(const attribution::KernelFamilyTable& t) {
  std::string s =
      "// The kernel-family rules the suite was written with (--kernel-families).\n"
      "perfgate::attribution::KernelFamilyTable KernelFamilies() {\n"
      "  perfgate::attribution::KernelFamilyTable t;\n"
      "  t.strip_prefix = " + CppString(t.strip_prefix) + ";\n"
      "  t.rules = {\n";
  for (const auto& r : t.rules) s += "      {" + CppString(r.prefix) + ", " + CppString(r.family) + "},\n";
  return s + "  };\n  return t;\n}\n\n";
}

std::string BucketsSource(const std::vector<attribution::Bucket>& buckets) {
  std::string s = "    c.buckets = {\n";
  for (const auto& b : buckets) {
    const std::string hi =
        b.hi_ns == attribution::Bucket::kOpenEnd ? "perfgate::attribution::Bucket::kOpenEnd" : std::to_string(b.hi_ns);
    s += "        {" + CppString(b.name) + ", " + std::to_string(b.lo_ns) + ", " + hi + ", " + CppString(b.hint) +
         "},\n";
  }
  return s + "    };\n";
}

std::string ConfigSource(const suite::SuiteConfig& config, bool custom_families) {
  std::string s =
      "  perfgate::testing::SuiteConfig Config() const override {\n"
      "    perfgate::testing::SuiteConfig c;\n"
      "    c.suite = PERFGATE_SUITE_NAME;\n"
      "    c.recordings_dir = PERFGATE_RECORDINGS_DIR;  // PERFGATE_RECORDINGS=<dir> replaces it\n"
      "    c.golden_dir = PERFGATE_GOLDEN_DIR;\n";
  if (!SameBuckets(config.buckets, attribution::DefaultBuckets())) s += BucketsSource(config.buckets);
  if (config.min_trials != suite::SuiteConfig().min_trials) {
    s += "    c.min_trials = " + std::to_string(config.min_trials) + ";\n";
  }
  for (const suite::EngineSpec& e : config.engines) {
    s += "    {\n      perfgate::testing::EngineSpec e;  // recordings: <recordings>/" + e.name + "/trial-*\n";
    s += "      e.name = " + CppString(e.name) + ";\n";
    s += EngineOptionsSource(e.options, custom_families);
    s += "      c.engines.push_back(e);\n    }\n";
  }
  if (!config.baseline.empty()) s += "    c.baseline = " + CppString(config.baseline) + ";\n";
  return s + "    return c;\n  }\n";
}

// The source's words for the header comment: "Metal System Trace", "submissions".
std::string SourceTitle(const suite::SuiteData& data) {
  for (const auto& [_, e] : data.engines) {
    if (e.trials.empty()) continue;
    auto source = sources::FindSource(e.trials.front().source);
    if (source.ok()) return std::string((*source)->descriptor.title);
  }
  return "recordings";
}

}  // namespace

Status CheckSuiteName(const std::string& name) {
  if (name.empty()) return BadName(name, "is empty");
  if (!IsAscii(name) || !std::all_of(name.begin(), name.end(), IsIdentifierChar)) {
    return BadName(name, "holds a character other than a letter, a digit or '_'");
  }
  if (!std::isalpha(static_cast<unsigned char>(name[0]))) return BadName(name, "does not start with a letter");
  if (name.find("__") != std::string::npos) return BadName(name, "holds \"__\", which C++ reserves");
  if (CppKeywords().count(name)) return BadName(name, "is a C++ keyword");
  if (IsKnownMacro(FixtureClassName(name))) {
    return BadName(name, "makes the test fixture '" + FixtureClassName(name) +
                             "', a macro of the C library, the compiler or GoogleTest");
  }
  if (IsCMakeReserved(name)) return BadName(name, "is a target name CMake reserves");
  if (name.rfind("perfgate", 0) == 0) return BadName(name, "starts with 'perfgate', which perfgate's own targets use");
  return Status();
}

Status CheckEngineName(const std::string& name) {
  const bool chars_ok = !name.empty() && IsAscii(name) && std::all_of(name.begin(), name.end(), [](char c) {
    return IsIdentifierChar(c) || c == '.' || c == '-';
  });
  if (chars_ok && name[0] != '.' && name[0] != '-') return Status();
  return Status::Error("scaffold.bad_engine_name",
                       "engine name '" + FormatMessage(name) +
                           "': an engine is named after its recording directory, and its golden file after it: "
                           "letters, digits, '.', '_' and '-', not starting with '.' or '-'",
                       {}, ErrorKind::kUsage);
}

std::string FixtureClassName(const std::string& suite) {
  std::string out;
  bool upper = true;
  for (char c : suite) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out.empty() ? "Suite" : out;
}

std::string CppString(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);  // octal: a hex escape would eat following hex digits
      out += buf;
    } else {
      out += ch;  // UTF-8 passes through
    }
  }
  return out + "\"";
}

std::string RoundedUp(double value) {
  if (value == 0 || !std::isfinite(value)) return Short(value);
  const double step = std::pow(10.0, std::floor(std::log10(std::fabs(value))) - 5);
  double candidate = std::ceil(value / step) * step;
  for (int i = 0; i < 4; ++i) {
    const std::string text = Short(candidate);
    if (std::strtod(text.c_str(), nullptr) >= value) return text;
    candidate += step;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);  // exact, should rounding ever fall short
  return buf;
}

std::vector<std::pair<std::string, std::string>> GoldenFiles(const suite::SuiteConfig& config) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const suite::EngineSpec& e : config.engines) {
    out.emplace_back(e.name, std::string(kGoldenTest) + (out.empty() ? "" : "." + e.name) + ".json");
  }
  return out;
}

std::vector<Budget> Budgets(const suite::SuiteConfig& config, const suite::SuiteData& data) {
  std::vector<Budget> out;
  for (const suite::EngineSpec& e : config.engines) {
    auto it = data.engines.find(e.name);
    if (it != data.engines.end()) EngineBudgets(it->second, &out);
  }
  auto base = data.engines.find(config.baseline);
  if (base == data.engines.end()) return out;
  for (const suite::EngineSpec& e : config.engines) {
    auto it = data.engines.find(e.name);
    if (e.name != config.baseline && it != data.engines.end()) ComparisonBudgets(it->second, base->second, &out);
  }
  return out;
}

std::string RenderSource(const suite::SuiteConfig& config, const suite::SuiteData& data,
                         const std::string& provenance) {
  const std::string fixture = FixtureClassName(config.suite);
  const AttributionOptions defaults;
  const bool custom_families =
      !config.engines.empty() && !SameKernelFamilies(config.engines.front().options.kernel_families,
                                                     defaults.kernel_families);
  std::vector<std::string> engines;
  for (const auto& e : config.engines) engines.push_back(e.name);
  std::vector<std::string> compared;
  for (const std::string& e : engines) {
    if (e != config.baseline) compared.push_back(e);
  }
  std::string s = "// Perf suite " + config.suite + ": " + CommentText(ListNames(compared)) + " against the baseline " +
                  CommentText(config.baseline) + ", written by\n"
                  "// `perfgate new-suite` from the recordings " + CommentText(provenance) + ":\n"
                  "// " + SourceTitle(data) + ".\n"
                  "//\n"
                  "// The budgets were measured on those recordings with the suite's own loading, each\n"
                  "// given its metric's default margin (perfgate/metrics/catalogue.h): a count its exact\n"
                  "// tolerance, a time its relative tolerance with its floor. Tighten them to the limits\n"
                  "// you mean to hold. The golden test checks every figure; accept new figures with\n"
                  "// PERFGATE_UPDATE_GOLDEN=all ctest --test-dir <build dir> --no-tests=error -R '" + fixture + "." +
                  kGoldenTest + "'.\n"
                  "#include <perfgate/gtest.h>\n\n"
                  "namespace {\n\n"
                  "using perfgate::attribution::DecodeWindow;\n\n";
  if (custom_families) s += KernelFamiliesSource(config.engines.front().options.kernel_families);
  s += "class " + fixture + " : public perfgate::testing::PerfSuiteFixture {\n";
  s += ConfigSource(config, custom_families) + "};\n\n";
  s += "TEST_F(" + fixture + ", " + kBudgetsTest + ") {\n";
  for (const Budget& b : Budgets(config, data)) {
    s += "  // " + CommentText(b.comment) + "\n";
    if (!b.statement.empty()) s += "  " + b.statement + "\n";
  }
  s += "}\n\n";
  s += "TEST_F(" + fixture + ", " + kGoldenTest + ") {\n";
  for (const auto& [engine, file] : GoldenFiles(config)) {
    s += "  PERFGATE_EXPECT_MATCHES_GOLDEN(" + CppString(engine) + ");  // " + CommentText(file) + "\n";
  }
  return s + "}\n\n}  // namespace\n";
}

StatusOr<std::string> CMakePathFrom(const std::string& suite_dir, const std::string& target) {
  for (char c : target) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == ';' || c == '"' || c == '\\' || c == '$' || u < 0x20 || u == 0x7f) {
      return Status::Error("scaffold.bad_path",
                           "this path holds ';', '\"', '\\', '$' or a control character, which the suite's "
                           "CMakeLists.txt and compile definitions cannot carry: move or link it elsewhere",
                           {target}, ErrorKind::kUsage);
    }
  }
  const fs::path from(suite_dir), to(target);
  auto a = from.begin(), b = to.begin();
  int common = 0;
  for (; a != from.end() && b != to.end() && *a == *b; ++a, ++b) ++common;
  if (common <= 1) return to.generic_string();  // only the root in common: absolute
  const std::string rel = to.lexically_relative(from).generic_string();
  return std::string("${CMAKE_CURRENT_SOURCE_DIR}") + (rel == "." ? "" : "/" + rel);
}

// The package series a written suite asks for: this perfgate's major.minor. Before 1.0 a
// minor release may remove names, so the suite asks for the series it was written for.
static std::string PackageSeries() {
  const std::string version(Version());
  return version.substr(0, version.rfind('.'));
}

std::string RenderCMakeLists(const std::string& name, const std::string& recordings_ref,
                             const std::string& golden_ref) {
  return "# Perf suite " + name +
         ", written by `perfgate new-suite`. It is a project of its own against an\n"
         "# installed perfgate (cmake -S <this directory> -B <build> -DCMAKE_PREFIX_PATH=<prefix>),\n"
         "# or a subdirectory of a project that has perfgate already (add_subdirectory).\n"
         "cmake_minimum_required(VERSION 3.25)\n"
         "if(CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)\n"
         "  project(" + name + " LANGUAGES CXX)\n"
         "  enable_testing()\n"
         "endif()\n"
         "if(NOT COMMAND perfgate_add_perf_suite)\n"
         "  find_package(PerfGate " + PackageSeries() + " CONFIG REQUIRED COMPONENTS gtest)\n"
         "endif()\n\n"
         "perfgate_add_perf_suite(" + name + "\n"
         "  SOURCES " + name + "_perf.cc\n"
         "  RECORDINGS \"" + recordings_ref + "\"\n"
         "  GOLDEN_DIR \"" + golden_ref + "\"\n"
         "  TIMEOUT 300\n"
         "  RESOURCE_LOCK gpu)\n";
}

std::pair<std::string, std::string> BuildAndRunCommands(const std::string& suite_dir, const std::string& build_dir,
                                                        const std::string& prefix) {
  const std::string build = ShellQuote(build_dir);
  std::string configure = "cmake -S " + ShellQuote(suite_dir) + " -B " + build;
  if (!prefix.empty()) configure += " -DCMAKE_PREFIX_PATH=" + ShellQuote(prefix);
  return {configure + " && cmake --build " + build,
          "ctest --test-dir " + build + " -L perf --no-tests=error --output-on-failure"};
}

}  // namespace perfgate::cli::scaffold
