// The cache of big blocks behind BigVector: reuse, best fit with splitting, and the rule
// that keeps it from raising peak memory (a miss empties it first).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "clusterscore/big_vector.h"

namespace {

using namespace clusterscore::detail;
constexpr size_t kMiB = size_t(1) << 20;

class BigAlloc : public ::testing::Test {
 protected:
  void SetUp() override { big_release_cached(); }
  void TearDown() override { big_release_cached(); }
};

TEST_F(BigAlloc, FreedBlockIsReusedAndKeepsWorking) {
  char* p = static_cast<char*>(big_allocate(8 * kMiB));
  std::memset(p, 1, 8 * kMiB);
  big_deallocate(p, 8 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 8 * kMiB);
  const uint64_t hits = big_alloc_stats().hits;
  char* q = static_cast<char*>(big_allocate(8 * kMiB));
  EXPECT_EQ(q, p);
  EXPECT_EQ(big_alloc_stats().hits, hits + 1);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 0u);
  std::memset(q, 2, 8 * kMiB);  // writable again after MADV_FREE, and keeps what is written
  EXPECT_EQ(q[0], 2);
  EXPECT_EQ(q[8 * kMiB - 1], 2);
  big_deallocate(q, 8 * kMiB);
}

TEST_F(BigAlloc, BestFitSplitsABlockAndRoundsTo2MiB) {
  char* p = static_cast<char*>(big_allocate(8 * kMiB));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2 * kMiB), 0u);
  big_deallocate(p, 8 * kMiB);
  char* a = static_cast<char*>(big_allocate(kMiB + 1));  // rounds to 2 MiB
  char* b = static_cast<char*>(big_allocate(6 * kMiB));
  EXPECT_EQ(a, p);
  EXPECT_EQ(b, p + 2 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 0u);
  big_deallocate(a, kMiB + 1);
  big_deallocate(b, 6 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 8 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_blocks, 2u);
}

// In use plus cached never exceeds the peak in use: what an allocator without a cache
// would have had resident at its peak.
bool within_peak() {
  const BigAllocStats s = big_alloc_stats();
  return s.live_bytes + s.cached_bytes <= s.peak_live_bytes;
}

TEST_F(BigAlloc, AMissUnmapsCachedBlocksSoThePeakDoesNotGrow) {
  // A peak far above anything cached below: misses then keep the cache.
  const size_t big = big_alloc_stats().peak_live_bytes + 64 * kMiB;
  big_deallocate(big_allocate(big), big);
  big_release_cached();
  void* small = big_allocate(4 * kMiB);
  big_deallocate(small, 4 * kMiB);
  void* other = big_allocate(16 * kMiB);  // a miss, well under the peak: 4 MiB stays cached
  EXPECT_EQ(big_alloc_stats().cached_bytes, 4 * kMiB);
  big_deallocate(other, 16 * kMiB);
  big_release_cached();
  // Now a miss that would go past the peak while blocks are cached unmaps them first.
  void* a = big_allocate(big - 8 * kMiB);
  void* b = big_allocate(8 * kMiB);
  big_deallocate(b, 8 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 8 * kMiB);
  void* c = big_allocate(10 * kMiB);  // no cached block fits; live + cache would pass the peak
  EXPECT_EQ(big_alloc_stats().cached_bytes, 0u);
  EXPECT_TRUE(within_peak());
  big_deallocate(a, big - 8 * kMiB);
  big_deallocate(c, 10 * kMiB);
  EXPECT_TRUE(within_peak());
}

TEST_F(BigAlloc, RandomUseStaysWithinThePeak) {
  std::mt19937_64 rng(5);
  std::vector<std::pair<void*, size_t>> live;
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t bytes = (1 + rng() % 24) * kMiB + rng() % kMiB;
      live.emplace_back(big_allocate(bytes), bytes);
      static_cast<char*>(live.back().first)[bytes - 1] = 1;
    } else {
      const size_t k = rng() % live.size();
      big_deallocate(live[k].first, live[k].second);
      live.erase(live.begin() + std::ptrdiff_t(k));
    }
    ASSERT_TRUE(within_peak()) << step;
  }
  for (const auto& [p, bytes] : live) big_deallocate(p, bytes);
  EXPECT_EQ(big_alloc_stats().live_bytes, 0u);
  EXPECT_GT(big_alloc_stats().hits, 0u);
}

TEST_F(BigAlloc, BigVectorsReuseBlocksWithCorrectContents) {
  for (int round = 0; round < 3; ++round) {
    clusterscore::BigVector<uint64_t> v(kMiB, uint64_t(round));  // 8 MiB, zero-filled
    for (size_t i = 0; i < v.size(); i += 4096) ASSERT_EQ(v[i], uint64_t(round));
    v.assign(kMiB, 7);
    EXPECT_EQ(v.back(), 7u);
  }
  EXPECT_GE(big_alloc_stats().hits, 2u);
}

}  // namespace
