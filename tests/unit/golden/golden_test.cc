// Tests of the golden store: the canonical format, reading errors, every compare
// branch, the update modes, CheckGolden's files and reports, atomic writes under
// concurrency, and normalisation.
#include "perfgate/golden/golden.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/json_document.h"

namespace perfgate::golden {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A fresh directory per test, removed afterwards.
class GoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "perfgate_golden_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& rel) const { return (fs::path(dir_) / rel).string(); }

  std::string dir_;
};

GoldenValue Value(double v, FieldPolicy p, bool is_integer = false, std::vector<double> samples = {}) {
  GoldenValue g;
  g.value = v;
  g.is_integer = is_integer;
  g.policy = std::move(p);
  g.samples = std::move(samples);
  return g;
}

// A small golden with one value of each shape.
GoldenFile Sample() {
  GoldenFile f;
  f.context = {{"commit", "abc123"}, {"chip", "Apple M4 Pro"}};
  f.values["gpu_us_per_token"] =
      Value(7780.0, FieldPolicy::Noisy(0.03, 20, Direction::kLowerIsBetter), false, {7781.25, 7779.5});
  f.values["submissions_per_token"] = Value(44, FieldPolicy::Exact(), true);
  f.values["buckets/md_8_32us/us_per_token"] =
      Value(1204.375, FieldPolicy::Noisy(0.05, 20, Direction::kLowerIsBetter));
  return f;
}

// ---- Canonical form --------------------------------------------------------------

TEST_F(GoldenTest, RenderIsCanonical) {
  GoldenFile f;
  f.context = {{"z_last", "1"}, {"a_first", "x"}};
  f.values["tok_per_s"] = Value(123.456789123, FieldPolicy::Noisy(0.05, 2.5, Direction::kHigherIsBetter), false,
                                {123.4, 123.5678901});
  f.values["count"] = Value(1234567890123, FieldPolicy::Exact(), true, {1234567890123, 1234567890124});
  FieldPolicy ungated = FieldPolicy::Noisy(0.1, 0, Direction::kBoth);
  ungated.gated = false;
  ungated.reason = "shared GPU";
  f.values["a/b~c"] = Value(7780.0, ungated);
  const std::string expected = R"({
  "context": {
    "a_first": "x",
    "z_last": "1"
  },
  "schema_version": 1,
  "values": {
    "a/b~c": {
      "dir": "both",
      "gated": false,
      "kind": "noisy",
      "reason": "shared GPU",
      "tol": {
        "abs": 0,
        "rel": 0.1
      },
      "value": 7780.0
    },
    "count": {
      "dir": "both",
      "gated": true,
      "kind": "exact",
      "samples": [
        1234567890123,
        1234567890124
      ],
      "tol": {
        "abs": 0
      },
      "value": 1234567890123
    },
    "tok_per_s": {
      "dir": "higher_is_better",
      "gated": true,
      "kind": "noisy",
      "samples": [
        123.4,
        123.568
      ],
      "tol": {
        "abs": 2.5,
        "rel": 0.05
      },
      "value": 123.457
    }
  }
}
)";
  EXPECT_EQ(RenderGolden(f), expected);
}

TEST_F(GoldenTest, RoundsToSixSignificantDigits) {
  GoldenFile f;
  f.values["big"] = Value(1234567.8, FieldPolicy::Noisy(0.05, 0, Direction::kBoth));
  f.values["small"] = Value(0.000123456789, FieldPolicy::Noisy(0.05, 0, Direction::kBoth));
  f.values["neg"] = Value(-98.7654321, FieldPolicy::Noisy(0.05, 0, Direction::kBoth));
  // Claimed integer but not whole: written as a rounded double.
  f.values["half"] = Value(2.5, FieldPolicy::Exact(), true);
  const std::string text = RenderGolden(f);
  EXPECT_THAT(text, HasSubstr("\"value\": 1234570.0\n"));
  EXPECT_THAT(text, HasSubstr("\"value\": 0.000123457\n"));
  EXPECT_THAT(text, HasSubstr("\"value\": -98.7654\n"));
  EXPECT_THAT(text, HasSubstr("\"value\": 2.5\n"));
  StatusOr<GoldenFile> back = ParseGolden(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->values.at("big").value, 1234570.0);
  EXPECT_FALSE(back->values.at("big").is_integer);
  EXPECT_FALSE(back->values.at("half").is_integer);
  EXPECT_EQ(RenderGolden(*back), text);
}

TEST_F(GoldenTest, RoundTripIsByteIdentical) {
  const std::string path = Path("golden/decode/llama.json");
  const GoldenFile f = Sample();
  ASSERT_TRUE(WriteGoldenAtomic(path, f).ok());
  const std::string first = ReadText(path);
  EXPECT_EQ(first, RenderGolden(f));
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), '\n');
  EXPECT_NE(first[first.size() - 2], '\n');

  StatusOr<GoldenFile> back = ReadGolden(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->schema_version, 1);
  EXPECT_EQ(back->context, f.context);
  ASSERT_EQ(back->values.size(), 3u);
  const GoldenValue& spt = back->values.at("submissions_per_token");
  EXPECT_TRUE(spt.is_integer);
  EXPECT_EQ(spt.value, 44);
  EXPECT_EQ(spt.policy.kind, Kind::kExact);
  const GoldenValue& gpu = back->values.at("gpu_us_per_token");
  EXPECT_FALSE(gpu.is_integer);  // 7780.0 stays a double
  EXPECT_EQ(gpu.policy.rel, 0.03);
  EXPECT_EQ(gpu.policy.abs, 20);
  EXPECT_EQ(gpu.policy.dir, Direction::kLowerIsBetter);
  EXPECT_EQ(gpu.samples, (std::vector<double>{7781.25, 7779.5}));
  EXPECT_EQ(back->values.at("buckets/md_8_32us/us_per_token").value, 1204.38);

  // Writing what was read, and writing again, gives the same bytes.
  ASSERT_TRUE(WriteGoldenAtomic(path, *back).ok());
  EXPECT_EQ(ReadText(path), first);
  ASSERT_TRUE(WriteGoldenAtomic(path, f).ok());
  EXPECT_EQ(ReadText(path), first);
}

TEST_F(GoldenTest, ReaderDefaultsAndContextFlattening) {
  const std::string text = R"({"schema_version": 1,
    "context": {"gpu": {"cores": 40, "name": "M4"}, "ok": true, "tags": [1, 2], "s": "x"},
    "values": {"t": {"value": 5, "kind": "noisy"}}})";
  StatusOr<GoldenFile> f = ParseGolden(text, "g.json");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->context, (std::map<std::string, std::string>{
                            {"gpu/cores", "40"}, {"gpu/name", "M4"}, {"ok", "true"}, {"s", "x"}, {"tags", "[1,2]"}}));
  const FieldPolicy& p = f->values.at("t").policy;
  EXPECT_EQ(p.kind, Kind::kNoisy);
  EXPECT_EQ(p.rel, 0);
  EXPECT_EQ(p.abs, 0);
  EXPECT_EQ(p.dir, Direction::kBoth);
  EXPECT_TRUE(p.gated);
  EXPECT_TRUE(f->values.at("t").is_integer);
}

