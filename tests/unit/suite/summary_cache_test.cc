// The summary cache (bundle/summary_cache.h) and the job setting (core/jobs.h): a
// cached summary is the summary, bit for bit; every change of a file or of the
// configuration misses; damaged entries, unwritable directories and errors never
// give a wrong or stale result; parallel reads give the serial results.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bundle/summary_codec.h"
#include "perfgate/bundle/summary_cache.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/core/jobs.h"

namespace perfgate::bundle {
namespace {

namespace fs = std::filesystem;
using attribution::AttributionOptions;
using attribution::TrialSummary;

// The bundled llama.cpp recording (3 Metal trials) and the PyTorch-profiler CUDA-graphs one (3
// trace-event JSON trials), copied so files can be touched; the cache in its own directory.
class SummaryCache : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("perfgate-cache-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const fs::path fixtures = fs::path(PERFGATE_SOURCE_DIR) / "fixtures/recordings";
    fs::copy(fixtures / "decode_q4_0/llama", root_ / "llama", fs::copy_options::recursive);
    fs::copy(fixtures / "torch_decode_h200/graphs", root_ / "graphs", fs::copy_options::recursive);
    cache_ = (root_ / "cache").string();
    SetJobs(0);
  }
  void TearDown() override {
    SetJobs(0);
    unsetenv(kJobsEnv);
    fs::remove_all(root_);
  }
  Trial TrialOf(const std::string& engine, int k) {
    auto r = DiscoverTrials((root_ / engine).string());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r->trials.at(k);
  }
  static AttributionOptions Llama() {
    AttributionOptions o;
    o.process_prefix = "llama";
    o.window = *attribution::ParseWindow("skip:6");
    o.tokens = 64;
    return o;
  }
  static AttributionOptions Graphs() {
    AttributionOptions o;
    o.all_processes = true;
    o.token_label = "decode_step";
    o.window = attribution::DecodeWindow::Label("decode_step");
    return o;
  }
  size_t Entries() const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache_, ec)) n += e.path().extension() == ".summary";
    return n;
  }
  fs::path root_;
  std::string cache_;
};

std::string Bytes(const TrialSummary& s) { return internal::EncodeTrialSummary(s); }

TEST_F(SummaryCache, AHitIsTheComputedSummaryBitForBit) {
  for (const auto& [engine, options] : {std::pair{"llama", Llama()}, std::pair{"graphs", Graphs()}}) {
    const Trial t = TrialOf(engine, 0);
    auto fresh = t.source->summarize(t.path, options);
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    CacheOutcome first, second;
    auto stored = CachedSummary(cache_, t, options, &first);
    auto hit = CachedSummary(cache_, t, options, &second);
    ASSERT_TRUE(stored.ok() && hit.ok());
    EXPECT_EQ(first, CacheOutcome::kStored) << engine;
    EXPECT_EQ(second, CacheOutcome::kHit) << engine;
    EXPECT_EQ(Bytes(*hit), Bytes(*fresh)) << engine;
    // Field by field where the encoding could hide a loss: doubles, maps, diagnostics.
    EXPECT_EQ(hit->gpu_us_per_token, fresh->gpu_us_per_token);
    EXPECT_EQ(hit->buckets.size(), fresh->buckets.size());
    EXPECT_EQ(hit->extras, fresh->extras);
    EXPECT_EQ(hit->kernels.size(), fresh->kernels.size());
    EXPECT_EQ(hit->known_kernel_families, fresh->known_kernel_families);
    EXPECT_EQ(hit->tokens_in_trace, fresh->tokens_in_trace);
    ASSERT_EQ(hit->diagnostics.Entries().size(), fresh->diagnostics.Entries().size());
    for (const auto& e : fresh->diagnostics.Entries()) {
      const Diagnostics::Entry* c = hit->diagnostics.Find(e.code);
      ASSERT_NE(c, nullptr) << e.code;
      EXPECT_EQ(c->count, e.count);
      EXPECT_EQ(c->first_location.line, e.first_location.line);
      EXPECT_EQ(c->first_detail, e.first_detail);
    }
  }
  // The kernel source names its kernels and counts extras: the test above compared them.
  auto graphs = CachedSummary(cache_, TrialOf("graphs", 0), Graphs());
  EXPECT_GT(graphs->kernels.size(), 10u);
  EXPECT_GT(graphs->extras.size(), 5u);
}

