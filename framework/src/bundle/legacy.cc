// The attribution entry points that predate the source list and the bundle module,
// kept for code written against them: each is now one call into bundle/ or sources/.
#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/sources/source.h"

namespace perfgate::attribution {

bool IsTraceJsonTrial(const std::string& path) {
  const sources::TraceSource* s = sources::SniffSource(path);
  return s != nullptr && s->descriptor.name == "trace_json";
}

StatusOr<TrialSummary> AttributeTrial(const std::string& path, const AttributionOptions& options) {
  const sources::TraceSource* s = sources::SniffSource(path);
  if (s == nullptr) {
    // A JSON file no source claims gets that error, not the XML reader's "expected '<'".
    PERFGATE_RETURN_IF_ERROR(sources::ExplainUnclaimed(path));
    s = &sources::BuiltinSources().front();  // the Metal loader names what is missing
  }
  return s->summarize(path, options);
}

StatusOr<std::vector<std::string>> ExpandTrialPaths(const std::string& path) {
  auto recording = bundle::DiscoverTrials(path);
  if (!recording.ok()) return recording.status();
  std::vector<std::string> paths;
  for (const bundle::Trial& t : recording->trials) paths.push_back(t.path);
  return paths;
}

}  // namespace perfgate::attribution
