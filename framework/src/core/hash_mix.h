// A hash for integer keys read from input, safe against chosen keys.
//
// std::hash<uint64_t> is the identity in libstdc++, so ids or timestamps a file picks
// (multiples of the bucket count) can all land in one bucket and make every insert and
// lookup linear: O(N^2) for N rows. SeededHash mixes each key with a per-process random
// seed through the murmur3 64-bit finalizer, so a file cannot know which keys collide.
// Only for maps whose iteration order never reaches output (it changes between runs).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace perfgate::internal {

// Chosen once per process from the clock and an ASLR address; it needs no entropy
// source that could fail, only one a file's author cannot predict.
inline uint64_t ProcessHashSeed() {
  static const uint64_t seed = [] {
    static int anchor;
    const auto now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return now ^ (reinterpret_cast<uintptr_t>(&anchor) * 0x9E3779B97F4A7C15ull);
  }();
  return seed;
}

// The murmur3 fmix64 finalizer: a bijection whose every output bit depends on every input bit.
inline uint64_t MixBits(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB93FE53EC34Full;
  h ^= h >> 33;
  return h;
}

// Folds `v` into the running hash `h`; start with HashStart().
inline uint64_t HashCombine(uint64_t h, uint64_t v) { return MixBits(h ^ MixBits(v + 0x9E3779B97F4A7C15ull)); }
inline uint64_t HashStart() { return MixBits(ProcessHashSeed()); }

// Drop-in hasher for unordered containers keyed by integers from input.
struct SeededHash {
  size_t operator()(uint64_t v) const { return static_cast<size_t>(HashCombine(HashStart(), v)); }
};

}  // namespace perfgate::internal
