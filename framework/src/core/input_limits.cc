#include "perfgate/core/input_limits.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>

namespace perfgate {
namespace {

std::mutex g_mutex;
std::optional<InputLimits> g_set;  // guarded by g_mutex

Status BadLimit(std::string_view what, std::string_view text, const std::string& why) {
  return Status::Error("input.bad_limit",
                       std::string(what) + " '" + std::string(text) + "': " + why, {}, ErrorKind::kUsage);
}

// The multiplier a suffix names (binary units); 0 when it names none.
uint64_t SuffixMultiplier(std::string suffix) {
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.empty() || suffix == "B") return 1;
  const std::string units = "KMGT";
  const size_t at = units.find(suffix[0]);
  if (at == std::string::npos) return 0;
  const std::string rest = suffix.substr(1);
  if (!rest.empty() && rest != "B" && rest != "IB") return 0;
  return uint64_t{1} << (10 * (at + 1));
}

}  // namespace

uint64_t InputLimits::MaxInflatedBytes(uint64_t compressed_bytes) const {
  const uint64_t by_ratio =
      compressed_bytes > UINT64_MAX / std::max<uint64_t>(max_gzip_ratio, 1) ? UINT64_MAX : compressed_bytes * max_gzip_ratio;
  return std::min(max_input_bytes, std::max(by_ratio, kGzipFloorBytes));
}

StatusOr<uint64_t> ParseByteCount(std::string_view text, std::string_view what) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return BadLimit(what, text, "expected a positive byte count such as 500M or 4G");
  uint64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) return BadLimit(what, text, "does not fit in 64 bits");
    value = value * 10 + digit;
  }
  const uint64_t multiplier = SuffixMultiplier(std::string(text.substr(digits)));
  if (multiplier == 0) return BadLimit(what, text, "unknown unit (use K, M, G or T, powers of 1024)");
  if (value > UINT64_MAX / multiplier) return BadLimit(what, text, "does not fit in 64 bits");
  if (value == 0) return BadLimit(what, text, "must be positive");
  return value * multiplier;
}

StatusOr<InputLimits> InputLimitsFromEnvironment(const EnvLookup& env) {
  InputLimits limits;
  if (auto v = env(kMaxInputBytesEnv); v && !v->empty()) {
    auto bytes = ParseByteCount(*v, kMaxInputBytesEnv);
    if (!bytes.ok()) return bytes.status();
    limits.max_input_bytes = *bytes;
  }
  if (auto v = env(kMaxGzipRatioEnv); v && !v->empty()) {
    auto ratio = ParseByteCount(*v, kMaxGzipRatioEnv);
    if (!ratio.ok()) return ratio.status();
    limits.max_gzip_ratio = *ratio;
  }
  return limits;
}

void SetInputLimits(const InputLimits& limits) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_set = limits;
}

void ClearInputLimits() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_set.reset();
}

StatusOr<InputLimits> CurrentInputLimits() {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_set) return *g_set;
  }
  // Read each time rather than cached: a test or a suite may set the variable late.
  return InputLimitsFromEnvironment();
}

}  // namespace perfgate
