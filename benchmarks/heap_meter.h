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

}  // namespace perfgate::bench

#endif  // PERFGATE_BENCHMARKS_HEAP_METER_H_
