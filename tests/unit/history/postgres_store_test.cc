// The PostgreSQL store against a real server (tests/support/postgres_server.h): a run
// round-trips exactly, an append retried after a restart writes the run once, and a
// store that is down, read-only, someone else's or from a newer perfgate is a clear
// error that writes nothing. The passwords of URLs never reach a message.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfgate/history/store.h"
#include "support/postgres_server.h"
#if PERFGATE_HISTORY_TEST_POSTGRESQL
#include "history/postgres_store.h"
#endif

namespace perfgate::history {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A run of every kind of value a store must keep exactly: doubles at the edges of
// their text forms, text with quotes, newlines, SQL and UTF-8.
history::Run PgExactRun(const std::string& commit) {
  history::Run run;
  run.key = NewRunKey();
  run.context = {"2026-12-05T23:14:00Z",
                 commit,
                 "feature/'quoted' \"branch\"",
                 "hf2q_decode",
                 "DecodeWithinBudget",
                 "ci-runner-3\nsecond line",
                 "Apple M5 Max — 40 GPU cores",
                 "0.2.0",
                 {{"model", "gemma-4 \"q4\"\nline two"}, {"note", "'); DROP TABLE runs; --"}, {"µ", "✓"}}};
  const double two53_plus_1 = 9007199254740993.0;  // rounds to 2^53
  run.figures.push_back({"hf2q", "gpu_us_per_token", 0.1, {0.1, 1e-300, -0.0, two53_plus_1}, Worse::kUp});
  run.figures.push_back({"hf2q",
                         "buckets/md_8_32us/us_per_token",
                         -0.0,
                         {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                          std::nextafter(1.0, 2.0), 1.0 / 3.0},
                         Worse::kDown});
  run.figures.push_back({"llama.cpp", "x'); DELETE FROM series; --", two53_plus_1, {}, Worse::kBoth});
  run.levels.push_back({"hf2q", "kernels", "kernel_mul_mv_q4_0_f32 «ü» \"x\"\n", 48.0, 3100.25});
  run.levels.push_back({"hf2q", "families", "gemv", 0.1, -0.0});
  return run;
}

// A run of one figure, hf2q gpu_us_per_token, with `median`.
history::Run PgOneFigureRun(double median) {
  history::Run run;
  run.key = NewRunKey();
  run.context.suite = "suite";
  run.context.test = "test";
  run.context.commit = "c" + std::to_string(median);
  run.figures.push_back({"hf2q", "gpu_us_per_token", median, {median}, Worse::kUp});
  return run;
}

// The same bits: -0.0 is not 0.0 here.
bool PgSameDouble(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void ExpectPgSameDoubles(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(PgSameDouble(got[i], want[i])) << "sample " << i << ": " << got[i] << " != " << want[i];
  }
}

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const testing_support::SharedPostgres& shared = testing_support::SharedPostgresServer();
    if (shared.server == nullptr) {
      if (shared.may_skip) GTEST_SKIP() << shared.problem;
      FAIL() << shared.problem;
    }
    server_ = shared.server;
    auto url = server_->CreateDatabase(DatabaseName());
    ASSERT_TRUE(url.ok()) << url.status().ToString();
    url_ = *url;
  }

  // The test's own database: "pg_" and the test's name in lower case.
  static std::string DatabaseName() {
    std::string name = std::string("pg_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name.substr(0, 63);
  }

  std::unique_ptr<Store> Open(const std::string& url) {
    auto store = OpenStore(url);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // One value of `sql` on the test's database, through psql.
  std::string SqlValue(const std::string& sql) {
    auto out = server_->Sql(DatabaseName(), sql);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    std::string text = out.ok() ? *out : "";
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

  testing_support::PostgresServer* server_ = nullptr;
  std::string url_;
};

TEST_F(PostgresStoreTest, RunRoundTripsExactly) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  const history::Run run = PgExactRun("abc123");
  auto id = store->Append(run);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto back = store->ReadRun(*id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->id, *id);
  EXPECT_EQ(back->key, run.key);
  const RunContext& c = back->context;
  EXPECT_EQ(std::tie(c.time, c.commit, c.branch, c.suite, c.test, c.machine, c.device, c.perfgate_version),
            std::tie(run.context.time, run.context.commit, run.context.branch, run.context.suite, run.context.test,
                     run.context.machine, run.context.device, run.context.perfgate_version));
  EXPECT_EQ(c.meta, run.context.meta);
  // Ordered by engine, then metric (byte order), as the SQLite store orders them.
  ASSERT_EQ(back->figures.size(), 3u);
  const Figure* want[] = {&run.figures[1], &run.figures[0], &run.figures[2]};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(want[i]->metric);
    EXPECT_EQ(back->figures[i].engine, want[i]->engine);
    EXPECT_EQ(back->figures[i].metric, want[i]->metric);
    EXPECT_TRUE(PgSameDouble(back->figures[i].median, want[i]->median));
    EXPECT_EQ(back->figures[i].worse, want[i]->worse);
    ExpectPgSameDoubles(back->figures[i].samples, want[i]->samples);
  }
  EXPECT_TRUE(std::signbit(back->figures[0].median));  // -0.0 stays negative
  EXPECT_EQ(back->figures[1].samples[3], 9007199254740992.0);
  // Levels ordered by engine, level, name.
  ASSERT_EQ(back->levels.size(), 2u);
  EXPECT_EQ(back->levels[0].level, "families");
  EXPECT_TRUE(PgSameDouble(back->levels[0].calls_per_token, 0.1));
  EXPECT_TRUE(std::signbit(back->levels[0].us_per_token));
  EXPECT_EQ(back->levels[1].name, run.levels[0].name);
  EXPECT_EQ(back->levels[1].us_per_token, 3100.25);
  auto levels = store->ReadLevels(*id);
  ASSERT_TRUE(levels.ok()) << levels.status().ToString();
  ASSERT_EQ(levels->size(), 2u);
  EXPECT_EQ((*levels)[1].name, run.levels[0].name);
  // The text that looked like SQL was stored, not run.
  EXPECT_EQ(SqlValue("SELECT count(*) FROM series"), "3");
  auto count = store->RunCount();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, 1);
}

