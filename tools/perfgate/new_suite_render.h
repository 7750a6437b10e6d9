// `perfgate new-suite`'s pure parts: the rules for names, the budgets measured from a
// suite's loaded data, and the text of the files and commands it writes. Nothing here
// touches the file system.
#ifndef PERFGATE_TOOLS_PERFGATE_NEW_SUITE_RENDER_H_
#define PERFGATE_TOOLS_PERFGATE_NEW_SUITE_RENDER_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/core/process.h"
#include "perfgate/core/status.h"
#include "perfgate/suite/suite.h"

namespace perfgate::cli::scaffold {

// The generated suite's golden test; its files are Golden.json (first engine) and
// Golden.<engine>.json, as PerfSuiteFixture::GoldenPathFor names them.
inline constexpr const char* kGoldenTest = "Golden";
inline constexpr const char* kBudgetsTest = "Budgets";

// NAME becomes a CMake target, a file name and (in CamelCase) a C++ class: a letter,
// then letters, digits and '_', no "__", not a C++ keyword, not a name CMake reserves
// for a target (all, test, install, ...), not perfgate's own (perfgate*).
// Error: scaffold.bad_name (usage).
Status CheckSuiteName(const std::string& name);

// An engine name is its recording directory and part of a golden's file name: letters,
// digits, '.', '_' and '-', not starting with '.' or '-'. Error: scaffold.bad_engine_name.
Status CheckEngineName(const std::string& name);

// "my_decode" -> "MyDecode", "q4" -> "Q4": the fixture's class name.
std::string FixtureClassName(const std::string& suite);

// `text` as a C++ string literal, quotes included.
std::string CppString(std::string_view text);

// The shortest of 6 significant digits not below `value`, as C++ source: a budget
// printed this way never fails on the figure it was measured from.
std::string RoundedUp(double value);

// The golden file of each engine of the golden test, in check order: the engines, the
// baseline last (file names only).
std::vector<std::pair<std::string, std::string>> GoldenFiles(const suite::SuiteConfig& config);

// One budget assertion: a C++ statement, and what was measured with the margin it got.
struct Budget {
  std::string comment;    // "hf2q: measured 45.5968 submissions/token; + 0.5 (exact within 0.5)"
  std::string statement;  // "PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine(\"hf2q\"), 46.0968);"; "" when
                          // the engine lacks the figure (the comment says why)
};

// The budgets measured from `data`, for every engine and against the baseline.
// Margins follow each metric's catalogue policy (metrics::MetricsOf): a count its exact
// tolerance, a time its relative tolerance with its floor. The assertions fit the
// source: submissions for Metal, kernels and host launches for trace-event JSON.
std::vector<Budget> Budgets(const suite::SuiteConfig& config, const suite::SuiteData& data);

// The suite's C++ source: the fixture whose Config() builds `config`, the budgets and
// the golden test. `provenance` says which recordings it was measured on.
std::string RenderSource(const suite::SuiteConfig& config, const suite::SuiteData& data,
                         const std::string& provenance);

// A path as the generated CMakeLists.txt spells it from `suite_dir`:
// "${CMAKE_CURRENT_SOURCE_DIR}/<relative>" when both share a directory below the root,
// else absolute. Both are absolute, normal paths. A path holding ';' or a control
// character cannot be one CMake argument: scaffold.bad_path.
StatusOr<std::string> CMakePathFrom(const std::string& suite_dir, const std::string& target);

// The suite's CMakeLists.txt: a project of its own when it is the top-level directory
// (find_package(PerfGate)), or a subdirectory of a project that has perfgate.
std::string RenderCMakeLists(const std::string& name, const std::string& recordings_ref,
                             const std::string& golden_ref);

// `word` quoted for a POSIX shell when it needs it (perfgate/core/process.h).
using ::perfgate::ShellQuote;

// The two commands that build and run the suite from the current directory: configure
// and build, then ctest. `prefix` (where perfgate is installed) is given to CMake when
// not empty.
std::pair<std::string, std::string> BuildAndRunCommands(const std::string& suite_dir, const std::string& build_dir,
                                                        const std::string& prefix);

}  // namespace perfgate::cli::scaffold

#endif  // PERFGATE_TOOLS_PERFGATE_NEW_SUITE_RENDER_H_
