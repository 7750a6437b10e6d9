// The tracer's NVTX handlers. NVTX (header-only nvtx3, as PyTorch, cuBLAS and most
// engines use it) loads NVTX_INJECTION64_PATH on a process's first NVTX call and calls
// its InitializeInjectionNvtx2, which fills NVTX's function tables. Each closed range
// becomes a RangeRecord on CUPTI's clock and the OS thread id, so the trace puts it on
// the same host lane as the API calls it encloses. CUPTI's own NVTX support
// (NVTX_INJECTION64_PATH=libcupti.so with CUPTI_ACTIVITY_KIND_MARKER) gave no marker
// records on the H200, hence these.
#include <unistd.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#undef NVTX_NO_IMPL

#include <atomic>
#include <deque>
#include <map>
#include <vector>

#include "cupti/tracer_state.h"

namespace perfgate::cupti::tracer {
namespace {

struct Domain {
  std::string name;
};

// A range opened and not yet closed.
struct OpenRange {
  std::string name;
  const Domain* domain = nullptr;
  uint64_t start_ns = 0;
  uint32_t tid = 0;
};

// What NVTX handles point into, and the ranges started and not ended. Never destroyed:
// a thread may still call NVTX while exit() runs the static destructors.
struct Registry {
  std::mutex mu;
  std::deque<Domain> domains;
  std::deque<std::string> strings;
  std::map<nvtxRangeId_t, OpenRange> started;  // nvtxRangeStart ids not ended yet
  std::atomic<uint64_t> open_pushes{0};
  std::atomic<uint64_t> next_range_id{1};
};
Registry* g_registry = new Registry();

// Push/pop stacks of this thread, per domain (nullptr: the default domain).
thread_local std::map<const Domain*, std::vector<OpenRange>> t_stacks;

std::string Utf8(const wchar_t* text) {
  std::string out;
  for (; text != nullptr && *text != 0; ++text) {
    const uint32_t c = static_cast<uint32_t>(*text);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6)), out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12)), out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18)), out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F)), out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string Message(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return "";
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii != nullptr ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE: return Utf8(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered != nullptr ? *reinterpret_cast<const std::string*>(a->message.registered) : "";
    default: return "";
  }
}

OpenRange Opening(std::string name, const Domain* domain) { return {std::move(name), domain, Now(), OsThreadId()}; }

void Close(const OpenRange& open, bool start_end, int depth) {
  const uint64_t end = Now();
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  EnsureRegistered(s);
  RangeRecord r;
  r.name = open.name;
  r.domain = open.domain != nullptr ? open.domain->name : "";
  r.start_end = start_end;
  r.start_ns = open.start_ns;
  r.end_ns = end;
  r.pid = static_cast<uint32_t>(getpid());
  r.tid = open.tid;
  r.depth = depth;
  s.capture.ranges.push_back(std::move(r));
}

int Push(const Domain* domain, std::string name) {
  std::vector<OpenRange>& stack = t_stacks[domain];
  stack.push_back(Opening(std::move(name), domain));
  ++g_registry->open_pushes;
  return static_cast<int>(stack.size()) - 1;
}

int Pop(const Domain* domain) {
  std::vector<OpenRange>& stack = t_stacks[domain];
  if (stack.empty()) {
    State& s = GetState();
    std::lock_guard<std::mutex> lock(s.mu);
    ++s.capture.other_records["nvtx_pop_without_push"];
    return -1;
  }
  const OpenRange open = std::move(stack.back());
  stack.pop_back();
  --g_registry->open_pushes;
  Close(open, false, static_cast<int>(stack.size()));
  return static_cast<int>(stack.size());
}

nvtxRangeId_t Start(const Domain* domain, std::string name) {
  const nvtxRangeId_t id = g_registry->next_range_id++;
  OpenRange open = Opening(std::move(name), domain);
  std::lock_guard<std::mutex> lock(g_registry->mu);
  g_registry->started[id] = std::move(open);
  return id;
}

void End(nvtxRangeId_t id) {
  OpenRange open;
  {
    std::lock_guard<std::mutex> lock(g_registry->mu);
    auto it = g_registry->started.find(id);
    if (it == g_registry->started.end()) return;  // ended twice, or started in the parent of a fork
    open = std::move(it->second);
    g_registry->started.erase(it);
  }
  Close(open, true, 0);
}

void Mark(const Domain* domain, std::string name) {
  MarkRecord m{std::move(name), domain != nullptr ? domain->name : "", Now(), static_cast<uint32_t>(getpid()),
               OsThreadId()};
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  EnsureRegistered(s);
  s.capture.marks.push_back(std::move(m));
}

const Domain* AsDomain(nvtxDomainHandle_t d) { return reinterpret_cast<const Domain*>(d); }