TEST_F(PostgresStoreTest, PointsComeOldestFirstAndLastTakesTheNewest) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  std::vector<int64_t> ids;
  for (double median : {5.0, 4.0, 3.0, 2.0, 1.0}) {
    auto id = store->Append(PgOneFigureRun(median));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    ids.push_back(*id);
  }
  const SeriesKey key{"suite", "test", "hf2q", "gpu_us_per_token"};
  auto all = store->Points(key);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*all)[i].run_id, ids[i]);
    EXPECT_EQ((*all)[i].median, 5.0 - static_cast<double>(i));
    EXPECT_EQ((*all)[i].samples, std::vector<double>{5.0 - static_cast<double>(i)});
  }
  EXPECT_EQ((*all)[0].commit, "c5.000000");
  auto last = store->Points(key, 2);
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[0].run_id, ids[3]);
  EXPECT_EQ((*last)[1].run_id, ids[4]);
  auto more_than_held = store->Points(key, 50);
  ASSERT_TRUE(more_than_held.ok());
  EXPECT_EQ(more_than_held->size(), 5u);
}

TEST_F(PostgresStoreTest, ListSeriesIsInKeyOrderWithPointCountsAndTheFirstRunsDirection) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  history::Run first = PgOneFigureRun(1.0);
  first.figures.push_back({"Zeta", "b", 1.0, {}, Worse::kDown});  // upper case sorts first in bytes
  first.figures.push_back({"hf2q", "a", 1.0, {}, Worse::kBoth});
  ASSERT_TRUE(store->Append(first).ok());
  history::Run second = PgOneFigureRun(2.0);
  second.figures[0].worse = Worse::kDown;  // the series keeps the first run's word
  ASSERT_TRUE(store->Append(second).ok());
  auto series = store->ListSeries();
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  ASSERT_EQ(series->size(), 3u);
  EXPECT_EQ((*series)[0].key, (SeriesKey{"suite", "test", "Zeta", "b"}));
  EXPECT_EQ((*series)[0].points, 1);
  EXPECT_EQ((*series)[0].worse, Worse::kDown);
  EXPECT_EQ((*series)[1].key, (SeriesKey{"suite", "test", "hf2q", "a"}));
  EXPECT_EQ((*series)[2].key, (SeriesKey{"suite", "test", "hf2q", "gpu_us_per_token"}));
  EXPECT_EQ((*series)[2].points, 2);
  EXPECT_EQ((*series)[2].worse, Worse::kUp);
}

TEST_F(PostgresStoreTest, UnknownRunsAndSeriesAreErrors) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  auto run = store->ReadRun(42);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), "history.unknown_run");
  EXPECT_THAT(run.status().message(), HasSubstr("42"));
  auto levels = store->ReadLevels(42);
  ASSERT_FALSE(levels.ok());
  EXPECT_EQ(levels.status().code(), "history.unknown_run");
  auto points = store->Points({"suite", "test", "hf2q", "nope"});
  ASSERT_FALSE(points.ok());
  EXPECT_EQ(points.status().code(), "history.unknown_series");
}

