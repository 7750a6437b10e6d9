// Private to the generator: a seeded random source whose sequence is the same on
// every platform and standard library (std:: distributions are not), so a seed names
// the same document everywhere.
#ifndef PERFGATE_TOOLS_XCTRACE_GEN_RANDOM_H_
#define PERFGATE_TOOLS_XCTRACE_GEN_RANDOM_H_

#include <cmath>
#include <cstdint>

namespace perfgate::gen::internal {

// SplitMix64: tiny, fast and good enough for synthetic traces.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n); 0 when n is 0. The modulo bias is below 2^-32 for the ranges
  // used here (n < 2^32), far below anything a synthetic trace could show.
  uint64_t Below(uint64_t n) { return n == 0 ? 0 : Next() % n; }

  // Uniform in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Log-uniform in [lo, hi] (lo > 0): most values small, a long tail of large ones,
  // the skew of real GPU durations.
  int64_t LogUniform(int64_t lo, int64_t hi) {
    const double v = std::exp(std::log(static_cast<double>(lo)) +
                              Unit() * (std::log(static_cast<double>(hi)) -
                                        std::log(static_cast<double>(lo))));
    const int64_t r = static_cast<int64_t>(v);
    return r < lo ? lo : r > hi ? hi : r;
  }

  bool Chance(double p) { return Unit() < p; }

 private:
  uint64_t state_;
};

}  // namespace perfgate::gen::internal

#endif  // PERFGATE_TOOLS_XCTRACE_GEN_RANDOM_H_