// The handlers NVTX calls, one per function of its tables.
int NVTX_API RangePushA(const char* m) { return Push(nullptr, m != nullptr ? m : ""); }
int NVTX_API RangePushW(const wchar_t* m) { return Push(nullptr, Utf8(m)); }
int NVTX_API RangePushEx(const nvtxEventAttributes_t* a) { return Push(nullptr, Message(a)); }
int NVTX_API RangePop() { return Pop(nullptr); }
nvtxRangeId_t NVTX_API RangeStartA(const char* m) { return Start(nullptr, m != nullptr ? m : ""); }
nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* m) { return Start(nullptr, Utf8(m)); }
nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* a) { return Start(nullptr, Message(a)); }
void NVTX_API RangeEnd(nvtxRangeId_t id) { End(id); }
void NVTX_API MarkA(const char* m) { Mark(nullptr, m != nullptr ? m : ""); }
void NVTX_API MarkW(const wchar_t* m) { Mark(nullptr, Utf8(m)); }
void NVTX_API MarkEx(const nvtxEventAttributes_t* a) { Mark(nullptr, Message(a)); }
void NVTX_API NameOsThreadA(uint32_t tid, const char* name) {
  State& s = GetState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.capture.thread_names[tid] = name != nullptr ? name : "";
}

int NVTX_API DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return Push(AsDomain(d), Message(a)); }
int NVTX_API DomainRangePop(nvtxDomainHandle_t d) { return Pop(AsDomain(d)); }
nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return Start(AsDomain(d), Message(a));
}
void NVTX_API DomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) { End(id); }
void NVTX_API DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { Mark(AsDomain(d), Message(a)); }
nvtxDomainHandle_t NewDomain(std::string name) {
  std::lock_guard<std::mutex> lock(g_registry->mu);
  g_registry->domains.push_back({std::move(name)});
  return reinterpret_cast<nvtxDomainHandle_t>(&g_registry->domains.back());
}

nvtxStringHandle_t NewString(std::string text) {
  std::lock_guard<std::mutex> lock(g_registry->mu);
  g_registry->strings.push_back(std::move(text));
  return reinterpret_cast<nvtxStringHandle_t>(&g_registry->strings.back());
}

nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) { return NewDomain(name != nullptr ? name : ""); }
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) { return NewDomain(Utf8(name)); }
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}  // kept: ranges still name it
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* text) {
  return NewString(text != nullptr ? text : "");
}
nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* text) {
  return NewString(Utf8(text));
}

template <typename Fn>
void Install(NvtxFunctionTable table, unsigned int size, unsigned int id, Fn fn) {
  if (table != nullptr && id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool InstallCore(const NvtxExportTableCallbacks* callbacks) {
  NvtxFunctionTable t = nullptr;
  unsigned int n = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) == 0) return false;
  Install(t, n, NVTX_CBID_CORE_MarkEx, MarkEx);
  Install(t, n, NVTX_CBID_CORE_MarkA, MarkA);
  Install(t, n, NVTX_CBID_CORE_MarkW, MarkW);
  Install(t, n, NVTX_CBID_CORE_RangeStartEx, RangeStartEx);
  Install(t, n, NVTX_CBID_CORE_RangeStartA, RangeStartA);
  Install(t, n, NVTX_CBID_CORE_RangeStartW, RangeStartW);
  Install(t, n, NVTX_CBID_CORE_RangeEnd, RangeEnd);
  Install(t, n, NVTX_CBID_CORE_RangePushEx, RangePushEx);
  Install(t, n, NVTX_CBID_CORE_RangePushA, RangePushA);
  Install(t, n, NVTX_CBID_CORE_RangePushW, RangePushW);
  Install(t, n, NVTX_CBID_CORE_RangePop, RangePop);
  Install(t, n, NVTX_CBID_CORE_NameOsThreadA, NameOsThreadA);
  return true;
}

bool InstallDomains(const NvtxExportTableCallbacks* callbacks) {
  NvtxFunctionTable t = nullptr;
  unsigned int n = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) == 0) return false;
  Install(t, n, NVTX_CBID_CORE2_DomainMarkEx, DomainMarkEx);
  Install(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, DomainRangeStartEx);
  Install(t, n, NVTX_CBID_CORE2_DomainRangeEnd, DomainRangeEnd);
  Install(t, n, NVTX_CBID_CORE2_DomainRangePushEx, DomainRangePushEx);
  Install(t, n, NVTX_CBID_CORE2_DomainRangePop, DomainRangePop);
  Install(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, DomainRegisterStringA);
  Install(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, DomainRegisterStringW);
  Install(t, n, NVTX_CBID_CORE2_DomainCreateA, DomainCreateA);
  Install(t, n, NVTX_CBID_CORE2_DomainCreateW, DomainCreateW);
  Install(t, n, NVTX_CBID_CORE2_DomainDestroy, DomainDestroy);
  return true;
}

}  // namespace

uint64_t OpenNvtxRanges() {
  std::lock_guard<std::mutex> lock(g_registry->mu);
  return g_registry->open_pushes.load() + g_registry->started.size();
}

void ResetNvtxAfterFork() {
  // The open ranges are the parent's: this thread's pushes and every start. The old
  // registry is leaked, not freed: the child's NVTX still holds handles into its
  // domains and strings, and its lock may have been held at the fork.
  g_registry = new Registry();
  t_stacks.clear();
}

}  // namespace perfgate::cupti::tracer

// NVTX's entry point (NVTX_INJECTION64_PATH): called once per NVTX instance in the
// process (each library that compiled nvtx3 in has its own tables). 1: installed.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace perfgate::cupti::tracer;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr) return 0;
  {
    State& s = GetState();
    std::lock_guard<std::mutex> lock(s.mu);
    EnsureRegistered(s);
  }
  return InstallCore(callbacks) && InstallDomains(callbacks) ? 1 : 0;
}