TEST_F(PostgresStoreTest, ARetriedAppendOfOneKeyWritesTheRunOnce) {
  auto store = Open(url_);
  auto other = Open(url_);  // a second runner, as after a lost connection
  ASSERT_TRUE(store && other);
  const history::Run run = PgExactRun("abc");
  auto first = store->Append(run);
  auto again = other->Append(run);
  ASSERT_TRUE(first.ok() && again.ok()) << first.status().ToString() << again.status().ToString();
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM figures"), "3");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM levels"), "2");
}

TEST_F(PostgresStoreTest, ARunWhoseTextPostgresCannotHoldIsRefusedWhole) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  history::Run nul = PgOneFigureRun(1.0);
  nul.context.branch = std::string("main\0evil", 9);
  history::Run not_utf8 = PgOneFigureRun(1.0);
  not_utf8.levels.push_back({"hf2q", "kernels", "\xff\xfe", 1.0, 1.0});
  history::Run not_finite = PgOneFigureRun(std::nan(""));
  for (const history::Run* run : {&nul, &not_utf8, &not_finite}) {
    auto id = store->Append(*run);
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.status().code(), "history.bad_run") << id.status().ToString();
  }
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM series"), "0");
}

TEST_F(PostgresStoreTest, AnAppendThatFailsPartWayKeepsNoPartOfTheRun) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  // A level name no index row holds (random, so that it does not compress): the
  // server refuses the level rows, written after the run, its series and figures.
  history::Run run = PgExactRun("abc");
  std::string huge;
  while (huge.size() < 12000) huge += NewRunKey();
  run.levels.push_back({"hf2q", "kernels", huge, 1.0, 1.0});
  auto id = store->Append(run);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.bad_run") << id.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM series"), "0");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM figures"), "0");
  run.levels.pop_back();
  auto whole = store->Append(run);  // the same run, whole, on the same connection
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM figures"), "3");
}

TEST_F(PostgresStoreTest, ALockHeldPastTheWaitIsLockedAndWritesNothing) {
  ASSERT_TRUE(Open(url_));
  const int holder = server_->SqlInBackground(
      DatabaseName(), "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(600)");
  ASSERT_GT(holder, 0);
  // Waits until the other session holds the lock (it starts a process).
  const std::string held =
      "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'runs' "
      "AND l.mode = 'AccessExclusiveLock' AND l.granted";
  for (int tries = 0; tries < 500 && SqlValue(held) != "1"; ++tries) usleep(20000);
  // The URL's options replace the store's own wait of 60 s.
  auto store = Open(url_ + "&options=-c%20lock_timeout%3D100ms");
  ASSERT_TRUE(store);
  auto id = store->Append(PgOneFigureRun(1.0));
  SqlValue("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' "
           "AND pid <> pg_backend_pid()");
  waitpid(holder, nullptr, 0);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.locked") << id.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
}

TEST_F(PostgresStoreTest, AHistoryFromTheFutureIsNeitherReadNorWritten) {
  ASSERT_TRUE(Open(url_));  // creates the tables
  SqlValue("UPDATE perfgate_schema SET version = 999");
  auto store = OpenStore(url_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.future_schema");
  EXPECT_THAT(store.status().message(), HasSubstr("999"));
  EXPECT_EQ(SqlValue("SELECT version FROM perfgate_schema"), "999");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
}

TEST_F(PostgresStoreTest, AVersionTableWithoutAVersionIsABadStore) {
  ASSERT_TRUE(Open(url_));
  SqlValue("DELETE FROM perfgate_schema");
  auto store = OpenStore(url_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.bad_store") << store.status().ToString();
}

TEST_F(PostgresStoreTest, SomeoneElsesTablesAreNeverWrittenInto) {
  SqlValue("CREATE TABLE runs (id INTEGER, what TEXT)");
  auto store = OpenStore(url_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.bad_location") << store.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "1");
}

TEST_F(PostgresStoreTest, AServerThatIsDownIsUnreachableAndSaysWhere) {
  // A socket folder where no server listens.
  const std::string url = "postgresql://perfgate:s3cret@/" + DatabaseName() + "?host=/tmp/perfgate-no-server";
  auto store = OpenStore(url);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.unreachable");
  EXPECT_THAT(store.status().message(), HasSubstr("/tmp/perfgate-no-server"));
  EXPECT_THAT(store.status().message(), HasSubstr("cannot connect"));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("s3cret")));
}

TEST_F(PostgresStoreTest, AStoreReconnectsAfterTheServerRestartsAndWritesNothingTwice) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Append(PgOneFigureRun(1.0)).ok());
  ASSERT_TRUE(server_->Restart().ok());
  auto second = store->Append(PgOneFigureRun(2.0));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "2");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM figures"), "2");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM series"), "1");
  // A read reconnects too.
  ASSERT_TRUE(server_->Restart().ok());
  auto count = store->RunCount();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, 2);
}

