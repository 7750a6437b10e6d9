// One-pass offsets of a JSON container's children (json_member_offsets.h).
#include "core/json_member_offsets.h"

namespace perfgate::internal {
namespace {

struct Frame {
  char type;         // '{' or '['
  bool target;       // the container whose children are recorded
  bool expect_key;   // an object: the next string is a key
  bool expect_value; // an array: the next token starts an element
};

// The index of the closing quote of the string opening at `i`.
size_t StringEnd(std::string_view text, size_t i) {
  for (size_t j = i + 1; j < text.size(); ++j) {
    if (text[j] == '\\') {
      ++j;
    } else if (text[j] == '"') {
      return j;
    }
  }
  return text.size() - 1;
}

}  // namespace

std::vector<MemberOffset> MemberOffsets(std::string_view text, std::string_view member) {
  std::vector<MemberOffset> out;
  std::vector<Frame> stack;
  const std::string wanted = "\"" + std::string(member) + "\"";
  std::string_view root_key;  // the root object's member being read
  auto element_starts = [&](size_t i) {
    if (stack.empty() || stack.back().type != '[' || !stack.back().expect_value) return;
    stack.back().expect_value = false;
    if (stack.back().target) out.push_back({i, ""});
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const size_t end = StringEnd(text, i);
      const std::string_view s = text.substr(i, end - i + 1);
      if (!stack.empty() && stack.back().type == '{' && stack.back().expect_key) {
        if (stack.back().target) out.push_back({i, std::string(s)});
        if (stack.size() == 1) root_key = s;
        stack.back().expect_key = false;
      } else {
        element_starts(i);
      }
      i = end;
    } else if (c == '{' || c == '[') {
      element_starts(i);
      const bool target = member.empty() ? stack.empty()
                                         : stack.size() == 1 && stack[0].type == '{' && root_key == wanted;
      stack.push_back({c, target, c == '{', c == '['});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',') {
      if (!stack.empty()) (stack.back().type == '{' ? stack.back().expect_key : stack.back().expect_value) = true;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != ':') {
      element_starts(i);  // a number, true, false or null
    }
  }
  return out;
}

}  // namespace perfgate::internal
