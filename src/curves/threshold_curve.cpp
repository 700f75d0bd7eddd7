#include "curves/threshold_curve.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "curves/curve_pass.h"
#include "curves/sorted_links.h"
#include "detail/interrupt.h"
#include "detail/prefetch.h"

namespace clusterscore {
namespace {

using curves_detail::Components;
using curves_detail::CurvePass;
using curves_detail::Link;
using curves_detail::Merge;
using curves_detail::Row;
constexpr size_t kNoStep = size_t(-1);
// The pass polls for a signal every 2^16 links or merges (milliseconds): the host's check
// takes Python's lock, which once per step (3e7 of them at 1e7 items) cost seconds.
constexpr unsigned kPollShift = 16;

// Which steps of a curve over every distinct score are kept: all of them up to
// max_points, else the first, the last, and the first step at or past each of evenly
// spaced counts of merges (places for the best rows left).
class Spacing {
 public:
  Spacing(uint64_t steps, uint64_t merges, size_t max_points)
      : all_(steps <= max_points),
        merges_(merges),
        marks_(max_points - 2 - std::size(kCurveBest)) {}
  bool keep(uint64_t step, uint64_t last_step, uint64_t merges) {
    if (all_ || step == 0 || step == last_step) return true;
    // Mark k (1 ≤ k ≤ marks) sits at merges·k / (marks + 1).
    const uint64_t reached =
        merges_ == 0 ? 0 : uint64_t((unsigned __int128)merges * (marks_ + 1) / merges_);
    if (reached <= next_) return false;
    next_ = reached;
    return reached <= marks_;
  }

 private:
  bool all_;
  uint64_t merges_, marks_, next_ = 0;
};

// Merge m, what it reads fetched ahead of it.
void merge_at(CurvePass& pass, const BigVector<Merge>& merges, size_t m) {
  constexpr size_t kFar = detail::kPrefetch, kNear = detail::kPrefetch / 2;
  if (m + kFar < merges.size()) pass.prefetch_far(merges[m + kFar].root, merges[m + kFar].other);
  if (m + kNear < merges.size())
    pass.prefetch_near(merges[m + kNear].root, merges[m + kNear].other);
  pass.merge(merges[m].root, merges[m].other);
}

void check_threshold(double t) {
  if (std::isnan(t)) throw std::invalid_argument("clusterscore: a threshold that is not a number");
}

uint64_t count_steps(const BigVector<Link>& links) {
  uint64_t steps = 0;
  for (size_t i = 0; i < links.size(); ++i) steps += i == 0 || links[i].score != links[i - 1].score;
  return steps;
}

}  // namespace

CurveTable threshold_curve(const Comparison& c, const ScoredPairs& pairs, const CurveOptions& o) {
  const std::vector<uint32_t> node = curves_detail::node_of_rows(c.joined());
  curves_detail::check_pairs(node.size(), pairs);
  for (double t : o.thresholds) check_threshold(t);
  if (o.thresholds.empty() && o.max_points < 2 + std::size(kCurveBest) + 1)
    throw std::invalid_argument("clusterscore: max_points must be at least 6");
  const BigVector<Link> links = curves_detail::sorted_links(pairs, node);
  CurvePass pass(c);
  const BigVector<Merge> merges = curves_detail::merges_of(pass.nodes(), links);
  CurveTable out;
  out.pairs = links.size();
  out.distinct_scores = count_steps(links);
  // Kept rows and each metric's best row so far, with their step (rows go in step order).
  std::vector<std::pair<size_t, Row>> rows, best(std::size(kCurveBest), {kNoStep, Row{}});
  std::vector<double> best_value(std::size(kCurveBest), -std::numeric_limits<double>::infinity());
  size_t step = 0;
  // The pass at threshold t, its step-th row: kept if `keep`, and where it is best. Large
  // clusters' sums are settled only where the row is kept or their bounds could beat a
  // best row: past a curve's peak, a giant cluster's bounds rarely can.
  // A step that merged nothing has the last evaluated step's values: it can beat no best
  // row (ties keep the higher threshold), so only a kept row needs it.
  uint64_t evaluated_at = UINT64_MAX;  // merges when a step was last evaluated
  const auto at = [&](double t, bool keep) {
    if (!keep && pass.merges() == evaluated_at) {
      ++step;
      return;
    }
    evaluated_at = pass.merges();
    Row r = pass.row(t);
    const auto could_beat = [&] {
      for (size_t b = 0; b < best.size(); ++b) {
        const double bound = pass.best_value(r.sums, b);
        if (!(bound <= best_value[b])) return true;  // NaN too: no bound to trust
      }
      return false;
    };
    if (pass.bounded() && (keep || could_beat())) {
      pass.settle();
      r = pass.row(t);
    }
    if (!pass.bounded()) {
      for (size_t b = 0; b < best.size(); ++b) {
        const double v = pass.best_value(r.sums, b);
        if (v > best_value[b]) best_value[b] = v, best[b] = {step, r};
      }
      if (keep) rows.push_back({step, r});
    }
    ++step;
  };
  if (o.thresholds.empty()) {
    Spacing spacing(out.distinct_scores, merges.size(), o.max_points);
    size_t m = 0;  // the next merge
    for (size_t i = 0; i < links.size(); ++i) {
      detail::poll_every<kPollShift>(i);
      if (m < merges.size() && merges[m].link == i) merge_at(pass, merges, m++);
      if (i + 1 == links.size() || links[i + 1].score != links[i].score)
        at(links[i].score, spacing.keep(step, out.distinct_scores - 1, pass.merges()));
    }
  } else {
    std::vector<double> ts = o.thresholds;
    std::sort(ts.begin(), ts.end(), std::greater<>());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    size_t m = 0;
    for (double t : ts) {
      for (; m < merges.size() && links[merges[m].link].score >= t; ++m) {
        detail::poll_every<kPollShift>(m);
        merge_at(pass, merges, m);
      }
      at(t, true);
    }
  }
  for (const auto& b : best)
    if (b.first != kNoStep) rows.push_back(b);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const auto& x, const auto& y) { return x.first == y.first; }),
             rows.end());
  std::vector<Row> kept;
  for (const auto& [s, r] : rows) {
    kept.push_back(r);
    out.threshold.push_back(r.threshold);
    out.clusters.push_back(r.clusters);
  }
  for (const auto& b : best) {
    const auto at_row =
        std::find_if(rows.begin(), rows.end(), [&](const auto& x) { return x.first == b.first; });
    out.best.push_back(b.first == kNoStep ? kNone : uint32_t(at_row - rows.begin()));
  }
  out.metrics = pass.table(kept);
  return out;
}

std::vector<uint32_t> components_at(size_t rows, const ScoredPairs& pairs, double t) {
  curves_detail::check_pairs(rows, pairs);
  check_threshold(t);
  Components uf(rows);
  for (size_t r = 0; r < pairs.size(); ++r) {
    if (!(pairs.score[r] >= t)) continue;
    const uint32_t a = uf.find(pairs.left[r]), b = uf.find(pairs.right[r]);
    // The smaller row as the root: each component is named by its smallest row.
    if (a != b) uf.join_under(std::min(a, b), std::max(a, b));
  }
  std::vector<uint32_t> label(rows);
  for (uint32_t r = 0; r < rows; ++r) label[r] = uf.find(r);
  return label;
}

}  // namespace clusterscore