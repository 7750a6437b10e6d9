// The trial paths of a --trace PATH, as trial discovery finds them: what the tests of
// recording layouts compare.
#ifndef PERFGATE_TESTS_UNIT_ATTRIBUTION_TRIAL_PATHS_H_
#define PERFGATE_TESTS_UNIT_ATTRIBUTION_TRIAL_PATHS_H_

#include <string>
#include <vector>

#include "perfgate/bundle/trials.h"
#include "perfgate/core/status.h"

namespace perfgate::testing_support {

// The trial paths bundle::DiscoverTrials finds at `path`, in its order.
inline StatusOr<std::vector<std::string>> ExpandTrialPaths(const std::string& path) {
  auto recording = bundle::DiscoverTrials(path);
  if (!recording.ok()) return recording.status();
  std::vector<std::string> paths;
  for (const bundle::Trial& t : recording->trials) paths.push_back(t.path);
  return paths;
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_ATTRIBUTION_TRIAL_PATHS_H_
