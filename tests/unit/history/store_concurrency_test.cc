// Eight writers, each a process of its own as eight CI runners are, open one fresh store
// at once and append 20 runs each: every run is held once, every figure once, and no
// series twice. On both back ends: an SQLite file and a PostgreSQL database.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "perfgate/history/store.h"
#include "support/postgres_server.h"

namespace perfgate::history {
namespace {

constexpr int kConcurrentWriters = 8;
constexpr int kConcurrentRunsEach = 20;
constexpr const char* kConcurrentSuite = "concurrency";
constexpr const char* kConcurrentTest = "EightWriters";
// The series every writer writes (2 engines x 4 metrics), and one of each writer's own.
const char* const kConcurrentEngines[] = {"hf2q", "llama.cpp"};
const char* const kConcurrentMetrics[] = {"gpu_us_per_token", "launches_per_token", "buckets/a/us_per_token",
                                          "buckets/b/us_per_token"};

// What each figure of writer `writer`'s run `index` holds: a value no other run has.
double ConcurrentMedian(int writer, int index) { return writer * 1000.0 + index + 0.25; }

Run ConcurrentRun(int writer, int index) {
  Run run;
  run.key = NewRunKey();
  run.context.suite = kConcurrentSuite;
  run.context.test = kConcurrentTest;
  run.context.commit = "w" + std::to_string(writer) + "r" + std::to_string(index);
  const double median = ConcurrentMedian(writer, index);
  for (const char* engine : kConcurrentEngines) {
    for (const char* metric : kConcurrentMetrics) {
      run.figures.push_back({engine, metric, median, {median, median + 0.5}, Worse::kUp});
    }
  }
  run.figures.push_back({"writer" + std::to_string(writer), "own", median, {median}, Worse::kDown});
  run.levels.push_back({"hf2q", "kernels", "k" + std::to_string(writer), median, median});
  return run;
}

// A writer process's body: opens the store after the start signal and appends its
// runs. Its exit status says how it went (no gtest assertion runs in a child).
[[noreturn]] void ConcurrentWriterMain(const std::string& location, int writer, int start_fd) {
  char go;
  if (read(start_fd, &go, 1) < 0) _exit(10);
  int status = 0;
  {
    auto store = OpenStore(location);
    if (!store.ok()) {
      std::fprintf(stderr, "writer %d: %s\n", writer, store.status().ToString().c_str());
      _exit(11);
    }
    for (int i = 0; i < kConcurrentRunsEach && status == 0; ++i) {
      auto id = (*store)->Append(ConcurrentRun(writer, i));
      if (!id.ok()) {
        std::fprintf(stderr, "writer %d run %d: %s\n", writer, i, id.status().ToString().c_str());
        status = 12;
      }
    }
  }
  _exit(status);
}

class StoreConcurrencyTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      dir_ = std::filesystem::temp_directory_path() / ("perfgate-concurrency-" + NewRunKey());
      std::filesystem::create_directories(dir_);
      location_ = (dir_ / "history.sqlite").string();
      return;
    }
    const testing_support::SharedPostgres& shared = testing_support::SharedPostgresServer();
    if (shared.server == nullptr) {
      if (shared.may_skip) GTEST_SKIP() << shared.problem;
      FAIL() << shared.problem;
    }
    auto url = shared.server->CreateDatabase("pg_store_concurrency");
    ASSERT_TRUE(url.ok()) << url.status().ToString();
    location_ = *url;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Forks the writers, lets them go at once, and returns their exit statuses.
  std::vector<int> RunWriters() {
    int start[2];
    EXPECT_EQ(pipe(start), 0);
    std::vector<pid_t> pids;
    for (int writer = 0; writer < kConcurrentWriters; ++writer) {
      const pid_t pid = fork();
      if (pid == 0) {
        close(start[1]);
        ConcurrentWriterMain(location_, writer, start[0]);
      }
      pids.push_back(pid);
    }
    close(start[0]);
    close(start[1]);  // every writer's read returns: go
    std::vector<int> statuses;
    for (pid_t pid : pids) {
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        statuses.push_back(-1);  // no such writer
      } else {
        statuses.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
      }
    }
    return statuses;
  }

  std::filesystem::path dir_;
  std::string location_;
};

TEST_P(StoreConcurrencyTest, EightWritersAtOnceAppendEveryRunAndFigureOnce) {
  const std::vector<int> statuses = RunWriters();
  for (int writer = 0; writer < kConcurrentWriters; ++writer) {
    EXPECT_EQ(statuses[writer], 0) << "writer " << writer << " (its message is on stderr above)";
  }
  auto store = OpenStore(location_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto count = (*store)->RunCount();
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, kConcurrentWriters * kConcurrentRunsEach);

  // Every series once: 8 shared and each writer's own.
  auto series = (*store)->ListSeries();
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  EXPECT_EQ(series->size(), 8u + kConcurrentWriters);
  std::set<SeriesKey> distinct;
  for (const SeriesInfo& info : *series) EXPECT_TRUE(distinct.insert(info.key).second) << info.key.engine;

  // Every run's value once in each shared series, in run order; each writer's own once.
  std::multiset<double> want_all;
  for (int writer = 0; writer < kConcurrentWriters; ++writer) {
    for (int i = 0; i < kConcurrentRunsEach; ++i) want_all.insert(ConcurrentMedian(writer, i));
  }
  std::set<int64_t> run_ids;
  for (const SeriesInfo& info : *series) {
    SCOPED_TRACE(info.key.engine + " " + info.key.metric);
    auto points = (*store)->Points(info.key);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    EXPECT_EQ(info.points, static_cast<int64_t>(points->size()));
    std::multiset<double> medians;
    for (size_t i = 0; i < points->size(); ++i) {
      if (i > 0) {
        EXPECT_LT((*points)[i - 1].run_id, (*points)[i].run_id);
      }
      medians.insert((*points)[i].median);
      run_ids.insert((*points)[i].run_id);
    }
    if (info.key.engine.rfind("writer", 0) == 0) {
      EXPECT_EQ(medians.size(), static_cast<size_t>(kConcurrentRunsEach));
    } else {
      EXPECT_EQ(medians, want_all);
    }
  }
  EXPECT_EQ(run_ids.size(), static_cast<size_t>(kConcurrentWriters * kConcurrentRunsEach));
  auto one = (*store)->ReadRun(*run_ids.begin());
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->figures.size(), 9u);
  EXPECT_EQ(one->levels.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(BothBackEnds, StoreConcurrencyTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace perfgate::history
