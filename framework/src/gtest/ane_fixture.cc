#include "perfgate/gtest/ane_fixture.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "perfgate/core/environment.h"
#include "perfgate/gtest/perfgate_gtest.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string Fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void Record(const std::string& key, const std::string& value) {
  if (::testing::UnitTest::GetInstance()->current_test_info() == nullptr) return;
  ::testing::Test::RecordProperty(key, value);
}

void RecordResult(const ane::NotchResult& r) {
  Record("ane_class", ane::ToString(r.classification.notch_class));
  Record("ane_ratio", Fixed(r.ratio_on_over_off));
  Record("ane_borderline", r.classification.borderline ? "true" : "false");
  Record("ane_chip", r.chip.guessed_chip);
  Record("ane_on_us", Fixed(r.on().median_eval_us));
  Record("ane_off_us", Fixed(r.off().median_eval_us));
  Record("ane_source", r.source_path);
  Record("ane_timing_path", r.timing_path);
}

// Results per program: replays by path, native records by name.
struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const ane::NotchResult>> results;
  std::map<std::string, Status> record_failures;
};
Cache& TheCache() {
  static Cache* cache = new Cache;
  return *cache;
}

int ClassRank(ane::NotchClass c) { return static_cast<int>(c); }

// GTEST_SKIP() returns from the function it is used in, so it lives in a void helper.
void Skip(const std::string& reason) { GTEST_SKIP() << reason; }

}  // namespace

// ---------------------------------------------------------------------------------

std::string NotchTable(const ane::NotchResult& r, const std::string& metric, const std::string& expected,
                       const std::string& actual) {
  const std::string borderline =
      r.classification.borderline ? "yes: " + r.classification.borderline_edge : std::string("no");
  const std::string chip = r.chip.guessed_chip + (r.chip.hw_model.empty() ? "" : " (" + r.chip.hw_model + ")") +
                           ", " + std::to_string(r.cores) + " cores" +
                           (r.chip.ane_subtype.empty() ? "" : ", " + r.chip.ane_subtype);
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"metric", metric},   {"expected", expected}, {"actual", actual},        {"ratio", Fixed(r.ratio_on_over_off)},
      {"borderline", borderline}, {"chip", chip},  {"source", r.source_path},
  };
  std::ostringstream out;
  for (const auto& [k, v] : rows) out << "  " << std::left << std::setw(11) << k << "| " << v << "\n";
  const auto& on = r.on();
  const auto& off = r.off();
  out << "  on  Cin " << on.dense.cin << " x Cout " << on.dense.cout << " (" << Fixed(on.dense.mib_per_core)
      << " MiB/core): median " << Fixed(on.median_eval_us) << " us, " << Fixed(on.gbps_weight_payload) << " GB/s, n "
      << on.eval_us_samples.size() << "\n";
  out << "  off Cin " << off.dense.cin << " x Cout " << off.dense.cout << " (" << Fixed(off.dense.mib_per_core)
      << " MiB/core): median " << Fixed(off.median_eval_us) << " us, " << Fixed(off.gbps_weight_payload)
      << " GB/s, n " << off.eval_us_samples.size() << "\n";
  if (r.overhead) {
    out << "  dispatch overhead " << Fixed(r.overhead->median_us) << " us; corrected ratio "
        << (r.overhead->corrected_ratio ? Fixed(*r.overhead->corrected_ratio) : "n/a (" + r.overhead->note + ")")
        << "\n";
  }
  out << "  timing path: " << r.timing_path << "\n";
  out << "  thresholds: m3_class >= " << Fixed(r.thresholds.m3_class_ratio) << ", milder >= "
      << Fixed(r.thresholds.milder_ratio) << ", host_dominated on-notch >= " << Fixed(r.thresholds.host_dominated_us)
      << " us, borderline margin " << Fixed(r.thresholds.borderline_margin) << "\n";
  if (!r.source_note.empty()) out << "  note: " << r.source_note << "\n";
  return out.str();
}

::testing::AssertionResult NotchClassIs(const ane::NotchResult& r, const std::string& expected) {
  RecordResult(r);
  auto want = ane::ParseNotchClass(expected);
  if (!want.ok()) return ::testing::AssertionFailure() << want.status().ToString();
  const ane::NotchClass got = r.classification.notch_class;
  if (got == *want) return ::testing::AssertionSuccess() << "notch class " << expected;
  return ::testing::AssertionFailure() << "notch class of " << r.chip.guessed_chip << " is " << ane::ToString(got)
                                       << ", expected " << expected << "\n"
                                       << NotchTable(r, "notch_class", expected, ane::ToString(got));
}

