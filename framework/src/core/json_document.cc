// JSON documents parsed through nlohmann's SAX interface with positions: the handler
// sees every token with the byte offset the input iterator has reached, checks depth
// and duplicate keys, and forwards the tokens to nlohmann's own DOM builder.
#include "core/json_document.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <new>
#include <optional>
#include <unordered_set>
#include <vector>

#include "core/text_input.h"

namespace perfgate::internal {
namespace {

using Json = nlohmann::json;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line L,
// column C: syntax error ..."; the location is printed separately, so keep the rest.
std::string ErrorDetail(const std::string& what) {
  std::string m = what;
  size_t bracket = m.find("] ");
  if (bracket != std::string::npos) m = m.substr(bracket + 2);
  if (m.rfind("parse error", 0) == 0) {
    size_t colon = m.find(": ");
    if (colon != std::string::npos) m = m.substr(colon + 2);
  }
  return m;
}

// Positions and the JSON pointer of the value being read, shared by the two handlers.
class PositionedHandler {
 public:
  explicit PositionedHandler(std::string_view text) : text_(text), cursor_(text.data()) {}
  const char** cursor() { return &cursor_; }

 protected:
  struct Frame {
    bool array;
    int64_t next_index = 0;
    size_t pointer_length;  // of the container's own pointer
    std::unordered_set<std::string> keys;
  };

  size_t Offset() const { return static_cast<size_t>(cursor_ - text_.data()); }
  // The first byte of a scalar just reported: past the separators after the previous
  // callback (numbers have already read one character beyond their end).
  size_t ScalarStart() const {
    size_t p = mark_;
    while (p < text_.size() && (IsSpace(text_[p]) || text_[p] == ',' || text_[p] == ':')) ++p;
    return p;
  }
  // The opening quote of the key whose closing quote is just behind the cursor.
  size_t KeyStart() const {
    size_t p = Offset() >= 2 ? Offset() - 2 : 0;
    while (p > 0) {
      if (text_[p] == '"') {
        size_t slashes = 0;
        while (p > slashes && text_[p - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 0) return p;
      }
      --p;
    }
    return 0;
  }
  // Sets pointer_ to the array element about to be read, if the parent is an array.
  void BeginElement() {
    if (frames_.empty() || !frames_.back().array) return;
    Frame& f = frames_.back();
    pointer_.resize(f.pointer_length);
    pointer_ += '/';
    pointer_ += std::to_string(f.next_index++);
  }
  void SetKey(const std::string& key) {
    pointer_.resize(frames_.back().pointer_length);
    pointer_ += '/';
    pointer_ += EscapeJsonPointerToken(key);
  }
  void Push(bool array) { frames_.push_back({array, 0, pointer_.size(), {}}); }
  void Pop() {
    if (frames_.empty()) return;
    pointer_.resize(frames_.back().pointer_length);
    frames_.pop_back();
  }

  std::string_view text_;
  const char* cursor_;
  size_t mark_ = 0;  // the cursor after the previous callback
  std::vector<Frame> frames_;
  std::string pointer_;  // of the value being read
};

// Builds the DOM, refusing depth beyond the limit and duplicate keys.
class DomHandler : public PositionedHandler {
 public:
  DomHandler(std::string_view text, const std::string& path, const JsonDocumentCodes& codes, int max_depth,
             Json* root)
      : PositionedHandler(text), path_(path), codes_(codes), max_depth_(max_depth), dom_(*root, false) {}

  const Status& error() const { return error_; }

  bool null() { return Scalar([&] { return dom_.null(); }); }
  bool boolean(bool v) { return Scalar([&] { return dom_.boolean(v); }); }
  bool number_integer(int64_t v) { return Scalar([&] { return dom_.number_integer(v); }); }
  bool number_unsigned(uint64_t v) { return Scalar([&] { return dom_.number_unsigned(v); }); }
  bool number_float(double v, const std::string& s) { return Scalar([&] { return dom_.number_float(v, s); }); }
  bool string(std::string& v) { return Scalar([&] { return dom_.string(v); }); }
  bool binary(Json::binary_t& v) { return Scalar([&] { return dom_.binary(v); }); }
  bool start_object(size_t n) { return Open(false) && Done(dom_.start_object(n)); }
  bool start_array(size_t n) { return Open(true) && Done(dom_.start_array(n)); }
  bool end_object() {
    Pop();
    return Done(dom_.end_object());
  }
  bool end_array() {
    Pop();
    return Done(dom_.end_array());
  }
  bool key(std::string& k) {
    SetKey(k);
    if (!frames_.back().keys.insert(k).second) {
      return Fail(codes_.bad_json, KeyStart(), "duplicate key \"" + k + "\" at " + pointer_);
    }
    return Done(dom_.key(k));
  }
  bool parse_error(size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    // nlohmann counts the characters read, the failing one included; a number out of
    // range (406) is reported after its last digit, so it is located at its first.
    size_t offset = position == 0 ? 0 : position - 1;
    if (ex.id == 406 && position >= last_token.size()) offset = position - last_token.size();
    offset = std::min(offset, text_.size());
    // Invalid UTF-8 is located at its first byte, not where the lexer gave up on it.
    const size_t bad = FindInvalidUtf8(text_.substr(0, std::min(text_.size(), offset + 1)));
    if (bad != std::string_view::npos && bad <= offset) offset = bad;
    return Fail(codes_.bad_json, std::min(offset, text_.size()), ErrorDetail(ex.what()));
  }

