#include "core/text_input.h"

#include <gtest/gtest.h>

namespace perfgate::internal {
namespace {

TEST(Utf8, AcceptsValidText) {
  EXPECT_EQ(FindInvalidUtf8(""), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("plain ascii, long enough for the 8-byte path"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("197.58 \xC2\xB5s \xE2\x82\xAC \xF0\x9F\x98\x80"), std::string_view::npos);
}

TEST(Utf8, FindsTheFirstBadByte) {
  EXPECT_EQ(FindInvalidUtf8("abc\xFF"), 3u);
  EXPECT_EQ(FindInvalidUtf8("abcdefghij\xC3("), 10u);        // bad continuation
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF"), 0u);                 // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("ok \xED\xA0\x80"), 3u);          // UTF-16 surrogate
  EXPECT_EQ(FindInvalidUtf8("ok \xF4\x90\x80\x80"), 3u);      // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("ok \xE2\x82"), 3u);              // truncated at the end
}

TEST(LineIndex, MapsOffsetsToOneBasedLineAndColumn) {
  LineIndex idx("ab\ncd\n\nef");
  auto at = [&](size_t off) {
    SourceLocation l = idx.Locate("f", off);
    return std::to_string(l.line) + ":" + std::to_string(l.column);
  };
  EXPECT_EQ(at(0), "1:1");
  EXPECT_EQ(at(1), "1:2");
  EXPECT_EQ(at(2), "1:3");  // the newline itself
  EXPECT_EQ(at(3), "2:1");
  EXPECT_EQ(at(6), "3:1");
  EXPECT_EQ(at(8), "4:2");
}

TEST(ReadWholeFile, MissingFileIsNotFound) {
  auto r = ReadWholeFile("/nonexistent/file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.not_found");
}

}  // namespace
}  // namespace perfgate::internal
