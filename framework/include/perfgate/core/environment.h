// The environment variables perfgate reads, behind one lookup so tests can stand in.
#ifndef PERFGATE_CORE_ENVIRONMENT_H_
#define PERFGATE_CORE_ENVIRONMENT_H_

#include <functional>
#include <optional>
#include <string>

namespace perfgate {

// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (std::getenv).
std::optional<std::string> ProcessEnv(const std::string& name);

// True when `value` is set to anything but "", "0" or "false" (any case).
bool EnvTruthy(const std::optional<std::string>& value);

// The first CI service variable that is truthy (CI, GITHUB_ACTIONS, GITLAB_CI,
// JENKINS_URL, TF_BUILD, BUILDKITE: the ApprovalTests and Vitest conventions), or
// nullopt outside CI.
std::optional<std::string> CiVariable(const EnvLookup& env = ProcessEnv);

}  // namespace perfgate

#endif  // PERFGATE_CORE_ENVIRONMENT_H_
