// INTERNAL: do not use. What the PERFGATE_EXPECT_* and PERFGATE_ASSERT_* macros expand
// to; only the macros' names are perfgate's interface.
//
// Every perfgate check returns a ::testing::AssertionResult that already explains
// itself (the verdict table, its legend, the movers). The macros hand that result to
// GoogleTest's predicate-formatter assertions, so a failure prints perfgate's message
// and nothing before it; EXPECT_TRUE would first print "Value of: <the call>
// Actual: false (".
#ifndef PERFGATE_GTEST_INTERNAL_EXPLAINED_H_
#define PERFGATE_GTEST_INTERNAL_EXPLAINED_H_

#include <gtest/gtest.h>

#include <string>

namespace perfgate::testing::internal {

// The predicate formatter of every perfgate assertion: the check has run; its result,
// message included, is the assertion's. A failure's message prints its control bytes
// other than line breaks and tabs (ESC, NUL: from a kernel or counter name) as
// "\xNN", so no name reaches the terminal as an escape sequence.
inline ::testing::AssertionResult Explained(const char* /*check_text*/, const ::testing::AssertionResult& result) {
  if (result) return result;
  std::string message;
  for (const char c : std::string(result.message())) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) {
      const char* hex = "0123456789abcdef";
      message += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    } else {
      message += c;
    }
  }
  return ::testing::AssertionFailure() << message;
}

}  // namespace perfgate::testing::internal

// Non-fatal and fatal forms of a perfgate check (a call returning AssertionResult).
#define PERFGATE_INTERNAL_EXPECT(check) EXPECT_PRED_FORMAT1(::perfgate::testing::internal::Explained, check)
#define PERFGATE_INTERNAL_ASSERT(check) ASSERT_PRED_FORMAT1(::perfgate::testing::internal::Explained, check)

#endif  // PERFGATE_GTEST_INTERNAL_EXPLAINED_H_
