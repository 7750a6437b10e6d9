#include "perfgate/core/shared_text.h"

#include <ostream>
#include <utility>

namespace perfgate {

SharedText::SharedText(std::string text) {
  if (!text.empty()) text_ = std::make_shared<const std::string>(std::move(text));
}

const std::string& SharedText::Text() const {
  static const std::string kEmpty;
  return text_ ? *text_ : kEmpty;
}

std::ostream& operator<<(std::ostream& os, const SharedText& text) { return os << text.str(); }

}  // namespace perfgate
