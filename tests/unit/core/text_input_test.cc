#include "core/text_input.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace perfgate::internal {
namespace {

TEST(Utf8, AcceptsValidText) {
  EXPECT_EQ(FindInvalidUtf8(""), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("plain ascii, long enough for the 8-byte path"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("197.58 \xC2\xB5s \xE2\x82\xAC \xF0\x9F\x98\x80"), std::string_view::npos);
}

TEST(Utf8, FindsTheFirstBadByte) {
  EXPECT_EQ(FindInvalidUtf8("abc\xFF"), 3u);
  EXPECT_EQ(FindInvalidUtf8("abcdefghij\xC3("), 10u);        // bad continuation
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF"), 0u);                 // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("ok \xED\xA0\x80"), 3u);          // UTF-16 surrogate
  EXPECT_EQ(FindInvalidUtf8("ok \xF4\x90\x80\x80"), 3u);      // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("ok \xE2\x82"), 3u);              // truncated at the end
}

TEST(LineIndex, MapsOffsetsToOneBasedLineAndColumn) {
  LineIndex idx("ab\ncd\n\nef");
  auto at = [&](size_t off) {
    SourceLocation l = idx.Locate("f", off);
    return std::to_string(l.line) + ":" + std::to_string(l.column);
  };
  EXPECT_EQ(at(0), "1:1");
  EXPECT_EQ(at(1), "1:2");
  EXPECT_EQ(at(2), "1:3");  // the newline itself
  EXPECT_EQ(at(3), "2:1");
  EXPECT_EQ(at(6), "3:1");
  EXPECT_EQ(at(8), "4:2");
}

// The reference the one-pass scan must agree with: a line start after every '\n'.
std::vector<size_t> LineStartsByHand(std::string_view s) {
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

TEST(LineIndex, ValidatingBuildAgreesWithTheTwoSeparatePasses) {
  // Newlines and multi-byte sequences on every side of the 32-byte (SSE2) and 8-byte
  // (portable, as on ARM) steps, and an invalid byte now and then, so the mask of
  // newlines before a non-ASCII byte, the byte-wise hand-over and the lines after an
  // invalid byte are all exercised, on both paths.
  const std::vector<std::string> pieces = {"a", "\n", "\xC2\xB5", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "xyz\n"};
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33);
  };
  for (int trial = 0; trial < 400; ++trial) {
    std::string text;
    const size_t target = next() % 200;
    while (text.size() < target) text += pieces[next() % pieces.size()];
    if (trial % 4 == 3 && !text.empty()) text[next() % text.size()] = '\xFF';
    const std::vector<size_t> starts = LineStartsByHand(text);
    for (LineIndex::ScanPath path : {LineIndex::ScanPath::kFastest, LineIndex::ScanPath::kPortable}) {
      const int p = static_cast<int>(path);
      size_t bad = 0;
      const LineIndex fused = LineIndex::BuildValidatingUtf8(text, &bad, path);
      ASSERT_EQ(bad, FindInvalidUtf8(text)) << "trial " << trial << " path " << p;
      for (size_t off = 0; off <= text.size(); ++off) {
        const SourceLocation at = fused.Locate("f", off);
        const size_t line =
            static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), off) - starts.begin());
        ASSERT_EQ(static_cast<size_t>(at.line), line) << "trial " << trial << " path " << p << " offset " << off;
        ASSERT_EQ(static_cast<size_t>(at.column), off - starts[line - 1] + 1)
            << "trial " << trial << " path " << p << " offset " << off;
      }
    }
  }
}

TEST(ReadWholeFile, MissingFileIsNotFound) {
  auto r = ReadWholeFile("/nonexistent/file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.not_found");
}

}  // namespace
}  // namespace perfgate::internal

namespace perfgate::internal {
namespace {

std::string GzipForTest(const std::string& plain) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, plain.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  zs.avail_in = static_cast<uInt>(plain.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST(Gzip, ReadWholeFileInflatesByMagicBytes) {
  std::string plain;
  for (int i = 0; i < 5000; ++i) plain += "<row>" + std::to_string(i) + "</row>\n";
  const std::string gz = GzipForTest(plain);
  ASSERT_LT(gz.size(), plain.size() / 4);
  std::string path = "/tmp/perfgate-gzip-test.xml.gz";
  { std::FILE* f = std::fopen(path.c_str(), "wb"); std::fwrite(gz.data(), 1, gz.size(), f); std::fclose(f); }
  auto r = ReadWholeFile(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, plain);
  // Two concatenated members inflate to the concatenation.
  auto two = Gunzip(gz + GzipForTest("tail"), "x.gz");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, plain + "tail");
  std::remove(path.c_str());
}

TEST(Gzip, TruncatedOrCorruptStreamIsAnError) {
  const std::string gz = GzipForTest(std::string(10000, 'x') + "end");
  auto cut = Gunzip(gz.substr(0, gz.size() / 2), "cut.gz");
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), "io.bad_gzip");
  EXPECT_NE(cut.status().ToString().find("cut.gz: error[io.bad_gzip]: corrupt or truncated gzip data"),
            std::string::npos);
  std::string corrupt = gz;
  corrupt[12] ^= 0x55;
  EXPECT_FALSE(Gunzip(corrupt, "bad.gz").ok());
}

}  // namespace
}  // namespace perfgate::internal

