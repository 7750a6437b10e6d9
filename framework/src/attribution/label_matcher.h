// A decode-step label (attribution::LabelMatch) made ready to test annotation names,
// shared by the Metal and the trace-event attribution.
#ifndef PERFGATE_SRC_ATTRIBUTION_LABEL_MATCHER_H_
#define PERFGATE_SRC_ATTRIBUTION_LABEL_MATCHER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "perfgate/attribution/options.h"
#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"

namespace perfgate::attribution {

class LabelMatcher {
 public:
  // Longer names are not tested against a regex: libc++'s std::regex (macOS) backtracks
  // with a recursion per character. Such a name does not match, counted.
  static constexpr size_t kMaxRegexNameBytes = 4096;

  // A regex that std::regex (ECMAScript) refuses is a cli.usage error quoting it and
  // the library's message; an empty label is one too.
  static StatusOr<LabelMatcher> Compile(const LabelMatch& label);
  // True when the annotation name, as the trace holds it, is one the label names. A
  // regex does not match a name over kMaxRegexNameBytes, nor one std::regex gives up on
  // (regex_error while matching); both are counted for CountUntested.
  bool Matches(std::string_view name) const;
  const LabelMatch& label() const { return label_; }
  // Adds the names a regex could not test, as attr.label_too_long and
  // attr.label_regex_error (copies of a matcher share the counts).
  void CountUntested(Diagnostics* diagnostics) const;

 private:
  struct Regex;
  struct Untested {
    int64_t too_long = 0;
    int64_t regex_error = 0;
  };
  LabelMatch label_;
  std::string normalized_;  // kExact: NormalizePhaseLabel(text)
  std::shared_ptr<const Regex> regex_;
  std::shared_ptr<Untested> untested_ = std::make_shared<Untested>();
};

// True when two labels name the same annotations by their spelling: equal, or two
// exact labels that normalise alike (a token label that is the window label counts
// the window's instances).
bool SameLabel(const LabelMatch& a, const LabelMatch& b);

}  // namespace perfgate::attribution

#endif  // PERFGATE_SRC_ATTRIBUTION_LABEL_MATCHER_H_
