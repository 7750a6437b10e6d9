// The golden store: per-test JSON files of expected figures, each value with the
// tolerance policy that gates it, compared against a run's actual figures.
//
// One file per test, `golden/<suite>/<test>.json` (docs/gating.md §3, docs/style.md §6):
//
//   {
//     "context": {
//       "chip": "Apple M4 Pro",
//       "commit": "<COMMIT>"
//     },
//     "schema_version": 1,
//     "values": {
//       "buckets/md_8_32us/us_per_token": {
//         "dir": "lower_is_better",
//         "gated": true,
//         "kind": "noisy",
//         "samples": [
//           1210.5,
//           1198.25
//         ],
//         "tol": {
//           "abs": 20,
//           "rel": 0.05
//         },
//         "value": 1204.38
//       },
//       "submissions_per_token": {
//         "dir": "both",
//         "gated": true,
//         "kind": "exact",
//         "tol": {
//           "abs": 0
//         },
//         "value": 44
//       }
//     }
//   }
//
// Format rules (the reader accepts exactly what the writer produces, plus the
// leniencies noted here):
//  - `schema_version` is the integer 1. Unknown keys anywhere outside `context` are
//    errors (a misspelt "tolerance" must not silently mean "no tolerance").
//  - `values` is a flat object. A value's name may contain '/' to group figures
//    (`buckets/md_8_32us/us_per_token`); it stays one key, so the JSON pointer of
//    its number is `/values/buckets~1md_8_32us~1us_per_token/value` (RFC 6901:
//    '~' is written "~0" and '/' is written "~1"). Messages always use that pointer.
//  - Per value: `value` and `kind` are required. `tol` defaults to 0; `dir`
//    defaults to "both"; `gated` defaults to true; `reason` (why a value is not
//    gated, or why its tolerance is unusual) and `samples` (per-trial values) are
//    optional and written only when non-empty. An exact value's `tol` holds only
//    `abs`: a `rel` on an exact value is an error.
//  - `context` (machine, chip, OS, tool versions, commit) is recorded, never
//    compared. In memory it is a flat map of strings; the reader also accepts nested
//    objects (flattened to "outer/inner" keys), numbers and booleans (kept as their
//    JSON text), and writes everything back as strings.
//  - Canonical form: keys sorted (byte order), 2-space indent, trailing newline.
//    Integers (counts, nanoseconds: GoldenValue::is_integer) are written as JSON
//    integers; other values, samples and tolerances are rounded to
//    kSignificantDigits significant digits, and tolerances that are whole numbers
//    are written as integers. Rendering the same GoldenFile twice, or rendering what
//    ReadGolden returns for a rendered file, gives identical bytes.
//
// Nothing here throws: bad input is a Status (codes `golden.*`), and every function
// may be called from several threads at once.
#ifndef PERFGATE_GOLDEN_GOLDEN_H_
#define PERFGATE_GOLDEN_GOLDEN_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/core/environment.h"
#include "perfgate/gates/judge.h"
#include "perfgate/core/status.h"