// One long key over many leaves used to store the key once per leaf: a file of 130 KB
// flattened to 500 MB (and 2 MB to 200 GB). The flattening is charged to a budget.
TEST_F(GoldenTest, AContextThatFlattensToFarMoreThanItsSizeIsTooLarge) {
  std::string leaves;
  for (int i = 0; i < 5000; ++i) leaves += (i ? ",\"a" : "\"a") + std::to_string(i) + "\":1";
  const std::string text = R"({"schema_version": 1, "context": {")" + std::string(100000, 'k') + "\": {" + leaves +
                           R"(}}, "values": {}})";
  StatusOr<GoldenFile> f = ParseGolden(text, "g.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.too_large");
  // At the first leaf past the budget: 1 MiB holds the key and nine leaves, in key order
  // (a0, a1, a10, a100, a1000, a1001, ...), so the tenth is a1005.
  EXPECT_EQ(f.status().location().line, 1);
  EXPECT_EQ(f.status().location().column, static_cast<int>(text.find("\"a1005\"")) + 1);
  // A context of ordinary size still reads.
  EXPECT_TRUE(ParseGolden(R"({"schema_version": 1, "context": {")" + std::string(1000, 'k') +
                              R"(": {"a": 1, "b": 2}}, "values": {}})",
                          "g.json")
                  .ok());
}

// The one "nearest written ancestor" walk that golden, kernel-family and ANE replay
// errors share.
TEST(JsonPointerLocation, FallsBackToTheNearestWrittenAncestor) {
  const std::string text = "{\"values\": {\n  \"a\": {\"value\": 1}}}";
  using perfgate::internal::LocateJsonPointerOrAncestor;
  EXPECT_EQ(LocateJsonPointerOrAncestor(text, "g.json", "/values/a/value").column, 9);
  const SourceLocation missing = LocateJsonPointerOrAncestor(text, "g.json", "/values/a/kind/x");
  EXPECT_EQ(missing.line, 2);
  EXPECT_EQ(missing.column, 3);  // at "a", the object that lacks "kind"
  EXPECT_EQ(LocateJsonPointerOrAncestor(text, "g.json", "/nothing").column, 1);  // the root
}

// ---- Reading errors --------------------------------------------------------------

TEST_F(GoldenTest, MissingFileIsGoldenMissing) {
  StatusOr<GoldenFile> f = ReadGolden(Path("nope/none.json"));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.missing");
  EXPECT_EQ(f.status().location().path, Path("nope/none.json"));
}

TEST_F(GoldenTest, ParseErrorReportsPathLineColumn) {
  const std::string path = Path("bad.json");
  WriteText(path, "{\n  \"schema_version\": 1,\n  oops\n}\n");
  StatusOr<GoldenFile> f = ReadGolden(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.bad_json");
  EXPECT_EQ(f.status().location().line, 3);
  EXPECT_EQ(f.status().location().column, 3);
  EXPECT_THAT(f.status().ToString(), ::testing::StartsWith(path + ":3:3: error[golden.bad_json]: syntax error"));
  EXPECT_THAT(f.status().message(), Not(HasSubstr("json.exception")));

  // Truncated input points one past the end.
  StatusOr<GoldenFile> g = ParseGolden("{\"a\": 1", "t.json");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().location().line, 1);
  EXPECT_EQ(g.status().location().column, 8);
}

TEST_F(GoldenTest, DuplicateKeyIsAnError) {
  StatusOr<GoldenFile> f = ParseGolden(
      R"({"schema_version": 1, "values": {"a": {"value": 1, "kind": "exact"}, "a": {"value": 2, "kind": "exact"}}})",
      "d.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.bad_json");
  EXPECT_THAT(f.status().message(), HasSubstr("duplicate key \"a\" at /values"));
}

struct SchemaCase {
  const char* json;
  const char* pointer_and_problem;
};

class GoldenSchemaTest : public ::testing::TestWithParam<SchemaCase> {};

TEST_P(GoldenSchemaTest, RejectsWithPointer) {
  StatusOr<GoldenFile> f = ParseGolden(GetParam().json, "s.json");
  ASSERT_FALSE(f.ok()) << GetParam().json;
  EXPECT_EQ(f.status().code(), "golden.bad_schema");
  EXPECT_EQ(f.status().location().path, "s.json");
  EXPECT_THAT(f.status().message(), HasSubstr(GetParam().pointer_and_problem));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GoldenSchemaTest,
    ::testing::Values(
        SchemaCase{R"([1])", "/: expected an object"},
        SchemaCase{R"({"values": {}})", "/schema_version: missing"},
        SchemaCase{R"({"schema_version": 2, "values": {}})", "/schema_version: unsupported version 2"},
        SchemaCase{R"({"schema_version": "1", "values": {}})", "/schema_version: expected an integer"},
        SchemaCase{R"({"schema_version": 1})", "/values: missing"},
        SchemaCase{R"({"schema_version": 1, "values": {}, "extra": 1})", "/extra: unknown key"},
        SchemaCase{R"({"schema_version": 1, "values": {"a/b": {"kind": "exact"}}})", "/values/a~1b/value: missing"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": "7"}}})", "/values/a/value: expected a number"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7}}})", "/values/a/kind: missing"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "fast"}}})",
                   "/values/a/kind: expected one of \"noisy\", \"exact\", got \"fast\""},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "noisy", "dir": "down"}}})",
                   "/values/a/dir: expected one of"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "noisy", "tolerance": 1}}})",
                   "/values/a/tolerance: unknown key"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "noisy", "tol": {"pct": 1}}}})",
                   "/values/a/tol/pct: unknown key"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "noisy", "tol": {"rel": -1}}}})",
                   "/values/a/tol/rel: a tolerance cannot be negative"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "exact", "tol": {"rel": 0.1}}}})",
                   "/values/a/tol/rel: an exact value takes only an absolute tolerance"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "exact", "gated": "no"}}})",
                   "/values/a/gated: expected true or false"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "exact", "samples": [1, "x"]}}})",
                   "/values/a/samples/1: expected a number"},
        SchemaCase{R"({"schema_version": 1, "values": {"a": {"value": 7, "kind": "exact", "reason": 3}}})",
                   "/values/a/reason: expected a string"},
        SchemaCase{R"({"schema_version": 1, "context": [], "values": {}})", "/context: expected an object"}));

// ---- Comparing -------------------------------------------------------------------

GoldenFile One(double expected, FieldPolicy p, const std::string& name = "m") {
  GoldenFile f;
  f.values[name] = Value(expected, std::move(p));
  return f;
}

FieldResult CompareOne(double expected, FieldPolicy p, double actual) {
  CompareResult r = CompareToGolden(One(expected, std::move(p)), {{"m", actual}});
  EXPECT_EQ(r.fields.size(), 1u);
  return r.fields.at(0);
}

TEST(GoldenCompare, NoisyRelativeTolerance) {
  const FieldPolicy p = FieldPolicy::Noisy(0.05, 0, Direction::kLowerIsBetter);
  EXPECT_TRUE(CompareOne(100, p, 105).ok);      // exactly at the limit
  EXPECT_TRUE(CompareOne(0.3, p, 0.315).ok);    // at the limit despite rounding
  EXPECT_FALSE(CompareOne(100, p, 105.01).ok);  // just over
  EXPECT_TRUE(CompareOne(100, p, 100).ok);
}

TEST(GoldenCompare, NoisyAbsoluteFloor) {
  const FieldPolicy p = FieldPolicy::Noisy(0.05, 20, Direction::kLowerIsBetter);
  // 5 % of 100 is 5; the floor of 20 wins.
  EXPECT_TRUE(CompareOne(100, p, 119).ok);
  EXPECT_TRUE(CompareOne(100, p, 120).ok);
  EXPECT_FALSE(CompareOne(100, p, 120.5).ok);
  // 5 % of 1000 is 50; the relative limit wins.
  EXPECT_TRUE(CompareOne(1000, p, 1050).ok);
  EXPECT_FALSE(CompareOne(1000, p, 1051).ok);
}

