// The installed ProgressReport: told how far the core's long loops have come, in order,
// and able to stop a computation as an interrupt check can.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "classic/classic_cells.h"
#include "clusterscore/interrupt.h"
#include "clusterscore/progress.h"
#include "clusterscore/threads.h"

using namespace clusterscore;

namespace {

std::vector<std::pair<uint64_t, uint64_t>> reports;
uint64_t stop_after = UINT64_MAX;

bool record(uint64_t done, uint64_t total) {
  reports.emplace_back(done, total);
  return reports.size() >= stop_after;
}

// Labelings whose expected mutual information has many distinct cluster sizes: a loop
// long enough to report in.
LabelCells unrelated(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = int64_t(rng() % (1 + i % 5000));
    b[i] = int64_t(rng() % 3000);
  }
  return cells_from_labels(IdColumn::of_ints(a.data(), n), IdColumn::of_ints(b.data(), n), nullptr);
}

// One thread: progress is reported from the calling thread, where the expected mutual
// information runs only when it has no other thread to run on.
struct OneThread {
  OneThread() { set_threads(1); }
  ~OneThread() { set_threads(0); }
};

ClassicOptions emi_only() {
  ClassicOptions o;
  o.matching = false;
  return o;
}

}  // namespace

TEST(Progress, ReportsALoopInOrderBelowItsTotal) {
  const OneThread one;
  const LabelCells lc = unrelated(200000, 1);
  reports.clear();
  stop_after = UINT64_MAX;
  set_progress_report(&record);
  const ClassicScores with = classic_scores(lc.cells, emi_only());
  set_progress_report(nullptr);
  ASSERT_GE(reports.size(), 2u);
  const uint64_t total = reports.front().second;
  EXPECT_EQ(reports.front().first, 0u);
  for (size_t k = 1; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].second, total);
    EXPECT_GT(reports[k].first, reports[k - 1].first);
    EXPECT_LT(reports[k].first, total);
  }
  EXPECT_LE(reports.size(), 300u);  // a few hundred calls, not one per row
  // Reporting changes nothing computed.
  const ClassicScores without = classic_scores(lc.cells, emi_only());
  EXPECT_EQ(with.adjusted_mutual_info_score, without.adjusted_mutual_info_score);
}

TEST(Progress, AReportAskingToStopInterrupts) {
  const OneThread one;
  const LabelCells lc = unrelated(200000, 2);
  reports.clear();
  stop_after = 2;
  set_progress_report(&record);
  EXPECT_THROW(classic_scores(lc.cells, emi_only()), Interrupted);
  set_progress_report(nullptr);
  EXPECT_EQ(reports.size(), 2u);
  stop_after = UINT64_MAX;
}
