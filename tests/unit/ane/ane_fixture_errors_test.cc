// The fixture never throws out of a test: a recordings path the file system rejects is
// a failure that names it (std::filesystem once threw filesystem_error out of it).
#include "perfgate/gtest/ane_fixture.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>

#include "ane/ane_test_util.h"

namespace perfgate::testing {
namespace {

using ane::test::TempDir;

// Recordings under a directory whose name is longer than any file system allows, so
// looking for one fails with ENAMETOOLONG (not "no such file").
class FixtureWithUnusableRecordingsDir : public AneNotchFixture {
 protected:
  AneSuiteConfig Config() const override {
    AneSuiteConfig c;
    c.suite = "ane_fixture_errors_test";
    c.recordings_dir = dir_.path() + "/" + std::string(300, 'r');
    c.golden_dir = dir_.path();
    return c;
  }
  TempDir dir_;
};

#ifndef __APPLE__
TEST_F(FixtureWithUnusableRecordingsDir, LookingForARecordingFailsWithItsReason) {
  EXPECT_NONFATAL_FAILURE(EXPECT_EQ(RecordOrReplay("m5"), nullptr), "cannot look for the recording");
}
#endif

}  // namespace
}  // namespace perfgate::testing
