// Dumping a decoded table as JSON or CSV: what `perfgate table` prints.
//
// JSON: {"schema", "columns": [{"mnemonic","name","engineering_type"}], "rows":
// [{mnemonic: value}], "diagnostics": {code: count}}. Integer engineering types become
// JSON numbers decoded from the element text; other leaves are strings; a composite
// cell is an object {"fmt": display, <child-tag>: value, ...} (a child tag that repeats
// maps to an array; extra attributes appear as "@name"); a sentinel is null.
#ifndef PERFGATE_XCTRACE_TABLE_DUMP_H_
#define PERFGATE_XCTRACE_TABLE_DUMP_H_

#include <cstdint>
#include <ostream>

#include "perfgate/xctrace/reader.h"

namespace perfgate::xctrace {

// Refs repeat earlier values, and printing expands them, so a small file can name a
// huge tree. What the writers print is bounded: at most kTableOutputFactor bytes per
// input byte plus 1 MiB (TableOutputBound); a dump that would pass it stops with
// xctrace.output_too_large at the row being printed (the output is then incomplete).
inline constexpr uint64_t kTableOutputFactor = 64;
uint64_t TableOutputBound(const Document& document);

// Streams one table as a JSON object (2-space indent for the outer levels, one row per
// line), followed by a newline. `document` supplies the diagnostics. `*budget` is the
// bytes still allowed (shared by the tables of one dump) and is decremented.
Status WriteTableJson(const Document& document, const Table& table, std::ostream& out, uint64_t* budget);
// As above, with a budget of TableOutputBound(document).
Status WriteTableJson(const Document& document, const Table& table, std::ostream& out);

// Streams one table as RFC 4180 CSV: a header of mnemonics, then one line per row.
// Sentinels are empty fields, integers are decimal, composites print their fmt. Bound
// by TableOutputBound(document).
Status WriteTableCsv(const Document& document, const Table& table, std::ostream& out);

}  // namespace perfgate::xctrace

#endif  // PERFGATE_XCTRACE_TABLE_DUMP_H_
