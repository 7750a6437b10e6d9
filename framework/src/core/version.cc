#include "perfgate/core/version.h"

#include "perfgate_build_commit.h"  // generated at build time (tools/scripts/build_commit.cmake)

#ifndef PERFGATE_VERSION_STRING
#error "PERFGATE_VERSION_STRING is defined by framework/CMakeLists.txt"
#endif

namespace perfgate {

std::string_view Version() { return PERFGATE_VERSION_STRING; }

std::string_view BuildCommit() { return PERFGATE_BUILD_COMMIT; }

std::string VersionLine() {
  constexpr std::string_view kDirty = "-dirty";
  std::string_view commit = BuildCommit();
  const bool dirty = commit.size() > kDirty.size() && commit.substr(commit.size() - kDirty.size()) == kDirty;
  if (dirty) commit.remove_suffix(kDirty.size());
  return "perfgate " + std::string(Version()) + " (commit " + std::string(commit) + (dirty ? ", dirty)" : ")");
}

}  // namespace perfgate
