// Raw CUPTI activity records captured on a GPU, kept as a file so that the record
// conversion is tested without one (PERFGATE_CUPTI_DUMP_RECORDS=1 makes the tracer
// write cupti-<pid>.records beside its trace).
//
// Layout (host byte order, x86-64): the magic line "PGCUPTI1\n", then entries, each a
// u32 tag:
//   1 (activity): u32 kind, u32 size, `size` bytes of the record as CUPTI delivered
//     it, u32 n and n bytes of the name its `name` pointer pointed at (kernels and
//     devices; n = 0 otherwise);
//   2 (API name): u32 driver (0/1), u32 cbid, u32 n, n bytes of cuptiGetCallbackName's
//     answer.
#ifndef PERFGATE_SRC_CUPTI_RECORD_DUMP_H_
#define PERFGATE_SRC_CUPTI_RECORD_DUMP_H_

#include <cupti_activity.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "cupti/cupti_convert.h"
#include "cupti/trace_records.h"

namespace perfgate::cupti {

// Appends one record (and the name it points at) to an open dump file.
void DumpActivity(const CUpti_Activity* record, std::FILE* out);
// Appends one API name; the tracer writes each callback id it met once.
void DumpApiName(bool driver, uint32_t cbid, const std::string& name, std::FILE* out);
// Writes the magic line.
void DumpHeader(std::FILE* out);

// Replays a dump through AppendActivity into `capture`, with the dump's API names.
// False with `error` set ("offset 1234: record of kind 10 is 40 bytes, expected 256")
// when the file is not a whole dump of these headers' record sizes.
bool ReplayDump(const std::string& path, ProcessCapture* capture, std::string* error);
// The same for a dump held in memory (already inflated).
bool ReplayDumpBytes(std::string bytes, ProcessCapture* capture, std::string* error);

}  // namespace perfgate::cupti

#endif  // PERFGATE_SRC_CUPTI_RECORD_DUMP_H_
