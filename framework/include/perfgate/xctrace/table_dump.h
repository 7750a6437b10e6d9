// Dumping a decoded table as JSON or CSV: what `perfgate table` prints.
//
// JSON: {"schema", "columns": [{"mnemonic","name","engineering_type"}], "rows":
// [{mnemonic: value}], "diagnostics": {code: count}}. Integer engineering types become
// JSON numbers decoded from the element text; other leaves are strings; a composite
// cell is an object {"fmt": display, <child-tag>: value, ...} (a child tag that repeats
// maps to an array; extra attributes appear as "@name"); a sentinel is null.
#ifndef PERFGATE_XCTRACE_TABLE_DUMP_H_
#define PERFGATE_XCTRACE_TABLE_DUMP_H_

#include <ostream>

#include "perfgate/xctrace/reader.h"

namespace perfgate::xctrace {

// Streams one table as a JSON object (2-space indent for the outer levels, one row per
// line), followed by a newline. `document` supplies the diagnostics.
void WriteTableJson(const Document& document, const Table& table, std::ostream& out);

// Streams one table as RFC 4180 CSV: a header of mnemonics, then one line per row.
// Sentinels are empty fields, integers are decimal, composites print their fmt.
void WriteTableCsv(const Table& table, std::ostream& out);

}  // namespace perfgate::xctrace

#endif  // PERFGATE_XCTRACE_TABLE_DUMP_H_
