// Machine-readable JSON written losslessly and stably: the layout of every perfgate JSON
// output (reports, kernel reports, tok/s verdicts).
#ifndef PERFGATE_SRC_CORE_LOSSLESS_JSON_H_
#define PERFGATE_SRC_CORE_LOSSLESS_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

namespace perfgate::text {

// `document` with nlohmann's dump(2) layout (2-space indent, one element a line, {} and
// [] when empty) and a trailing newline, keys sorted except under a "buckets" key, whose
// object keeps its insertion (band) order, and every double as ShortestDouble's text:
// the shortest that parses back to the identical double.
std::string RenderLosslessJson(const nlohmann::ordered_json& document);

}  // namespace perfgate::text

#endif  // PERFGATE_SRC_CORE_LOSSLESS_JSON_H_
