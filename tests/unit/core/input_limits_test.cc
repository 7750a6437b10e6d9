// Input limits and the one checked read: sizes, gzip bombs, non-blocking opens, links
// that loop, permissions, and the process-wide setting.
#include "perfgate/core/input_limits.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "core/text_input.h"
#include "unit/core/as_nobody.h"

namespace perfgate {
namespace {

// Sets the process-wide limits for one test; after it, the environment applies again.
class ScopedLimits {
 public:
  explicit ScopedLimits(InputLimits limits) { SetInputLimits(limits); }
  ~ScopedLimits() { ClearInputLimits(); }
};

class InputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "perfgate-limits-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(::mkdir(dir_.c_str(), 0700), 0);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string dir_;
};

// gzip (one member) of `text`.
std::string Gzip(const std::string& text, int level = 9) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, text.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST(ParseByteCount, ReadsDigitsWithBinaryUnits) {
  EXPECT_EQ(*ParseByteCount("4096", "x"), 4096u);
  EXPECT_EQ(*ParseByteCount("1K", "x"), 1024u);
  EXPECT_EQ(*ParseByteCount("500M", "x"), 500ull << 20);
  EXPECT_EQ(*ParseByteCount("2GiB", "x"), 2ull << 30);
  EXPECT_EQ(*ParseByteCount("3gb", "x"), 3ull << 30);
  EXPECT_EQ(*ParseByteCount("1T", "x"), 1ull << 40);
}

TEST(ParseByteCount, RefusesWhatIsNoPositiveCount) {
  for (const char* bad : {"", "0", "0K", "-1", "1.5G", "G", "12Q", "1KK", "99999999999999999999", "16777216T",
                          " 1", "1 "}) {
    auto r = ParseByteCount(bad, "--max-input-bytes");
    ASSERT_FALSE(r.ok()) << "'" << bad << "'";
    EXPECT_EQ(r.status().code(), "input.bad_limit") << bad;
    EXPECT_EQ(r.status().kind(), ErrorKind::kUsage);
    EXPECT_NE(r.status().message().find("--max-input-bytes '"), std::string::npos);
  }
}

TEST(InputLimits, InflatedCapIsTheRatioAboveTheFloorAndBelowTheInputLimit) {
  InputLimits l;
  EXPECT_EQ(l.MaxInflatedBytes(1000), InputLimits::kGzipFloorBytes);          // small: the floor
  EXPECT_EQ(l.MaxInflatedBytes(10ull << 20), 1000ull << 20);                  // 10 MiB x 100
  EXPECT_EQ(l.MaxInflatedBytes(100ull << 20), InputLimits::kDefaultMaxInputBytes);  // capped
  l.max_gzip_ratio = UINT64_MAX;
  EXPECT_EQ(l.MaxInflatedBytes(UINT64_MAX / 2), l.max_input_bytes);  // no overflow
}

TEST(InputLimits, FromEnvironmentReadsBothVariablesAndRefusesBadOnes) {
  std::map<std::string, std::string> vars = {{"PERFGATE_MAX_INPUT_BYTES", "3G"}, {"PERFGATE_MAX_GZIP_RATIO", "7"}};
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto l = InputLimitsFromEnvironment(env);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->max_input_bytes, 3ull << 30);
  EXPECT_EQ(l->max_gzip_ratio, 7u);
  vars["PERFGATE_MAX_INPUT_BYTES"] = "lots";
  auto bad = InputLimitsFromEnvironment(env);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), "input.bad_limit");
  EXPECT_NE(bad.status().message().find("PERFGATE_MAX_INPUT_BYTES 'lots'"), std::string::npos);
  vars.clear();
  EXPECT_EQ(InputLimitsFromEnvironment(env)->max_input_bytes, InputLimits::kDefaultMaxInputBytes);
}

TEST(InputLimits, TheProcessEnvironmentAppliesUntilLimitsAreSet) {
  ::setenv("PERFGATE_MAX_INPUT_BYTES", "123", 1);
  EXPECT_EQ(CurrentInputLimits()->max_input_bytes, 123u);
  {
    ScopedLimits set({456, 100});
    EXPECT_EQ(CurrentInputLimits()->max_input_bytes, 456u);
  }
  EXPECT_EQ(CurrentInputLimits()->max_input_bytes, 123u);
  ::setenv("PERFGATE_MAX_INPUT_BYTES", "nope", 1);
  EXPECT_EQ(CurrentInputLimits().status().code(), "input.bad_limit");
  ::unsetenv("PERFGATE_MAX_INPUT_BYTES");
  EXPECT_EQ(CurrentInputLimits()->max_input_bytes, InputLimits::kDefaultMaxInputBytes);
}

