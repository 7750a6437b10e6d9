// perfgate's own version and the commit it was built from, for `perfgate --version`,
// reports and golden contexts.
#ifndef PERFGATE_CORE_VERSION_H_
#define PERFGATE_CORE_VERSION_H_

#include <string_view>

namespace perfgate {

// The project version, e.g. "0.1.0".
std::string_view Version();

// The commit the library was built from ("unknown" outside a git checkout).
std::string_view BuildCommit();

}  // namespace perfgate

#endif  // PERFGATE_CORE_VERSION_H_
