// aggregate() against a scalar reference that adds the same terms in the same order with
// the same compensated sums: equal to the last bit on every code path (few groups summed
// in place, groups in runs, units partitioned by ranges of groups first) and whichever
// instruction set the machine gets (src/detail/simd.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>

#include "clusterscore/threads.h"
#include "detail/kahan.h"
#include "input/clustering.h"
#include "levels/aggregate.h"

using namespace clusterscore;

namespace {

struct Case {
  MetricTable m;
  std::vector<uint32_t> group;
  std::vector<double> weight;
  std::vector<uint64_t> count;
};

Case random_case(std::mt19937_64& rng, size_t width, size_t units, size_t groups, bool runs) {
  Case c{MetricTable(std::vector<std::string>(width, "m"), units), {}, {}, {}};
  std::uniform_real_distribution<> value(0.0, 1.0), w(0.1, 1e6);
  std::vector<double> row(width);
  for (size_t u = 0; u < units; ++u) {
    for (double& x : row) x = value(rng);
    c.m.push_row(row.data());
    c.group.push_back(rng() % 11 == 0 ? kNone : uint32_t(rng() % groups));
    c.weight.push_back(w(rng));
    c.count.push_back(1 + rng() % 5);
  }
  if (runs) {  // groups in order, with skipped units (kNone) left between them
    std::vector<uint32_t> kept;
    for (uint32_t g : c.group)
      if (g != kNone) kept.push_back(g);
    std::sort(kept.begin(), kept.end());
    auto next = kept.begin();
    for (uint32_t& g : c.group)
      if (g != kNone) g = *next++;
  }
  return c;
}

// `stretch`: the in-place path's stretch of units (0: the other paths, one stretch),
// each summed apart and then added to the sums of those before it.
void expect_reference(const Case& c, size_t groups, size_t stretch = 0) {
  const GroupTable t = aggregate(c.m, {{}, c.group, c.weight, c.count}, groups);
  const GroupTable totals = aggregate_totals(c.m, {{}, c.group, c.weight, c.count}, groups);
  std::vector<detail::KahanSum> w(groups);
  std::vector<std::vector<detail::KahanSum>> sums(groups,
                                                  std::vector<detail::KahanSum>(c.m.width()));
  std::vector<uint64_t> n(groups, 0);
  const size_t per = stretch == 0 ? c.group.size() : stretch;
  for (size_t begin = 0; begin < c.group.size(); begin += per) {
    std::vector<detail::KahanSum> pw(groups);
    std::vector<std::vector<detail::KahanSum>> ps(groups,
                                                  std::vector<detail::KahanSum>(c.m.width()));
    for (size_t u = begin; u < std::min(c.group.size(), begin + per); ++u) {
      const uint32_t g = c.group[u];
      if (g == kNone) continue;
      n[g] += c.count[u];
      pw[g].add(c.weight[u]);
      for (size_t k = 0; k < c.m.width(); ++k) ps[g][k].add(c.weight[u] * c.m.at(u, k));
    }
    for (size_t g = 0; g < groups; ++g) {
      w[g].add(pw[g]);
      for (size_t k = 0; k < c.m.width(); ++k) sums[g][k].add(ps[g][k]);
    }
  }
  size_t row = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    if (n[g] == 0) continue;
    ASSERT_LT(row, t.size());
    EXPECT_EQ(t.group[row], g);
    EXPECT_EQ(t.items[row], n[g]);
    EXPECT_EQ(t.weight[row], w[g].value());
    for (size_t k = 0; k < c.m.width(); ++k) {
      EXPECT_EQ(t.columns[k][row], sums[g][k].value() / w[g].value()) << g << " " << k;
      EXPECT_EQ(totals.columns[k][row], sums[g][k].value()) << g << " " << k;
    }
    EXPECT_EQ(totals.group[row], g);
    EXPECT_EQ(totals.items[row], n[g]);
    EXPECT_EQ(totals.weight[row], w[g].value());
    ++row;
  }
  EXPECT_EQ(row, t.size());
  EXPECT_EQ(row, totals.size());
}

}  // namespace

TEST(Aggregate, EveryPathEqualsTheScalarCompensatedSumsBitForBit) {
  std::mt19937_64 rng(11);
  for (size_t width : {3, 7, 8, 9})
    // 1000 groups: in place, more rows than one staged batch of output; 40000 groups no
    // longer fit the in-place path.
    for (size_t groups : {1, 5, 1000, 40000})
      for (bool runs : {false, true}) {
        SCOPED_TRACE(testing::Message() << width << " " << groups << " " << runs);
        expect_reference(random_case(rng, width, 60000, groups, runs), groups);
      }
}

// Past 2^20 units, units are summed in stretches, on as many threads as there are: every
// path still equals its reference to the last bit, on 1 thread or 3.
TEST(Aggregate, StretchesOnAnyNumberOfThreadsEqualTheirReference) {
  std::mt19937_64 rng(13);
  const size_t units = 2'300'000;  // three stretches of 2^20 units
  for (const auto& [groups, runs] : {std::pair{5, false}, {40000, true}, {40000, false}}) {
    const Case c = random_case(rng, 3, units, size_t(groups), runs);
    for (unsigned threads : {1u, 3u}) {
      SCOPED_TRACE(testing::Message() << groups << " " << runs << " threads " << threads);
      set_threads(threads);
      expect_reference(c, size_t(groups), groups == 5 ? size_t(1) << 20 : 0);
    }
  }
  set_threads(0);
}

// Without metric columns (the bootstrap's weights per entry): counts and weights, on the
// in-place and the partitioned path.
TEST(Aggregate, TotalsWithoutColumnsAreCountsAndWeights) {
  std::mt19937_64 rng(14);
  for (size_t groups : {5, 40000}) {
    const Case c = random_case(rng, 2, 60000, groups, false);
    const GroupTable none = aggregate_totals({}, {{}, c.group, c.weight, c.count}, groups);
    const GroupTable some = aggregate_totals(c.m, {{}, c.group, c.weight, c.count}, groups);
    EXPECT_TRUE(none.columns.empty());
    ASSERT_EQ(none.size(), some.size());
    for (size_t r = 0; r < none.size(); ++r) {
      EXPECT_EQ(none.group[r], some.group[r]);
      EXPECT_EQ(none.items[r], some.items[r]);
      EXPECT_EQ(none.weight[r], some.weight[r]);
    }
  }
}

TEST(Aggregate, ItemCountsBeyond32BitsSurviveThePartitionedPath) {
  std::mt19937_64 rng(12);
  Case c = random_case(rng, 3, 60000, 40000, false);
  c.count[7] = (uint64_t(1) << 33) + 5;  // one unit's count needs 64 bits
  c.group[7] = 0;                        // and is not skipped
  expect_reference(c, 40000);
}
