// The registry of trace sources: the built-in list (builtin.def, one line per source)
// and the lookups every caller uses.
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/attribution/attribute.h"
#include "perfgate/core/names.h"
#include "perfgate/sources/source.h"

namespace perfgate::sources {

// Each source's folder defines NAMESource() in its source.cc.
#define PERFGATE_SOURCE(name) const TraceSource& name##Source();
#include "sources/builtin.def"
#undef PERFGATE_SOURCE

attribution::AttributionOptions WithDefaultProcessFilter(const TraceSource& source, const std::string& engine,
                                                         attribution::AttributionOptions options) {
  if (!options.process_prefix.empty() || options.process_id || options.all_processes) return options;
  // Sources whose host process is not the engine (python3) keep every process with no
  // prefix; kernels of several of them are then attr.several_processes, not a sum.
  if (!source.descriptor.default_all_processes) attribution::ApplyDefaultProcessFilter(engine, &options);
  return options;
}

const std::vector<TraceSource>& BuiltinSources() {
  static const std::vector<TraceSource> kSources = {
#define PERFGATE_SOURCE(name) name##Source(),
#include "sources/builtin.def"
#undef PERFGATE_SOURCE
  };
  return kSources;
}

const TraceSource* SniffSource(const std::string& path) {
  for (const TraceSource& s : BuiltinSources()) {
    if (s.sniff(path)) return &s;
  }
  return nullptr;
}

const TraceSource* SourceOf(const attribution::EngineSummary& engine) {
  const TraceSource* found = nullptr;
  for (const auto& t : engine.trials) {
    auto s = FindSource(t.source);
    if (!s.ok() || (found != nullptr && found != *s)) return nullptr;
    found = *s;
  }
  return found;
}

const SourceWords& WordsOf(const attribution::EngineSummary& engine) {
  const TraceSource* s = SourceOf(engine);
  return (s != nullptr ? s : &BuiltinSources().front())->descriptor.words;
}

StatusOr<const TraceSource*> FindSource(std::string_view name) {
  std::vector<std::string> known;
  for (const TraceSource& s : BuiltinSources()) {
    if (s.descriptor.name == name) return &s;
    known.emplace_back(s.descriptor.name);
  }
  return Status::Error("source.unknown",
                       "unknown trace source '" + std::string(name) + "' (known: " + ListNames(known) + ")",
                       {}, ErrorKind::kUsage);
}

}  // namespace perfgate::sources