TEST(GoldenCompare, Directions) {
  const FieldPolicy lower = FieldPolicy::Noisy(0.05, 0, Direction::kLowerIsBetter);
  const FieldPolicy higher = FieldPolicy::Noisy(0.05, 0, Direction::kHigherIsBetter);
  const FieldPolicy both = FieldPolicy::Noisy(0.05, 0, Direction::kBoth);
  EXPECT_TRUE(CompareOne(100, lower, 50).ok);     // faster is fine
  EXPECT_FALSE(CompareOne(100, lower, 110).ok);
  EXPECT_TRUE(CompareOne(100, higher, 150).ok);   // more tokens/s is fine
  EXPECT_FALSE(CompareOne(100, higher, 90).ok);
  EXPECT_TRUE(CompareOne(100, higher, 95).ok);
  EXPECT_FALSE(CompareOne(100, both, 110).ok);
  EXPECT_FALSE(CompareOne(100, both, 90).ok);
  EXPECT_TRUE(CompareOne(100, both, 96).ok);
  EXPECT_TRUE(CompareOne(-100, both, -104).ok);   // relative to |expected|
  EXPECT_FALSE(CompareOne(-100, both, -106).ok);
}

TEST(GoldenCompare, ExactValues) {
  EXPECT_TRUE(CompareOne(44, FieldPolicy::Exact(), 44).ok);
  EXPECT_FALSE(CompareOne(44, FieldPolicy::Exact(), 45).ok);
  EXPECT_FALSE(CompareOne(44, FieldPolicy::Exact(), 43).ok);
  EXPECT_FALSE(CompareOne(44, FieldPolicy::Exact(), 44.000001).ok);  // no slack for exact
  EXPECT_TRUE(CompareOne(44, FieldPolicy::Exact(2), 46).ok);
  EXPECT_TRUE(CompareOne(44, FieldPolicy::Exact(2), 42).ok);
  EXPECT_FALSE(CompareOne(44, FieldPolicy::Exact(2), 47).ok);
  EXPECT_FALSE(CompareOne(44, FieldPolicy::Exact(2), 41).ok);
  // Exact with a direction: fewer submissions per token is not a regression.
  EXPECT_TRUE(CompareOne(44, FieldPolicy::Exact(0, Direction::kLowerIsBetter), 40).ok);
  EXPECT_FALSE(CompareOne(44, FieldPolicy::Exact(0, Direction::kLowerIsBetter), 45).ok);
  // An exact policy ignores rel even if a caller sets it.
  FieldPolicy p = FieldPolicy::Exact();
  p.rel = 0.5;
  EXPECT_FALSE(CompareOne(44, p, 45).ok);
}

TEST(GoldenCompare, UngatedIsReportedNeverFailing) {
  FieldPolicy p = FieldPolicy::Noisy(0.05, 0, Direction::kLowerIsBetter);
  p.gated = false;
  p.reason = "shared runner";
  FieldResult r = CompareOne(100, p, 200);
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.gated);
  EXPECT_FALSE(r.within_tolerance);
  EXPECT_EQ(r.message,
            "m: 200 vs golden 100 (+100, +100.0 %; limit +5 %, lower_is_better): out of tolerance "
            "(not gated: shared runner)");
  FieldResult within = CompareOne(100, p, 101);
  EXPECT_TRUE(within.within_tolerance);
  EXPECT_THAT(within.message, HasSubstr("): ok (not gated: shared runner)"));
}

TEST(GoldenCompare, MessagesUseJsonPointers) {
  GoldenFile g;
  g.values["gpu_us_per_token"] = Value(7780, FieldPolicy::Noisy(0.03, 20, Direction::kLowerIsBetter));
  g.values["buckets/md_8_32us/us_per_token"] = Value(1200, FieldPolicy::Noisy(0.05, 0, Direction::kBoth));
  g.values["n~1"] = Value(44, FieldPolicy::Exact(2));
  g.values["exact0"] = Value(7, FieldPolicy::Exact());
  CompareResult r = CompareToGolden(
      g, {{"gpu_us_per_token", 8120}, {"buckets/md_8_32us/us_per_token", 1140}, {"n~1", 47}, {"exact0", 7}});
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.fields.size(), 4u);
  // Sorted by name.
  EXPECT_EQ(r.fields[0].name, "buckets/md_8_32us/us_per_token");
  EXPECT_EQ(r.fields[0].pointer, "/values/buckets~1md_8_32us~1us_per_token/value");
  EXPECT_EQ(r.fields[0].message,
            "buckets/md_8_32us/us_per_token: 1140 vs golden 1200 (-60, -5.0 %; limit \u00b15 %, "
            "both): ok");
  EXPECT_EQ(r.fields[1].message, "exact0: 7 vs golden 7 (+0, +0.0 %; limit exact, both): ok");
  EXPECT_EQ(r.fields[2].name, "gpu_us_per_token");
  EXPECT_FALSE(r.fields[2].ok);
  EXPECT_EQ(r.fields[2].message,
            "gpu_us_per_token: 8120 vs golden 7780 (+340, +4.4 %; limit +3 % or 20, "
            "lower_is_better): out of tolerance");
  EXPECT_EQ(r.fields[2].tolerance_text, "+3 % or 20");
  EXPECT_DOUBLE_EQ(r.fields[2].delta, 340);
  ASSERT_TRUE(r.fields[2].delta_pct.has_value());
  EXPECT_NEAR(*r.fields[2].delta_pct, 4.37018, 1e-4);
  EXPECT_EQ(r.fields[3].pointer, "/values/n~01/value");
  EXPECT_EQ(r.fields[3].message, "n~1: 47 vs golden 44 (+3, +6.8 %; limit exact \u00b12, both): out "
                                 "of tolerance");
}

TEST(GoldenCompare, ZeroExpectedHasNoPercent) {
  FieldResult r = CompareOne(0, FieldPolicy::Noisy(0.05, 1, Direction::kBoth), 0.5);
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.delta_pct.has_value());
  EXPECT_EQ(r.message, "m: 0.5 vs golden 0 (+0.5; limit \u00b15 % or 1, both): ok");
}

TEST(GoldenCompare, NonFiniteActualFails) {
  FieldResult r = CompareOne(100, FieldPolicy::Noisy(0.05, 0, Direction::kHigherIsBetter), kNaN);
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.message, HasSubstr("nan vs golden 100"));
  EXPECT_THAT(r.message, HasSubstr("not a finite number"));
  EXPECT_FALSE(CompareOne(100, FieldPolicy::Noisy(0.05, 0, Direction::kHigherIsBetter),
                          std::numeric_limits<double>::infinity())
                   .ok);
}

