#include "perfgate/core/environment.h"

#include <cstdlib>

namespace perfgate {

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

bool EnvTruthy(const std::optional<std::string>& value) {
  if (!value || value->empty() || *value == "0") return false;
  std::string lower;
  for (char c : *value) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower != "false";
}

std::optional<std::string> CiVariable(const EnvLookup& env) {
  for (const char* var : {"CI", "GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "TF_BUILD", "BUILDKITE"}) {
    if (EnvTruthy(env(var))) return std::string(var);
  }
  return std::nullopt;
}

}  // namespace perfgate
