// Checked int64 arithmetic for timestamps, durations and sums read from input.
//
// Signed overflow is undefined behaviour, and a Release build that wraps prints a
// negative GPU time and exits 0. Every sum or difference of values that came from a
// file goes through these, and the caller turns `false` into an error naming the row.
#ifndef PERFGATE_SRC_CORE_CHECKED_MATH_H_
#define PERFGATE_SRC_CORE_CHECKED_MATH_H_

#include <cstdint>

namespace perfgate::internal {

// *out = a + b; false (and *out unspecified) when it does not fit in int64.
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

// *out = a - b; false when it does not fit in int64.
inline bool CheckedSub(int64_t a, int64_t b, int64_t* out) { return !__builtin_sub_overflow(a, b, out); }

// *out = a * b; false when it does not fit in int64.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// Adds `v` to `*sum` when the result fits; false leaves *sum unchanged.
inline bool AccumulateChecked(int64_t* sum, int64_t v) {
  int64_t next;
  if (!CheckedAdd(*sum, v, &next)) return false;
  *sum = next;
  return true;
}

// Adds |v| to `*sum` when it fits; false leaves *sum unchanged. When the absolute
// values of a set of durations add up to an int64, so does every sum of some of them,
// whatever their signs.
inline bool AccumulateAbsChecked(int64_t* sum, int64_t v) {
  return v != INT64_MIN && AccumulateChecked(sum, v < 0 ? -v : v);
}

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_CORE_CHECKED_MATH_H_
