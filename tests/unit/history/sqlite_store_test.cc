// The SQLite store: a run round-trips exactly, a failed append keeps nothing, and a
// store that cannot be written, is locked, is someone else's database or comes from
// a newer perfgate is a clear error.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "history/codec.h"
#include "history/sqlite_store.h"
#include "perfgate/history/store.h"

namespace perfgate::history {
namespace {

namespace fs = std::filesystem;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perfgate-sqlite-store-" + NewRunKey());
    fs::create_directories(dir_);
    path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Store> Open(SqliteStoreOptions options = {}) {
    auto store = OpenSqliteStore(path_, options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // Runs `sql` on the store's file through a connection of its own.
  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  fs::path dir_;
  std::string path_;
};

history::Run SampleRun(const std::string& commit, double gpu_us) {
  history::Run run;
  run.key = NewRunKey();
  run.context = {"2026-12-05T23:14:00Z", commit, "main", "hf2q_decode", "DecodeWithinBudget", "ci-runner-3",
                 "Apple M5 Max", "0.2.0", {{"model", "gemma-4 \"q4\"\nline two"}, {"engine", "hf2q"}}};
  run.figures.push_back({"hf2q", "gpu_us_per_token", gpu_us, {gpu_us - 0.5, gpu_us, gpu_us + 0.25}, Worse::kUp});
  run.figures.push_back({"hf2q", "buckets/md_8_32us/us_per_token", 0.1, {0.1, 1e-300, -0.0}, Worse::kUp});
  run.figures.push_back({"llama.cpp", "gpu_us_per_token", 9007199254740993.0, {9007199254740993.0}, Worse::kBoth});
  run.levels.push_back({"hf2q", "kernels", "kernel_mul_mv_q4_0_f32 «ü»", 48.0, 3100.25});
  run.levels.push_back({"hf2q", "families", "gemv", 96.0, 4000.5});
  return run;
}

TEST_F(SqliteStoreTest, RunRoundTripsExactly) {
  auto store = Open();
  const history::Run run = SampleRun("abc123", 14000.125);
  auto id = store->Append(run);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, 1);
  auto back = store->ReadRun(*id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->key, run.key);
  EXPECT_EQ(back->context.commit, "abc123");
  EXPECT_EQ(back->context.device, "Apple M5 Max");
  EXPECT_EQ(back->context.meta, run.context.meta);
  ASSERT_EQ(back->figures.size(), 3u);
  // Ordered by engine, then metric.
  EXPECT_EQ(back->figures[0].metric, "buckets/md_8_32us/us_per_token");
  EXPECT_EQ(back->figures[0].samples[1], 1e-300);
  EXPECT_TRUE(std::signbit(back->figures[0].samples[2]));
  EXPECT_EQ(back->figures[1].median, 14000.125);
  EXPECT_EQ(back->figures[1].worse, Worse::kUp);
  EXPECT_EQ(back->figures[2].median, 9007199254740993.0);
  ASSERT_EQ(back->levels.size(), 2u);
  EXPECT_EQ(back->levels[1].name, "kernel_mul_mv_q4_0_f32 «ü»");
  EXPECT_EQ(back->levels[1].us_per_token, 3100.25);
}

TEST_F(SqliteStoreTest, PointsComeOldestFirstAndLastTakesTheNewest) {
  auto store = Open();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store->Append(SampleRun("c" + std::to_string(i), 100 + i)).ok());
  const SeriesKey key{"hf2q_decode", "DecodeWithinBudget", "hf2q", "gpu_us_per_token"};
  auto all = store->Points(key);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ(all->front().commit, "c0");
  EXPECT_EQ(all->back().median, 104);
  EXPECT_EQ(all->back().samples, (std::vector<double>{103.5, 104, 104.25}));
  auto last = store->Points(key, 2);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ(last->front().commit, "c3");
  auto series = store->ListSeries();
  ASSERT_TRUE(series.ok());
  ASSERT_EQ(series->size(), 3u);
  EXPECT_EQ((*series)[1].key.metric, "gpu_us_per_token");
  EXPECT_EQ((*series)[1].points, 5);
  EXPECT_EQ((*series)[2].key.engine, "llama.cpp");
  EXPECT_EQ((*series)[2].worse, Worse::kBoth);
  EXPECT_EQ(store->RunCount().value(), 5);
}

TEST_F(SqliteStoreTest, ARetriedAppendOfOneKeyWritesTheRunOnce) {
  auto store = Open();
  const history::Run run = SampleRun("abc", 1);
  const auto first = store->Append(run);
  const auto again = store->Append(run);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(store->RunCount().value(), 1);
  EXPECT_EQ(store->Points({"hf2q_decode", "DecodeWithinBudget", "hf2q", "gpu_us_per_token"})->size(), 1u);
}

TEST_F(SqliteStoreTest, ARunItCannotHoldIsRefusedAndNothingIsWritten) {
  auto store = Open();
  history::Run nan = SampleRun("a", std::numeric_limits<double>::quiet_NaN());
  history::Run twice = SampleRun("b", 1);
  twice.figures.push_back(twice.figures.front());
  history::Run no_key = SampleRun("c", 1);
  no_key.key.clear();
  history::Run bad_level = SampleRun("d", 1);
  bad_level.levels[0].us_per_token = std::numeric_limits<double>::infinity();
  history::Run nul = SampleRun("e", 1);
  nul.levels[0].name = std::string("kernel\0tail", 11);
  history::Run latin1 = SampleRun("f", 1);
  latin1.context.branch = "caf\xe9";
  for (const history::Run* run : {&nan, &twice, &no_key, &bad_level, &nul, &latin1}) {
    const auto id = store->Append(*run);
    ASSERT_FALSE(id.ok()) << run->context.commit;
    EXPECT_EQ(id.status().code(), "history.bad_run");
  }
  EXPECT_EQ(store->RunCount().value(), 0);
}

TEST_F(SqliteStoreTest, AnAppendThatFailsPartWayKeepsNoPartOfTheRun) {
  auto store = Open();
  ASSERT_TRUE(store->Append(SampleRun("good", 1)).ok());
  Sql("CREATE TRIGGER no_levels BEFORE INSERT ON levels BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
  const auto id = store->Append(SampleRun("half", 2));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.write_failed");
  EXPECT_NE(id.status().message().find("disk says no"), std::string::npos) << id.status().message();
  EXPECT_EQ(store->RunCount().value(), 1);
  EXPECT_EQ(store->Points({"hf2q_decode", "DecodeWithinBudget", "hf2q", "gpu_us_per_token"})->size(), 1u);
}

TEST_F(SqliteStoreTest, ALockedStoreIsAClearErrorAfterTheWaitAndWritesNothing) {
  auto store = Open({/*lock_wait_ms=*/50});
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto id = store->Append(SampleRun("x", 1));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.locked");
  EXPECT_NE(id.status().message().find("another writer"), std::string::npos);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(store->RunCount().value(), 0);
  EXPECT_TRUE(store->Append(SampleRun("x", 1)).ok());
}

TEST_F(SqliteStoreTest, AHistoryFromTheFutureIsNeitherReadNorWritten) {
  { Open(); }
  Sql("UPDATE perfgate_schema SET version = 999");
  const auto store = OpenSqliteStore(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.future_schema");
  EXPECT_NE(store.status().message().find("999"), std::string::npos);
}

TEST_F(SqliteStoreTest, SomeoneElsesDatabaseIsNeverWrittenInto) {
  Sql("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER)");
  const auto before = fs::file_size(path_);
  const auto store = OpenSqliteStore(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.bad_location");
  EXPECT_NE(store.status().message().find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos);
  EXPECT_EQ(fs::file_size(path_), before);
}

TEST_F(SqliteStoreTest, AFileThatIsNoDatabaseIsRefused) {
  std::ofstream(path_) << "step,gpu_us\n1,2\n" << std::string(600, 'x');
  const auto store = OpenSqliteStore(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.bad_store");
}

TEST_F(SqliteStoreTest, UnknownRunsAndSeriesAreErrors) {
  auto store = Open();
  ASSERT_TRUE(store->Append(SampleRun("a", 1)).ok());
  EXPECT_EQ(store->ReadRun(7).status().code(), "history.unknown_run");
  EXPECT_EQ(store->Points({"hf2q_decode", "DecodeWithinBudget", "hf2q", "no_such"}).status().code(),
            "history.unknown_series");
}

// As root every path can be written, so the read-only case runs as `nobody` in a child.
int OpenAsNobody(const std::string& path) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && setuid(65534) != 0) _exit(90);
    const auto store = OpenStore(path);
    if (store.ok()) _exit(91);
    _exit(store.status().code() == "history.read_only" ? 0 : 92);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(SqliteStoreTest, AStoreOnAPathThatCannotBeWrittenIsReadOnly) {
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  EXPECT_EQ(OpenAsNobody(path_), 0);
  fs::permissions(dir_, fs::perms::owner_all);
}

TEST(OpenStore, ALocationOfNoKnownKindIsAUsageError) {
  EXPECT_EQ(OpenStore("").status().code(), "history.bad_location");
  const auto url = OpenStore("mysql://ci/history");
  EXPECT_EQ(url.status().code(), "history.bad_location");
  EXPECT_EQ(url.status().kind(), ErrorKind::kUsage);
}

TEST(SampleCodec, SamplesRoundTripAndBadTextIsAStoreError) {
  const std::vector<double> samples{0.1, 1e-300, -0.0, 14000.125, 9007199254740993.0};
  const auto back = DecodeSamples(EncodeSamples(samples));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, samples);
  EXPECT_EQ(DecodeSamples("[1, \"x\"]").status().code(), "history.bad_store");
  EXPECT_EQ(DecodeSamples("{").status().code(), "history.bad_store");
  EXPECT_EQ(DecodeMeta("[]").status().code(), "history.bad_store");
}

}  // namespace
}  // namespace perfgate::history
