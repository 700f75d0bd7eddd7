#include "judging/sampling.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cells/cell_weights.h"
#include "detail/big_vector.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/parallel.h"
#include "detail/progress.h"
#include "detail/random.h"
#include "input/interner.h"

namespace clusterscore {
namespace {

// Members of groups laid out contiguously, with each group's inclusive running weight,
// so that a member is drawn in proportion to its weight by one binary search.
struct Segments {
  BigVector<uint32_t> start;   // group g is [start[g], start[g + 1])
  BigVector<uint32_t> member;  // e.g. item or cell ids
  BigVector<double> cum;       // running weight within the group, inclusive

  // Groups `key[x]` (kNone skips x) of members x weighted by `weight[x]`, each group's
  // members in increasing order. On threads, each task owns a range of groups and reads
  // every key: the layout is the serial one on any number of threads, and no task keeps
  // counts for every group (n_groups words per thread). At most kMostTasks: each task's
  // reading of every key is the part that more threads do not shrink.
  template <class Key, class Weight>
  Segments(size_t n_groups, size_t n, Key key, Weight weight) : start(n_groups + 1, 0u) {
    constexpr size_t kMostTasks = 8, kFewest = size_t(1) << 16;
    const size_t tasks =
        n < kFewest ? 1 : std::clamp<size_t>(detail::workers_for(n_groups), 1, kMostTasks);
    // Groups [g0, g1) of each task: equal ranges for counting, then equal members.
    detail::parallel_parts(n_groups, tasks, [&](size_t, size_t g0, size_t g1) {
      for (size_t x = 0; x < n; ++x) {
        detail::poll_every(x);
        const size_t g = key(x);  // kNone is past every range
        if (g >= g0 && g < g1) ++start[g + 1];
      }
    });
    for (size_t g = 0; g < n_groups; ++g) start[g + 1] += start[g];
    member.resize(start[n_groups]);
    cum.resize(start[n_groups]);
    std::vector<size_t> bound(tasks + 1);
    bound[tasks] = n_groups;
    for (size_t t = 1; t < tasks; ++t)
      bound[t] = size_t(
          std::lower_bound(start.begin(), start.end() - 1, uint64_t(start[n_groups]) * t / tasks) -
          start.begin());
    detail::parallel_for(tasks, [&](size_t, size_t t) {
      const size_t g0 = bound[t], g1 = bound[t + 1];
      if (g0 >= g1) return;
      std::vector<uint32_t> next(start.begin() + g0, start.begin() + g1);
      for (size_t x = 0; x < n; ++x) {
        detail::poll_every(x);
        const size_t g = key(x);
        if (g >= g0 && g < g1) {
          const uint32_t p = next[g - g0]++;
          member[p] = uint32_t(x);
          cum[p] = weight(x);  // read in order here, not at random from member[p] below
        }
      }
      for (size_t g = g0; g < g1; ++g) {
        detail::KahanSum s;
        for (uint32_t p = start[g]; p < start[g + 1]; ++p) {
          s.add(cum[p]);
          cum[p] = s.value();
        }
      }
    });
  }
  double total(uint32_t g) const { return start[g + 1] > start[g] ? cum[start[g + 1] - 1] : 0.0; }
  // The first position p in group g with cum[p] > target (clamped to the group).
  uint32_t find(uint32_t g, double target) const {
    const auto b = cum.begin() + start[g], e = cum.begin() + start[g + 1];
    auto it = std::upper_bound(b, e, target);
    if (it == e) --it;
    return uint32_t(it - cum.begin());
  }
  // A member of g drawn in proportion to weight, and where in its weight the draw fell
  // (in [0, 1): for a member that stands for several items, which of them).
  struct Found {
    uint32_t member;
    double at;
  };
  Found draw(uint32_t g, detail::Random& rng) const {
    const double target = rng.uniform() * total(g);
    const uint32_t p = find(g, target);
    const double before = p > start[g] ? cum[p - 1] : 0.0, width = cum[p] - before;
    const double at = width > 0 ? (target - before) / width : 0.0;
    return {member[p], std::clamp(at, 0.0, std::nextafter(1.0, 0.0))};
  }
  // A member of g other than the one at position `skip` (weight `skip_w`).
  uint32_t draw_except(uint32_t g, uint32_t skip, double skip_w, detail::Random& rng) const {
    const double before = cum[skip] - skip_w;
    double t = rng.uniform() * (total(g) - skip_w);
    if (t >= before) t += skip_w;
    uint32_t p = find(g, t);
    if (p == skip) p = (p + 1 < start[g + 1]) ? p + 1 : p - 1;  // rounding at the edge
    return member[p];
  }
};

struct CellParts {                          // cells/cell_weights.h
  double split = 0, merge = 0, stable = 0;  // B − X, E − X, X (affected only)
};

// Each cell's parts and the pair masses they give: what the totals and the tails read
// (O(cells) to make), and the sampler draws by.
class CellPartsTable {
 public:
  explicit CellPartsTable(const CellTable& cells) : cells_(cells), parts_(cells.size()) {
    detail::parallel_ranges(cells_.size(), [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) {
        const detail::CellWeights w = detail::cell_weights(cells_, cells_.col_weight, k);
        CellParts& p = parts_[k];
        if (detail::splits_row(cells_, k)) p.split = w.bx;
        if (detail::merges_column(cells_, k)) p.merge = w.ex;
        if (p.split > 0 || p.merge > 0) p.stable = w.x;
      }
    });
  }

