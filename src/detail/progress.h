// Reporting a loop's progress to the installed ProgressReport.
#pragma once

#include <cstdint>

#include "clusterscore/progress.h"

namespace clusterscore::detail {

// Reports `done` of `total`; throws Interrupted if the report asks to stop.
void report_progress(uint64_t done, uint64_t total);

// In a loop over i < total: reports about 256 times in all, however long the loop, as
// the ProgressReport contract asks. For loops whose iterations cost far more than the
// test's two divisions (a partition, a resample, an expected-MI row).
inline void report_every(uint64_t i, uint64_t total) {
  if (i % (total / 256 + 1) == 0) report_progress(i, total);
}

}  // namespace clusterscore::detail
