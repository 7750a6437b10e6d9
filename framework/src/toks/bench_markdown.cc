// llama-bench's default output, its Markdown table (`-o md`), as people keep it: the
// device lines llama-bench prints to stderr before the table, the table (one row per
// test: the configuration columns that differ from the defaults, `test` and `t/s` as
// "mean ± stddev"), and the `build: COMMIT (NUMBER)` line after it. Tables of several
// runs appended to one file are read one after another.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfgate/core/names.h"
#include "toks/bench_markdown.h"

namespace perfgate::toks::markdown {
namespace {

// llama-bench's Markdown column names for the fields its JSON names otherwise.
std::string FieldOfColumn(const std::string& column) {
  static const std::pair<const char*, const char*> kFields[] = {
      {"backend", "backends"}, {"ngl", "n_gpu_layers"}, {"threads", "n_threads"}, {"fa", "flash_attn"},
      {"mmap", "use_mmap"},    {"dev", "devices"},      {"size", "model_size"},   {"params", "model_n_params"}};
  for (const auto& [md, json] : kFields) {
    if (column == md) return json;
  }
  return column;
}

std::string Trimmed(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const size_t last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

// The cells of a table row "| a | b |", trimmed (llama-bench writes no escaped pipe).
std::vector<std::string> Cells(std::string_view s) {
  std::vector<std::string> cells;
  const size_t open = s.find('|'), close = s.rfind('|');
  if (open == std::string_view::npos || close == open) return cells;
  s = s.substr(open + 1, close - open - 1);
  for (size_t start = 0;;) {
    const size_t bar = s.find('|', start);
    cells.push_back(Trimmed(s.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start)));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return cells;
}

bool IsTableRow(std::string_view line) {
  const std::string t = Trimmed(line);
  return t.size() >= 2 && t.front() == '|' && t.back() == '|';
}

bool IsAlignmentRow(const std::vector<std::string>& cells) {
  for (const std::string& c : cells) {
    if (c.empty() || c.find_first_not_of("-: ") != std::string::npos) return false;
  }
  return !cells.empty();
}

// A whole number at the front of `s` (after spaces), advancing it; none without digits.
std::optional<int64_t> TakeNumber(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && n < 12 && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0) return std::nullopt;
  const int64_t v = std::strtoll(std::string(s.substr(0, n)).c_str(), nullptr, 10);
  s.remove_prefix(n);
  return v;
}

bool TakeWord(std::string_view& s, std::string_view word) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.substr(0, word.size()) != word) return false;
  s.remove_prefix(word.size());
  return true;
}

}  // namespace

std::optional<TestShape> ParseTestName(std::string_view name) {
  TestShape shape;
  std::string_view s = name;
  const auto number = [&s](int64_t* out) {
    const std::optional<int64_t> n = TakeNumber(s);
    if (n) *out = *n;
    return n.has_value();
  };
  if (TakeWord(s, "pp")) {
    if (!number(&shape.n_prompt)) return std::nullopt;
    if (TakeWord(s, "+") && !(TakeWord(s, "tg") && number(&shape.n_gen))) return std::nullopt;
  } else if (!(TakeWord(s, "tg") && number(&shape.n_gen))) {
    return std::nullopt;
  }
  if (TakeWord(s, "@") && !(TakeWord(s, "d") && number(&shape.n_depth))) return std::nullopt;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (!s.empty() || shape.n_prompt + shape.n_gen == 0) return std::nullopt;
  return shape;
}

bool HasBenchTable(std::string_view text) {
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    if (IsTableRow(line)) {
      const std::vector<std::string> cells = Cells(line);
      if (std::find(cells.begin(), cells.end(), "test") != cells.end() &&
          std::find(cells.begin(), cells.end(), "t/s") != cells.end()) {
        return true;
      }
    }
    start = end + 1;
  }
  return false;
}

namespace {

// "55.73 ± 0.04": the mean and the standard deviation. A file that went through a
// Latin-1 round trip writes the sign "Â±"; the "Â" is dropped.
struct Rate {
  double mean = 0;
  double stddev = 0;
};

std::optional<Rate> ParseRate(const std::string& cell) {
  const size_t pm = cell.find("\xC2\xB1");
  std::string mean = Trimmed(cell.substr(0, pm));
  if (mean.size() >= 2 && mean.compare(mean.size() - 2, 2, "\xC3\x82") == 0) {
    mean = Trimmed(mean.substr(0, mean.size() - 2));
  }
  const std::string stddev = pm == std::string::npos ? "0" : Trimmed(cell.substr(pm + 2));
  char* end = nullptr;
  Rate r;
  r.mean = std::strtod(mean.c_str(), &end);
  if (mean.empty() || *end != '\0' || !std::isfinite(r.mean) || !(r.mean > 0)) return std::nullopt;
  r.stddev = std::strtod(stddev.c_str(), &end);
  if (stddev.empty() || *end != '\0' || !std::isfinite(r.stddev) || r.stddev < 0) return std::nullopt;
  return r;
}

// Reads the file line by line: a table's head, its alignment row and rows; the build
// line after it; anything else counted.
class MarkdownReader {
 public:
  MarkdownReader(const std::string& path, Diagnostics* diagnostics) : path_(path), diagnostics_(diagnostics) {}