TEST(GoldenCompare, MissingFieldFailsEvenWhenUngated) {
  GoldenFile g = One(44, FieldPolicy::Exact(), "a");
  FieldPolicy ungated = FieldPolicy::Noisy(0.05, 0, Direction::kBoth);
  ungated.gated = false;
  g.values["b"] = Value(3, ungated);
  CompareResult r = CompareToGolden(g, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.missing_in_actual, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_FALSE(r.fields[0].ok);
  EXPECT_FALSE(r.fields[1].ok);
  EXPECT_TRUE(r.fields[0].missing_in_actual);
  EXPECT_EQ(r.fields[0].message, "a: missing in actual (golden 44)");
  EXPECT_TRUE(std::isnan(r.fields[0].actual));
}

TEST(GoldenCompare, NewFieldReportedAndFailsOnlyWhenAsked) {
  GoldenFile g = One(44, FieldPolicy::Exact(), "a");
  CompareResult r = CompareToGolden(g, {{"a", 44}, {"z/new", 12.5}});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.new_in_actual, std::vector<std::string>{"z/new"});
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_TRUE(r.fields[1].new_in_actual);
  EXPECT_TRUE(r.fields[1].ok);
  EXPECT_EQ(r.fields[1].message, "z/new: new in actual (12.5), not in golden");

  CompareOptions strict;
  strict.fail_on_new = true;
  CompareResult s = CompareToGolden(g, {{"a", 44}, {"z/new", 12.5}}, strict);
  EXPECT_FALSE(s.ok);
  EXPECT_FALSE(s.fields[1].ok);
  EXPECT_THAT(s.fields[1].message, HasSubstr("new values are not allowed"));
}

// ---- Update mode -----------------------------------------------------------------

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(GoldenUpdateMode, ParsesValues) {
  auto mode = [](std::map<std::string, std::string> env) { return UpdateModeFromEnv(FakeEnv(std::move(env))); };
  EXPECT_EQ(*mode({}), UpdateMode::kNone);
  EXPECT_EQ(*mode({{"PERFGATE_UPDATE_GOLDEN", ""}}), UpdateMode::kNone);
  EXPECT_EQ(*mode({{"PERFGATE_UPDATE_GOLDEN", "none"}}), UpdateMode::kNone);
  EXPECT_EQ(*mode({{"PERFGATE_UPDATE_GOLDEN", "new"}}), UpdateMode::kNew);
  EXPECT_EQ(*mode({{"PERFGATE_UPDATE_GOLDEN", "all"}}), UpdateMode::kAll);
  for (const char* bad : {"ALL", "1", "yes", "al"}) {
    StatusOr<UpdateMode> m = mode({{"PERFGATE_UPDATE_GOLDEN", bad}});
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_EQ(m.status().code(), "golden.bad_update_mode");
    EXPECT_EQ(m.status().kind(), ErrorKind::kUsage);
    EXPECT_THAT(m.status().message(), HasSubstr("none, new, all"));
  }
}

TEST(GoldenUpdateMode, RefusedInCiUnlessForced) {
  for (const char* ci : {"CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "BUILDKITE"}) {
    StatusOr<UpdateMode> m = UpdateModeFromEnv(FakeEnv({{"PERFGATE_UPDATE_GOLDEN", "all"}, {ci, "true"}}));
    ASSERT_FALSE(m.ok()) << ci;
    EXPECT_EQ(m.status().code(), "golden.update_refused_in_ci");
    EXPECT_THAT(m.status().message(), HasSubstr(ci));
    EXPECT_THAT(m.status().message(), HasSubstr("PERFGATE_UPDATE_GOLDEN_FORCE=1"));
  }
  EXPECT_FALSE(UpdateModeFromEnv(FakeEnv({{"PERFGATE_UPDATE_GOLDEN", "new"}, {"CI", "1"}})).ok());
  // Comparing is always allowed in CI.
  EXPECT_EQ(*UpdateModeFromEnv(FakeEnv({{"CI", "true"}})), UpdateMode::kNone);
  // CI set to a false value does not count.
  EXPECT_EQ(*UpdateModeFromEnv(FakeEnv({{"PERFGATE_UPDATE_GOLDEN", "all"}, {"CI", "false"}})), UpdateMode::kAll);
  EXPECT_EQ(*UpdateModeFromEnv(FakeEnv({{"PERFGATE_UPDATE_GOLDEN", "all"}, {"CI", "0"}})), UpdateMode::kAll);
  // Forced.
  EXPECT_EQ(*UpdateModeFromEnv(FakeEnv({{"PERFGATE_UPDATE_GOLDEN", "all"},
                                        {"CI", "true"},
                                        {"PERFGATE_UPDATE_GOLDEN_FORCE", "1"}})),
            UpdateMode::kAll);
  EXPECT_FALSE(UpdateModeFromEnv(FakeEnv({{"PERFGATE_UPDATE_GOLDEN", "all"},
                                          {"CI", "true"},
                                          {"PERFGATE_UPDATE_GOLDEN_FORCE", "0"}}))
                   .ok());
}

TEST(GoldenUpdateMode, ReadsTheProcessEnvironment) {
  ::setenv("PERFGATE_UPDATE_GOLDEN", "bogus", 1);
  StatusOr<UpdateMode> m = UpdateModeFromEnv();
  ::unsetenv("PERFGATE_UPDATE_GOLDEN");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), "golden.bad_update_mode");
}

TEST(GoldenMerge, KeepsExistingPolicyAndTakesNewValues) {
  GoldenFile existing;
  existing.context = {{"commit", "old"}};
  FieldPolicy reviewed = FieldPolicy::Noisy(0.1, 50, Direction::kBoth);
  reviewed.gated = false;
  reviewed.reason = "thermal noise on M1";
  existing.values["kept"] = Value(100, reviewed, false, {99, 101});
  existing.values["dropped"] = Value(1, FieldPolicy::Exact());
  GoldenFile actual;
  actual.context = {{"commit", "new"}};
  actual.values["kept"] = Value(120, FieldPolicy::Noisy(0.05, 20, Direction::kLowerIsBetter), false, {119, 121});
  actual.values["added"] = Value(7, FieldPolicy::Exact(), true);
  GoldenFile m = MergeForUpdate(existing, actual);
  EXPECT_EQ(m.context, actual.context);
  ASSERT_EQ(m.values.size(), 2u);
  const GoldenValue& kept = m.values.at("kept");
  EXPECT_EQ(kept.value, 120);
  EXPECT_EQ(kept.samples, (std::vector<double>{119, 121}));
  EXPECT_EQ(kept.policy.rel, 0.1);
  EXPECT_EQ(kept.policy.abs, 50);
  EXPECT_EQ(kept.policy.dir, Direction::kBoth);
  EXPECT_FALSE(kept.policy.gated);
  EXPECT_EQ(kept.policy.reason, "thermal noise on M1");
  EXPECT_EQ(m.values.at("added").policy.kind, Kind::kExact);
  EXPECT_TRUE(m.values.at("added").is_integer);
}

// ---- CheckGolden -----------------------------------------------------------------

TEST_F(GoldenTest, MissingGoldenFailsAndWritesActual) {
  const std::string golden = Path("golden/decode/llama.json");
  CheckOutcome o = CheckGolden(golden, Sample(), UpdateMode::kNone, "");
  EXPECT_EQ(o.status, CheckStatus::kMissingGolden);
  EXPECT_FALSE(fs::exists(golden));
  EXPECT_EQ(o.actual_path, Path("golden/decode/llama.actual.json"));
  EXPECT_TRUE(o.actual_written);
  EXPECT_EQ(ReadText(o.actual_path), RenderGolden(Sample()));
  EXPECT_EQ(o.accept_command, "PERFGATE_UPDATE_GOLDEN=new ctest --no-tests=error -R llama");
  EXPECT_THAT(o.report, HasSubstr("missing golden: " + golden));
  EXPECT_THAT(o.report, HasSubstr("never a pass"));
  EXPECT_THAT(o.report, HasSubstr("create it with: PERFGATE_UPDATE_GOLDEN=new ctest --no-tests=error -R llama\n"));
}