::testing::AssertionResult NotchClassAtLeast(const ane::NotchResult& r, const std::string& floor) {
  RecordResult(r);
  auto want = ane::ParseNotchClass(floor);
  if (!want.ok()) return ::testing::AssertionFailure() << want.status().ToString();
  const ane::NotchClass got = r.classification.notch_class;
  if (ane::AtLeast(got, *want)) return ::testing::AssertionSuccess() << "notch class at least " << floor;
  std::string why = got == ane::NotchClass::kHostDominatedInvalid
                        ? " (host_dominated_invalid: the on-notch median is host-dominated, so it proves nothing)"
                    : *want == ane::NotchClass::kHostDominatedInvalid
                        ? " (host_dominated_invalid is not a strength; it can never be a floor)"
                        : "";
  return ::testing::AssertionFailure() << "notch class of " << r.chip.guessed_chip << " is " << ane::ToString(got)
                                       << ", expected at least " << floor << why << "\n"
                                       << NotchTable(r, "notch_class", ">= " + floor, ane::ToString(got));
}

::testing::AssertionResult NotchBorderlineIs(const ane::NotchResult& r, bool expected) {
  RecordResult(r);
  if (r.classification.borderline == expected) {
    return ::testing::AssertionSuccess() << "borderline " << (expected ? "true" : "false");
  }
  return ::testing::AssertionFailure() << "borderline flag of " << r.chip.guessed_chip << " is "
                                       << (r.classification.borderline ? "true" : "false") << ", expected "
                                       << (expected ? "true" : "false") << "\n"
                                       << NotchTable(r, "borderline", expected ? "true" : "false",
                                                     r.classification.borderline ? "true" : "false");
}

golden::GoldenFile NotchGoldenOf(const ane::NotchResult& r) {
  using golden::Direction;
  using golden::FieldPolicy;
  golden::GoldenFile g;
  g.context["chip"] = r.chip.guessed_chip;
  g.context["hw_model"] = r.chip.hw_model;
  g.context["ane_cores"] = std::to_string(r.cores);
  g.context["ane_subtype"] = r.chip.ane_subtype;
  g.context["os"] = r.chip.os;
  g.context["timing_path"] = r.timing_path;
  g.context["class_name"] = ane::ToString(r.classification.notch_class);
  g.context["source"] = fs::path(r.source_path).filename().string();
  if (!r.source_note.empty()) g.context["source_note"] = r.source_note;
  auto put = [&](const std::string& name, double value, FieldPolicy policy, bool integer = false,
                 std::vector<double> samples = {}, std::string reason = "") {
    golden::GoldenValue v;
    v.value = value;
    v.is_integer = integer;
    v.policy = std::move(policy);
    v.policy.reason = std::move(reason);
    v.samples = std::move(samples);
    g.values[name] = std::move(v);
  };
  put("ratio_on_over_off", r.ratio_on_over_off, FieldPolicy::Noisy(0.05, 0, Direction::kBoth));
  put("class_rank", ClassRank(r.classification.notch_class), FieldPolicy::Exact(0), true, {},
      "0 no_notch, 1 milder_1mib_slowdown, 2 m3_class_notch, 3 host_dominated_invalid");
  put("borderline", r.classification.borderline ? 1 : 0, FieldPolicy::Exact(0), true);
  for (const auto& [side, p] : {std::pair<std::string, const ane::MeasuredPoint*>{"on", &r.on()}, {"off", &r.off()}}) {
    put(side + "/median_eval_us", p->median_eval_us, FieldPolicy::Noisy(0.10, 0, Direction::kLowerIsBetter), false,
        p->eval_us_samples);
    put(side + "/gbps_weight_payload", p->gbps_weight_payload, FieldPolicy::Noisy(0.10, 0, Direction::kHigherIsBetter));
    put(side + "/bytes_per_core", static_cast<double>(p->dense.bytes_per_core), FieldPolicy::Exact(0), true);
  }
  if (r.overhead && r.overhead->corrected_ratio) {
    put("corrected_ratio", *r.overhead->corrected_ratio, FieldPolicy::Noisy(0.10, 0, Direction::kBoth));
  }
  return g;
}

// ---------------------------------------------------------------------------------

void AneNotchFixture::SetUp() {
  config_ = Config();
  std::string rec = Env("PERFGATE_RECORDINGS");
  if (!rec.empty()) config_.recordings_dir = rec;
  std::string golden_dir = Env("PERFGATE_GOLDEN_DIR");
  if (!golden_dir.empty()) config_.golden_dir = golden_dir;
  Status t = config_.thresholds.Validate();
  if (!t.ok()) FAIL() << "suite " << config_.suite << ": " << t.ToString();
  ::testing::Test::RecordProperty("perfgate_recordings", config_.recordings_dir);
}

std::string AneNotchFixture::RecordingPath(const std::string& name) const {
  return config_.recordings_dir + "/" + name + ".json";
}