  const CellParts& operator[](size_t k) const { return parts_[k]; }
  bool affected(size_t k) const { return parts_[k].stable > 0; }
  double union_weight(size_t k) const {
    return cells_.weight[k] + parts_[k].split + parts_[k].merge;
  }
  // Σ_{i in cell k} Σ_{j in the population} w_ij
  double cell_mass(size_t k, Population pop) const {
    const CellParts& p = parts_[k];
    const double parts = pop == Population::kDiff     ? p.split + p.merge
                         : pop == Population::kStable ? p.stable
                                                      : p.split + p.merge + p.stable;
    return parts == 0 ? 0.0 : cells_.weight[k] / (cells_.total_weight * union_weight(k)) * parts;
  }

 private:
  const CellTable& cells_;
  std::vector<CellParts> parts_;
};

class Sampler {
 public:
  explicit Sampler(const Comparison& c)
      : c_(c),
        cells_(c.cells()),
        items_(
            cells_.size(), c.joined().n_items(), [&](size_t i) { return c.cell_of_item()[i]; },
            [&](size_t i) { return c.joined().weight[i]; }),
        rows_(
            cells_.n_rows, cells_.size(), [&](size_t k) { return cells_.row[k]; },
            [&](size_t k) { return cells_.weight[k]; }),
        cols_(
            cells_.n_cols, cells_.size(), [&](size_t k) { return cells_.col[k]; },
            [&](size_t k) { return cells_.weight[k]; }),
        row_pos_(cells_.size()),
        col_pos_(cells_.size()),
        parts_(cells_) {
    // Every index on its own: a cell is a member of one row and of one column at most.
    for (const auto& [groups, pos] : {std::pair{&rows_, &row_pos_}, std::pair{&cols_, &col_pos_}})
      detail::parallel_ranges(groups->member.size(), [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) (*pos)[groups->member[p]] = uint32_t(p);
      });
  }

  double union_weight(size_t k) const { return parts_.union_weight(k); }
  // A drawn pair: its items (or units), the cell of i, its kind, and where in each unit's
  // weight its item lies.
  struct Draw {
    uint32_t i, j, k;
    PairKind kind;
    double at_i, at_j;
  };

  double cell_mass(size_t k, Population pop) const { return parts_.cell_mass(k, pop); }

  std::vector<double> cumulative_masses(Population pop) const {
    std::vector<double> cum(cells_.size());
    detail::KahanSum s;
    for (size_t k = 0; k < cells_.size(); ++k) {
      s.add(cell_mass(k, pop));
      cum[k] = s.value();
    }
    return cum;
  }

  // One pair of `pop`, drawn in proportion to its weight: read-only, so that blocks of
  // draws can be made on any thread.
  Draw draw(const std::vector<double>& cum, Population pop, detail::Random& rng) const {
    auto it = std::upper_bound(cum.begin(), cum.end(), rng.uniform() * cum.back());
    if (it == cum.end()) --it;
    while (it != cum.begin() && cell_mass(size_t(it - cum.begin()), pop) == 0) --it;
    const uint32_t k = uint32_t(it - cum.begin());
    const Segments::Found i = items_.draw(k, rng);
    const CellParts& p = parts_[k];
    const double split = pop == Population::kStable ? 0 : p.split;
    const double merge = pop == Population::kStable ? 0 : p.merge;
    const double stable = pop == Population::kDiff ? 0 : p.stable;
    const double u = rng.uniform() * (split + merge + stable);
    Segments::Found j;
    PairKind kind;
    // Only parts with positive weight can be chosen, whatever the rounding of u.
    if (split > 0 && (u < split || (merge == 0 && stable == 0))) {
      kind = PairKind::kSplit;
      const uint32_t cell = rows_.draw_except(cells_.row[k], row_pos_[k], cells_.weight[k], rng);
      j = items_.draw(cell, rng);
    } else if (merge > 0 && (u < split + merge || stable == 0)) {
      kind = PairKind::kMerge;
      const uint32_t cell = cols_.draw_except(cells_.col[k], col_pos_[k], cells_.weight[k], rng);
      j = items_.draw(cell, rng);
    } else {
      j = items_.draw(k, rng);
      // Two draws from one unit of several items may still be two items: its engine says.
      kind = j.member == i.member && !units_ ? PairKind::kSelf : PairKind::kStable;
    }
    return {i.member, j.member, k, kind, i.at, j.at};
  }

