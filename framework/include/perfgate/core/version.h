// perfgate's own version and the commit it was built from, for `perfgate --version`,
// reports and golden contexts.
#ifndef PERFGATE_CORE_VERSION_H_
#define PERFGATE_CORE_VERSION_H_

#include <string>
#include <string_view>

namespace perfgate {

// The project version, e.g. "0.2.0".
std::string_view Version();

// The commit the library was built from: 40 hex digits, with "-dirty" appended when
// tracked files differed from it, or "unknown" outside a git checkout. Taken at build
// time, so it follows new commits without a re-configure.
std::string_view BuildCommit();

// The line `perfgate --version` prints: "perfgate 0.2.0 (commit 1a2b…, dirty)".
std::string VersionLine();

}  // namespace perfgate

#endif  // PERFGATE_CORE_VERSION_H_