std::string AneNotchFixture::GoldenPath() const {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return config_.golden_dir + "/" + (info != nullptr ? info->name() : "unknown") + ".json";
}

const ane::NotchResult* AneNotchFixture::Replay(const std::string& name) {
  const std::string path = RecordingPath(name);
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.results.find("replay:" + path);
    if (it != cache.results.end()) return it->second.get();
  }
  ane::ReplayOptions o;
  o.thresholds = config_.thresholds;
  auto r = ane::Replay(path, o);
  if (!r.ok()) {
    ADD_FAILURE() << "suite " << config_.suite << ": cannot replay '" << name << "': " << r.status().ToString();
    return nullptr;
  }
  auto shared = std::make_shared<const ane::NotchResult>(std::move(r).value());
  std::lock_guard<std::mutex> lock(cache.mu);
  return (cache.results["replay:" + path] = shared).get();
}

const ane::NotchResult* AneNotchFixture::RecordOrReplay(const std::string& name, const ane::LatticeScan& scan) {
  const std::string record_env = Env("PERFGATE_RECORD");
  const std::string why_not = ane::NativeUnavailableReason();
  const bool can_record = why_not.empty();
  const bool must_record = record_env == "1";
  const std::string path = RecordingPath(name);
  if (must_record && !can_record) {
    ADD_FAILURE() << "PERFGATE_RECORD=1 but this machine cannot record the ANE notch: " << why_not;
    return nullptr;
  }
  if (can_record && record_env != "0") {
    Cache& cache = TheCache();
    const std::string key = "record:" + name + ":" + scan.name;
    {
      std::lock_guard<std::mutex> lock(cache.mu);
      auto it = cache.results.find(key);
      if (it != cache.results.end()) return it->second.get();
      auto f = cache.record_failures.find(key);
      if (f != cache.record_failures.end()) {
        ADD_FAILURE() << "recording '" << name << "' failed earlier: " << f->second.ToString();
        return nullptr;
      }
    }
    std::string base = Env("PERFGATE_ANE_RUN_DIR");
    if (base.empty()) {
      std::error_code ec;
      base = fs::temp_directory_path(ec).string();
      if (ec) {  // TMPDIR names no directory: say so rather than throw out of the test
        ADD_FAILURE() << "cannot record '" << name << "': no temporary directory (" << ec.message()
                      << "); set PERFGATE_ANE_RUN_DIR or TMPDIR to a directory";
        return nullptr;
      }
    }
    const auto stamp = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    const std::string out = base + "/perfgate-ane-" + config_.suite + "-" + name + "-" + std::to_string(::getpid()) +
                            "-" + std::to_string(stamp);
    ane::NativeOptions o;
    o.cins = scan.cins;
    o.cout = scan.cout;
    o.cores = scan.cores;
    o.analyze.thresholds = config_.thresholds;
    auto r = ane::RunNative(out, o, ane::DetectChip());
    std::lock_guard<std::mutex> lock(TheCache().mu);
    if (!r.ok()) {
      TheCache().record_failures[key] = r.status();
      ADD_FAILURE() << "recording '" << name << "' in " << out << " failed: " << r.status().ToString();
      return nullptr;
    }
    if (must_record) {
      std::error_code ec;
      fs::create_directories(config_.recordings_dir, ec);
      fs::copy_file(out + "/report.json", path, fs::copy_options::overwrite_existing, ec);
      if (ec) ADD_FAILURE() << "cannot keep the recording as " << path << ": " << ec.message();
    }
    auto shared = std::make_shared<const ane::NotchResult>(std::move(r).value());
    return (TheCache().results[key] = shared).get();
  }
  std::error_code exists_ec;
  if (fs::exists(path, exists_ec)) return Replay(name);
  if (exists_ec) {  // e.g. a path through a file, or a directory without search permission
    ADD_FAILURE() << "cannot look for the recording " << path << ": " << exists_ec.message();
    return nullptr;
  }
  const std::string reason = "cannot measure the ANE notch here (" + why_not + ") and there is no recording " + path +
                             "; record one on a Mac with an ANE with PERFGATE_RECORD=1";
  const std::optional<std::string> ci = CiVariable();
  if (ci && !config_.allow_skip && !EnvTruthy(ProcessEnv("PERFGATE_ALLOW_SKIP"))) {
    ADD_FAILURE() << reason << ". " << *ci
                  << " is set, so this fails; set PERFGATE_ALLOW_SKIP=1 (or AneSuiteConfig::allow_skip) to skip";
    return nullptr;
  }
  Skip(reason);
  return nullptr;
}

::testing::AssertionResult AneNotchFixture::MatchesGolden(const ane::NotchResult& result) const {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string filter = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "";
  return ::perfgate::testing::MatchesGolden(GoldenPath(), NotchGoldenOf(result), GoldenAcceptCommand(filter));
}

}  // namespace perfgate::testing
