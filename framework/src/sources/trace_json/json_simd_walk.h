// Drives an nlohmann-style SAX handler from simdjson's On-Demand parser: the same
// callbacks in the same order, with the handler's cursor (`const char**`) set where
// nlohmann's lexer would have it for everything the handler locates with it (keys,
// containers, scalars that stand alone). Only well-formed JSON is walked: whatever
// simdjson or the walker's own grammar checks reject is reported as kMalformed,
// before the handler has seen anything past the fault, and the caller reads the
// bytes again with nlohmann's parser, whose error it reports word for word.
#pragma once

// simdjson turns its development checks on in code built without optimization (no
// __OPTIMIZE__), and they change its parser's layout: a test built at -O0 beside the
// optimized library then links two definitions of the same inline code, and the walk
// crashes. Off in every translation unit, so that they all agree.
#ifndef SIMDJSON_DEVELOPMENT_CHECKS
#define SIMDJSON_DEVELOPMENT_CHECKS 0
#endif
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace perfgate::json_trace::detail {

enum class SimdWalk {
  kDone,       // every value was handed to the handler
  kStopped,    // a callback returned false: the handler holds its error
  kMalformed,  // not JSON as nlohmann reads it (or past simdjson's limits)
};

// True when `t` is exactly a JSON number (RFC 8259): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool IsJsonNumber(std::string_view t, bool* is_integer) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > from;
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (i < t.size() && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  *is_integer = true;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digits()) return false;
    *is_integer = false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
    *is_integer = false;
  }
  return i == t.size();
}

// A handler that takes keys, strings and float texts as views (key_text,
// string_text, float_text) rather than as nlohmann's std::string: the walker then
// hands it simdjson's own buffer, copied once, by the handler, if at all.
template <typename Sax, typename = void>
struct TakesTextViews : std::false_type {};
template <typename Sax>
struct TakesTextViews<Sax, std::void_t<decltype(&Sax::key_text)>> : std::true_type {};

template <typename Sax>
class SimdWalker {
 public:
  // `origin`: where the handler's input holds bytes[0], when `bytes` is a copy of a
  // piece of it (json_simd_chunks.h); the cursors are put there.
  SimdWalker(std::string_view bytes, Sax* sax, const char* origin = nullptr)
      : bytes_(bytes), sax_(sax), cursor_(sax->cursor()), origin_(origin != nullptr ? origin : bytes.data()) {}

  // `padded` is how many bytes after the input may be read (simdjson reads up to
  // SIMDJSON_PADDING past the end); with fewer the input is copied once. `reuse`: a
  // parser whose buffers serve again (walks of many pieces touch no fresh memory).
  SimdWalk Run(size_t padded, simdjson::ondemand::parser* reuse = nullptr) {
    if (bytes_.size() > 0xFFFFFFFFull - 64) return SimdWalk::kMalformed;  // past simdjson's 4 GiB
    simdjson::padded_string copy;
    const char* data = bytes_.data();
    size_t allocated = bytes_.size() + padded;
    if (padded < simdjson::SIMDJSON_PADDING) {
      copy = simdjson::padded_string(bytes_);
      data = copy.data();
      allocated = copy.size() + simdjson::SIMDJSON_PADDING;
    }
    base_ = data;
    simdjson::ondemand::parser own(reuse != nullptr ? 0 : bytes_.size());
    simdjson::ondemand::parser& parser = reuse != nullptr ? *reuse : own;
    if (parser.iterate(data, bytes_.size(), allocated).get(doc_)) return SimdWalk::kMalformed;
    simdjson::ondemand::json_type type;
    if (doc_.type().get(type) ||
        (type != simdjson::ondemand::json_type::object && type != simdjson::ondemand::json_type::array)) {
      return SimdWalk::kMalformed;  // a scalar document: nlohmann words the error
    }
    simdjson::ondemand::value root;
    if (doc_.get_value().get(root)) return SimdWalk::kMalformed;
    if (!Value(root)) return outcome_;
    // More after the top-level value: the iterator is not at the end.
    if (doc_.current_location().error() != simdjson::OUT_OF_BOUNDS) return SimdWalk::kMalformed;
    return SimdWalk::kDone;
  }

 private:
  using Value_ = simdjson::ondemand::value;

  bool Malformed() {
    outcome_ = SimdWalk::kMalformed;
    return false;
  }
  bool Stopped() {
    outcome_ = SimdWalk::kStopped;
    return false;
  }
  // Maps simdjson's buffer (maybe a padded copy) back onto the handler's bytes.
  const char* Mapped(const char* p) const { return origin_ + (p - base_); }
  // Where the document's iterator stands (the token after the value just finished),
  // or the end of the input.
  const char* Here() {
    const char* p = nullptr;
    if (doc_.current_location().get(p)) return origin_ + bytes_.size();
    return Mapped(p);
  }