TEST_F(GoldenTest, ModeNewCreatesOnlyMissingGoldens) {
  const std::string golden = Path("golden/decode/llama.json");
  WriteText(ActualPathFor(golden), "stale");
  CheckOutcome o = CheckGolden(golden, Sample(), UpdateMode::kNew, "");
  EXPECT_EQ(o.status, CheckStatus::kUpdated);
  EXPECT_EQ(ReadText(golden), RenderGolden(Sample()));
  EXPECT_FALSE(fs::exists(o.actual_path));
  EXPECT_THAT(o.report, HasSubstr("golden created: " + golden));

  // Now it exists: `new` compares and never rewrites.
  GoldenFile slower = Sample();
  slower.values["gpu_us_per_token"].value = 9000;
  CheckOutcome again = CheckGolden(golden, slower, UpdateMode::kNew, "");
  EXPECT_EQ(again.status, CheckStatus::kMismatch);
  EXPECT_EQ(ReadText(golden), RenderGolden(Sample()));
  EXPECT_TRUE(fs::exists(again.actual_path));
}

TEST_F(GoldenTest, ModeAllCreatesMissingGolden) {
  const std::string golden = Path("g/t.json");
  CheckOutcome o = CheckGolden(golden, Sample(), UpdateMode::kAll, "");
  EXPECT_EQ(o.status, CheckStatus::kUpdated);
  EXPECT_EQ(ReadText(golden), RenderGolden(Sample()));
}

TEST_F(GoldenTest, PassRemovesStaleActual) {
  const std::string golden = Path("golden/s/t.json");
  ASSERT_TRUE(WriteGoldenAtomic(golden, Sample()).ok());
  WriteText(ActualPathFor(golden), "left over from a failed run");
  GoldenFile actual = Sample();
  actual.values["gpu_us_per_token"].value = 7790;  // within +3 %
  actual.context["commit"] = "def456";             // context is never compared
  CheckOutcome o = CheckGolden(golden, actual, UpdateMode::kNone, "");
  EXPECT_EQ(o.status, CheckStatus::kPass) << o.report;
  EXPECT_TRUE(o.compare.ok);
  EXPECT_FALSE(fs::exists(ActualPathFor(golden)));
  EXPECT_FALSE(o.actual_written);
  EXPECT_EQ(o.report, "");
  EXPECT_EQ(ReadText(golden), RenderGolden(Sample()));
}

TEST_F(GoldenTest, MismatchWritesActualAndExplains) {
  const std::string golden = Path("golden/decode/llama.json");
  GoldenFile reviewed = Sample();
  reviewed.values["gpu_us_per_token"].policy.reason = "reviewed";
  ASSERT_TRUE(WriteGoldenAtomic(golden, reviewed).ok());
  const std::string before = ReadText(golden);

  GoldenFile actual = Sample();
  actual.values["gpu_us_per_token"] = Value(8120, FieldPolicy::Noisy(0.5, 0, Direction::kBoth), false, {8120});
  actual.values["submissions_per_token"].value = 45;
  actual.values.erase("buckets/md_8_32us/us_per_token");
  actual.values["new_metric"] = Value(3, FieldPolicy::Exact(), true);
  CheckOutcome o = CheckGolden(golden, actual, UpdateMode::kNone, "");
  ASSERT_EQ(o.status, CheckStatus::kMismatch);
  EXPECT_EQ(ReadText(golden), before);  // never touched in mode none
  EXPECT_EQ(o.accept_command, "PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R llama");

  // Field lines point at the golden's entries.
  std::vector<std::string> lines;
  std::stringstream ss(before);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  std::map<std::string, int> line_of;
  for (const FieldResult& f : o.compare.fields) line_of[f.name] = f.golden_line;
  ASSERT_GT(line_of["gpu_us_per_token"], 0);
  EXPECT_EQ(lines.at(line_of["gpu_us_per_token"] - 1), "    \"gpu_us_per_token\": {");
  ASSERT_GT(line_of["buckets/md_8_32us/us_per_token"], 0);
  EXPECT_EQ(lines.at(line_of["buckets/md_8_32us/us_per_token"] - 1), "    \"buckets/md_8_32us/us_per_token\": {");
  EXPECT_EQ(line_of["new_metric"], 0);
  const int gpu_line = line_of["gpu_us_per_token"];
  const int spt_line = line_of["submissions_per_token"];
  const int bucket_line = line_of["buckets/md_8_32us/us_per_token"];

  const std::string expected_report =
      "golden mismatch: " + golden + " (3 of 4 values failed)\n" +
      "cause: bucket 'md_8_32us' is gone (1 value of the golden missing)\n" +
      "cause: a new metric 'new_metric' (not in the golden)\n" +
      "  FAIL " + golden + ":" + std::to_string(bucket_line) +
      ": buckets/md_8_32us/us_per_token: missing in actual (golden 1204.38)\n" +
      "  FAIL " + golden + ":" + std::to_string(gpu_line) +
      ": gpu_us_per_token: 8120 vs golden 7780 (+340, +4.4 %; limit +3 % or 20, lower_is_better): "
      "out of tolerance\n" +
      "  FAIL " + golden + ":" + std::to_string(spt_line) +
      ": submissions_per_token: 45 vs golden 44 (+1, +2.3 %; limit exact, both): out of tolerance\n" +
      "  note " + golden + ": new_metric: new in actual (3), not in golden\n" +
      "actual figures written to " + o.actual_path + "\n" +
      "accept with: PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R llama (or move " + o.actual_path + " over " + golden + ")\n";
  EXPECT_EQ(o.report, expected_report);

  // The actual file is what `all` would write: the golden's policy, the actual values.
  ASSERT_TRUE(o.actual_written);
  StatusOr<GoldenFile> written = ReadGolden(o.actual_path);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->values.at("gpu_us_per_token").value, 8120);
  EXPECT_EQ(written->values.at("gpu_us_per_token").policy.rel, 0.03);
  EXPECT_EQ(written->values.at("gpu_us_per_token").policy.reason, "reviewed");
  EXPECT_EQ(ReadText(o.actual_path), RenderGolden(MergeForUpdate(reviewed, actual)));
}

TEST_F(GoldenTest, AcceptCommandHintIsUsedVerbatim) {
  const std::string golden = Path("golden/s/t.json");
  CheckOutcome o = CheckGolden(golden, Sample(), UpdateMode::kNone, "cmake --build . --target s_update_golden");
  EXPECT_EQ(o.accept_command, "cmake --build . --target s_update_golden");
  EXPECT_THAT(o.report, HasSubstr("create it with: cmake --build . --target s_update_golden\n"));
}

