// How far a long computation has come, for a host that shows it (a progress bar). The
// core reports from the loops whose length is known before they start: the join's
// partitions, the bootstrap's resamples, the sampler's draws, the expected mutual
// information's rows.
#pragma once

#include <cstdint>

namespace clusterscore {

// Called with `done` of `total` units of the loop under way (each loop starts again at
// 0), from the thread running it, at most a few hundred times per loop. Returns true to
// stop the computation, which then throws Interrupted as an InterruptCheck would: a host
// that runs code of its own in the report (a Python callback) may be told to stop there.
using ProgressReport = bool (*)(uint64_t done, uint64_t total);

// Installs `report` for every later call (nullptr: report nothing, the default). Not to
// be changed while a computation runs.
void set_progress_report(ProgressReport report) noexcept;

}  // namespace clusterscore
