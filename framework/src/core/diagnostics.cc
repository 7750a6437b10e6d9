#include "perfgate/core/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace perfgate {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

const std::vector<DiagnosticDescriptor>& DiagnosticCatalogue() {
  static const std::vector<DiagnosticDescriptor> kCatalogue = {
#define PERFGATE_DIAGNOSTIC(code, severity, summary) {code, Severity::severity, summary},
#include "diagnostics.def"
#undef PERFGATE_DIAGNOSTIC
  };
  return kCatalogue;
}

const DiagnosticDescriptor* FindDiagnostic(std::string_view code) {
  for (const auto& d : DiagnosticCatalogue()) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

void Diagnostics::Add(std::string_view code, const SourceLocation& where, std::string detail) {
  auto it = entries_.find(code);
  if (it == entries_.end()) {
    const DiagnosticDescriptor* d = FindDiagnostic(code);
    if (d == nullptr) {
      std::fprintf(stderr, "perfgate: Check failed: diagnostic code '%.*s' is not catalogued\n",
                   static_cast<int>(code.size()), code.data());
      std::abort();
    }
    Entry e;
    e.code = std::string(code);
    e.severity = d->severity;
    e.first_location = where;
    e.first_detail = std::move(detail);
    it = entries_.emplace(e.code, std::move(e)).first;
  }
  ++it->second.count;
}

void Diagnostics::AddCount(std::string_view code, int64_t n) {
  if (n <= 0) return;
  Add(code);
  entries_.find(code)->second.count += n - 1;
}

int64_t Diagnostics::Count(std::string_view code) const {
  auto it = entries_.find(code);
  return it == entries_.end() ? 0 : it->second.count;
}

const Diagnostics::Entry* Diagnostics::Find(std::string_view code) const {
  auto it = entries_.find(code);
  return it == entries_.end() ? nullptr : &it->second;
}

int64_t Diagnostics::ErrorCount() const {
  int64_t n = 0;
  for (const auto& [code, e] : entries_) {
    if (e.severity == Severity::kError) n += e.count;
  }
  return n;
}

std::vector<Diagnostics::Entry> Diagnostics::Entries() const {
  std::vector<Entry> out;
  out.reserve(entries_.size());
  for (const auto& [code, e] : entries_) out.push_back(e);
  return out;
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (const auto& [code, e] : other.entries_) {
    auto it = entries_.find(code);
    if (it == entries_.end()) {
      entries_.emplace(code, e);
    } else {
      it->second.count += e.count;
    }
  }
}

}  // namespace perfgate
