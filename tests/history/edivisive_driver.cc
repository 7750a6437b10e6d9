// The C++ side of the cross-check (cross_check.py): hierarchical E-divisive on whole
// series, as one window of FindChangePoints runs it, forced on for a number of stages
// whatever the t-test says, so that every stage can be compared with the Python
// reference written from the paper.
//
//   change_points_edivisive [--stages K] < series.txt
//
// Each input line is a name and the series' values; each output line the name, then
// per stage the split (first index of the right side), q-hat and the t-test p-value
// of the split's segment, as "tau qhat p" with 17 significant digits.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "history/change_points_divisive.h"

int main(int argc, char** argv) {
  int64_t stages = 4;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--stages") == 0 && i + 1 < argc) {
      stages = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--stages K] < series.txt\n", argv[0]);
      return 2;
    }
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string name;
    if (!(words >> name)) continue;
    std::vector<double> series;
    for (double v; words >> v;) series.push_back(v);
    const auto splits = perfgate::history::divisive::DivisiveSplits(series, 0, static_cast<int64_t>(series.size()),
                                                                    1.0, stages);
    std::printf("%s", name.c_str());
    for (const auto& s : splits) std::printf(" %lld %.17g %.17g", static_cast<long long>(s.index), s.qhat, s.stats.pvalue);
    std::printf("\n");
  }
  return 0;
}
