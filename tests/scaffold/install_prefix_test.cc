// Where `new-suite` finds the installed perfgate, on injected paths: a scratch prefix
// with bin/perfgate and the CMake package in each place an install puts it.
#include "install_prefix.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using perfgate::cli::InstallPrefixOf;
using perfgate::cli::ResolveArgv0;

// A fresh <work>/<test>/ holding <prefix>/bin/perfgate (executable) and, when
// `package_dir` is not empty, <prefix>/<package_dir>/cmake/PerfGate/PerfGateConfig.cmake.
fs::path Prefix(const std::string& package_dir) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path root = fs::path(SCAFFOLD_WORK_DIR) / "install_prefix" / info->name();
  fs::remove_all(root);
  const fs::path prefix = root / "prefix";
  fs::create_directories(prefix / "bin");
  std::ofstream(prefix / "bin" / "perfgate") << "#!/bin/sh\n";
  fs::permissions(prefix / "bin" / "perfgate", fs::perms::owner_all);
  if (!package_dir.empty()) {
    fs::create_directories(prefix / package_dir / "cmake" / "PerfGate");
    std::ofstream(prefix / package_dir / "cmake" / "PerfGate" / "PerfGateConfig.cmake") << "\n";
  }
  return fs::canonical(prefix);
}

TEST(InstallPrefix, ThePackageInLibLib64OrAMultiarchDirNamesThePrefix) {
  for (const char* libdir : {"lib", "lib64", "lib/x86_64-linux-gnu"}) {
    const fs::path prefix = Prefix(libdir);
    EXPECT_EQ(InstallPrefixOf((prefix / "bin" / "perfgate").string()), prefix.string()) << libdir;
  }
}

TEST(InstallPrefix, NoPackageBesideBinIsABuildTree) {
  const fs::path prefix = Prefix("");
  EXPECT_EQ(InstallPrefixOf((prefix / "bin" / "perfgate").string()), "");
  fs::create_directories(prefix / "lib" / "cmake" / "Other");
  EXPECT_EQ(InstallPrefixOf((prefix / "bin" / "perfgate").string()), "");
  EXPECT_EQ(InstallPrefixOf(""), "");
}

TEST(InstallPrefix, AnExecutableOutsideBinIsNotInstalled) {
  const fs::path prefix = Prefix("lib");
  fs::create_directories(prefix / "tools");
  EXPECT_EQ(InstallPrefixOf((prefix / "tools" / "perfgate").string()), "");
}

// The fallback where the system does not say: argv[0] through PATH, links resolved
// (as Homebrew links bin/perfgate into its prefix).
TEST(InstallPrefix, Argv0IsFoundThroughPathAndItsLinksResolved) {
  const fs::path prefix = Prefix("lib");
  const fs::path exe = prefix / "bin" / "perfgate";
  const fs::path links = prefix.parent_path() / "links";
  fs::create_directories(links / "bin");
  fs::create_symlink(exe, links / "bin" / "perfgate");
  const std::string path_env = "/nonexistent:" + (prefix.parent_path() / "empty").string() + ":" +
                               (links / "bin").string();
  EXPECT_EQ(ResolveArgv0("perfgate", path_env), exe.string());
  EXPECT_EQ(InstallPrefixOf(ResolveArgv0("perfgate", path_env)), prefix.string());
  // A path with a '/' is not looked up in PATH.
  EXPECT_EQ(ResolveArgv0((links / "bin" / "perfgate").string(), ""), exe.string());
  EXPECT_EQ(ResolveArgv0("perfgate", "/nonexistent"), "");
  EXPECT_EQ(ResolveArgv0("", path_env), "");
}

TEST(InstallPrefix, APathEntryWithoutTheExecutableBitIsSkipped) {
  const fs::path prefix = Prefix("lib");
  const fs::path other = prefix.parent_path() / "other";
  fs::create_directories(other);
  std::ofstream(other / "perfgate") << "not a program\n";
  fs::permissions(other / "perfgate", fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(ResolveArgv0("perfgate", other.string() + ":" + (prefix / "bin").string()),
            (prefix / "bin" / "perfgate").string());
}

}  // namespace
