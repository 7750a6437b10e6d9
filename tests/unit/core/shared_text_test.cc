#include "perfgate/core/shared_text.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace perfgate {
namespace {

TEST(SharedText, CopiesShareOneBuffer) {
  const SharedText label("Command Buffer 0 of a decode step");
  const SharedText copy = label;  // NOLINT: the copy is the point
  EXPECT_EQ(copy.str().data(), label.str().data());
  EXPECT_EQ(copy.view(), "Command Buffer 0 of a decode step");
}

TEST(SharedText, DefaultIsEmptyAndEqualToEmptyText) {
  const SharedText none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.str(), "");
  EXPECT_EQ(none, SharedText(""));
  EXPECT_TRUE(SharedText(static_cast<const char*>(nullptr)).empty());
}

TEST(SharedText, ComparesByTextNotByBuffer) {
  EXPECT_EQ(SharedText("Compute Command 0"), SharedText(std::string("Compute Command 0")));
  EXPECT_NE(SharedText("Compute Command 0"), SharedText("Compute Command 1"));
}

SharedText MakeLabel() { return SharedText("a label longer than the small-string buffer"); }

// A reference bound to a temporary's text would dangle: that does not compile, and
// str() on a temporary is a copy.
static_assert(std::is_convertible_v<const SharedText&, const std::string&>);
static_assert(!std::is_convertible_v<SharedText&&, const std::string&>);
static_assert(std::is_same_v<decltype(MakeLabel().str()), std::string>);
static_assert(std::is_same_v<decltype(std::declval<const SharedText&>().str()), const std::string&>);

TEST(SharedText, ATemporaryGivesACopy) {
  const std::string copied = MakeLabel().str();
  EXPECT_EQ(copied, "a label longer than the small-string buffer");
}

TEST(SharedText, ReadsAsAStdString) {
  const SharedText name = std::string("hf2q");
  const std::string& as_string = name;
  const std::string_view as_view = name;
  EXPECT_EQ(as_string + " (42)", "hf2q (42)");
  EXPECT_EQ(as_view.substr(0, 2), "hf");
  std::ostringstream os;
  os << name;
  EXPECT_EQ(os.str(), "hf2q");
}

}  // namespace
}  // namespace perfgate
