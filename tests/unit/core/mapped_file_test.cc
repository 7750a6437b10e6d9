// MappedFile (core/mapped_file.h): the bytes are the file's, zeros stay readable past
// the end whatever the size's place in a page, and the refusals are ReadWholeFile's.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/mapped_file.h"
#include "core/text_input.h"

namespace perfgate::internal {
namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "perfgate-mapped-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(MappedFile, HoldsTheFilesBytesAndZerosPastTheEnd) {
  const long page = ::sysconf(_SC_PAGESIZE);
  // Sizes that end a page exactly, just before its end, 64 bytes before it, and mid-page.
  for (long size : {0L, 1L, page - 64, page - 63, page - 1, page, page + 1, 3 * page + 100}) {
    std::string bytes;
    for (long i = 0; i < size; ++i) bytes += static_cast<char>('a' + i % 26);
    const std::string path = WriteTemp(std::to_string(size), bytes);
    auto m = MapRegularFile(path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->bytes(), bytes) << size;
    ASSERT_GE(m->padding(), MappedFile::kPadding) << size;
    for (size_t i = 0; i < MappedFile::kPadding; ++i) {
      ASSERT_EQ(m->bytes().data()[m->bytes().size() + i], '\0') << "size " << size << ", byte " << i << " past the end";
    }
    // Moved, it still holds them (and the moved-from one unmaps nothing).
    MappedFile moved = std::move(*m);
    EXPECT_EQ(moved.bytes(), bytes);
    std::remove(path.c_str());
  }
}

TEST(MappedFile, RefusesWhatReadWholeFileRefuses) {
  const std::string dir = ::testing::TempDir() + "perfgate-mapped-dir-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  for (const std::string& path : {std::string("/nonexistent/file"), dir}) {
    auto mapped = MapRegularFile(path);
    auto read = ReadWholeFile(path);
    ASSERT_FALSE(mapped.ok()) << path;
    ASSERT_FALSE(read.ok()) << path;
    EXPECT_EQ(mapped.status().ToString(), read.status().ToString());
  }
  ::rmdir(dir.c_str());
  const std::string big = WriteTemp("big", std::string(2000, 'x'));
  ::setenv("PERFGATE_MAX_INPUT_BYTES", "1000", 1);
  auto mapped = MapRegularFile(big);
  auto read = ReadWholeFile(big);
  ::unsetenv("PERFGATE_MAX_INPUT_BYTES");
  ASSERT_FALSE(mapped.ok());
  EXPECT_EQ(mapped.status().code(), "io.too_large");
  EXPECT_EQ(mapped.status().ToString(), read.status().ToString());
  std::remove(big.c_str());
}

}  // namespace
}  // namespace perfgate::internal
