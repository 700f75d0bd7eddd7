// The cache of big blocks behind BigVector: reuse, best fit with splitting, and the rule
// that keeps it from raising peak memory (a miss empties it first).
#include <gtest/gtest.h>

#include <cstring>

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

TEST_F(BigAlloc, AMissEmptiesTheCacheBeforeMappingFreshMemory) {
  void* small = big_allocate(4 * kMiB);
  big_deallocate(small, 4 * kMiB);
  const uint64_t hits = big_alloc_stats().hits;
  void* large = big_allocate(16 * kMiB);
  EXPECT_EQ(big_alloc_stats().hits, hits);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 0u);
  EXPECT_EQ(big_alloc_stats().cached_blocks, 0u);
  big_deallocate(large, 16 * kMiB);
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
