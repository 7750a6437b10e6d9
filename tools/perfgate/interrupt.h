// Ctrl-C for the subcommands that run other programs (record, bisect): SIGINT and
// SIGTERM raise a flag that stops the running program (ProcessOptions::cancel) and
// lets the subcommand clean up.
#ifndef PERFGATE_TOOLS_PERFGATE_INTERRUPT_H_
#define PERFGATE_TOOLS_PERFGATE_INTERRUPT_H_

#include <atomic>

namespace perfgate::cli {

// The flag the handlers raise.
std::atomic<bool>& InterruptFlag();

// Lowers the flag and installs the handlers for the object's lifetime. With `once`, a
// second signal gets the default action (record: a second Ctrl-C ends it at once);
// without, every signal only raises the flag (bisect: its clean-up, git bisect reset,
// must run whatever the user presses).
class InterruptGuard {
 public:
  explicit InterruptGuard(bool once = true);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*old_int_)(int) = nullptr;
  void (*old_term_)(int) = nullptr;
};

// The exit status of a subcommand stopped by Ctrl-C (128 + SIGINT), as shells report it.
inline constexpr int kExitInterrupted = 130;

}  // namespace perfgate::cli

#endif  // PERFGATE_TOOLS_PERFGATE_INTERRUPT_H_