TEST_F(SummaryCache, AnyOptionChangeMisses) {
  const Trial t = TrialOf("llama", 1);
  ASSERT_TRUE(CachedSummary(cache_, t, Llama()).ok());
  AttributionOptions fewer_tokens = Llama();
  fewer_tokens.tokens = 32;
  AttributionOptions other_window = Llama();
  other_window.window = *attribution::ParseWindow("skip:7");
  AttributionOptions other_buckets = Llama();
  other_buckets.buckets.back().hint = "another hint";
  for (const AttributionOptions& o : {fewer_tokens, other_window, other_buckets}) {
    CacheOutcome outcome;
    auto s = CachedSummary(cache_, t, o, &outcome);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(outcome, CacheOutcome::kStored);
    EXPECT_EQ(Bytes(*s), Bytes(*t.source->summarize(t.path, o)));
  }
  EXPECT_EQ(Entries(), 4u);
  auto half = CachedSummary(cache_, t, fewer_tokens);
  EXPECT_DOUBLE_EQ(half->items_per_token, 2 * CachedSummary(cache_, t, Llama())->items_per_token);
}

TEST_F(SummaryCache, ATouchedFileMisses) {
  const Trial t = TrialOf("graphs", 2);
  ASSERT_TRUE(CachedSummary(cache_, t, Graphs()).ok());
  fs::last_write_time(t.path, fs::last_write_time(t.path) + std::chrono::seconds(5));
  CacheOutcome outcome;
  ASSERT_TRUE(CachedSummary(cache_, t, Graphs(), &outcome).ok());
  EXPECT_EQ(outcome, CacheOutcome::kStored);
}

TEST_F(SummaryCache, AChangedFileIsReadAgainNotServedStale) {
  const Trial t = TrialOf("llama", 0);
  auto before = CachedSummary(cache_, t, Llama());
  ASSERT_TRUE(before.ok());
  // Trial 1's tables replace trial 0's: same names, other contents.
  for (const auto& f : fs::directory_iterator(TrialOf("llama", 1).path)) {
    fs::copy_file(f.path(), fs::path(t.path) / f.path().filename(), fs::copy_options::overwrite_existing);
  }
  auto after = CachedSummary(cache_, t, Llama());
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->total_sum_ns, before->total_sum_ns);
  EXPECT_EQ(Bytes(*after), Bytes(*t.source->summarize(t.path, Llama())));
}

TEST_F(SummaryCache, ADamagedEntryIsRecomputedAndRewritten) {
  const Trial t = TrialOf("llama", 2);
  auto good = CachedSummary(cache_, t, Llama());
  ASSERT_TRUE(good.ok());
  ASSERT_EQ(Entries(), 1u);
  const fs::path entry = fs::directory_iterator(cache_)->path();
  const auto size = fs::file_size(entry);
  for (auto damage : {size / 2, size - 1}) {
    {
      // Every bit of the byte flipped: a fixed byte written over itself (the entry holds
      // paths and times, so any byte can be there) would damage nothing.
      std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(static_cast<std::streamoff>(damage));
      const char was = static_cast<char>(f.get());
      f.seekp(static_cast<std::streamoff>(damage));
      f.put(static_cast<char>(~was));
    }
    CacheOutcome outcome;
    auto s = CachedSummary(cache_, t, Llama(), &outcome);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(outcome, CacheOutcome::kStored) << "damaged at byte " << damage;
    EXPECT_EQ(Bytes(*s), Bytes(*good));
  }
  fs::resize_file(entry, size / 3);
  CacheOutcome outcome;
  EXPECT_EQ(Bytes(*CachedSummary(cache_, t, Llama(), &outcome)), Bytes(*good));
  EXPECT_EQ(outcome, CacheOutcome::kStored);
}

