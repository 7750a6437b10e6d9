// A consumer of the framework alone: prints perfgate's version line.
#include <iostream>

#include <perfgate/core/version.h>

int main() { std::cout << perfgate::VersionLine() << '\n'; }