TEST_F(GoldenTest, ModeAllRewritesValuesAndKeepsPolicy) {
  const std::string golden = Path("golden/s/t.json");
  GoldenFile existing = Sample();
  FieldPolicy& p = existing.values["gpu_us_per_token"].policy;
  p.rel = 0.08;
  p.gated = false;
  p.reason = "noisy on shared runners";
  existing.values["old_metric"] = Value(1, FieldPolicy::Exact(), true);
  ASSERT_TRUE(WriteGoldenAtomic(golden, existing).ok());
  WriteText(ActualPathFor(golden), "stale");

  GoldenFile actual = Sample();
  actual.context = {{"commit", "fff000"}};
  actual.values["gpu_us_per_token"] =
      Value(9000.5, FieldPolicy::Noisy(0.05, 20, Direction::kLowerIsBetter), false, {9000, 9001});
  actual.values["new_metric"] = Value(3, FieldPolicy::Exact(1), true);
  CheckOutcome o = CheckGolden(golden, actual, UpdateMode::kAll, "");
  ASSERT_EQ(o.status, CheckStatus::kUpdated) << o.report;
  EXPECT_FALSE(fs::exists(ActualPathFor(golden)));

  StatusOr<GoldenFile> now = ReadGolden(golden);
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_EQ(now->context, actual.context);
  const GoldenValue& gpu = now->values.at("gpu_us_per_token");
  EXPECT_EQ(gpu.value, 9000.5);
  EXPECT_EQ(gpu.samples, (std::vector<double>{9000, 9001}));
  EXPECT_EQ(gpu.policy.rel, 0.08);
  EXPECT_FALSE(gpu.policy.gated);
  EXPECT_EQ(gpu.policy.reason, "noisy on shared runners");
  EXPECT_EQ(now->values.at("new_metric").policy.abs, 1);  // the suite's default
  EXPECT_EQ(now->values.count("old_metric"), 0u);
  EXPECT_EQ(ReadText(golden), RenderGolden(MergeForUpdate(existing, actual)));

  EXPECT_THAT(o.report, ::testing::StartsWith("golden updated: " + golden +
                                              " (PERFGATE_UPDATE_GOLDEN=all): 4 values written, 1 out of "
                                              "tolerance, 1 added, 1 removed; policy kept for 3\n"));
  EXPECT_THAT(o.report, HasSubstr("old_metric: missing in actual"));
  EXPECT_THAT(o.report, HasSubstr("rerun without PERFGATE_UPDATE_GOLDEN to verify"));
  // The comparison is against the golden as it was.
  EXPECT_FALSE(o.compare.ok);

  // Updating again with the same figures writes nothing and passes.
  CheckOutcome same = CheckGolden(golden, actual, UpdateMode::kAll, "");
  EXPECT_EQ(same.status, CheckStatus::kPass) << same.report;
  EXPECT_THAT(same.report, HasSubstr("golden unchanged"));
}

TEST_F(GoldenTest, UnreadableGoldenIsAnErrorInEveryMode) {
  const std::string golden = Path("golden/s/t.json");
  const std::string corrupt = "{\n  \"schema_version\": 1,\n<<<<<<< HEAD\n";
  WriteText(golden, corrupt);
  for (UpdateMode mode : {UpdateMode::kNone, UpdateMode::kNew, UpdateMode::kAll}) {
    CheckOutcome o = CheckGolden(golden, Sample(), mode, "");
    EXPECT_EQ(o.status, CheckStatus::kError) << ToString(mode);
    EXPECT_EQ(o.error.code(), "golden.bad_json");
    EXPECT_EQ(o.error.location().line, 3);
    EXPECT_THAT(o.report, HasSubstr(golden + ":3:1: error[golden.bad_json]"));
    EXPECT_EQ(ReadText(golden), corrupt) << ToString(mode);
    EXPECT_TRUE(o.actual_written);
  }
}

TEST_F(GoldenTest, WriteFailureIsAnError) {
  WriteText(Path("file"), "x");
  const std::string golden = Path("file/t.json");  // parent is a regular file
  Status s = WriteGoldenAtomic(golden, Sample());
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), "golden.write_failed");
  EXPECT_EQ(s.kind(), ErrorKind::kEnvironment);
  // A golden below a regular file cannot even be read.
  CheckOutcome unreadable = CheckGolden(golden, Sample(), UpdateMode::kNew, "");
  EXPECT_EQ(unreadable.status, CheckStatus::kError);
  EXPECT_EQ(unreadable.error.code(), "golden.read_failed");

  // A directory where the actual file should go: the missing golden becomes an error.
  const std::string missing = Path("g/t.json");
  fs::create_directories(ActualPathFor(missing));
  CheckOutcome o = CheckGolden(missing, Sample(), UpdateMode::kNone, "");
  EXPECT_EQ(o.status, CheckStatus::kError);
  EXPECT_EQ(o.error.code(), "golden.write_failed");
  EXPECT_FALSE(o.actual_written);
  EXPECT_THAT(o.report, HasSubstr("error[golden.write_failed]"));
  EXPECT_EQ(ListDir(Path("g")), std::vector<std::string>{"t.actual.json"});  // no temp file left
}

// ---- Atomic writes ---------------------------------------------------------------

TEST_F(GoldenTest, WriteCreatesParentsAndLeavesNoTempFiles) {
  const std::string golden = Path("a/b/c/t.json");
  ASSERT_TRUE(WriteGoldenAtomic(golden, Sample()).ok());
  EXPECT_EQ(ListDir(Path("a/b/c")), std::vector<std::string>{"t.json"});
}

TEST_F(GoldenTest, NonFiniteValuesAreRefused) {
  const std::string golden = Path("t.json");
  GoldenFile f = Sample();
  f.values["buckets/md_8_32us/us_per_token"].samples = {1, kNaN};
  Status s = WriteGoldenAtomic(golden, f);
  EXPECT_EQ(s.code(), "golden.bad_value");
  EXPECT_THAT(s.message(), HasSubstr("/values/buckets~1md_8_32us~1us_per_token/samples/1"));
  EXPECT_FALSE(fs::exists(golden));
  EXPECT_TRUE(ListDir(dir_).empty());
  f = Sample();
  f.values["gpu_us_per_token"].value = std::numeric_limits<double>::infinity();
  EXPECT_EQ(WriteGoldenAtomic(golden, f).code(), "golden.bad_value");
  f = Sample();
  f.schema_version = 2;
  EXPECT_EQ(WriteGoldenAtomic(golden, f).code(), "golden.bad_value");
  EXPECT_TRUE(ListDir(dir_).empty());
}

TEST_F(GoldenTest, ConcurrentWritersLeaveOneCompleteVersion) {
  const std::string golden = Path("golden/s/t.json");
  constexpr int kThreads = 8;
  constexpr int kWrites = 40;
  // Versions of different lengths, so that a torn write could not pass as another.
  std::vector<GoldenFile> versions;
  std::set<std::string> texts;
  for (int t = 0; t < kThreads; ++t) {
    GoldenFile f = Sample();
    f.context["writer"] = std::string(static_cast<size_t>(t) * 100 + 1, static_cast<char>('a' + t));
    for (int i = 0; i <= t * 20; ++i) f.values["v" + std::to_string(i)] = Value(i, FieldPolicy::Exact(), true);
    versions.push_back(f);
    texts.insert(RenderGolden(f));
  }
  ASSERT_TRUE(WriteGoldenAtomic(golden, versions[0]).ok());

  std::atomic<bool> done{false};
  std::atomic<int> bad_reads{0};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!done.load()) {
      std::string text = ReadText(golden);
      reads.fetch_add(1);
      if (texts.count(text) == 0) bad_reads.fetch_add(1);
    }
  });
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        if (!WriteGoldenAtomic(golden, versions[static_cast<size_t>(t)]).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& w : writers) w.join();
  done.store(true);
  reader.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(bad_reads.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(texts.count(ReadText(golden)), 1u);
  StatusOr<GoldenFile> f = ReadGolden(golden);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(ListDir(Path("golden/s")), std::vector<std::string>{"t.json"});
}

// ---- Paths -----------------------------------------------------------------------

