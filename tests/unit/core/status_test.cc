#include "perfgate/core/status.h"

#include <gtest/gtest.h>

namespace perfgate {
namespace {

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(Status, CompilerFormDropsUnknownParts) {
  EXPECT_EQ(Status::Error("x.y", "boom", {"a.xml", 3, 7}).ToString(), "a.xml:3:7: error[x.y]: boom");
  EXPECT_EQ(Status::Error("x.y", "boom", {"a.xml", 3, 0}).ToString(), "a.xml:3: error[x.y]: boom");
  EXPECT_EQ(Status::Error("x.y", "boom", {"a.xml"}).ToString(), "a.xml: error[x.y]: boom");
  EXPECT_EQ(Status::Error("x.y", "boom").ToString(), "error[x.y]: boom");
  EXPECT_EQ(Status::Error("", "boom").code(), "error");
}

TEST(Status, PathsThatCouldFakeALocationPrintQuotedAndEscaped) {
  // A name holding ":1:2" and a newline would otherwise print a second, fake error.
  EXPECT_EQ(Status::Error("io.x", "m", {"x:1:2\n.xml"}).ToString(), "\"x:1:2\\n.xml\": error[io.x]: m");
  EXPECT_EQ(Status::Error("io.x", "m", {"a:b.xml", 4, 2}).ToString(), "\"a:b.xml\":4:2: error[io.x]: m");
  EXPECT_EQ(FormatPath("dir/\xff\x01.xml"), "\"dir/\\xff\\x01.xml\"");
  EXPECT_EQ(FormatPath("say \"hi\"\\\t.xml"), "\"say \\\"hi\\\"\\\\\\t.xml\"");
  EXPECT_EQ(FormatPath("\x1b[2J"), "\"\\x1b[2J\"");
  EXPECT_EQ(FormatPath("\x7f"), "\"\\x7f\"");
}

TEST(Status, MessagesCannotForgeALineOrATerminalEscape) {
  // A JSON key "k\nx.json:1:2: error[fake]: y" decodes to a newline inside the message.
  const Status s = Status::Error("golden.bad_schema", "key 'k\nx.json:1:2: error[fake]: y' \x1b[2J", {"g.json", 3, 4});
  EXPECT_EQ(s.ToString(), "g.json:3:4: error[golden.bad_schema]: key 'k\\nx.json:1:2: error[fake]: y' \\x1b[2J");
  EXPECT_EQ(s.ToString().find('\n'), std::string::npos);
  EXPECT_EQ(FormatMessage("caf\xC3\xA9 \"q\" a\\b \xff\t\x7f"), "caf\xC3\xA9 \"q\" a\\b \\xff\\t\\x7f");
  EXPECT_EQ(s.message(), "key 'k\nx.json:1:2: error[fake]: y' \x1b[2J");  // the message itself is unchanged
}

TEST(Status, PlainPathsIncludingUtf8PrintAsIs) {
  EXPECT_EQ(FormatPath("/tmp/run 1/trial-2.json"), "/tmp/run 1/trial-2.json");
  EXPECT_EQ(FormatPath("mesures/\xC3\xA9t\xC3\xA9.xml"), "mesures/\xC3\xA9t\xC3\xA9.xml");
  // Valid UTF-8 stays readable inside quotes too; only the bad byte is escaped.
  EXPECT_EQ(FormatPath("\xC3\xA9:\xC3"), "\"\xC3\xA9:\\xc3\"");
  EXPECT_EQ(FormatLocation({"a.xml", 3, 0}), "a.xml:3");
}

StatusOr<int> Half(int v) {
  if (v % 2) return Status::Error("odd", std::to_string(v) + " is odd");
  return v / 2;
}

StatusOr<int> Quarter(int v) {
  PERFGATE_ASSIGN_OR_RETURN(int h, Half(v));
  PERFGATE_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusOr, PropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
  EXPECT_EQ(Status::Error("k", "m", {}, ErrorKind::kEnvironment).kind(), ErrorKind::kEnvironment);
}

}  // namespace
}  // namespace perfgate
