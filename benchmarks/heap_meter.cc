#include "heap_meter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include <pugixml.hpp>

namespace perfgate::bench {
namespace {

std::atomic<size_t> live{0};
std::atomic<size_t> peak{0};

void* Track(void* p) {
  if (p == nullptr) return p;
  size_t now = live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  size_t old = peak.load();
  while (now > old && !peak.compare_exchange_weak(old, now)) {
  }
  return p;
}

void Untrack(void* p) {
  if (p != nullptr) live.fetch_sub(malloc_usable_size(p));
}

void* PugiAllocate(size_t size) { return Track(std::malloc(size)); }
void PugiDeallocate(void* p) {
  Untrack(p);
  std::free(p);
}

// pugixml allocates through these once installed at start-up.
const bool kInstalled = [] {
  pugi::set_memory_management_functions(PugiAllocate, PugiDeallocate);
  return true;
}();

}  // namespace

size_t LiveHeapBytes() { return live.load(); }
size_t PeakHeapBytes() { return peak.load(); }
void ResetPeak() { peak.store(live.load()); }

namespace {
// A "Name:  123 kB" line of /proc/self/status, in bytes.
size_t StatusKilobytes(const std::string& name) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, name.size() + 1, name + ":") == 0) return std::stoull(line.substr(name.size() + 1)) * 1024;
  }
  return 0;
}
}  // namespace

size_t RssBytes() { return StatusKilobytes("VmRSS"); }
size_t PeakRssBytes() { return StatusKilobytes("VmHWM"); }
void ResetPeakRss() {
  malloc_trim(0);  // freed memory the allocator still holds would hide the next peak
  std::ofstream("/proc/self/clear_refs") << "5";
}

}  // namespace perfgate::bench

void* operator new(size_t size) {
  void* p = perfgate::bench::Track(std::malloc(size == 0 ? 1 : size));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept {
  perfgate::bench::Untrack(p);
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }
