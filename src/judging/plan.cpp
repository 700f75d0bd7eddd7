#include "clusterscore/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "detail/normal.h"

namespace clusterscore {
namespace {

enum class Stratum { kDiff, kStable };

// Which class proportions a metric's estimate is made of.
enum class Part { kSplit, kMerge, kSplitAndMerge, kStable };

// Every metric a plan can be made for, in the order plannable_metrics() lists them, and
// whether it is planned for when none is named.
struct Plannable {
  const char* name;
  Part part;
  bool by_default;
};
constexpr Plannable kPlannable[] = {
    {"good_split_distance", Part::kSplit, true},    {"bad_split_distance", Part::kSplit, true},
    {"good_merge_distance", Part::kMerge, true},    {"bad_merge_distance", Part::kMerge, true},
    {"good_distance", Part::kSplitAndMerge, false}, {"bad_distance", Part::kSplitAndMerge, false},
    {"affected_good_index", Part::kStable, true},   {"affected_bad_index", Part::kStable, true}};

// A metric's variance is K / n, n its stratum's draws.
struct Variance {
  Stratum stratum;
  double k;
};

Variance variance_of(const std::string& metric, const PlanRequest& r) {
  const SampleTotals& t = r.totals;
  const double sd = t.split_distance, md = t.merge_distance, diff = sd + md;
  const double self = t.self_share();
  const double aji = t.affected_jaccard_index;
  // Multiplier m, class proportion p drawn with share s of the stratum's draws:
  // Var = m²·p(1 − p) / (s·n). A proportion at or near 0 or 1 (a pilot whose verdicts
  // agree) still has the Wilson width the estimate gives it, about m·z²/(s·n) from the
  // estimate to the far end: as wide as the normal one with p(1 − p) = H/m, its floor.
  const auto part = [&](double m, double p, double share) {
    if (m == 0 || share == 0) return 0.0;
    return m * m * std::max(p * (1 - p), std::min(0.25, r.half_width / m)) / share;
  };
  const double split = part(sd, r.same_split, diff > 0 ? sd / diff : 0);
  const double merge = part(md, r.same_merge, diff > 0 ? md / diff : 0);
  for (const Plannable& p : kPlannable) {
    if (metric != p.name) continue;
    switch (p.part) {
      case Part::kSplit:
        return {Stratum::kDiff, split};
      case Part::kMerge:
        return {Stratum::kDiff, merge};
      case Part::kSplitAndMerge:
        return {Stratum::kDiff, split + merge};
      case Part::kStable:
        return {Stratum::kStable, part(aji * (1 - self), r.same_stable, 1 - self)};
    }
  }
  std::string known;
  for (const std::string& m : plannable_metrics()) known += (known.empty() ? "" : ", ") + m;
  throw std::invalid_argument("cannot plan for metric '" + metric + "'; choose from " + known);
}

// `x` in as few digits as read back the same ("1e-20", "0.013"), at most `most`, for
// messages.
std::string shortest(double x, int most = 17) {
  char buf[32];
  for (int digits = 1; digits <= most; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::vector<std::string> default_metrics() {
  std::vector<std::string> out;
  for (const Plannable& p : kPlannable)
    if (p.by_default) out.emplace_back(p.name);
  return out;
}

}  // namespace

const std::vector<std::string>& plannable_metrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Plannable& p : kPlannable) out.emplace_back(p.name);
    return out;
  }();
  return names;
}

Plan plan_pairs(const PlanRequest& r) {
  if (!(r.half_width > 0) || !std::isfinite(r.half_width))
    throw std::invalid_argument("half_width must be a number > 0");
  if (!(r.confidence > 0 && r.confidence < 1))
    throw std::invalid_argument("confidence must be in (0, 1)");
  for (double p : {r.same_split, r.same_merge, r.same_stable})
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument("class proportions must be in [0, 1]");
  const std::vector<std::string> defaults = default_metrics();
  const std::vector<std::string>& metrics = r.metrics.empty() ? defaults : r.metrics;
  const double z = detail::normal_quantile(1 - (1 - r.confidence) / 2);
  std::vector<Variance> v;
  Plan plan;
  for (const std::string& m : metrics) {
    v.push_back(variance_of(m, r));
    const double n = std::ceil(v.back().k * z * z / (r.half_width * r.half_width));
    if (!(n <= double(kMostDraws)))
      throw std::invalid_argument("a half-width of " + shortest(r.half_width) + " on " + m +
                                  " needs about " + shortest(n, 3) + " draws, more than the " +
                                  std::to_string(kMostDraws) +
                                  " a sample can hold; ask for a wider half-width");
    uint64_t& to = v.back().stratum == Stratum::kDiff ? plan.pairs : plan.stable_pairs;
    to = std::max(to, uint64_t(n));
  }
  for (size_t i = 0; i < metrics.size(); ++i) {
    const double n = double(v[i].stratum == Stratum::kDiff ? plan.pairs : plan.stable_pairs);
    plan.predicted_half_width.emplace_back(metrics[i],
                                           v[i].k == 0 ? 0.0 : z * std::sqrt(v[i].k / n));
  }
  const SampleTotals& t = r.totals;
  const double self = t.self_share();
  plan.judgements = plan.pairs + uint64_t(std::ceil(double(plan.stable_pairs) * (1 - self)));
  return plan;
}

}  // namespace clusterscore