TEST(GoldenPaths, ActualPathAndPointer) {
  EXPECT_EQ(ActualPathFor("golden/decode/llama.json"), "golden/decode/llama.actual.json");
  EXPECT_EQ(ActualPathFor("golden/decode/llama"), "golden/decode/llama.actual.json");
  EXPECT_EQ(ActualPathFor(".json"), ".json.actual.json");
  EXPECT_EQ(JsonPointerFor("buckets/md_8_32us/us_per_token"), "/values/buckets~1md_8_32us~1us_per_token/value");
  EXPECT_EQ(JsonPointerFor("a~/b"), "/values/a~0~1b/value");
  // The pointer resolves in the rendered file.
  GoldenFile f;
  f.values["a~/b"] = Value(3, FieldPolicy::Exact(), true);
  nlohmann::json j = nlohmann::json::parse(RenderGolden(f));
  EXPECT_EQ(j.at(nlohmann::json::json_pointer(JsonPointerFor("a~/b"))), 3);
}

TEST(GoldenNames, EnumStrings) {
  EXPECT_STREQ(ToString(Kind::kExact), "exact");
  EXPECT_STREQ(ToString(Direction::kHigherIsBetter), "higher_is_better");
  EXPECT_STREQ(ToString(UpdateMode::kNew), "new");
  EXPECT_STREQ(ToString(CheckStatus::kMissingGolden), "missing_golden");
}

// ---- Normalisation ---------------------------------------------------------------

TEST(GoldenNormalize, Roots) {
  NormalizeOptions o;
  o.roots = {{"/work/main/", "<ROOT>"}, {"/work/main/build", "<BUILD>"}, {"/", "<SLASH>"}, {"", "<EMPTY>"}};
  EXPECT_EQ(NormalizeForGolden("at /work/main/golden/a.json:3", o), "at <ROOT>/golden/a.json:3");
  EXPECT_EQ(NormalizeForGolden("/work/main/build/x and /work/main", o), "<BUILD>/x and <ROOT>");
  EXPECT_EQ(NormalizeForGolden("/work/main2/x /x/work/main/y", o), "/work/main2/x /x/work/main/y");
  EXPECT_EQ(NormalizeForGolden("\"/work/main\", file:///work/main/a", o), "\"<ROOT>\", file://<ROOT>/a");
  EXPECT_EQ(NormalizeForGolden("no paths", o), "no paths");
}

TEST(GoldenNormalize, DatesAndTimes) {
  EXPECT_EQ(NormalizeForGolden("built 2026-03-01T12:34:56.789Z on 2026-03-01"), "built <DATETIME> on <DATE>");
  EXPECT_EQ(NormalizeForGolden("2026-03-01 12:34 and 2026-03-01T23:59:60+05:30."), "<DATETIME> and <DATETIME>.");
  EXPECT_EQ(NormalizeForGolden("at 12:34:56, 07:00:01.25."), "at <TIME>, <TIME>.");
  EXPECT_EQ(NormalizeForGolden("2026-03-01T25:00 12:34"), "<DATE>T25:00 12:34");  // no seconds: not a time
  // Not dates or times: positions, versions, invalid fields, longer digit runs.
  EXPECT_EQ(NormalizeForGolden("a.json:12:34:56 1.12:34:56 2026-13-01 2026-02-32 12026-01-01 24:00:00"),
            "a.json:12:34:56 1.12:34:56 2026-13-01 2026-02-32 12026-01-01 24:00:00");
  NormalizeOptions off;
  off.dates = false;
  EXPECT_EQ(NormalizeForGolden("2026-03-01", off), "2026-03-01");
}

TEST(GoldenNormalize, RootsThenDates) {
  NormalizeOptions o;
  o.roots = {{"/tmp/run-2026-03-01", "<TMP>"}};
  EXPECT_EQ(NormalizeForGolden("/tmp/run-2026-03-01/trace 2026-03-02", o), "<TMP>/trace <DATE>");
}

// ---- Hostile input -------------------------------------------------------------

std::string OneValue(const std::string& entry, const std::string& extra = "") {
  return "{\n  \"schema_version\": 1," + extra + "\n  \"values\": {\n    \"a\": " + entry + "\n  }\n}\n";
}

TEST(GoldenHostile, ANumberBeyondDoubleIsBadJsonAtTheNumber) {
  // nlohmann throws out_of_range here, not parse_error.
  StatusOr<GoldenFile> f = ParseGolden(OneValue(R"({"value": 1e999, "kind": "noisy"})"), "g.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.bad_json");
  EXPECT_EQ(f.status().ToString(), "g.json:4:20: error[golden.bad_json]: number overflow parsing '1e999'");
}

// 20,000 levels once overflowed the stack (FlattenContext, then nlohmann's dump).
TEST(GoldenHostile, DeepContextIsRefusedBeforeItIsBuilt) {
  std::string context;
  for (int i = 0; i < 20'000; ++i) context += "{\"k\": ";
  context += "1" + std::string(20'000, '}');
  StatusOr<GoldenFile> f = ParseGolden(R"({"schema_version": 1, "values": {}, "context": )" + context + "}", "g.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.too_deep");
  EXPECT_EQ(f.status().location().line, 1);
  EXPECT_EQ(f.status().location().column, 48 + 6 * (kMaxNesting - 1));  // the 65th '{'
  // Up to kMaxNesting levels read, flattened to one key.
  std::string ok_context;
  for (int i = 0; i < kMaxNesting - 1; ++i) ok_context += "{\"k\": ";
  ok_context += "\"v\"" + std::string(kMaxNesting - 1, '}');
  StatusOr<GoldenFile> g = ParseGolden(R"({"schema_version": 1, "values": {}, "context": )" + ok_context + "}", "g.json");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->context.size(), 1u);
  EXPECT_EQ(g->context.begin()->second, "v");
}

// Parsing was quadratic in the number of values (100k took two minutes); ctest's
// timeout catches a regression at this size.
// 50,000 values: enough for a duplicate-key check that compares every pair to run past
// the test's timeout (the parser's speed itself is benchmarks/'s to measure).
TEST(GoldenHostile, ManyValuesParseInLinearTime) {
  std::string values;
  for (int i = 0; i < 50'000; ++i) {
    values += std::string(i ? "," : "") + "\"v" + std::to_string(i) + "\": {\"value\": " + std::to_string(i) +
              ", \"kind\": \"exact\"}";
  }
  StatusOr<GoldenFile> f = ParseGolden(R"({"schema_version": 1, "values": {)" + values + "}}", "g.json");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->values.size(), 50'000u);
  EXPECT_EQ(f->values.at("v49999").value, 49999);
  StatusOr<GoldenFile> dup =
      ParseGolden(R"({"schema_version": 1, "values": {)" + values + R"(, "v5": {"value": 5, "kind": "exact"}}})", "g.json");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), "golden.bad_json");
  EXPECT_NE(dup.status().message().find("duplicate key \"v5\" at /values/v5"), std::string::npos);
}

TEST(GoldenHostile, SchemaErrorsAreLocatedAtTheirKey) {
  StatusOr<GoldenFile> f = ParseGolden(OneValue(R"({"value": 1, "kind": "exact", "tolerance": 1})"), "g.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().ToString(),
            "g.json:4:40: error[golden.bad_schema]: /values/a/tolerance: unknown key (expected value, kind, tol, dir, "
            "gated, reason, samples)");
  // A missing key is located at the object that lacks it.
  StatusOr<GoldenFile> m = ParseGolden(OneValue(R"({"value": 1})"), "g.json");
  EXPECT_EQ(m.status().location().line, 4);
  EXPECT_EQ(m.status().location().column, 5);
}

