// Status and StatusOr: how perfgate returns bad input instead of throwing.
//
// Every input error carries a stable code (for example "xctrace.dangling_ref"), a
// message, and where known a file position. ToString() renders the compiler form
// `path:line:col: error[code]: message` that the CLI prints before exiting 2.
#ifndef PERFGATE_CORE_STATUS_H_
#define PERFGATE_CORE_STATUS_H_

#include <string>
#include <utility>
#include <variant>

namespace perfgate {

// A position in an input file. line and column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string path;
  int line = 0;
  int column = 0;
};

// A path as error output prints it, so that no file name can fake a location or a
// line: a path of printable UTF-8 without ':', '"' or a backslash prints as is; any other is
// printed in double quotes, with '"' and backslash escaped and control bytes and bytes
// that are not UTF-8 as C escapes (\n, \t, \r, \xNN). `x:1:2<LF>.xml` prints as
// "x:1:2\n.xml".
std::string FormatPath(const std::string& path);

// A message as error output prints it: control bytes and bytes that are not UTF-8 (a
// decoded newline or ESC in a quoted key or kernel name) as C escapes, so input text
// quoted in a message cannot forge a `path:1:2: error[...]` line; the rest as is.
std::string FormatMessage(const std::string& message);

// `path:line:col` (the known parts), the path as FormatPath prints it.
std::string FormatLocation(const SourceLocation& location);

// The outcome class of an error, which the CLI maps to its exit code.
enum class ErrorKind {
  kInput,        // bad or unreadable input: exit 2
  kUsage,        // wrong flags or arguments: exit 2
  kEnvironment,  // a tool is missing, timed out or crashed: exit 3
};

// Success, or an error with a stable code, a message and a location.
class Status {
 public:
  Status() = default;
  static Status Error(std::string code, std::string message, SourceLocation location = {},
                      ErrorKind kind = ErrorKind::kInput);

  bool ok() const { return code_.empty(); }
  const std::string& code() const { return code_; }
  const std::string& message() const { return message_; }
  const SourceLocation& location() const { return location_; }
  ErrorKind kind() const { return kind_; }

  // `path:line:col: error[code]: message`, dropping the parts that are unknown; the
  // path as FormatPath prints it.
  std::string ToString() const;

 private:
  std::string code_;
  std::string message_;
  SourceLocation location_;
  ErrorKind kind_ = ErrorKind::kInput;
};

// A value or the error that prevented it.
template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}          // NOLINT: implicit like absl
  StatusOr(Status status) : v_(std::move(status)) {}   // NOLINT; must not be ok()

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace perfgate

#define PERFGATE_INTERNAL_CONCAT2(a, b) a##b
#define PERFGATE_INTERNAL_CONCAT(a, b) PERFGATE_INTERNAL_CONCAT2(a, b)

// Returns the Status from the enclosing function when `expr` is not ok.
#define PERFGATE_RETURN_IF_ERROR(expr)              \
  do {                                              \
    ::perfgate::Status perfgate_status_ = (expr);   \
    if (!perfgate_status_.ok()) return perfgate_status_; \
  } while (0)

// Declares `lhs` from a StatusOr, or returns its error.
#define PERFGATE_ASSIGN_OR_RETURN(lhs, expr)                                        \
  auto PERFGATE_INTERNAL_CONCAT(perfgate_or_, __LINE__) = (expr);                   \
  if (!PERFGATE_INTERNAL_CONCAT(perfgate_or_, __LINE__).ok())                       \
    return PERFGATE_INTERNAL_CONCAT(perfgate_or_, __LINE__).status();               \
  lhs = std::move(PERFGATE_INTERNAL_CONCAT(perfgate_or_, __LINE__)).value()

#endif  // PERFGATE_CORE_STATUS_H_
