// The JSON documents of goldens, kernel-family tables and ANE recordings: every way
// nlohmann's own parse went wrong on hostile input is a located Status here.
#include "core/json_document.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "perfgate/attribution/options.h"

namespace perfgate::internal {
namespace {

const JsonDocumentCodes kCodes{"t.bad_json", "t.too_deep"};

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonDocument, ANumberBeyondDoubleIsALocatedErrorNotAnException) {
  // nlohmann::json::parse throws out_of_range (not parse_error) for these.
  for (const char* number : {"1e999", "-1e999", "1E400"}) {
    auto j = ParseJsonDocument(std::string("{\n  \"x\": [1, ") + number + "]}", "d.json", kCodes);
    ASSERT_FALSE(j.ok()) << number;
    EXPECT_EQ(j.status().code(), "t.bad_json");
    EXPECT_EQ(j.status().location().line, 2) << number;
    EXPECT_EQ(j.status().location().column, 12) << number;
    EXPECT_NE(j.status().message().find("number overflow"), std::string::npos) << j.status().message();
  }
}

TEST(JsonDocument, NestingIsBoundedBeforeTheDomIsBuilt) {
  ASSERT_TRUE(ParseJsonDocument(Nested(64), "d.json", kCodes).ok());
  auto deep = ParseJsonDocument(Nested(65), "d.json", kCodes);
  ASSERT_FALSE(deep.ok());
  std::string pointer;
  for (int i = 0; i < 64; ++i) pointer += "/0";
  EXPECT_EQ(deep.status().ToString(),
            "d.json:1:65: error[t.too_deep]: values nest deeper than 64 levels (at " + pointer + ")");
  // 20,000 deep once overflowed the stack of the golden reader's recursion and dump.
  auto very = ParseJsonDocument("{\"context\": " + Nested(20'000) + "}", "d.json", kCodes, 8);
  ASSERT_FALSE(very.ok());
  EXPECT_EQ(very.status().code(), "t.too_deep");
  EXPECT_EQ(very.status().location().column, 13 + 7);
}

TEST(JsonDocument, DuplicateKeysAreErrorsAtTheSecondKey) {
  auto j = ParseJsonDocument("{\"a\": [{\"k\": 1},\n {\"k\": 1, \"k\": 2}]}", "d.json", kCodes);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().ToString(), "d.json:2:11: error[t.bad_json]: duplicate key \"k\" at /a/1/k");
  // One key in sibling objects is no duplicate.
  ASSERT_TRUE(ParseJsonDocument("{\"a\": {\"k\": 1}, \"b\": {\"k\": 1}}", "d.json", kCodes).ok());
}

// The check was quadratic (100k values took two minutes); ctest's timeout catches a
// regression at this size.
// 60,000 keys: enough for a duplicate-key check that compares every pair to run past
// the test's timeout (the parser's speed itself is benchmarks/'s to measure).
TEST(JsonDocument, ManyKeysParseInLinearTime) {
  std::string text = "{";
  for (int i = 0; i < 60'000; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  auto dup = ParseJsonDocument(text + "\"k59999\": 0}", "d.json", kCodes);
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("duplicate key \"k59999\""), std::string::npos);
  text.back() = '}';
  auto j = ParseJsonDocument(text, "d.json", kCodes);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(j->size(), 60'000u);
  EXPECT_EQ((*j)["k12345"], 12345);
}

TEST(JsonDocument, SyntaxAndEncodingErrorsAreLocated) {
  auto truncated = ParseJsonDocument("{\"a\": 1", "d.json", kCodes);
  EXPECT_EQ(truncated.status().location().column, 8);  // one past the end
  auto utf8 = ParseJsonDocument("{\"a\": \"x\xff\"}", "d.json", kCodes);
  EXPECT_EQ(utf8.status().code(), "t.bad_json");
  EXPECT_EQ(utf8.status().location().column, 9);  // the bad byte itself
  EXPECT_EQ(ParseJsonDocument("", "d.json", kCodes).status().location().column, 1);
}

TEST(JsonDocument, LocatesAPointer) {
  const std::string text = "{\n  \"a/b\": {\"x\": [10,\n 20, {\"y\": 1}]}\n}";
  auto at = [&](const std::string& p) {
    SourceLocation l = LocateJsonPointer(text, "d.json", p);
    return std::to_string(l.line) + ":" + std::to_string(l.column);
  };
  EXPECT_EQ(at(""), "1:1");
  EXPECT_EQ(at("/a~1b"), "2:3");
  EXPECT_EQ(at("/a~1b/x"), "2:11");
  EXPECT_EQ(at("/a~1b/x/0"), "2:17");
  EXPECT_EQ(at("/a~1b/x/1"), "3:2");
  EXPECT_EQ(at("/a~1b/x/2/y"), "3:7");
  EXPECT_EQ(at("/a~1b/x/9"), "0:0");
  EXPECT_EQ(at("/nope"), "0:0");
}

class KernelFamilyFile : public ::testing::Test {
 protected:
  void TearDown() override { std::remove(path_.c_str()); }
  Status Load(const std::string& text) {
    std::ofstream(path_) << text;
    return attribution::LoadKernelFamilies(path_).status();
  }
  std::string At(const Status& s) {
    return s.code() + "@" + std::to_string(s.location().line) + ":" + std::to_string(s.location().column);
  }
  // One file per test and process: ctest -j runs this fixture's tests side by side.
  const std::string path_ = ::testing::TempDir() + "/families_test." +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name() + "." +
                            std::to_string(::getpid()) + ".json";
};

TEST_F(KernelFamilyFile, UnknownAndDuplicateKeysAreLocatedErrors) {
  EXPECT_EQ(At(Load(R"({"rules": [], "strip": "kernel_"})")), "families.bad_table@1:15");
  EXPECT_EQ(At(Load("{\"rules\": [\n  {\"prefix\": \"a\", \"family\": \"b\", \"familly\": \"c\"}]}")),
            "families.bad_table@2:34");
  EXPECT_EQ(At(Load(R"({"rules": [], "rules": []})")), "families.bad_json@1:15");
  EXPECT_EQ(At(Load(R"({"rules": [{"prefix": "a", "prefix": "b", "family": "c"}]})")), "families.bad_json@1:28");
  Status repeated = Load(R"({"rules": [{"prefix": "a", "family": "x"}, {"prefix": "a", "family": "y"}]})");
  EXPECT_EQ(At(repeated), "families.bad_table@1:45");
  EXPECT_EQ(repeated.message(), "rules[1] repeats the prefix 'a' of rules[0], so it could never match");
}

TEST_F(KernelFamilyFile, NumbersBeyondDoubleAndDeepNestingAreLocatedErrors) {
  EXPECT_EQ(At(Load(R"({"rules": [], "x": 1e999})")), "families.bad_json@1:20");
  EXPECT_EQ(At(Load("{\"rules\": " + Nested(10'000) + "}")), "families.too_deep@1:13");
  EXPECT_TRUE(Load(R"({"strip_prefix": "", "rules": [{"prefix": "gemm", "family": "matmul"}]})").ok());
}

TEST_F(KernelFamilyFile, ADirectoryIsNotAFile) {
  Status s = attribution::LoadKernelFamilies(::testing::TempDir()).status();
  EXPECT_EQ(s.code(), "io.not_a_file") << s.ToString();
}

}  // namespace
}  // namespace perfgate::internal