TEST(GoldenHostile, ContextKeysThatFlattenToOneNameAreAnError) {
  StatusOr<GoldenFile> f =
      ParseGolden(OneValue(R"({"value": 1, "kind": "exact"})", R"( "context": {"a": {"b": "1"}, "a/b": "2"},)"),
                  "g.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "golden.bad_schema");
  EXPECT_NE(f.status().message().find("/context/a~1b: context key \"a/b\" is given twice"), std::string::npos)
      << f.status().message();
}

}  // namespace
}  // namespace perfgate::golden

// ---- Failure messages read as written ------------------------------------------------

namespace perfgate::golden {
namespace {

// A name is printed as the golden spells it: `buckets/md_8_32us/submissions_per_token`,
// never the escaped pointer `/values/buckets~1md_8_32us~1submissions_per_token/value`.
TEST(GoldenMessages, NamesArePrintedUnescaped) {
  GoldenFile g;
  g.values["buckets/md_8_32us/submissions_per_token"] = Value(1, FieldPolicy::Exact(0.5));
  g.values["phases/a~b/cbs_per_token"] = Value(2, FieldPolicy::Exact(0.5));
  CompareResult r = CompareToGolden(g, {{"buckets/md_8_32us/submissions_per_token", 3}, {"phases/a~b/cbs_per_token", 2}});
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_EQ(r.fields[0].message,
            "buckets/md_8_32us/submissions_per_token: 3 vs golden 1 (+2, +200.0 %; limit exact \u00b10.5, both): out "
            "of tolerance");
  EXPECT_EQ(r.fields[0].pointer, "/values/buckets~1md_8_32us~1submissions_per_token/value");  // the API keeps it
  for (const FieldResult& f : r.fields) {
    EXPECT_THAT(f.message, Not(HasSubstr("/values/")));
    EXPECT_THAT(f.message, Not(HasSubstr("~1")));
  }
  EXPECT_THAT(r.fields[1].message, HasSubstr("phases/a~b/cbs_per_token: 2 vs golden 2"));
}

// What changed in the golden's shape, in the source's words: a new phase, a vanished
// family, a new kernel family, a metric missing from a part both sides have.
TEST(GoldenMessages, RootCausesNameTheNewPhaseFamilyAndMissingMetric) {
  GoldenFile g;
  g.values["submissions_per_token"] = Value(44, FieldPolicy::Exact(0.5));
  g.values["extras/launches_per_token"] = Value(2, FieldPolicy::Exact(0.5));
  g.values["phases/layer.attn/cbs_per_token"] = Value(1, FieldPolicy::Exact(0.5));
  g.values["phases/layer.attn/gpu_us_per_token"] = Value(100, FieldPolicy::Noisy(0.1, 20, Direction::kLowerIsBetter));
  g.values["families/compute/gpu_us_per_token"] = Value(50, FieldPolicy::Noisy(0.1, 20, Direction::kLowerIsBetter));
  g.values["buckets/md_8_32us/us_per_token"] = Value(10, FieldPolicy::Noisy(0.1, 20, Direction::kLowerIsBetter));
  g.values["buckets/md_8_32us/submissions_per_token"] = Value(1, FieldPolicy::Exact(0.5));
  const std::map<std::string, double> actual = {
      {"submissions_per_token", 44},
      {"phases/layer.attn/cbs_per_token", 1},
      {"phases/layer.attn/gpu_us_per_token", 100},
      {"phases/layer.moe_gather/cbs_per_token", 2},
      {"phases/layer.moe_gather/gpu_us_per_token", 35},
      {"kernel_families/moe_gather", 1},
      {"buckets/md_8_32us/us_per_token", 10},
  };
  CompareOptions words;
  words.phase_word = "command-buffer phase";
  words.family_word = "encoder family";
  EXPECT_EQ(RootCauses(CompareToGolden(g, actual), words),
            (std::vector<std::string>{
                "encoder family 'compute' is gone (1 value of the golden missing)",
                "a new kernel family 'moe_gather' (1 value not in the golden)",
                "a new command-buffer phase 'layer.moe_gather' (2 values not in the golden)",
                "metric 'buckets/md_8_32us/submissions_per_token' is missing from the actual figures",
                "metric 'extras/launches_per_token' is missing from the actual figures",
            }));
  EXPECT_THAT(RootCauses(CompareToGolden(g, actual)), ::testing::Contains("a new phase 'layer.moe_gather' (2 values not in the golden)"));
  // Values that only moved have no root cause to state.
  EXPECT_TRUE(RootCauses(CompareToGolden(g, ValuesOf(g))).empty());
}

class GoldenReport : public GoldenTest {};

TEST_F(GoldenReport, TheRootCauseComesBeforeTheListOfFields) {
  const std::string golden = Path("golden/decode/hf2q.json");
  ASSERT_TRUE(WriteGoldenAtomic(golden, Sample()).ok());
  GoldenFile actual = Sample();
  actual.values["submissions_per_token"].value = 46;
  actual.values["phases/layer.moe_gather/cbs_per_token"] = Value(2, FieldPolicy::Exact(0.5), true);
  CheckOptions options;
  options.phase_word = "command-buffer phase";
  CheckOutcome o = CheckGolden(golden, actual, UpdateMode::kNone, "", options);
  ASSERT_EQ(o.status, CheckStatus::kMismatch);
  const size_t cause = o.report.find("cause: a new command-buffer phase 'layer.moe_gather' (1 value not in the golden)\n");
  const size_t first_field = o.report.find("  FAIL ");
  ASSERT_NE(cause, std::string::npos) << o.report;
  ASSERT_NE(first_field, std::string::npos) << o.report;
  EXPECT_LT(o.report.find("golden mismatch: "), cause);
  EXPECT_LT(cause, first_field) << o.report;
  EXPECT_LT(cause, o.report.find("  note ")) << o.report;
}

// Under CI the actual figures are written on every run, pass or fail, for upload as
// an artifact; elsewhere a pass leaves none (PassRemovesStaleActual).
TEST_F(GoldenReport, UnderCiAPassWritesTheActualFileToo) {
  const std::string golden = Path("golden/s/t.json");
  ASSERT_TRUE(WriteGoldenAtomic(golden, Sample()).ok());
  GoldenFile actual = Sample();
  actual.values["gpu_us_per_token"].value = 7790;  // within +3 %
  CheckOptions ci;
  ci.always_write_actual = true;
  CheckOutcome o = CheckGolden(golden, actual, UpdateMode::kNone, "", ci);
  EXPECT_EQ(o.status, CheckStatus::kPass) << o.report;
  EXPECT_TRUE(o.actual_written);
  ASSERT_TRUE(fs::exists(ActualPathFor(golden)));
  EXPECT_EQ(ReadText(ActualPathFor(golden)), RenderGolden(MergeForUpdate(Sample(), actual)));
  EXPECT_THAT(o.report, HasSubstr("actual figures written to " + ActualPathFor(golden)));

  CheckOutcome local = CheckGolden(golden, actual, UpdateMode::kNone, "");
  EXPECT_EQ(local.status, CheckStatus::kPass);
  EXPECT_FALSE(local.actual_written);
  EXPECT_FALSE(fs::exists(ActualPathFor(golden)));
}

}  // namespace
}  // namespace perfgate::golden