  // Adds a drawn pair to `out`: a new row, or one more draw of a pair drawn before.
  void record(const Draw& d, uint8_t stratum, PairSampleTable* out) {
    const uint32_t i = d.i, j = d.j, k = d.k;
    const PairKind kind = d.kind;
    auto [id, inserted] = seen_.insert_key((uint64_t(i) << 32) | j);
    if (!inserted) {
      ++out->draws[id];
      return;
    }
    out->item_i.push_back(i);
    out->item_j.push_back(j);
    out->kind.push_back(kind);
    out->stratum.push_back(stratum);
    out->draws.push_back(1);
    add_weights(k, out);
  }

  // Appends item i's union, Base and Exp weights (within T; i in cell k) to a table's U,
  // B and E.
  template <class Table>
  void add_weights(size_t k, Table* out) const {
    out->U.push_back(union_weight(k));
    out->B.push_back(cells_.row_weight[cells_.row[k]]);
    out->E.push_back(cells_.col_weight[cells_.col[k]]);
  }

  const Comparison& c_;
  const bool units_ = c_.joined().units();
  const CellTable& cells_;
  Segments items_, rows_, cols_;
  std::vector<uint32_t> row_pos_, col_pos_;
  const CellPartsTable parts_;
  detail::Interner seen_{false, 1024};
};

// Draws `n` pairs of `pop` and hands each to `sink(draw)`, in draw order.
template <class Sink>
void draw_stratum(const Sampler& s, Population pop, uint64_t n, uint64_t seed, Sink sink) {
  if (n == 0) return;
  const std::vector<double> cum = s.cumulative_masses(pop);
  if (cum.empty() || cum.back() <= 0)
    throw std::invalid_argument(pop == Population::kStable
                                    ? "no stable pairs to draw: no item is affected by the diff"
                                    : "no pairs to draw: Base and Exp cluster the common items "
                                      "identically");
  // Draws come in blocks of kBlockDraws, block b from its own stream of (seed, b), made on
  // any thread a wave of blocks at a time (bounding the memory they take), then recorded
  // in block order: the same pairs, in the same order, on any number of threads.
  constexpr uint64_t kBlockDraws = uint64_t(1) << 16, kWaveBlocks = 16;
  const uint64_t blocks = (n + kBlockDraws - 1) / kBlockDraws;
  std::vector<std::vector<Sampler::Draw>> drawn(std::min(blocks, kWaveBlocks));
  for (uint64_t wave = 0; wave < blocks; wave += kWaveBlocks) {
    const size_t in_wave = size_t(std::min(kWaveBlocks, blocks - wave));
    detail::parallel_for(in_wave, [&](size_t, size_t x) {
      const uint64_t b = wave + x, first = b * kBlockDraws;
      const uint64_t count = std::min(kBlockDraws, n - first);
      detail::report_every(b, blocks);
      detail::Random rng = detail::Random::stream(seed, b);
      drawn[x].resize(size_t(count));
      for (uint64_t d = 0; d < count; ++d) {
        detail::poll_every<12>(d);
        drawn[x][size_t(d)] = s.draw(cum, pop, rng);
      }
    });
    for (size_t x = 0; x < in_wave; ++x)
      for (const Sampler::Draw& d : drawn[x]) sink(d);
  }
}

void check(const Comparison& diff) {
  if (diff.family() != MetricFamily::kImpact)
    throw std::logic_error("clusterscore: sampling needs an impact (diff) comparison");
}

