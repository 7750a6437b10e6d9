// Exact microsecond-to-nanosecond conversion of JSON number text.
#include "json_trace_internal.h"

namespace perfgate::json_trace::detail {
namespace {

constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);

bool Finish(bool negative, uint64_t magnitude, int64_t* ns) {
  if (magnitude > kMax) return false;  // -2^63 is refused too: no trace needs it
  *ns = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// v = v * 10 + digit, false on overflow past kMax.
bool Push(uint64_t* v, int digit) {
  if (*v > (kMax - static_cast<uint64_t>(digit)) / 10) return false;
  *v = *v * 10 + static_cast<uint64_t>(digit);
  return true;
}

}  // namespace

bool MicrosIntegerToNanos(bool negative, uint64_t magnitude, int64_t* ns) {
  if (magnitude > kMax / 1000) return false;
  return Finish(negative, magnitude * 1000, ns);
}

bool MicrosTextToNanos(std::string_view text, int64_t* ns) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  auto is_digit = [&](size_t k) { return k < text.size() && text[k] >= '0' && text[k] <= '9'; };
  const size_t int_begin = i;
  while (is_digit(i)) ++i;
  const std::string_view int_part = text.substr(int_begin, i - int_begin);
  std::string_view frac_part;
  if (i < text.size() && text[i] == '.') {
    const size_t frac_begin = ++i;
    while (is_digit(i)) ++i;
    frac_part = text.substr(frac_begin, i - frac_begin);
  }
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    while (is_digit(i)) {
      if (exponent < 1'000'000) exponent = exponent * 10 + (text[i] - '0');  // saturates: the result is 0 or overflows
      ++i;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (int_part.empty() || i != text.size()) return false;

  // value = digits * 10^(exponent - |frac|); nanoseconds = digits * 10^k.
  const int64_t k = exponent - static_cast<int64_t>(frac_part.size()) + 3;
  const size_t n = int_part.size() + frac_part.size();
  auto digit = [&](size_t d) { return (d < int_part.size() ? int_part[d] : frac_part[d - int_part.size()]) - '0'; };
  uint64_t v = 0;
  if (k >= 0) {
    for (size_t d = 0; d < n; ++d) {
      if (!Push(&v, digit(d))) return false;
    }
    if (v != 0) {
      for (int64_t e = 0; e < k; ++e) {
        if (!Push(&v, 0)) return false;
      }
    }
    return Finish(negative, v, ns);
  }
  // Drop the last -k digits, rounding on the first dropped one.
  const int64_t keep = static_cast<int64_t>(n) + k;
  if (keep < 0) return Finish(negative, 0, ns);  // below a tenth of a nanosecond
  for (int64_t d = 0; d < keep; ++d) {
    if (!Push(&v, digit(static_cast<size_t>(d)))) return false;
  }
  if (digit(static_cast<size_t>(keep)) >= 5) {
    if (v == kMax) return false;
    ++v;
  }
  return Finish(negative, v, ns);
}

}  // namespace perfgate::json_trace::detail
