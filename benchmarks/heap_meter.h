// Counts live heap bytes (operator new and pugixml's allocations) so benchmarks can
// report the peak memory of one decode. Linked only into benchmark programs.
#ifndef PERFGATE_BENCHMARKS_HEAP_METER_H_
#define PERFGATE_BENCHMARKS_HEAP_METER_H_

#include <cstddef>

namespace perfgate::bench {

// Live bytes now, and the high-water mark since the last ResetPeak().
size_t LiveHeapBytes();
size_t PeakHeapBytes();
void ResetPeak();

// The process's resident set now, and its high-water mark since the last
// ResetPeakRss() (Linux: /proc/self/status VmRSS and VmHWM, reset through
// /proc/self/clear_refs). Unlike the heap meter this sees every allocator (SQLite's
// malloc, simdjson's aligned buffers, mappings); 0 where /proc cannot be read.
size_t RssBytes();
size_t PeakRssBytes();
void ResetPeakRss();

}  // namespace perfgate::bench

#endif  // PERFGATE_BENCHMARKS_HEAP_METER_H_