// Every stratum's draws, to `sink(draw, stratum)`. Each stratum has its own stream, derived
// from the seed, so that changing the number of stable pairs does not change the diff
// pairs drawn.
template <class Sink>
void draw_strata(const Sampler& s, const SampleOptions& o, Sink sink) {
  const uint64_t diff_seed = o.seed, stable_seed = o.seed ^ 0x5DEECE66DA3B1F0Full;
  const auto stratum = [&](uint8_t k) { return [&, k](const Sampler::Draw& d) { sink(d, k); }; };
  switch (o.mode) {
    case SampleMode::kStratified:
      draw_stratum(s, Population::kDiff, o.pairs, diff_seed, stratum(0));
      draw_stratum(s, Population::kStable, o.stable_pairs, stable_seed, stratum(1));
      break;
    case SampleMode::kDistanceOnly:
      draw_stratum(s, Population::kDiff, o.pairs, diff_seed, stratum(0));
      break;
    case SampleMode::kPlain:
      draw_stratum(s, Population::kAll, o.pairs, diff_seed, stratum(0));
      break;
  }
}

}  // namespace

std::vector<uint32_t> pick_by_weight(std::span<const uint32_t> member_group,
                                     std::span<const double> weight,
                                     std::span<const uint32_t> draw_group,
                                     std::span<const double> at) {
  if (member_group.size() != weight.size() || draw_group.size() != at.size())
    throw std::invalid_argument("clusterscore: pick_by_weight: arrays differ in length");
  size_t n_groups = 0;
  for (uint32_t g : member_group) n_groups = std::max(n_groups, size_t(g) + 1);
  const Segments members(
      n_groups, member_group.size(), [&](size_t x) { return member_group[x]; },
      [&](size_t x) { return weight[x]; });
  std::vector<uint32_t> out(draw_group.size());
  for (size_t d = 0; d < out.size(); ++d) {
    const uint32_t g = draw_group[d];
    if (g >= n_groups || members.start[g] == members.start[g + 1])
      throw std::invalid_argument("clusterscore: pick_by_weight: a draw into a group of no item");
    out[d] = members.member[members.find(g, at[d] * members.total(g))];
  }
  return out;
}

namespace {

// Per cell, Σ w(i)² over its items where the diff affects it (their self pairs), else 0.
std::vector<double> self_weight_sq(const Comparison& diff, const CellPartsTable& parts) {
  const auto& cell = diff.cell_of_item();
  std::vector<detail::KahanSum> sq(diff.cells().size());
  for (size_t i = 0; i < cell.size(); ++i) {
    detail::poll_every(i);
    if (cell[i] != kNone && parts.affected(cell[i])) sq[cell[i]].add(diff.joined().weight_sq_of(i));
  }
  std::vector<double> out(sq.size());
  for (size_t k = 0; k < sq.size(); ++k) out[k] = sq[k].value();
  return out;
}

// The judged draws a population's tail asks for: the largest |x| carrying half of Σ p·|x|
// hold a probability P of a draw, and the sample is to see them 10 times on average:
// 10 / P. A stratum with fewer draws may miss half of its mean, which its interval then
// cannot show. The points (mass p, value x) that `visit(add)` hands to add are binned by
// |x| in steps of 2^(1/8) (O(1) memory whatever the cells; the draws needed are then
// approximate, as they are said to be).
template <class Visit>
uint64_t needed_draws(Visit visit) {
  constexpr int kSteps = 8, kLowest = -1100 * kSteps, kBins = 2 * 1100 * kSteps + 2;
  std::vector<double> mass(kBins, 0.0), size(kBins, 0.0);
  detail::KahanSum total_mass, total_size;
  visit([&](double m, double x) {
    const double a = std::abs(x);
    const int at =
        a > 0 ? std::clamp(int(std::floor(std::log2(a) * kSteps)) - kLowest, 1, kBins - 1) : 0;
    mass[size_t(at)] += m;
    size[size_t(at)] += m * a;
    total_mass.add(m);
    total_size.add(m * a);
  });
  if (total_mass.value() <= 0 || total_size.value() <= 0) return 0;
  double p = 0, s = 0;
  for (int bin = kBins - 1; bin >= 0; --bin) {
    p += mass[size_t(bin)] / total_mass.value();
    s += size[size_t(bin)] / total_size.value();
    if (s >= 0.5 - 1e-12) break;
  }
  return uint64_t(std::ceil(std::min(10 / std::max(p, 1e-300), 1e15)));
}

}  // namespace

