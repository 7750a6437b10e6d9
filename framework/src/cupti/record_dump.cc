// Captured activity records: see record_dump.h.
#include "cupti/record_dump.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace perfgate::cupti {
namespace {

constexpr char kMagic[] = "PGCUPTI1\n";
constexpr uint32_t kActivityTag = 1;
constexpr uint32_t kApiNameTag = 2;
// Upper bound of one record or name; anything larger means a damaged file.
constexpr uint32_t kMaxChunk = 1u << 20;

void PutU32(uint32_t v, std::FILE* out) { std::fwrite(&v, sizeof v, 1, out); }

void PutBytes(const void* data, uint32_t n, std::FILE* out) {
  PutU32(n, out);
  if (n > 0) std::fwrite(data, 1, n, out);
}

// The name a record points at, for the kinds that carry one.
const char* RecordName(const CUpti_Activity* record) {
  if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
    CUpti_ActivityKernel10 k;
    std::memcpy(&k, record, sizeof k);
    return k.name;
  }
  if (record->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
    CUpti_ActivityDevice5 d;
    std::memcpy(&d, record, sizeof d);
    return d.name;
  }
  return nullptr;
}

// Points the record's name field at `name` (a replayed record's pointer is stale).
void SetRecordName(std::vector<uint64_t>* storage, CUpti_ActivityKind kind, const char* name) {
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
    auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(storage->data());
    k->name = name;
  } else if (kind == CUPTI_ACTIVITY_KIND_DEVICE) {
    auto* d = reinterpret_cast<CUpti_ActivityDevice5*>(storage->data());
    d->name = name;
  }
}

// Reads the dump's bytes front to back, remembering where it is for errors.
class DumpReader {
 public:
  explicit DumpReader(std::string bytes) : bytes_(std::move(bytes)) {}
  bool AtEnd() const { return at_ == bytes_.size(); }
  size_t offset() const { return at_; }
  bool U32(uint32_t* v) {
    if (bytes_.size() - at_ < sizeof *v) return false;
    std::memcpy(v, bytes_.data() + at_, sizeof *v);
    at_ += sizeof *v;
    return true;
  }
  bool Bytes(uint32_t n, std::string* out) {
    if (n > kMaxChunk || bytes_.size() - at_ < n) return false;
    out->assign(bytes_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool Chunk(std::string* out) {
    uint32_t n = 0;
    return U32(&n) && Bytes(n, out);
  }
  bool Magic() {
    const size_t n = sizeof kMagic - 1;
    if (bytes_.compare(0, n, kMagic) != 0) return false;
    at_ = n;
    return true;
  }

 private:
  std::string bytes_;
  size_t at_ = 0;
};

struct ActivityEntry {
  std::vector<uint64_t> storage;  // 8-byte aligned, as CUPTI's records are
  std::string name;
  CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_INVALID;
};

bool ReadActivity(DumpReader& in, ActivityEntry* entry, std::string* error) {
  uint32_t kind = 0, size = 0;
  std::string bytes;
  if (!in.U32(&kind) || !in.U32(&size) || !in.Bytes(size, &bytes) || !in.Chunk(&entry->name)) return false;
  const size_t expected = RecordSize(static_cast<CUpti_ActivityKind>(kind));
  if (expected == 0 || size != expected) {
    *error = "record of kind " + std::to_string(kind) + " is " + std::to_string(size) + " bytes, expected " +
             std::to_string(expected) + " (a dump of other CUPTI headers?)";
    return false;
  }
  entry->storage.assign((size + 7) / 8, 0);
  std::memcpy(entry->storage.data(), bytes.data(), size);
  entry->kind = static_cast<CUpti_ActivityKind>(kind);
  return true;
}

}  // namespace

void DumpHeader(std::FILE* out) { std::fwrite(kMagic, 1, sizeof kMagic - 1, out); }

void DumpActivity(const CUpti_Activity* record, std::FILE* out) {
  const size_t size = RecordSize(record->kind);
  if (size == 0) return;
  PutU32(kActivityTag, out);
  PutU32(static_cast<uint32_t>(record->kind), out);
  PutBytes(record, static_cast<uint32_t>(size), out);
  const char* name = RecordName(record);
  PutBytes(name, name != nullptr ? static_cast<uint32_t>(std::strlen(name)) : 0, out);
}

void DumpApiName(bool driver, uint32_t cbid, const std::string& name, std::FILE* out) {
  PutU32(kApiNameTag, out);
  PutU32(driver ? 1 : 0, out);
  PutU32(cbid, out);
  PutBytes(name.data(), static_cast<uint32_t>(name.size()), out);
}

bool ReplayDump(const std::string& path, ProcessCapture* capture, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = "cannot open " + path;
    return false;
  }
  return ReplayDumpBytes(std::string(std::istreambuf_iterator<char>(file), {}), capture, error);
}

bool ReplayDumpBytes(std::string bytes, ProcessCapture* capture, std::string* error) {
  DumpReader in(std::move(bytes));
  if (!in.Magic()) {
    *error = "not a perfgate CUPTI record dump (no PGCUPTI1 line)";
    return false;
  }
  std::vector<ActivityEntry> activities;
  std::map<std::pair<bool, uint32_t>, std::string> api_names;
  while (!in.AtEnd()) {
    const size_t at = in.offset();
    uint32_t tag = 0, driver = 0, cbid = 0;
    std::string name;
    bool ok = in.U32(&tag);
    if (ok && tag == kActivityTag) {
      activities.emplace_back();
      ok = ReadActivity(in, &activities.back(), error);
    } else if (ok && tag == kApiNameTag) {
      ok = in.U32(&driver) && in.U32(&cbid) && in.Chunk(&name);
      api_names[{driver != 0, cbid}] = name;
    } else if (ok) {
      *error = "unknown entry tag " + std::to_string(tag);
      ok = false;
    }
    if (!ok) {
      *error = "offset " + std::to_string(at) + ": " + (error->empty() ? "truncated entry" : *error);
      return false;
    }
  }
  const ApiNamer namer = [&api_names](bool driver, uint32_t cbid) {
    auto it = api_names.find({driver, cbid});
    return it == api_names.end() ? std::string() : it->second;
  };
  // Names are pointed at only now: moving an entry moves a short name's characters.
  for (ActivityEntry& e : activities) {
    SetRecordName(&e.storage, e.kind, e.name.c_str());
    AppendActivity(reinterpret_cast<const CUpti_Activity*>(e.storage.data()), namer, capture);
  }
  return true;
}

}  // namespace perfgate::cupti
