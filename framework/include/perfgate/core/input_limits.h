// Input limits: how large a file perfgate reads, and how far a gzip input may inflate.
//
// Every reader (xctrace exports and TOCs, trace-event JSON, goldens, kernel-family
// tables, meta.json) loads its file through one checked read that applies these limits,
// so no input, however crafted, can exhaust memory: a larger file is io.too_large, a
// gzip stream that inflates past them io.gzip_bomb. The defaults read real exports of
// several hundred MB with room to spare.
//
// Process-wide setting, in order of precedence: SetInputLimits(); else the environment
// variables PERFGATE_MAX_INPUT_BYTES and PERFGATE_MAX_GZIP_RATIO (read afresh by every
// read, so a suite may set them late; a getenv per file costs nothing beside the read);
// else the defaults below. The CLI sets them from --max-input-bytes / --max-gzip-ratio.
#ifndef PERFGATE_CORE_INPUT_LIMITS_H_
#define PERFGATE_CORE_INPUT_LIMITS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "perfgate/core/environment.h"
#include "perfgate/core/status.h"

namespace perfgate {

struct InputLimits {
  // The most bytes one input may hold, on disk and again after inflating: 2 GiB.
  static constexpr uint64_t kDefaultMaxInputBytes = uint64_t{2} << 30;
  // How many times its compressed size a gzip input may inflate to: 100 (real
  // xctrace and Kineto exports inflate 10 to 30 times).
  static constexpr uint64_t kDefaultMaxGzipRatio = 100;
  // Inflating up to this much is allowed whatever the ratio, so small files of very
  // repetitive text still read: 64 MiB.
  static constexpr uint64_t kGzipFloorBytes = uint64_t{64} << 20;

  uint64_t max_input_bytes = kDefaultMaxInputBytes;
  uint64_t max_gzip_ratio = kDefaultMaxGzipRatio;

  // The most a gzip stream of `compressed_bytes` may inflate to:
  // min(max_input_bytes, max(max_gzip_ratio x compressed_bytes, kGzipFloorBytes)).
  uint64_t MaxInflatedBytes(uint64_t compressed_bytes) const;
};

// The environment variables the limits are read from.
inline constexpr const char* kMaxInputBytesEnv = "PERFGATE_MAX_INPUT_BYTES";
inline constexpr const char* kMaxGzipRatioEnv = "PERFGATE_MAX_GZIP_RATIO";

// Parses a positive byte count: digits with an optional binary suffix K, M, G or T
// (KiB..TiB; "KiB", "MB" and the like read the same). Errors: input.bad_limit, naming `what`.
StatusOr<uint64_t> ParseByteCount(std::string_view text, std::string_view what);

// The limits the environment asks for, the defaults where a variable is unset.
// Errors: input.bad_limit for a value that is not a positive count.
StatusOr<InputLimits> InputLimitsFromEnvironment(const EnvLookup& env = ProcessEnv);

// Sets the limits every reader in this process applies from now on (thread-safe).
void SetInputLimits(const InputLimits& limits);

// Forgets the limits SetInputLimits set, so the environment applies again.
void ClearInputLimits();

// The limits readers apply now: those set, else those of the process environment.
// Errors: input.bad_limit when the environment holds a bad value and none were set.
StatusOr<InputLimits> CurrentInputLimits();

}  // namespace perfgate

#endif  // PERFGATE_CORE_INPUT_LIMITS_H_