TEST_F(PostgresStoreTest, AnAppendWhileTheServerIsDownFailsWholeAndTheStoreRecovers) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  ASSERT_TRUE(server_->Stop().ok());
  auto lost = store->Append(PgOneFigureRun(1.0));
  auto count_while_down = store->RunCount();
  ASSERT_TRUE(server_->Restart().ok());
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), "history.write_failed");
  EXPECT_THAT(lost.status().message(), HasSubstr("not recorded"));
  ASSERT_FALSE(count_while_down.ok());
  EXPECT_EQ(count_while_down.status().code(), "history.unreachable");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
  auto later = store->Append(PgOneFigureRun(2.0));
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "1");
}

// A store's append caught mid-transaction: another session holds the levels table, so
// the append waits there with its run, series and figures written but not committed.
class PostgresMidAppendTest : public PostgresStoreTest {
 protected:
  void HoldLevels() {
    holder_ = server_->SqlInBackground(DatabaseName(),
                                       "BEGIN; LOCK TABLE levels IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(600)");
    ASSERT_GT(holder_, 0);
    const std::string held =
        "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'levels' "
        "AND l.mode = 'AccessExclusiveLock' AND l.granted";
    for (int tries = 0; tries < 500 && SqlValue(held) != "1"; ++tries) usleep(20000);
  }
  void ReleaseLevels() {
    if (holder_ <= 0) return;
    SqlValue("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' "
             "AND pid <> pg_backend_pid()");
    waitpid(holder_, nullptr, 0);
    holder_ = -1;
  }
  void TearDown() override { ReleaseLevels(); }

  // The store's session waiting for the lock, other than `not_this`; "" when none came.
  std::string WaitingAppend(const std::string& not_this = "0") {
    const std::string waiting =
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'perfgate' AND wait_event_type = 'Lock' "
        "AND datname = current_database() AND pid <> " +
        not_this;
    std::string pid;
    for (int tries = 0; tries < 500 && (pid = SqlValue(waiting)).empty(); ++tries) usleep(20000);
    return pid;
  }
  // Ends a session as a server that goes away does: the client finds its connection closed.
  void CutSession(const std::string& pid) { SqlValue("SELECT pg_terminate_backend(" + pid + ")"); }

  int holder_ = -1;
};

TEST_F(PostgresMidAppendTest, AnAppendWhoseConnectionIsCutIsRunAgainOnANewOneAndWrittenOnce) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  HoldLevels();
  const history::Run run = PgExactRun("abc");
  StatusOr<int64_t> id = Status::Error("test.not_run", "");
  std::thread append([&] { id = store->Append(run); });
  const std::string first = WaitingAppend();
  EXPECT_FALSE(first.empty());
  CutSession(first);
  EXPECT_FALSE(WaitingAppend(first).empty());  // the append, again, on a new connection
  ReleaseLevels();
  append.join();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM figures"), "3");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM levels"), "2");
}

TEST_F(PostgresMidAppendTest, AnAppendCutTwiceFailsWholeAndWritesNothing) {
  auto store = Open(url_);
  ASSERT_TRUE(store);
  HoldLevels();
  StatusOr<int64_t> id = Status::Error("test.not_run", "");
  std::thread append([&] { id = store->Append(PgExactRun("abc")); });
  const std::string first = WaitingAppend();
  CutSession(first);
  const std::string second = WaitingAppend(first);
  EXPECT_FALSE(second.empty());
  CutSession(second);
  append.join();
  ReleaseLevels();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.write_failed");
  EXPECT_THAT(id.status().message(), HasSubstr("the connection was lost"));
  EXPECT_THAT(id.status().message(), HasSubstr("not recorded"));
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM series"), "0");
  EXPECT_EQ(SqlValue("SELECT count(*) FROM figures"), "0");
}

