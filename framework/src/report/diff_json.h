// Private: a diff as the JSON object `perfgate diff --format json` writes, for the
// attribution report's "movers" too.
#ifndef PERFGATE_SRC_REPORT_DIFF_JSON_H_
#define PERFGATE_SRC_REPORT_DIFF_JSON_H_

#include <nlohmann/json.hpp>

#include "perfgate/diff/diff.h"

namespace perfgate::report {

// before, after, total and levels (every change); without kind, version or perfgate.
nlohmann::ordered_json DiffJson(const diff::Diff& d);

}  // namespace perfgate::report

#endif  // PERFGATE_SRC_REPORT_DIFF_JSON_H_
