// What SQLite itself costs on an nsys export: the ceilings the nsys reader's
// benchmarks compare it with.
#ifndef PERFGATE_BENCHMARKS_NSYS_CEILING_H_
#define PERFGATE_BENCHMARKS_NSYS_CEILING_H_

#include <cstdint>
#include <string>

namespace perfgate::bench {

// Steps the rows of the columns the reader selects from the five event tables
// (kernels, memcpy, memset, runtime, NVTX), converting each value to an integer and
// keeping nothing: what any reader on SQLite costs at least. Returns the rows, or -1.
int64_t ScanNsysEventTables(const std::string& path);

// SQLite's own join of each kernel to its launch (runtime call of the same
// correlation id), stepped the same way. Returns the joined rows, or -1.
int64_t JoinNsysKernelsToLaunches(const std::string& path);

}  // namespace perfgate::bench

#endif  // PERFGATE_BENCHMARKS_NSYS_CEILING_H_