namespace perfgate::golden {

// The only schema this version reads and writes.
inline constexpr int kSchemaVersion = 1;
// Non-integer numbers are rounded to this many significant digits when written.
inline constexpr int kSignificantDigits = 6;
// The deepest nesting a golden file may have (the root object is level 1); deeper
// input is refused as golden.too_deep before any of it is built.
inline constexpr int kMaxNesting = 64;

// How a value is compared: the one judge's policy (gates/judge.h). kExact: counts
// (submissions per token, bucket counts), compared with an absolute tolerance `abs`
// only (default 0). kNoisy: timings, which pass when |actual - expected| <=
// max(rel * |expected|, abs).
using Kind = gates::Kind;

// Which change fails. kLowerIsBetter: only an increase beyond the tolerance fails
// (µs/token); kHigherIsBetter: only a decrease fails (tokens/s); kBoth: either.
// Applies to both kinds; exact values default to kBoth ("a count that changes is a
// finding").
using Direction = gates::Direction;

// "noisy" | "exact"; "lower_is_better" | "higher_is_better" | "both".
const char* ToString(Kind kind);
const char* ToString(Direction dir);

// A value's gating policy, kept in the golden and reviewed in the same diff: the one
// judge's Policy (kind, rel, abs, dir, gated, reason; alpha is not stored).
using FieldPolicy = gates::Policy;

// One figure. `value` is a median for noisy values; `samples` keeps the per-trial
// values it came from (optional, for the significance tests and for reviewers).
struct GoldenValue {
  double value = 0;
  // Written as a JSON integer (counts, ns). Ignored, with the value written as a
  // rounded double, when `value` is not a whole number within ±2^53.
  bool is_integer = false;
  FieldPolicy policy;
  std::vector<double> samples;
};

// A whole golden file.
struct GoldenFile {
  int schema_version = kSchemaVersion;
  std::map<std::string, std::string> context;  // recorded, never compared
  std::map<std::string, GoldenValue> values;   // by name; '/' allowed in names
};

// ---------------------------------------------------------------------------------
// Reading and writing.

// Parses a golden file. Errors, all with the path:
//   golden.missing     the file does not exist (a missing golden, not bad input)
//   golden.read_failed the file exists but cannot be read
//   golden.bad_json    not JSON, a number out of range (1e999) or a duplicate key
//   golden.too_deep    nesting deeper than kMaxNesting
//   golden.bad_schema  JSON of the wrong shape; the message names the JSON pointer
// all located at line:column where the input has a position.
StatusOr<GoldenFile> ReadGolden(const std::string& path);

// Parses golden text; `path` is used only in error locations.
StatusOr<GoldenFile> ParseGolden(const std::string& text, const std::string& path);

// The canonical text of `file` (see the format rules above). Never fails; a
// non-finite number is written as null, which ReadGolden rejects, so
// WriteGoldenAtomic refuses it first.
std::string RenderGolden(const GoldenFile& file);

// Writes RenderGolden(file) to `path` atomically: the parent directories are
// created, the text goes to a uniquely named temporary file in the same directory
// (`<name>.tmp-<pid>-<n>-<random>`), is flushed to disk, and is renamed over `path`.
// Concurrent writers and readers of one path (ctest -j) see either the old or one
// complete new version, never a mixture; no temporary file is left behind.
// Errors: golden.bad_value (a non-finite number or a negative tolerance, with its
// pointer, or a schema_version other than kSchemaVersion; nothing is written),
// golden.write_failed (with the OS error; ErrorKind::kEnvironment).
Status WriteGoldenAtomic(const std::string& path, const GoldenFile& file);

// The JSON pointer of value `name`'s number: "/values/" + escaped name + "/value".
std::string JsonPointerFor(const std::string& name);

// Where a mismatch or a missing golden leaves the actual figures: `<test>.json`
// becomes `<test>.actual.json` beside it (git-ignored); other names get
// ".actual.json" appended.
std::string ActualPathFor(const std::string& golden_path);

// ---------------------------------------------------------------------------------
// Comparing.

// One value's comparison.
struct FieldResult {
  std::string name;     // "buckets/md_8_32us/us_per_token"
  std::string pointer;  // "/values/buckets~1md_8_32us~1us_per_token/value"
  bool ok = true;       // false fails the comparison
  bool gated = true;    // the golden's `gated` (true for names not in the golden)
  bool within_tolerance = true;  // false: out of tolerance (fails only when gated)
  bool missing_in_actual = false;
  bool new_in_actual = false;
  double expected = 0;  // the golden's value; NaN for a name only in the actual
  double actual = 0;    // NaN for a name missing in the actual
  double delta = 0;     // actual - expected; NaN when either side is absent
  std::optional<double> delta_pct;  // 100 * delta / |expected|; absent when expected is 0
  std::string tolerance_text;       // "+5 % or 20", "±3 %", "exact", "exact ±2"
  // Self-contained, for assertion output; the name is printed as it is written, not
  // escaped as a pointer, e.g. "gpu_us_per_token: 8120 vs golden 7780 (+340, +4.4 %;
  // limit +3 % or 20, lower_is_better): out of tolerance"
  std::string message;
  int golden_line = 0;  // 1-based line of the value's entry in the golden; 0 unknown
};

struct CompareOptions {
  // Fail when the actual has a name the golden lacks (default: report it only).
  bool fail_on_new = false;
  // The source's words for the "phases" and "families" scopes in RootCauses
  // (sources::SourceWords: "command-buffer phase", "kernel family", ...).
  std::string phase_word = "phase";
  std::string family_word = "family";
};

// All values' comparisons, sorted by name.
struct CompareResult {
  bool ok = true;  // no FieldResult with ok == false
  std::vector<FieldResult> fields;  // one per name in either side
  std::vector<std::string> missing_in_actual;  // names in the golden only: always fail
  std::vector<std::string> new_in_actual;      // names in the actual only
};

// Compares `actual` against `golden` with each value's policy:
//  - exact: passes when |Δ| <= abs in the gated direction;
//  - noisy: passes when |Δ| <= max(rel * |expected|, abs) in the gated direction;
//    both limits are inclusive, with a 1e-9 relative slack for rounding;
//  - `gated: false`: reported (within_tolerance tells), never failing;
//  - a name missing in the actual fails, gated or not (the golden is stale);
//  - a name new in the actual is reported and fails only with fail_on_new;
//  - a non-finite actual value is out of tolerance.
CompareResult CompareToGolden(const GoldenFile& golden, const std::map<std::string, double>& actual,
                              const CompareOptions& options = {});

// What changed in the golden's shape, one line each, for the top of a report: a new or
// vanished phase, family, kernel family or bucket ("a new command-buffer phase
// 'layer.moe_gather' (2 values not in the golden)"), then a new or missing metric of a
// part both sides have. Empty when only values moved.
std::vector<std::string> RootCauses(const CompareResult& compare, const CompareOptions& options = {});

// The values of `file` by name, as CompareToGolden takes them.
std::map<std::string, double> ValuesOf(const GoldenFile& file);

// ---------------------------------------------------------------------------------
// Updating.

// PERFGATE_UPDATE_GOLDEN: none (compare only), new (write goldens that are
// missing, compare the rest), all (rewrite every golden from the actual figures).
enum class UpdateMode { kNone, kNew, kAll };
const char* ToString(UpdateMode mode);  // "none" | "new" | "all"

// Looks up an environment variable; nullopt when it is not set (core/environment.h).
using EnvLookup = perfgate::EnvLookup;

// The update mode from PERFGATE_UPDATE_GOLDEN ("none", "new" or "all"; unset or
// empty means none). Errors (ErrorKind::kUsage):
//   golden.bad_update_mode       any other value
//   golden.update_refused_in_ci  new or all while one of CI, GITHUB_ACTIONS,
//                                GITLAB_CI, JENKINS_URL, TF_BUILD, BUILDKITE is set
//                                (to anything but "", "0" or "false"), unless
//                                PERFGATE_UPDATE_GOLDEN_FORCE=1
StatusOr<UpdateMode> UpdateModeFromEnv(const EnvLookup& env);
// The same, reading the process environment.
StatusOr<UpdateMode> UpdateModeFromEnv();

// What an `all` update writes: the actual's values, samples and context, with the
// existing policy (kind, tol, dir, gated, reason) kept for every name already in
// `existing`. Names only in the actual keep the actual's policy (the suite's
// defaults); names only in `existing` are dropped.
GoldenFile MergeForUpdate(const GoldenFile& existing, const GoldenFile& actual);

// ---------------------------------------------------------------------------------
// The whole workflow for one test.

enum class CheckStatus {
  kPass,           // the golden exists and every value is within tolerance
  kMismatch,       // some value failed; the actual file was written
  kMissingGolden,  // no golden and mode none; the actual file was written. A failure.
  kUpdated,        // the golden was written (new: created; all: rewritten)
  kError,          // the golden is unreadable, or a write failed; see `error`
};
const char* ToString(CheckStatus status);  // "pass", "mismatch", ...

struct CheckOutcome {
  CheckStatus status = CheckStatus::kError;
  CompareResult compare;  // against the golden as it was before any update
  std::string golden_path;
  std::string actual_path;     // ActualPathFor(golden_path), written or not
  bool actual_written = false;  // the actual file exists now because of this call
  std::string accept_command;  // the command that accepts the actual figures
  Status error;                // set when status == kError
  // Human-readable, several lines, ending with a newline: what happened, each
  // failing or new field by golden line and JSON pointer with the tolerance that
  // failed, where the actual went and the accept command. For kPass only notes (new
  // values, ungated values out of tolerance, an `all` update that changed nothing);
  // empty for a clean pass.
  std::string report;
};

// Checks `actual` against the golden at `golden_path` and applies `mode`:
//  - none: a missing golden is kMissingGolden; a mismatch is kMismatch; both write
//    the actual file atomically (for a mismatch, MergeForUpdate(golden, actual), so
//    that moving it over the golden is the same as accepting). A pass removes a
//    stale actual file, or with options.always_write_actual writes it.
//  - new: writes `actual` as the golden when it is missing (kUpdated); otherwise as
//    none.
//  - all: writes MergeForUpdate(golden, actual) (or `actual` when the golden is
//    missing) and reports kUpdated, listing what changed; kPass when the bytes are
//    unchanged and nothing was written. An unreadable golden is kError: its policy
//    cannot be kept, so delete it to regenerate.
// `accept_command_hint` becomes `accept_command`; when empty it defaults to
// `PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R <test>` (`new` for a missing
// golden), where <test> is the golden's file name without ".json"; --no-tests=error
// makes it fail, not exit 0, where ctest finds no such test.
//
// Recommendation for callers (the gtest layer): treat kUpdated as a failure of that
// run, as pytest-regressions does with --force-regen, so that an update run is never
// mistaken for a verified one; the rerun without PERFGATE_UPDATE_GOLDEN verifies.
// Updates only ever happen locally, because UpdateModeFromEnv refuses them in CI.
// CheckGolden's options: the comparison's, and whether a pass writes the actual file
// too (the gtest layer sets it under CI, core/environment.h, so that every run leaves
// `<test>.actual.json` for upload as an artifact).
struct CheckOptions : CompareOptions {
  bool always_write_actual = false;
  CheckOptions() = default;
  CheckOptions(const CompareOptions& compare) : CompareOptions(compare) {}  // NOLINT: implicit by design
};
CheckOutcome CheckGolden(const std::string& golden_path, const GoldenFile& actual, UpdateMode mode,
                         const std::string& accept_command_hint, const CheckOptions& options = {});

// ---------------------------------------------------------------------------------
// Normalisation of recorded text (context values, reports) so goldens do not churn.

struct NormalizeOptions {
  // Absolute directory → placeholder, e.g. {"/home/me/perfgate", "<ROOT>"}. A root is
  // replaced where it is a whole path prefix: followed by '/' or a non-path
  // character, and not preceded by a path character. Longer roots win. Trailing
  // slashes are ignored; "/" and "" are ignored.
  std::vector<std::pair<std::string, std::string>> roots;
  bool dates = true;  // ISO 8601 dates and date-times, and HH:MM:SS clock times
};

// Replaces, in order: the roots; date-times ("2026-03-01T12:34:56.789Z",
// "2026-03-01 12:34", with optional offset) with "<DATETIME>"; dates
// ("2026-03-01") with "<DATE>"; clock times ("12:34:56", "12:34:56.5") with
// "<TIME>". Dates need a valid month (01-12) and day (01-31) and must not touch a
// digit; times need 00-23, 00-59 and 00-60, must not touch a digit or ':' and must
// not follow a '.' (so "file.json:12:34:56" keeps its line:column numbers).
std::string NormalizeForGolden(std::string text, const NormalizeOptions& options = {});

}  // namespace perfgate::golden

#endif  // PERFGATE_GOLDEN_GOLDEN_H_
