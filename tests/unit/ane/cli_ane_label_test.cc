// `perfgate ane-dma --label`: the label ends up in JSON, so it must be well-formed
// UTF-8; overlong forms and surrogates were once let through.
#include <gtest/gtest.h>

#include <string>

#include "support/run_command.h"

namespace perfgate::ane {
namespace {

using testing_support::RunPerfgate;

// The label given as octal escapes, spelt by the shell's printf.
testing_support::CommandResult RunWithLabel(const std::string& octal) {
  return RunPerfgate("ane-dma --host-only --label \"$(printf '" + octal + "')\"");
}

TEST(AneCliLabel, RejectsMalformedUtf8) {
  for (const char* bad : {"\\300\\257",          // overlong '/'
                          "\\340\\200\\257",     // overlong '/' in three bytes
                          "\\360\\200\\200\\257",  // overlong '/' in four bytes
                          "\\355\\240\\200",     // U+D800, a surrogate
                          "\\364\\220\\200\\200",  // U+110000, past Unicode
                          "m3\\377", "\\342\\202"}) {  // a byte never in UTF-8; a truncated sequence
    auto r = RunWithLabel(bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("error[cli.usage]: --label is not valid UTF-8"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST(AneCliLabel, AcceptsWellFormedUtf8) {
  for (const char* good : {"m3u", "M\\303\\244c", "\\342\\202\\254", "\\360\\237\\230\\200",
                           "\\355\\237\\277", "\\364\\217\\277\\277"}) {  // ä, €, an emoji, U+D7FF, U+10FFFF
    auto r = RunWithLabel(good);
    EXPECT_EQ(r.exit_code, 0) << good << ": " << r.err;
  }
}

}  // namespace
}  // namespace perfgate::ane
