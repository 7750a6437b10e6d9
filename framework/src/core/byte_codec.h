// Length-prefixed binary encoding for on-disk caches and exact keys: every value is
// written with its size, so no two different sequences of values encode alike, and
// doubles keep their bits. The bytes are the host's: a cache written by one build is
// only read by the same build (its key holds the executable's identity).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace perfgate::internal {

class ByteWriter {
 public:
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>>>
  void Put(T v) {
    char raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    out_.append(raw, sizeof(T));
  }
  void Put(std::string_view s) {
    Put(static_cast<uint64_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  void Put(const std::string& s) { Put(std::string_view(s)); }
  void Put(const char* s) { Put(std::string_view(s)); }
  template <typename T>
  void Put(const std::optional<T>& v) {
    Put(v.has_value());
    if (v) Put(*v);
  }
  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what ByteWriter wrote. Any read past the end or malformed size sets failed()
// and yields zero values: callers check failed() once at the end.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : in_(bytes) {}

  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>>>
  void Get(T* v) {
    if (!Need(sizeof(T))) {
      *v = T{};
      return;
    }
    std::memcpy(v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  void Get(std::string* s) {
    uint64_t n = 0;
    Get(&n);
    if (!Need(n)) {
      s->clear();
      return;
    }
    s->assign(in_.data() + at_, n);
    at_ += n;
  }
  template <typename T>
  void Get(std::optional<T>* v) {
    bool has = false;
    Get(&has);
    if (!has) {
      v->reset();
      return;
    }
    T value{};
    Get(&value);
    *v = std::move(value);
  }
  // A count of items that follow, each at least `min_item_bytes` long: a count the
  // rest of the input cannot hold fails instead of reserving memory for it.
  uint64_t Count(size_t min_item_bytes = 1) {
    uint64_t n = 0;
    Get(&n);
    if (min_item_bytes > 0 && n > (in_.size() - at_) / min_item_bytes) failed_ = true;
    return failed_ ? 0 : n;
  }
  bool failed() const { return failed_; }
  bool at_end() const { return at_ == in_.size(); }

 private:
  bool Need(uint64_t n) {
    if (failed_ || n > in_.size() - at_) {
      failed_ = true;
      return false;
    }
    return true;
  }
  std::string_view in_;
  size_t at_ = 0;
  bool failed_ = false;
};

}  // namespace perfgate::internal