  Status Line(int n, std::string_view line) {
    if (IsTableRow(line)) return Row(n, Cells(line));
    columns_.clear();  // a table ends at the first line that is no row
    const std::string text = Trimmed(line);
    if (text.empty()) return Status();
    if (text.rfind("build: ", 0) == 0 && first_unbuilt_ < tests_.size()) return Build(text);
    diagnostics_->Add("toks.ignored_line", {path_, n, 1}, "'" + text.substr(0, 120) + "'");
    return Status();
  }

  std::vector<BenchTest> Take() { return std::move(tests_); }

 private:
  Status Row(int n, std::vector<std::string> cells) {
    if (Column(cells, "test") != std::string::npos && Column(cells, "t/s") != std::string::npos) {
      columns_ = std::move(cells);  // a table's head
      return Status();
    }
    if (columns_.empty()) {  // a row of no llama-bench table
      diagnostics_->Add("toks.ignored_line", {path_, n, 1}, "a table row outside a llama-bench table");
      return Status();
    }
    if (IsAlignmentRow(cells)) return Status();
    if (cells.size() != columns_.size()) {
      return Status::Error("toks.bad_row",
                           "a table row with " + std::to_string(cells.size()) + " cells under " +
                               std::to_string(columns_.size()) + " columns (" + ListNames(columns_, "") + ")",
                           {path_, n, 1});
    }
    PERFGATE_ASSIGN_OR_RETURN(BenchTest t, Test(n, cells));
    tests_.push_back(std::move(t));
    return Status();
  }

  StatusOr<BenchTest> Test(int n, const std::vector<std::string>& cells) const {
    BenchTest t;
    t.location = {path_, n, 1};
    const std::string& name = cells[Column(columns_, "test")];
    const std::optional<TestShape> shape = ParseTestName(name);
    if (!shape) {
      return Status::Error("toks.bad_field",
                           "test '" + name + "' is no llama-bench test name (pp512, tg128, pp512+tg128, tg128 @ d512)",
                           t.location);
    }
    t.n_prompt = shape->n_prompt, t.n_gen = shape->n_gen, t.n_depth = shape->n_depth;
    t.id = TestId(t.n_prompt, t.n_gen, t.n_depth);
    const std::string& ts = cells[Column(columns_, "t/s")];
    const std::optional<Rate> rate = ParseRate(ts);
    if (!rate) {
      return Status::Error("toks.bad_time",
                           "t/s '" + ts + "' of test " + t.id + " is not 'MEAN ± STDDEV' with MEAN > 0", t.location);
    }
    t.avg_ts = rate->mean, t.stddev_ts = rate->stddev;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c] == "test" || columns_[c] == "t/s") continue;
      if (columns_[c] == "model") t.model = cells[c];
      t.fields[FieldOfColumn(columns_[c])] = nlohmann::json(cells[c]).dump();
    }
    return t;
  }

  // "build: 0253fb21f (9187)": the build of the tests read since the last one.
  Status Build(const std::string& text) {
    std::string commit = text.substr(7), number;
    if (const size_t open = commit.find(" ("); open != std::string::npos && commit.back() == ')') {
      number = commit.substr(open + 2, commit.size() - open - 3);
      commit.resize(open);
    }
    for (; first_unbuilt_ < tests_.size(); ++first_unbuilt_) {
      tests_[first_unbuilt_].fields["build_commit"] = nlohmann::json(commit).dump();
      if (!number.empty()) tests_[first_unbuilt_].fields["build_number"] = nlohmann::json(number).dump();
    }
    return Status();
  }

  static size_t Column(const std::vector<std::string>& columns, std::string_view name) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c] == name) return c;
    }
    return std::string::npos;
  }

  const std::string& path_;
  Diagnostics* diagnostics_;
  std::vector<std::string> columns_;  // the open table's head; empty outside a table
  std::vector<BenchTest> tests_;
  size_t first_unbuilt_ = 0;  // the first test no build line has named yet
};

}  // namespace

StatusOr<std::vector<BenchTest>> ReadBenchMarkdown(std::string_view text, const std::string& path,
                                                   Diagnostics* diagnostics) {
  MarkdownReader reader(path, diagnostics);
  int n = 1;
  for (size_t start = 0; start < text.size(); ++n) {
    const size_t end = std::min(text.find('\n', start), text.size());
    PERFGATE_RETURN_IF_ERROR(reader.Line(n, text.substr(start, end - start)));
    start = end + 1;
  }
  return reader.Take();
}

}  // namespace perfgate::toks::markdown
