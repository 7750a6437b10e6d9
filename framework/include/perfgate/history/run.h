// A results history's unit: one gate run, with its context, every catalogue figure of
// every engine with its per-trial samples, and the level tables (bucket, family,
// phase, kernel) that later questions (the movers of a change point) read instead of
// the recordings.
#ifndef PERFGATE_HISTORY_RUN_H_
#define PERFGATE_HISTORY_RUN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perfgate::history {

// Which way a figure gets worse; a change the other way is an improvement.
enum class Worse { kUp, kDown, kBoth };

// "up", "down", "both"; and back (an unknown word is kBoth's caller's error).
const char* WorseName(Worse worse);
bool ParseWorse(const std::string& word, Worse* worse);

// Where and from what a run came. `time` is UTC, ISO 8601 with seconds
// ("2026-12-05T23:14:00Z"); `meta` is the recordings' meta.json, flattened.
struct RunContext {
  std::string time;
  std::string commit;
  std::string branch;
  std::string suite;  // the gtest suite, or the CLI subcommand ("attribute")
  std::string test;   // the gtest test, or the CLI's input
  std::string machine;
  std::string device;
  std::string perfgate_version;
  std::map<std::string, std::string> meta;
};

// One catalogue figure of one engine: its median over trials and every trial's value.
struct Figure {
  std::string engine;
  std::string metric;  // the catalogue's golden path: "buckets/md_8_32us/us_per_token"
  double median = 0;
  std::vector<double> samples;
  Worse worse = Worse::kBoth;
};

// One row of a level table: a bucket, family, phase or kernel of one engine.
struct LevelRow {
  std::string engine;
  std::string level;  // "buckets", "families", "phases", "kernels"
  std::string name;
  double calls_per_token = 0;
  double us_per_token = 0;
};

struct Run {
  int64_t id = 0;  // the store's number for it, in append order (0 before appending)
  // A unique token of this run (NewRunKey()): a store holds a key once, so an append
  // retried after a lost connection never writes the run twice.
  std::string key;
  RunContext context;
  std::vector<Figure> figures;
  std::vector<LevelRow> levels;
};

// 32 random hex digits.
std::string NewRunKey();

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_RUN_H_
