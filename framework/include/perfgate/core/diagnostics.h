// Diagnostics: the named, counted anomalies that bad data produces.
//
// Every anomaly perfgate can meet is declared once in a catalogue (code, severity,
// one sentence; see src/core/diagnostics.def). Readers and the attribution engine
// count them instead of logging or dropping data, and the counts reach reports,
// goldens and gates. In strict mode a reader turns error-severity anomalies into a
// Status instead of counting them.
#ifndef PERFGATE_CORE_DIAGNOSTICS_H_
#define PERFGATE_CORE_DIAGNOSTICS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate {

enum class Severity { kInfo, kWarning, kError };

// "info", "warning" or "error".
std::string_view SeverityName(Severity severity);

// One catalogue entry.
struct DiagnosticDescriptor {
  std::string_view code;     // stable id, e.g. "xctrace.dangling_ref"
  Severity severity;
  std::string_view summary;  // one sentence for humans
};

// Every catalogued diagnostic, in catalogue order.
const std::vector<DiagnosticDescriptor>& DiagnosticCatalogue();

// The entry for `code`, or nullptr when the code is not catalogued.
const DiagnosticDescriptor* FindDiagnostic(std::string_view code);

// Counts of anomalies by code, with the first occurrence's location and detail.
class Diagnostics {
 public:
  struct Entry {
    std::string code;
    Severity severity = Severity::kWarning;
    int64_t count = 0;
    SourceLocation first_location;
    std::string first_detail;
  };

  // Counts one occurrence of a catalogued code; aborts on an uncatalogued code,
  // which is a programming error.
  void Add(std::string_view code, const SourceLocation& where = {}, std::string detail = {});
  // Add, with the occurrence located by `locate()` (which may cost a pass over the
  // input) only when it is the code's first: the only location kept. A reader that
  // located every occurrence would be quadratic in its input.
  template <typename Locate>
  void AddLocated(std::string_view code, Locate locate, std::string detail = {}) {
    Add(code, Has(code) ? SourceLocation{} : locate(), std::move(detail));
  }
  // Adds `n` occurrences at once (no location).
  void AddCount(std::string_view code, int64_t n);

  int64_t Count(std::string_view code) const;
  bool Has(std::string_view code) const { return Count(code) > 0; }
  // The entry of `code` (its count, first location and detail), or nullptr.
  const Entry* Find(std::string_view code) const;
  // Sum of the counts of error-severity codes.
  int64_t ErrorCount() const;
  bool empty() const { return entries_.empty(); }

  // Entries sorted by code.
  std::vector<Entry> Entries() const;
  // Adds every count of `other` into this one, keeping the earliest first detail.
  void Merge(const Diagnostics& other);

 private:
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace perfgate

#endif  // PERFGATE_CORE_DIAGNOSTICS_H_
