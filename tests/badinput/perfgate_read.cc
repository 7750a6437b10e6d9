// perfgate_read FORMAT PATH: reads one file through a public reader that no CLI
// subcommand exposes, for the bad-input suite. Prints the error in compiler form and
// exits 2 (3 for an environment error); prints "ok" and exits 0 when it reads.
#include <cstring>
#include <iostream>

#include "perfgate/golden/golden.h"

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "golden") != 0) {
    std::cerr << "usage: perfgate_read golden PATH\n";
    return 2;
  }
  auto golden = perfgate::golden::ReadGolden(argv[2]);
  if (!golden.ok()) {
    std::cerr << golden.status().ToString() << '\n';
    return golden.status().kind() == perfgate::ErrorKind::kEnvironment ? 3 : 2;
  }
  std::cout << "ok: " << golden->values.size() << " values\n";
  return 0;
}
