// SharedText: an immutable string whose copies share one buffer.
#ifndef PERFGATE_CORE_SHARED_TEXT_H_
#define PERFGATE_CORE_SHARED_TEXT_H_

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace perfgate {

// Text that decoded tables repeat across many rows (labels, process names). The typed
// views store each interned value of an export once, and a copy costs a reference
// count, not an allocation: on a 100 MB export, per-row label strings were a third of
// the typed decode. Reads as a std::string; compare with view() in hot code.
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text);  // NOLINT: implicit, rows are also built by hand
  SharedText(const char* text) : SharedText(text != nullptr ? std::string(text) : std::string()) {}  // NOLINT
  explicit SharedText(std::string_view text) : SharedText(std::string(text)) {}

  // The text; an empty string for a default-constructed SharedText.
  const std::string& str() const;
  std::string_view view() const { return str(); }
  operator const std::string&() const { return str(); }  // NOLINT
  operator std::string_view() const { return str(); }     // NOLINT
  bool empty() const { return str().empty(); }
  size_t size() const { return str().size(); }

  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.text_ == b.text_ || a.view() == b.view();
  }
  friend bool operator!=(const SharedText& a, const SharedText& b) { return !(a == b); }

 private:
  std::shared_ptr<const std::string> text_;
};

std::ostream& operator<<(std::ostream& os, const SharedText& text);

}  // namespace perfgate

#endif  // PERFGATE_CORE_SHARED_TEXT_H_
