#include "interrupt.h"

#include <csignal>

namespace perfgate::cli {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_once{true};

extern "C" void OnInterrupt(int signal) {
  g_interrupted.store(true);
  if (g_once.load()) std::signal(signal, SIG_DFL);
}

}  // namespace

std::atomic<bool>& InterruptFlag() { return g_interrupted; }

InterruptGuard::InterruptGuard(bool once) {
  g_interrupted.store(false);
  g_once.store(once);
  old_int_ = std::signal(SIGINT, OnInterrupt);
  old_term_ = std::signal(SIGTERM, OnInterrupt);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, old_int_ == SIG_ERR ? SIG_DFL : old_int_);
  std::signal(SIGTERM, old_term_ == SIG_ERR ? SIG_DFL : old_term_);
}

}  // namespace perfgate::cli
