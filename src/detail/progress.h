// Reporting a loop's progress to the installed ProgressReport.
#pragma once

#include <cstdint>

#include "clusterscore/progress.h"

namespace clusterscore::detail {

// Reports `done` of `total`; throws Interrupted if the report asks to stop.
void report_progress(uint64_t done, uint64_t total);

// In a loop over i < total: reports about 256 times in all. For loops whose iterations
// cost far more than the test's one division (a partition, a resample, a drawn pair).
inline void report_every(uint64_t i, uint64_t step, uint64_t total) {
  if (i % step == 0) report_progress(i, total);
}

// The `step` for report_every over `total` iterations.
inline uint64_t report_step(uint64_t total) { return total / 256 + 1; }

}  // namespace clusterscore::detail