namespace perfgate::internal {
namespace {

// A directory used to abort (ftell reports LONG_MAX, reserve throws) and a FIFO to
// block forever in fopen: only regular files are read.
TEST(ReadWholeFile, ADirectoryOrAFifoIsNoFileAndNeverBlocks) {
  const std::string dir = ::testing::TempDir() + "perfgate-not-a-file-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  auto d = ReadWholeFile(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), "io.not_a_file");
  EXPECT_NE(d.status().message().find("found a directory"), std::string::npos) << d.status().message();
  const std::string fifo = dir + "/pipe.xml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto f = ReadWholeFile(fifo);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), "io.not_a_file");
  EXPECT_NE(f.status().message().find("found a FIFO"), std::string::npos) << f.status().message();
  ::unlink(fifo.c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace perfgate::internal

#ifdef __linux__
#include <sys/inotify.h>

namespace perfgate::internal {
namespace {

// Opening a FIFO (or a device node) has side effects even when nothing is read: it
// releases a writer waiting in open(). inotify sees every open, so this shows the
// reader never opens a FIFO at all and refuses it from stat() alone.
TEST(ReadWholeFile, NeverOpensAFifo) {
  const std::string fifo = ::testing::TempDir() + "perfgate-never-open-" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int watcher = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watcher, 0);
  ASSERT_GE(::inotify_add_watch(watcher, fifo.c_str(), IN_OPEN), 0);
  auto read = ReadWholeFile(fifo);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), "io.not_a_file");
  EXPECT_EQ(CheckReadableFile(fifo).code(), "io.not_a_file");
  char events[4096];
  EXPECT_LT(::read(watcher, events, sizeof events), 0) << "the FIFO was opened";
  ::close(watcher);
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace perfgate::internal
#endif

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <sys/resource.h>

#include <fstream>

#include "core/json_document.h"

namespace perfgate::internal {
namespace {

// Leaves the process `headroom` bytes of address space beyond what it maps now, so the
// next large allocation fails with bad_alloc.
void LimitAddressSpace(size_t headroom) {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  statm >> pages;
  const rlim_t limit = static_cast<rlim_t>(pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) + headroom);
  struct rlimit rl = {limit, limit};
  ::setrlimit(RLIMIT_AS, &rl);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;  // gcc
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;  // clang
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

// Running out of memory is one code everywhere, resource.out_of_memory (exit 3): the
// file reader said io.out_of_memory and the JSON parser its reader's *.bad_json.
TEST(OutOfMemory, IsOneEnvironmentCodeForTheReaderAndTheJsonParser) {
  // Only the sanitizer build skips; the Release build runs this test.
  if (kUnderAddressSanitizer) {
    GTEST_SKIP() << "ASan's allocator reports an exhausted address space instead of throwing bad_alloc; "
                    "the Release build runs this test";
  }
  const std::string sparse = ::testing::TempDir() + "perfgate-oom-" + std::to_string(::getpid());
  { std::ofstream(sparse) << ""; }
  ASSERT_EQ(::truncate(sparse.c_str(), off_t{1} << 30), 0);  // 1 GiB of holes, no disk
  // One string of 200 MB: the lexer's buffer and the DOM's copy need more than the
  // headroom. (A DOM of many values would not do: nlohmann's destructor allocates
  // while unwinding a half-built array and terminates when memory is gone.)
  const std::string numbers = "[\"" + std::string(size_t{200} << 20, 'x') + "\"]";
  EXPECT_EXIT(
      {
        LimitAddressSpace(size_t{256} << 20);
        auto read = ReadWholeFile(sparse);
        auto parsed = ParseJsonDocument(numbers, "n.json", {"x.bad_json", "x.too_deep"});
        const bool ok = !read.ok() && read.status().code() == "resource.out_of_memory" &&
                        read.status().kind() == ErrorKind::kEnvironment && !parsed.ok() &&
                        parsed.status().code() == "resource.out_of_memory" &&
                        parsed.status().kind() == ErrorKind::kEnvironment;
        if (!ok) std::fprintf(stderr, "%s | %s\n", read.status().ToString().c_str(), parsed.status().ToString().c_str());
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  ::unlink(sparse.c_str());
}

}  // namespace
}  // namespace perfgate::internal
#endif
