// A directory of the running test's own, for the bisect tests: ctest -j runs each test
// in a process of its own, and two of them must never share files.
#ifndef PERFGATE_TESTS_UNIT_BISECT_TEST_DIR_H_
#define PERFGATE_TESTS_UNIT_BISECT_TEST_DIR_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace perfgate::bisect::test {

// TempDir/<prefix>_<pid>_<test name>, emptied (not created).
inline std::filesystem::path FreshTestDir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      (prefix + "_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace perfgate::bisect::test

#endif  // PERFGATE_TESTS_UNIT_BISECT_TEST_DIR_H_
