// The (pid, correlationId) pairs that occur on more than one row of a table, found
// without a hash table of every pair (on a large export that table outgrew the caches
// and made each row dearer than on a small one).
#ifndef PERFGATE_SRC_NSYS_REPEATED_IDS_H_
#define PERFGATE_SRC_NSYS_REPEATED_IDS_H_

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace perfgate::nsys::detail {

// Rows usually come with each process's ids increasing (nsys writes a table in time
// order and CUPTI numbers calls in order); then nothing can repeat and Repeats() has
// nothing to do. Only when an id does not exceed its process's last one are the
// pairs sorted. Memory: 16 bytes per row.
class RepeatedIds {
 public:
  struct Pair {
    int64_t pid = 0, id = 0;
    bool operator==(const Pair& o) const { return pid == o.pid && id == o.id; }
  };

  void Add(int64_t pid, int64_t id) {
    rows_.push_back({pid, id});
    if (!in_order_) return;
    auto last = std::find_if(last_.begin(), last_.end(), [&](const Pair& p) { return p.pid == pid; });
    if (last == last_.end()) {
      last_.push_back({pid, id});
    } else if (id > last->id) {
      last->id = id;
    } else {
      in_order_ = false;
    }
  }

  // Each pair met on two rows or more, once, in the order of its second row.
  std::vector<Pair> Repeats() const {
    if (in_order_) return {};
    std::vector<size_t> rows(rows_.size());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
      return std::tie(rows_[a].pid, rows_[a].id, a) < std::tie(rows_[b].pid, rows_[b].id, b);
    });
    std::vector<size_t> second_rows;
    for (size_t i = 1; i < rows.size(); ++i) {
      const bool repeat = rows_[rows[i]] == rows_[rows[i - 1]];
      const bool first_repeat = repeat && (i < 2 || !(rows_[rows[i - 2]] == rows_[rows[i]]));
      if (first_repeat) second_rows.push_back(rows[i]);
    }
    std::sort(second_rows.begin(), second_rows.end());
    std::vector<Pair> repeats;
    repeats.reserve(second_rows.size());
    for (size_t row : second_rows) repeats.push_back(rows_[row]);
    return repeats;
  }

 private:
  std::vector<Pair> rows_;
  std::vector<Pair> last_;  // per process, its last id; processes are few
  bool in_order_ = true;
};

}  // namespace perfgate::nsys::detail

#endif  // PERFGATE_SRC_NSYS_REPEATED_IDS_H_
