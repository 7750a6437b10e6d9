// SharedText: an immutable string whose copies share one buffer.
#ifndef PERFGATE_CORE_SHARED_TEXT_H_
#define PERFGATE_CORE_SHARED_TEXT_H_

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace perfgate {

// Text that decoded tables repeat across many rows (labels, process names). A typed
// view of a table decodes each interned value once, and a copy costs a reference
// count, not an allocation: on a 100 MB export, per-row label strings were a third of
// the typed decode. Reads as a std::string; compare with view() in hot code.
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text);  // NOLINT: implicit, rows are also built by hand
  SharedText(const char* text) : SharedText(text != nullptr ? std::string(text) : std::string()) {}  // NOLINT
  explicit SharedText(std::string_view text) : SharedText(std::string(text)) {}

  // The text; an empty string for a default-constructed SharedText. A temporary
  // gives a copy, since a reference into its buffer would dangle.
  const std::string& str() const& { return Text(); }
  std::string str() const&& { return Text(); }
  std::string_view view() const { return Text(); }
  operator const std::string&() const& { return Text(); }  // NOLINT
  // Binding a `const std::string&` to a temporary (fine with a std::string field)
  // would dangle here, so it does not compile: take str() instead.
  operator const std::string&() const&& = delete;
  operator std::string_view() const { return Text(); }  // NOLINT
  bool empty() const { return Text().empty(); }
  size_t size() const { return Text().size(); }

  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.text_ == b.text_ || a.view() == b.view();
  }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return !(a == b); }

 private:
  const std::string& Text() const;

  std::shared_ptr<const std::string> text_;
};

std::ostream& operator<<(std::ostream& os, const SharedText& text);

}  // namespace perfgate

#endif  // PERFGATE_CORE_SHARED_TEXT_H_
