#include "mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "perfgate/core/input_limits.h"
#include "text_input.h"

namespace perfgate::internal {
namespace {

size_t PageSize() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

Status MapError(const std::string& path, int err) {
  if (err == ENOMEM) {
    return Status::Error("resource.out_of_memory", "not enough address space to map the file", {path},
                         ErrorKind::kEnvironment);
  }
  return Status::Error("io.cannot_map", std::string("cannot map the file: ") + std::strerror(err), {path});
}

}  // namespace

MappedFile::MappedFile(MappedFile&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, mapped_);
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (base_ != nullptr) ::munmap(base_, mapped_);
}

StatusOr<MappedFile> MapRegularFile(const std::string& path) {
  auto limits = CurrentInputLimits();
  if (!limits.ok()) return limits.status();
  uint64_t size = 0;
  auto fd = OpenRegularFile(path, limits->max_input_bytes, &size);
  if (!fd.ok()) return fd.status();
  ScopedFd closer(*fd);
  // Zero pages reserved for the whole length and one page more, then the file mapped
  // over their start: the rest of its last page and the page after it read as zeros.
  const size_t page = PageSize();
  MappedFile file;
  file.size_ = static_cast<size_t>(size);
  file.mapped_ = (file.size_ + MappedFile::kPadding + page - 1) / page * page + page;
  void* reserved = ::mmap(nullptr, file.mapped_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) return MapError(path, errno);
  file.base_ = static_cast<char*>(reserved);
  if (file.size_ > 0 &&
      ::mmap(reserved, file.size_, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, *fd, 0) == MAP_FAILED) {
    return MapError(path, errno);  // `file` unmaps the reservation
  }
  return file;
}

}  // namespace perfgate::internal