SampleTotals sample_totals(const Comparison& diff) {
  check(diff);
  const GroupTable o = diff.overall();
  const ImpactSummary s = diff.impact();
  SampleTotals t;
  t.split_distance = o.columns[ImpactColumn::kSplitDistance][0];
  t.merge_distance = o.columns[ImpactColumn::kMergeDistance][0];
  t.jaccard_distance = o.columns[ImpactColumn::kJaccardDistance][0];
  t.affected_jaccard_index = s.affected_jaccard_index;
  t.total_weight = diff.cells().total_weight;
  const CellPartsTable parts(diff.cells());
  detail::KahanSum dm, sm;
  for (size_t k = 0; k < diff.cells().size(); ++k) {
    dm.add(parts.cell_mass(k, Population::kDiff));
    sm.add(parts.cell_mass(k, Population::kStable));
  }
  t.diff_mass = dm.value();
  t.stable_mass = sm.value();
  // The self pairs of affected items: known from the diff, never judged.
  const CellTable& cells = diff.cells();
  const std::vector<double> sq = self_weight_sq(diff, parts);
  detail::KahanSum self, delta;
  for (size_t k = 0; k < cells.size(); ++k) {
    if (!parts.affected(k)) continue;
    const double q = sq[k] / cells.total_weight;
    const double b = cells.row_weight[cells.row[k]], e = cells.col_weight[cells.col[k]];
    self.add(q / parts.union_weight(k));
    delta.add(q * (1 / e - 1 / b));
  }
  t.self_mass = self.value();
  t.self_delta = delta.value();
  return t;
}

DrawsNeeded draws_needed(const Comparison& diff, SampleMode mode) {
  check(diff);
  const CellTable& cells = diff.cells();
  const CellPartsTable parts(cells);
  const std::vector<double> sq = self_weight_sq(diff, parts);
  // Cell k's pairs of each kind (non-self stable pairs only): mass, U/B and U/E of item i.
  struct Part {
    double split, merge, stable, over_b, over_e;
  };
  const auto part = [&](size_t k) {
    const CellParts& p = parts[k];
    const double u = parts.union_weight(k), w = cells.total_weight;
    const double a = cells.weight[k] / (w * u);
    return Part{a * p.split, a * p.merge, std::max(0.0, a * p.stable - sq[k] / (w * u)),
                u / cells.row_weight[cells.row[k]], u / cells.col_weight[cells.col[k]]};
  };
  const auto over = [&](bool split, bool merge, bool stable) {
    return [&, split, merge, stable](auto add) {
      for (size_t k = 0; k < cells.size(); ++k) {
        const Part x = part(k);
        if (split && x.split > 0) add(x.split, -x.over_b);
        if (merge && x.merge > 0) add(x.merge, x.over_e);
        if (stable && x.stable > 0) add(x.stable, x.over_e - x.over_b);
      }
    };
  };
  DrawsNeeded n;
  if (mode == SampleMode::kPlain) {
    n.delta_precision[0] = needed_draws(over(true, true, true));
  } else if (mode == SampleMode::kStratified) {
    n.delta_precision[0] = needed_draws(over(true, true, false));
    n.delta_precision[1] = needed_draws(over(false, false, true));
  }
  n.split_rate = needed_draws([&](auto add) {
    for (size_t k = 0; k < cells.size(); ++k)
      if (const Part x = part(k); x.split > 0) add(x.split, x.over_b);
  });
  n.merge_rate = needed_draws([&](auto add) {
    for (size_t k = 0; k < cells.size(); ++k)
      if (const Part x = part(k); x.merge > 0) add(x.merge, x.over_e);
  });
  return n;
}

PairSampleTable sample_pairs(const Comparison& diff, const SampleOptions& o) {
  check(diff);
  // A pair is of two items, and a unit does not say which of its items it stands for.
  if (diff.joined().units())
    throw std::invalid_argument(
        "clusterscore: pairs are sampled from items, not from units (sample_unit_pairs)");
  Sampler sampler(diff);
  PairSampleTable out;
  draw_strata(sampler, o,
              [&](const Sampler::Draw& d, uint8_t stratum) { sampler.record(d, stratum, &out); });
  return out;
}

UnitPairDraws sample_unit_pairs(const Comparison& diff, const SampleOptions& o) {
  check(diff);
  const Sampler sampler(diff);
  UnitPairDraws out;
  draw_strata(sampler, o, [&](const Sampler::Draw& d, uint8_t stratum) {
    out.unit_i.push_back(d.i);
    out.unit_j.push_back(d.j);
    out.at_i.push_back(d.at_i);
    out.at_j.push_back(d.at_j);
    out.kind.push_back(d.kind);
    out.stratum.push_back(stratum);
    sampler.add_weights(d.k, &out);
  });
  return out;
}

std::span<const PairKind> pair_kinds(std::span<const uint8_t> codes) {
  for (uint8_t c : codes)
    if (c > uint8_t(PairKind::kSelf))
      throw std::invalid_argument("clusterscore: bad pair kind code " + std::to_string(c));
  return {reinterpret_cast<const PairKind*>(codes.data()), codes.size()};
}

}  // namespace clusterscore