// An entry replaced by a FIFO (which would block a reader for ever), or by a link to
// a device or to a file far larger than any entry, is a miss: computed, and stored
// again in its place.
TEST_F(SummaryCache, AnEntryThatIsNoRegularFileOrTooLargeIsAMiss) {
  const Trial t = TrialOf("llama", 1);
  auto good = CachedSummary(cache_, t, Llama());
  ASSERT_TRUE(good.ok());
  const fs::path entry = fs::directory_iterator(cache_)->path();
  const fs::path big = root_ / "big";
  std::ofstream(big, std::ios::binary).close();
  fs::resize_file(big, (uint64_t{256} << 20) + 1);  // sparse: no disk is used
  for (const std::string& kind : {"fifo", "dev_zero", "big"}) {
    SCOPED_TRACE(kind);
    fs::remove(entry);
    if (kind == "fifo") ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
    if (kind == "dev_zero") fs::create_symlink("/dev/zero", entry);
    if (kind == "big") fs::create_symlink(big, entry);
    CacheOutcome outcome;
    auto s = CachedSummary(cache_, t, Llama(), &outcome);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(outcome, CacheOutcome::kStored);
    EXPECT_EQ(Bytes(*s), Bytes(*good));
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));  // the rename replaced it
  }
}

TEST_F(SummaryCache, AnUnwritableDirectoryCostsSpeedNotTheResult) {
  const Trial t = TrialOf("llama", 0);
  std::ofstream(root_ / "a-file") << "not a directory";
  CacheOutcome outcome;
  testing::internal::CaptureStderr();
  auto s = CachedSummary((root_ / "a-file" / "cache").string(), t, Llama(), &outcome);
  const std::string warning = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(outcome, CacheOutcome::kNotStored);
  EXPECT_EQ(Bytes(*s), Bytes(*t.source->summarize(t.path, Llama())));
  EXPECT_NE(warning.find("summary cache"), std::string::npos) << warning;
}

TEST_F(SummaryCache, ErrorsAreNeverCached) {
  const Trial t = TrialOf("llama", 0);
  AttributionOptions no_tokens = Llama();
  no_tokens.tokens.reset();
  for (int i = 0; i < 2; ++i) {
    auto s = CachedSummary(cache_, t, no_tokens);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), "attr.no_tokens");
  }
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(SummaryCache, ConcurrentReadersAndWritersAgree) {
  const Trial t = TrialOf("graphs", 1);
  const std::string expected = Bytes(*t.source->summarize(t.path, Graphs()));
  std::vector<std::thread> threads;
  std::atomic<int> same{0};
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      auto s = CachedSummary(cache_, t, Graphs());
      if (s.ok() && Bytes(*s) == expected) ++same;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(same.load(), 6);
  EXPECT_EQ(Entries(), 1u) << "no temporary file is left behind, and one entry holds the key";
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(cache_)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(SummaryCache, TheEnvironmentNamesTheDirectoryAndOffTurnsItOff) {
  setenv(kCacheDirEnv, cache_.c_str(), 1);
  EXPECT_EQ(SummaryCacheDir(), cache_);
  setenv(kCacheEnv, "off", 1);
  EXPECT_EQ(SummaryCacheDir(), "");
  unsetenv(kCacheEnv);
  setenv(kCacheDirEnv, "off", 1);
  EXPECT_EQ(SummaryCacheDir(), "");
  // CMake's false constants in any case, as a CMake cache variable passes them on.
  for (const char* off : {"OFF", "Off", "0", "FALSE", "no", "NOTFOUND", "CACHE_DIR-NOTFOUND"}) {
    SCOPED_TRACE(off);
    setenv(kCacheDirEnv, cache_.c_str(), 1);
    setenv(kCacheEnv, off, 1);
    EXPECT_EQ(SummaryCacheDir(), "");
    unsetenv(kCacheEnv);
    setenv(kCacheDirEnv, off, 1);
    EXPECT_EQ(SummaryCacheDir(), "");
  }
  setenv(kCacheEnv, "ON", 1);
  setenv(kCacheDirEnv, cache_.c_str(), 1);
  EXPECT_EQ(SummaryCacheDir(), cache_);
  unsetenv(kCacheEnv);
  unsetenv(kCacheDirEnv);
  EXPECT_EQ(SummaryCacheDir(), "");
  CacheOutcome outcome;
  ASSERT_TRUE(CachedSummary("", TrialOf("llama", 0), Llama(), &outcome).ok());
  EXPECT_EQ(outcome, CacheOutcome::kNoCache);
}

TEST_F(SummaryCache, AttributeTrialsUsesTheCacheAndGivesTheSameEngine) {
  auto r = DiscoverTrials((root_ / "graphs").string());
  ASSERT_TRUE(r.ok());
  auto fresh = AttributeTrials("graphs", r->trials, Graphs());
  setenv(kCacheDirEnv, cache_.c_str(), 1);
  auto stored = AttributeTrials("graphs", r->trials, Graphs());
  auto cached = AttributeTrials("graphs", r->trials, Graphs());
  unsetenv(kCacheDirEnv);
  ASSERT_TRUE(fresh.ok() && stored.ok() && cached.ok());
  EXPECT_EQ(Entries(), 3u);
  ASSERT_EQ(cached->trials.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Bytes(cached->trials[i]), Bytes(fresh->trials[i]));
  EXPECT_EQ(cached->gpu_us_per_token.per_trial, fresh->gpu_us_per_token.per_trial);
}

TEST(SummaryCodec, RejectsCutAndPaddedBytes) {
  TrialSummary s;
  s.path = "p";
  s.extras["kernels"] = 0.1;
  s.diagnostics.Add("attr.token_count_mismatch", {"p", 3, 4}, "detail");
  const std::string bytes = internal::EncodeTrialSummary(s);
  TrialSummary out;
  ASSERT_TRUE(internal::DecodeTrialSummary(bytes, &out));
  EXPECT_EQ(out.extras.at("kernels"), 0.1);
  EXPECT_EQ(out.diagnostics.Find("attr.token_count_mismatch")->first_location.column, 4);
  EXPECT_FALSE(internal::DecodeTrialSummary(bytes.substr(0, bytes.size() - 1), &out));
  EXPECT_FALSE(internal::DecodeTrialSummary(bytes + "x", &out));
  EXPECT_FALSE(internal::DecodeTrialSummary("", &out));
}

// --- The job setting -----------------------------------------------------------

TEST_F(SummaryCache, ParallelTrialsGiveTheSerialEngine) {
  auto r = DiscoverTrials((root_ / "llama").string());
  ASSERT_TRUE(r.ok());
  SetJobs(1);
  auto serial = AttributeTrials("llama", r->trials, Llama());
  SetJobs(3);
  std::vector<std::string> observed;
  auto parallel = AttributeTrials("llama", r->trials, Llama(),
                                  [&](const Trial& t, const TrialSummary&) { observed.push_back(t.path); });
  ASSERT_TRUE(serial.ok() && parallel.ok());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Bytes(parallel->trials[i]), Bytes(serial->trials[i]));
    EXPECT_EQ(observed[i], r->trials[i].path) << "the observer sees trials in order";
  }
}

