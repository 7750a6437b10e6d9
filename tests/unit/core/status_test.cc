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