  bool Value(Value_& v) {
    simdjson::ondemand::json_type type;
    if (v.type().get(type)) return Malformed();
    switch (type) {
      case simdjson::ondemand::json_type::object: return Object(v);
      case simdjson::ondemand::json_type::array: return Array(v);
      case simdjson::ondemand::json_type::string: return String(v);
      case simdjson::ondemand::json_type::number: return Number(v);
      case simdjson::ondemand::json_type::boolean:
      case simdjson::ondemand::json_type::null: return Literal(v);
    }
    return Malformed();
  }

  bool Object(Value_& v) {
    const char* at = nullptr;
    if (v.current_location().get(at)) return Malformed();
    *cursor_ = Mapped(at) + 1;  // just past '{', as nlohmann's lexer leaves it
    if (!sax_->start_object(static_cast<size_t>(-1))) return Stopped();
    simdjson::ondemand::object object;
    if (v.get_object().get(object)) return Malformed();
    for (auto member : object) {
      simdjson::ondemand::field field;
      if (std::move(member).get(field)) return Malformed();
      if (!Key(field)) return false;
      if (!Value(field.value())) return false;
    }
    *cursor_ = Here();
    return sax_->end_object() || Stopped();
  }

  bool Key(simdjson::ondemand::field& field) {
    const char* p = field.key().raw();  // just past the opening quote, in simdjson's buffer
    std::string_view unescaped;
    if (field.unescaped_key().get(unescaped)) return Malformed();
    // nlohmann's cursor stands just past the closing quote.
    while (*p != '"') p += (*p == '\\') ? 2 : 1;
    *cursor_ = Mapped(p + 1);
    if constexpr (TakesTextViews<Sax>::value) {
      return sax_->key_text(unescaped) || Stopped();
    } else {
      key_.assign(unescaped.data(), unescaped.size());
      return sax_->key(key_) || Stopped();
    }
  }

  bool Array(Value_& v) {
    const char* at = nullptr;
    if (v.current_location().get(at)) return Malformed();
    *cursor_ = Mapped(at) + 1;
    if (!sax_->start_array(static_cast<size_t>(-1))) return Stopped();
    simdjson::ondemand::array array;
    if (v.get_array().get(array)) return Malformed();
    for (auto element : array) {
      Value_ e;
      if (std::move(element).get(e)) return Malformed();
      if (!Value(e)) return false;
    }
    *cursor_ = Here();
    return sax_->end_array() || Stopped();
  }

  // The scalar's text, without the whitespace simdjson leaves after it; the cursor
  // is put just past it.
  std::string_view Token(Value_& v) {
    std::string_view t = v.raw_json_token();
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) {
      t.remove_suffix(1);
    }
    *cursor_ = Mapped(t.data()) + t.size();
    return t;
  }

  bool String(Value_& v) {
    Token(v);
    std::string_view s;
    if (v.get_string().get(s)) return Malformed();
    if constexpr (TakesTextViews<Sax>::value) {
      return sax_->string_text(s) || Stopped();
    } else {
      string_.assign(s.data(), s.size());
      return sax_->string(string_) || Stopped();
    }
  }

  // Numbers as nlohmann reports them: integers that fit int64 (or, non-negative,
  // uint64) as integers, every other number as a float with its text.
  bool Number(Value_& v) {
    const std::string_view t = Token(v);
    bool is_integer = false;
    if (!IsJsonNumber(t, &is_integer)) return Malformed();
    if (is_integer) {
      if (t[0] == '-') {
        int64_t i = 0;
        auto r = std::from_chars(t.data(), t.data() + t.size(), i);
        if (r.ec == std::errc() && r.ptr == t.data() + t.size()) return sax_->number_integer(i) || Stopped();
      } else {
        uint64_t u = 0;
        auto r = std::from_chars(t.data(), t.data() + t.size(), u);
        if (r.ec == std::errc() && r.ptr == t.data() + t.size()) {
          if (u <= static_cast<uint64_t>(INT64_MAX)) return sax_->number_integer(static_cast<int64_t>(u)) || Stopped();
          return sax_->number_unsigned(u) || Stopped();
        }
      }
    }
    // nlohmann refuses a float beyond double's range (error 406); only an exponent or
    // some 300 digits can get there, so only those are converted to check.
    const bool may_overflow = t.size() > 300 || t.find_first_of("eE") != std::string_view::npos;
    if (may_overflow || !TakesTextViews<Sax>::value) number_.assign(t.data(), t.size());
    if (may_overflow && !std::isfinite(std::strtod(number_.c_str(), nullptr))) return Malformed();
    if constexpr (TakesTextViews<Sax>::value) {
      return sax_->float_text(t) || Stopped();
    } else {
      return sax_->number_float(0.0, number_) || Stopped();
    }
  }

  bool Literal(Value_& v) {
    const std::string_view t = Token(v);
    if (t == "null") return sax_->null() || Stopped();
    if (t == "true") return sax_->boolean(true) || Stopped();
    if (t == "false") return sax_->boolean(false) || Stopped();
    return Malformed();
  }

  std::string_view bytes_;
  Sax* sax_;
  const char** cursor_;
  const char* origin_;
  const char* base_ = nullptr;
  simdjson::ondemand::document doc_;
  SimdWalk outcome_ = SimdWalk::kDone;
  std::string key_, string_, number_;
};

}  // namespace perfgate::json_trace::detail