TEST_F(SummaryCache, TheFirstFailingTrialInOrderIsTheError) {
  auto r = DiscoverTrials((root_ / "llama").string());
  ASSERT_TRUE(r.ok());
  for (int k : {1, 2}) {
    std::ofstream(fs::path(r->trials[k].path) / "metal-gpu-execution-points.xml", std::ios::trunc) << "<broken trial " << k;
    fs::remove(fs::path(r->trials[k].path) / "metal-gpu-execution-points.xml.gz");
  }
  SetJobs(3);
  auto e = AttributeTrials("llama", r->trials, Llama());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().ToString().find("trial-2"), std::string::npos) << e.status().ToString();
}

TEST_F(SummaryCache, ABadJobCountIsAnErrorNamingTheVariable) {
  auto r = DiscoverTrials((root_ / "llama").string());
  ASSERT_TRUE(r.ok());
  for (const char* bad : {"0", "two", "-1", "99999", "1.5"}) {
    setenv(kJobsEnv, bad, 1);
    auto e = AttributeTrials("llama", r->trials, Llama());
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().code(), "env.bad_jobs");
    EXPECT_NE(e.status().message().find("PERFGATE_JOBS is '" + std::string(bad) + "'"), std::string::npos);
  }
  setenv(kJobsEnv, "2", 1);
  EXPECT_EQ(*ResolveJobs(), 2);
  SetJobs(5);
  EXPECT_EQ(*ResolveJobs(), 5) << "--jobs wins over the environment";
}

TEST(ParallelFor, RunsEveryIndexOnceAndNestedLevelsInOrder) {
  SetJobs(4);
  std::vector<std::atomic<int>> hits(100);
  std::atomic<int> nested_threads_seen{0};
  ParallelFor(hits.size(), [&](size_t i) {
    ++hits[i];
    const auto outer = std::this_thread::get_id();
    ParallelFor(3, [&](size_t) { nested_threads_seen += std::this_thread::get_id() != outer; });
  });
  SetJobs(0);
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_EQ(nested_threads_seen.load(), 0);
}

}  // namespace
}  // namespace perfgate::bundle
