// The summary cache's encoding of a TrialSummary: one Fields() walk over every field
// serves both directions, so writing and reading cannot drift apart.
#include "bundle/summary_codec.h"

#include "core/byte_codec.h"

namespace perfgate::bundle::internal {
namespace {

using attribution::BucketStats;
using attribution::LevelItem;
using attribution::TrialSummary;
using perfgate::internal::ByteReader;
using perfgate::internal::ByteWriter;

// Writing: each field through ByteWriter.
struct Out {
  ByteWriter w;
  template <typename T>
  void operator()(const T& v) { w.Put(v); }
};

// Reading: each field through ByteReader.
struct In {
  ByteReader r;
  template <typename T>
  void operator()(T& v) { r.Get(&v); }
};

template <typename Io, typename S>
void BucketFields(Io& io, S& b) {
  io(b.count), io(b.sum_ns), io(b.p50_ns), io(b.p95_ns), io(b.mean_ns);
}
template <typename Io, typename S>
void LevelItemFields(Io& io, S& i) {
  io(i.calls), io(i.items), io(i.groups), io(i.host_sum_ns), io(i.gpu_sum_ns), io(i.gpu_union_ns);
  io(i.short_name), io(i.family), io(i.min_ns), io(i.max_ns), io(i.median_ns);
}
template <typename Io, typename S>
void ScalarFields(Io& io, S& s) {
  io(s.path), io(s.source), io(s.tokens), io(s.tokens_source), io(s.tokens_in_trace);
  io(s.items_read), io(s.items), io(s.excluded_other_process), io(s.excluded_no_owner);
  io(s.excluded_unnamed_owner), io(s.excluded_outside_window), io(s.window_start_ns), io(s.window_end_ns);
  io(s.total_sum_ns), io(s.busy_union_ns);
  io(s.items_per_token), io(s.gpu_us_per_token), io(s.busy_us_per_token);
  io(s.items_with_call), io(s.items_of_unknown_call), io(s.items_without_call);
  io(s.launch_calls), io(s.launch_host_ns), io(s.phase_units), io(s.labelled_units);
  io(s.registered_kernels);
}

void PutStrings(ByteWriter& w, const std::vector<std::string>& v) {
  w.Put(static_cast<uint64_t>(v.size()));
  for (const std::string& s : v) w.Put(s);
}
void GetStrings(ByteReader& r, std::vector<std::string>* v) {
  v->resize(r.Count(sizeof(uint64_t)));
  for (std::string& s : *v) r.Get(&s);
}

// A keyed container: its size, then each key and value.
template <typename Map, typename PutValue>
void PutMap(ByteWriter& w, const Map& m, PutValue put) {
  w.Put(static_cast<uint64_t>(m.size()));
  for (const auto& [key, value] : m) {
    w.Put(key);
    put(value);
  }
}
template <typename Map, typename GetValue>
void GetMap(ByteReader& r, Map* m, GetValue get) {
  const uint64_t n = r.Count(sizeof(uint64_t));
  for (uint64_t i = 0; i < n && !r.failed(); ++i) {
    std::string key;
    r.Get(&key);
    get(&(*m)[std::move(key)]);
  }
}

void PutDiagnostics(ByteWriter& w, const Diagnostics& d) {
  const std::vector<Diagnostics::Entry> entries = d.Entries();
  w.Put(static_cast<uint64_t>(entries.size()));
  for (const Diagnostics::Entry& e : entries) {
    w.Put(e.code), w.Put(e.count), w.Put(e.first_location.path);
    w.Put(e.first_location.line), w.Put(e.first_location.column), w.Put(e.first_detail);
  }
}
bool GetDiagnostics(ByteReader& r, Diagnostics* d) {
  const uint64_t n = r.Count(sizeof(uint64_t));
  for (uint64_t i = 0; i < n && !r.failed(); ++i) {
    Diagnostics::Entry e;
    r.Get(&e.code), r.Get(&e.count), r.Get(&e.first_location.path);
    r.Get(&e.first_location.line), r.Get(&e.first_location.column), r.Get(&e.first_detail);
    // A code this build does not catalogue is another build's cache: Add would abort.
    if (r.failed() || FindDiagnostic(e.code) == nullptr || e.count < 1) return false;
    d->Add(e.code, e.first_location, e.first_detail);
    d->AddCount(e.code, e.count - 1);
  }
  return !r.failed();
}

}  // namespace

std::string EncodeTrialSummary(const TrialSummary& s) {
  // A field added to TrialSummary must be added here (and to the decoder), or the
  // cache would drop it. The size check fails the build on the platform it was
  // written on until then.
#if defined(__GLIBCXX__) && defined(__x86_64__)
  static_assert(sizeof(TrialSummary) == 800, "TrialSummary changed: add the new field to the summary codec");
#endif
  Out out;
  ScalarFields(out, s);
  ByteWriter& w = out.w;
  w.Put(static_cast<uint64_t>(s.buckets.size()));
  for (const auto& [name, b] : s.buckets) {
    w.Put(name);
    BucketFields(out, b);
  }
  w.Put(static_cast<uint64_t>(s.source_counts.size()));
  for (const auto& [name, n] : s.source_counts) w.Put(name), w.Put(n);
  for (const auto* level : {&s.families, &s.phases, &s.kernels}) {
    PutMap(w, *level, [&](const LevelItem& i) { LevelItemFields(out, i); });
  }
  PutMap(w, s.kernel_registry, [&](const std::vector<std::string>& v) { PutStrings(w, v); });
  PutStrings(w, std::vector<std::string>(s.known_kernel_families.begin(), s.known_kernel_families.end()));
  PutMap(w, s.extras, [&](double v) { w.Put(v); });
  PutDiagnostics(w, s.diagnostics);
  return w.Take();
}

bool DecodeTrialSummary(std::string_view bytes, TrialSummary* summary) {
  TrialSummary s;
  In in{ByteReader(bytes)};
  ScalarFields(in, s);
  ByteReader& r = in.r;
  s.buckets.resize(r.Count(sizeof(uint64_t)));
  for (auto& [name, b] : s.buckets) {
    r.Get(&name);
    BucketFields(in, b);
  }
  s.source_counts.resize(r.Count(sizeof(uint64_t)));
  for (auto& [name, n] : s.source_counts) r.Get(&name), r.Get(&n);
  for (auto* level : {&s.families, &s.phases, &s.kernels}) {
    GetMap(r, level, [&](LevelItem* i) { LevelItemFields(in, *i); });
  }
  GetMap(r, &s.kernel_registry, [&](std::vector<std::string>* v) { GetStrings(r, v); });
  std::vector<std::string> families;
  GetStrings(r, &families);
  s.known_kernel_families.insert(families.begin(), families.end());
  GetMap(r, &s.extras, [&](double* v) { r.Get(v); });
  if (!GetDiagnostics(r, &s.diagnostics) || r.failed() || !r.at_end()) return false;
  *summary = std::move(s);
  return true;
}

}  // namespace perfgate::bundle::internal