TEST_F(InputFiles, AFileOverTheLimitIsTooLargeAndOneAtItReads) {
  const std::string path = Write("x.txt", std::string(100, 'a'));
  {
    ScopedLimits limits({99, 100});
    auto r = internal::ReadWholeFile(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), "io.too_large");
    EXPECT_NE(r.status().message().find("100 bytes"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("--max-input-bytes"), std::string::npos);
  }
  ScopedLimits limits({100, 100});
  auto r = internal::ReadWholeFile(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size(), 100u);
}

TEST_F(InputFiles, AGzipBombStopsAtTheRatioNotAtMemory) {
  // 80 MiB of zeros compress about 1000:1: past 100 x and past the 64 MiB floor.
  const std::string path = Write("bomb.gz", Gzip(std::string(80u << 20, '\0')));
  auto r = internal::ReadWholeFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.gzip_bomb");
  EXPECT_NE(r.status().message().find("100 times the compressed size"), std::string::npos) << r.status().message();
  // Raised, the same file reads.
  ScopedLimits limits({InputLimits::kDefaultMaxInputBytes, 2000});
  auto raised = internal::ReadWholeFile(path);
  ASSERT_TRUE(raised.ok()) << raised.status().ToString();
  EXPECT_EQ(raised->size(), 80u << 20);
}

TEST_F(InputFiles, InflatingPastTheInputLimitIsABombWhateverTheRatio) {
  ScopedLimits limits({4096, 100});
  const std::string gz = Gzip(std::string(5000, 'z'));
  ASSERT_LT(gz.size(), 4096u);
  auto r = internal::Gunzip(gz, "mem.gz");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.gzip_bomb");
  EXPECT_NE(r.status().message().find("the input limit"), std::string::npos);
  EXPECT_TRUE(internal::Gunzip(Gzip(std::string(4096, 'z')), "ok.gz").ok());
}

TEST_F(InputFiles, ARealCompressionRatioReadsUnderTheDefaults) {
  // Text that compresses like an export (about 20:1) and inflates past the floor.
  std::string text;
  for (int i = 0; text.size() < (70u << 20); ++i) {
    text += "<row><sample-time id=\"" + std::to_string(i) + "\">" + std::to_string(int64_t{i} * 7919 % 100003) +
            "</sample-time></row>\n";
  }
  const std::string path = Write("export.xml.gz", Gzip(text, 1));
  auto r = internal::ReadWholeFile(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, text);
}

TEST_F(InputFiles, AFifoWithAWriterIsStillRefusedWithoutReading) {
  // The descriptor is checked, not the name: even an open FIFO is no file.
  const std::string fifo = dir_ + "/f";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int keep_open = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(keep_open, 0);
  auto r = internal::ReadWholeFile(fifo);
  ::close(keep_open);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.not_a_file");
  EXPECT_NE(r.status().message().find("a FIFO"), std::string::npos);
}

TEST_F(InputFiles, ASymlinkLoopIsNamedAsOne) {
  const std::string loop = dir_ + "/loop";
  ASSERT_EQ(::symlink("loop", loop.c_str()), 0);
  auto r = internal::ReadWholeFile(loop);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.symlink_loop");
  EXPECT_EQ(internal::CheckReadableFile(loop).code(), "io.symlink_loop");
}

TEST_F(InputFiles, PermissionDeniedIsReportedAsItself) {
  const std::string path = Write("secret.xml", "<x/>");
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  const std::string code = testing_support::AsUnprivileged([&] {
    auto r = internal::ReadWholeFile(path);
    return r.ok() ? std::string("ok") : r.status().code();
  });
  EXPECT_EQ(code, "io.permission_denied");
}

TEST_F(InputFiles, ABadEnvironmentLimitIsAnErrorOfTheRead) {
  const std::string path = Write("x.txt", "abc");
  ::setenv("PERFGATE_MAX_INPUT_BYTES", "ten", 1);
  auto r = internal::ReadWholeFile(path);
  ::unsetenv("PERFGATE_MAX_INPUT_BYTES");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "input.bad_limit");
  EXPECT_TRUE(internal::ReadWholeFile(path).ok());
}

}  // namespace
}  // namespace perfgate
