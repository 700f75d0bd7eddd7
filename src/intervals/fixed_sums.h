// The bootstrap's engine for sums fixed per truth cluster (bootstrap.h, ClusterSums): the
// entities scope and the impact family, where a truth cluster's values do not depend on
// which others were drawn.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/simd.h"
#include "intervals/bootstrap.h"
#include "intervals/group_sums.h"

namespace clusterscore::intervals_detail {

// Per truth cluster √(1 − π_c), what a resample's draws of it count: cluster c drawn n
// times counts 1 + a_c·(n − 1) times (bootstrap.h, ClusterSums::inclusion); empty for none
// known (all a_c = 1: the draws as they are).
inline std::vector<double> draw_factors(const std::vector<double>& inclusion, size_t clusters) {
  if (!inclusion.empty() && inclusion.size() != clusters)
    throw std::invalid_argument("clusterscore: one inclusion probability per truth cluster");
  std::vector<double> a;
  a.reserve(inclusion.size());
  for (double p : inclusion) {
    if (!(p >= 0 && p <= 1))
      throw std::invalid_argument("clusterscore: inclusion probabilities must be in [0, 1]");
    a.push_back(std::sqrt(1 - p));
  }
  return a;
}

// Estimates from fixed sums per truth cluster (ClusterSums): the truth cluster at place p
// of the order of drawing (BootstrapOptions::cluster_rank), drawn n times in a lane
// (Draws), counts 1 + a_p·(n − 1) times its design weight there (draw_factors(); no
// draws: once).
class FixedSums {
 public:
  // `rank`: BootstrapOptions::cluster_rank, checked.
  FixedSums(const std::vector<ClusterSums>& runs, const std::vector<uint32_t>& rank)
      : runs_(runs), layout_(runs.at(0).names.size(), runs[0].pairs) {
    for (const ClusterSums& r : runs)
      if (r.n_clusters != runs[0].n_clusters || r.n_groups != runs[0].n_groups ||
          r.names != runs[0].names || r.pairs != runs[0].pairs || r.design != runs[0].design)
        mismatched_runs();
    const auto place = [&](uint32_t c) { return rank.empty() ? c : rank[c]; };
    for (const ClusterSums& r : runs) {
      places_.emplace_back();
      for (uint32_t c : r.cluster) {
        if (c >= clusters())
          throw std::invalid_argument("clusterscore: a truth cluster out of range");
        places_.back().push_back(place(c));
      }
    }
    design_ = by_place(runs[0].design, place);
    // The first run's: the population's items, which scale uniform and inverse_size
    // weights to probabilities, include each run's own items outside the truth.
    a_ = by_place(draw_factors(runs[0].inclusion, clusters()), place);
  }
  double share(bool) const { return 0; }
  const Layout& layout() const { return layout_; }
  size_t groups() const { return runs_[0].n_groups; }
  size_t clusters() const { return runs_[0].n_clusters; }
  size_t runs() const { return runs_.size(); }
  std::vector<std::string> base_names() const { return runs_[0].names; }
  // Its estimates are sums over single truth clusters: the bootstrap's spread as it is.
  static constexpr bool kPairTerms = false;
  // Truth clusters as resamples number them: their place in the order of drawing.
  template <class F>
  void for_each_cluster(F f) const {
    for (const std::vector<uint32_t>& places : places_)
      for (uint32_t p : places) f(p);
  }
  // f(truth cluster, group) for each entry of run `run`.
  template <class F>
  void for_each_entry(size_t run, F f) const {
    const ClusterSums& r = runs_[run];
    for (size_t e = 0; e < r.size(); ++e) f(places_[run][e], r.group[e]);
  }

  // The estimates of each lane's draws into out[0..d.lanes).
  void compute(const Draws& d, std::vector<double>* out) const {
    estimates_of_runs(layout_, groups(), runs_.size(), d.lanes, out,
                      [&](size_t run, GroupSums* sums) { add_entries(run, d, sums); });
  }

 private:
  template <class Place>
  static std::vector<double> by_place(const std::vector<double>& v, Place place) {
    std::vector<double> out(v.size());
    for (uint32_t c = 0; c < v.size(); ++c) out[place(c)] = v[c];
    return out;
  }

  CLUSTERSCORE_SIMD_CLONES
  void add_entries(size_t run, const Draws& d, GroupSums* sums) const {
    const ClusterSums& r = runs_[run];
    const std::vector<uint32_t>& places = places_[run];
    const size_t width = r.width();
    for (size_t e = 0; e < r.size(); ++e) {
      const uint32_t p = places[e];
      for (size_t l = 0; l < d.lanes; ++l) {
        // The variance corrected cluster by cluster, in the multiplicities.
        const double n = d.times(l, p);
        double k = !d.n || a_.empty() ? n : 1 + a_[p] * (n - 1);
        if (k == 0) continue;
        if (!design_.empty()) k *= design_[p];
        sums[l].add(r.group[e], k, r.weight[e], r.sums.data() + e * width);
      }
    }
  }

  const std::vector<ClusterSums>& runs_;
  Layout layout_;
  std::vector<std::vector<uint32_t>> places_;  // per run, per entry: its cluster's place
  std::vector<double> design_, a_;             // per place: design weight, draw_factors()
};

}  // namespace clusterscore::intervals_detail