 private:
  template <typename F>
  bool Scalar(F forward) {
    BeginElement();
    return Done(forward());
  }
  bool Open(bool array) {
    BeginElement();
    if (static_cast<int>(frames_.size()) >= max_depth_) {
      return Fail(codes_.too_deep, Offset() == 0 ? 0 : Offset() - 1,
                  "values nest deeper than " + std::to_string(max_depth_) + " levels (at " +
                      (pointer_.empty() ? std::string("/") : pointer_) + ")");
    }
    Push(array);
    return true;
  }
  bool Done(bool ok) {
    mark_ = Offset();
    return ok;
  }
  bool Fail(const std::string& code, size_t offset, std::string message) {
    if (error_.ok()) error_ = Status::Error(code, std::move(message), LineIndex(text_).Locate(path_, offset));
    return false;
  }

  const std::string& path_;
  const JsonDocumentCodes& codes_;
  int max_depth_;
  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  Status error_;
};

// Finds where the value at a pointer is written; stops the parse there.
class LocateHandler : public PositionedHandler {
 public:
  LocateHandler(std::string_view text, const std::string& target) : PositionedHandler(text), target_(target) {}
  std::optional<size_t> found() const { return found_; }

  bool null() { return Scalar(); }
  bool boolean(bool) { return Scalar(); }
  bool number_integer(int64_t) { return Scalar(); }
  bool number_unsigned(uint64_t) { return Scalar(); }
  bool number_float(double, const std::string&) { return Scalar(); }
  bool string(std::string&) { return Scalar(); }
  bool binary(Json::binary_t&) { return Scalar(); }
  bool start_object(size_t) { return Open(false); }
  bool start_array(size_t) { return Open(true); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(std::string& k) {
    SetKey(k);
    mark_ = Offset();
    return !Hit(KeyStart());
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  bool Hit(size_t offset) {
    if (pointer_ != target_) return false;
    found_ = offset;
    return true;
  }
  bool Scalar() {
    BeginElement();
    const bool hit = !frames_.empty() && frames_.back().array && Hit(ScalarStart());
    mark_ = Offset();
    return !hit;
  }
  bool Open(bool array) {
    BeginElement();
    const bool hit = !frames_.empty() && frames_.back().array && Hit(Offset() == 0 ? 0 : Offset() - 1);
    Push(array);
    mark_ = Offset();
    return !hit;
  }
  bool Close() {
    Pop();
    mark_ = Offset();
    return true;
  }

  const std::string& target_;
  std::optional<size_t> found_;
};

template <typename Handler>
bool RunSax(std::string_view text, Handler* handler) {
  TrackingIterator begin{text.data(), handler->cursor()};
  TrackingIterator end{text.data() + text.size(), handler->cursor()};
  return Json::sax_parse(begin, end, handler, Json::input_format_t::json, /*strict=*/true,
                         /*ignore_comments=*/false);
}

}  // namespace

std::string EscapeJsonPointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

StatusOr<nlohmann::json> ParseJsonDocument(std::string_view text, const std::string& path,
                                           const JsonDocumentCodes& codes, int max_depth) {
  Json root;
  try {
    DomHandler handler(text, path, codes, max_depth, &root);
    const bool ok = RunSax(text, &handler);
    if (!handler.error().ok()) return handler.error();
    if (!ok) return Status::Error(codes.bad_json, "the parser stopped", {path});
  } catch (const std::bad_alloc&) {
    return Status::Error("resource.out_of_memory", "out of memory while parsing", {path}, ErrorKind::kEnvironment);
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(codes.bad_json, ErrorDetail(e.what()), {path});
  }
  return root;
}

SourceLocation LocateJsonPointer(std::string_view text, const std::string& path, const std::string& pointer) {
  size_t offset = 0;
  if (pointer.empty() || pointer == "/") {
    while (offset < text.size() && IsSpace(text[offset])) ++offset;
  } else {
    LocateHandler handler(text, pointer);
    try {
      RunSax(text, &handler);
    } catch (const std::exception&) {
      return {path};
    }
    if (!handler.found()) return {path};
    offset = *handler.found();
  }
  return LineIndex(text).Locate(path, offset);
}

SourceLocation LocateJsonPointerOrAncestor(std::string_view text, const std::string& path, std::string pointer) {
  while (true) {
    SourceLocation at = LocateJsonPointer(text, path, pointer);
    if (at.line > 0 || pointer.empty()) return at;
    pointer.resize(pointer.rfind('/'));
  }
}

StatusOr<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& path,
                                         const JsonDocumentCodes& codes) {
  PERFGATE_ASSIGN_OR_RETURN(nlohmann::json root, ParseJsonDocument(text, path, codes));
  if (!root.is_object()) {
    return Status::Error(codes.bad_json, std::string("expected a JSON object, got ") + root.type_name(),
                         LocateJsonPointer(text, path, ""));
  }
  return root;
}

StatusOr<JsonObjectFile> ReadJsonObjectFile(const std::string& path, const JsonDocumentCodes& codes) {
  JsonObjectFile file;
  PERFGATE_ASSIGN_OR_RETURN(file.text, ReadWholeFile(path));
  PERFGATE_ASSIGN_OR_RETURN(file.root, ParseJsonObject(file.text, path, codes));
  return file;
}

FlattenBudget::FlattenBudget(size_t text_bytes)
    : limit_(std::max(kFloorBytes, text_bytes > SIZE_MAX / kBytesPerInputByte ? SIZE_MAX
                                                                               : text_bytes * kBytesPerInputByte)),
      left_(limit_) {}

bool FlattenBudget::Charge(size_t bytes) {
  if (bytes > left_) return false;
  left_ -= bytes;
  return true;
}

}  // namespace perfgate::internal