TEST_F(PostgresStoreTest, AReadOnlyDatabaseIsReadOnlyAndKeepsWhatItHeld) {
  auto writer = Open(url_);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->Append(PgOneFigureRun(1.0)).ok());
  SqlValue("ALTER DATABASE " + DatabaseName() + " SET default_transaction_read_only = on");
  auto reader = Open(url_);  // a new session: read-only
  ASSERT_TRUE(reader);
  auto count = reader->RunCount();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, 1);
  auto id = reader->Append(PgOneFigureRun(2.0));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.read_only") << id.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "1");
}

TEST_F(PostgresStoreTest, AnEmptyReadOnlyDatabaseCannotBecomeAHistory) {
  SqlValue("ALTER DATABASE " + DatabaseName() + " SET default_transaction_read_only = on");
  auto store = OpenStore(url_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.read_only") << store.status().ToString();
}

TEST_F(PostgresStoreTest, AUserWhoMayOnlySelectReadsButCannotAppend) {
  ASSERT_TRUE(Open(url_));
  SqlValue("DO $$ BEGIN CREATE ROLE perfgate_pg_reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
  SqlValue("GRANT SELECT ON ALL TABLES IN SCHEMA public TO perfgate_pg_reader");
  auto reader = Open(server_->Url(DatabaseName(), "perfgate_pg_reader"));
  ASSERT_TRUE(reader);
  auto series = reader->ListSeries();
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  auto id = reader->Append(PgOneFigureRun(1.0));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), "history.read_only") << id.status().ToString();
  EXPECT_EQ(SqlValue("SELECT count(*) FROM runs"), "0");
}

TEST_F(PostgresStoreTest, LocationLeavesThePasswordOut) {
  // The server trusts the socket, so the password is not checked, only carried.
  const std::string url = "postgresql://perfgate:s3cret@/" + DatabaseName() + "?host=" + server_->directory();
  auto store = Open(url);
  ASSERT_TRUE(store);
  EXPECT_THAT(store->Location(), Not(HasSubstr("s3cret")));
  EXPECT_THAT(store->Location(), HasSubstr("perfgate@"));
}

TEST(PostgresTestServer, AMissingPostgresSkipsOutsideCiAndFailsUnderCiUnlessAllowed) {
  const auto env_of = [](std::map<std::string, std::string> vars) -> EnvLookup {
    return [vars](const std::string& name) -> std::optional<std::string> {
      const auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  };
  const std::string missing = "PostgreSQL's server programs (initdb, pg_ctl) are not installed";
  const testing_support::SharedPostgres here = testing_support::WithoutPostgres(missing, env_of({}));
  EXPECT_TRUE(here.may_skip);
  EXPECT_EQ(here.problem, missing);
  const testing_support::SharedPostgres ci = testing_support::WithoutPostgres(missing, env_of({{"CI", "true"}}));
  EXPECT_FALSE(ci.may_skip);
  EXPECT_THAT(ci.problem, HasSubstr(missing));
  EXPECT_THAT(ci.problem, HasSubstr("PERFGATE_ALLOW_SKIP=1"));
  EXPECT_TRUE(testing_support::WithoutPostgres(missing, env_of({{"CI", "1"}, {"PERFGATE_ALLOW_SKIP", "1"}})).may_skip);
}

#if PERFGATE_HISTORY_TEST_POSTGRESQL
TEST(PostgresLocation, DropsEveryFormOfPassword) {
  EXPECT_EQ(PostgresLocation("postgresql://ci:pa%40ss@db.example:5432/perf?sslmode=require"),
            "postgresql://ci@db.example:5432/perf?sslmode=require");
  EXPECT_EQ(PostgresLocation("postgres://ci:p@ss?w:rd@db/perf"), "postgres://ci@db/perf");
  EXPECT_EQ(PostgresLocation("postgresql://db/perf?user=ci&password=s3cret&sslmode=require"),
            "postgresql://db/perf?user=ci&sslmode=require");
  EXPECT_EQ(PostgresLocation("postgresql://db/perf?password=s3cret"), "postgresql://db/perf");
  EXPECT_EQ(PostgresLocation("postgresql://ci@db/perf"), "postgresql://ci@db/perf");
  EXPECT_EQ(PostgresLocation("postgresql:///perf?host=/tmp/x"), "postgresql:///perf?host=/tmp/x");
}

TEST(PostgresLocation, AURLLibpqCannotReadIsABadLocationWithoutItsPassword) {
  auto store = OpenStore("postgresql://ci:s3cret@db:notaport/perf?password=s3cret&nonsense=1");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), "history.bad_location") << store.status().ToString();
  EXPECT_THAT(store.status().message(), Not(HasSubstr("s3cret")));
}
#endif

}  // namespace
}  // namespace perfgate::history
