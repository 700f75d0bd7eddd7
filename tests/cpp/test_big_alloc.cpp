// The cache of big blocks behind BigVector: reuse, best fit with splitting, merging of
// neighbours, misses served by moving cached pages, and the bound on memory held.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "clusterscore/memory.h"
#include "detail/big_vector.h"

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
  big_deallocate(b, 6 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_blocks, 1u);
  big_deallocate(a, kMiB + 1);  // the two halves merge again
  EXPECT_EQ(big_alloc_stats().cached_bytes, 8 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_blocks, 1u);
  EXPECT_EQ(big_allocate(8 * kMiB), p);  // one block again, so a big request fits
  big_deallocate(p, 8 * kMiB);
}

TEST_F(BigAlloc, FreedNeighboursMergeOnBothSides) {
  char* p = static_cast<char*>(big_allocate(12 * kMiB));
  big_deallocate(p, 12 * kMiB);
  char* a = static_cast<char*>(big_allocate(4 * kMiB));
  char* b = static_cast<char*>(big_allocate(4 * kMiB));
  char* c = static_cast<char*>(big_allocate(4 * kMiB));
  ASSERT_EQ(b, a + 4 * kMiB);
  ASSERT_EQ(c, b + 4 * kMiB);
  big_deallocate(a, 4 * kMiB);
  big_deallocate(c, 4 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_blocks, 2u);
  big_deallocate(b, 4 * kMiB);  // joins the block before it and the one after
  EXPECT_EQ(big_alloc_stats().cached_blocks, 1u);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 12 * kMiB);
}

// Two cached blocks of 8 and 6 MiB that cannot merge (a live block sits between them).
struct TwoCachedBlocks {
  TwoCachedBlocks() {
    char* eight = static_cast<char*>(big_allocate(8 * kMiB));
    between = big_allocate(4 * kMiB);
    char* six = static_cast<char*>(big_allocate(6 * kMiB));
    std::memset(eight, 1, 8 * kMiB);
    std::memset(six, 1, 6 * kMiB);
    big_deallocate(eight, 8 * kMiB);
    big_deallocate(six, 6 * kMiB);
  }
  ~TwoCachedBlocks() { big_deallocate(between, 4 * kMiB); }
  void* between;
};

TEST_F(BigAlloc, AMissMovesEveryCachedPageIntoTheNewBlock) {
  const TwoCachedBlocks cached;
  ASSERT_EQ(big_alloc_stats().cached_blocks, 2u);
  const BigAllocStats before = big_alloc_stats();
  char* p = static_cast<char*>(big_allocate(20 * kMiB));
  EXPECT_EQ(big_alloc_stats().moved_bytes, before.moved_bytes + 14 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 0u);
  std::memset(p, 3, 20 * kMiB);  // moved and fresh pages alike are ours to write
  EXPECT_EQ(p[0], 3);
  EXPECT_EQ(p[20 * kMiB - 1], 3);
  big_deallocate(p, 20 * kMiB);
}

TEST_F(BigAlloc, AMissTakesOnlyWhatItNeedsLargestBlockFirst) {
  const TwoCachedBlocks cached;
  const BigAllocStats before = big_alloc_stats();
  char* p = static_cast<char*>(big_allocate(10 * kMiB));  // 8 MiB, then 2 of the 6
  EXPECT_EQ(big_alloc_stats().moved_bytes, before.moved_bytes + 10 * kMiB);
  EXPECT_EQ(big_alloc_stats().cached_bytes, 4 * kMiB);
  std::memset(p, 3, 10 * kMiB);
  big_deallocate(p, 10 * kMiB);
}

// In use plus cached never exceeds the most ever in use at once: what an allocator
// without a cache would have had resident at its peak.
TEST_F(BigAlloc, RandomUseNeverPassesThePeakInUse) {
  std::mt19937_64 rng(5);
  std::vector<std::pair<char*, size_t>> live;
  size_t peak = big_alloc_stats().live_bytes;
  for (int step = 0; step < 400; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t bytes = (1 + rng() % 24) * kMiB + rng() % kMiB;
      live.emplace_back(static_cast<char*>(big_allocate(bytes)), bytes);
      live.back().first[0] = live.back().first[bytes - 1] = 1;
    } else {
      const size_t k = rng() % live.size();
      big_deallocate(live[k].first, live[k].second);
      live.erase(live.begin() + std::ptrdiff_t(k));
    }
    const BigAllocStats s = big_alloc_stats();
    peak = std::max<size_t>(peak, s.live_bytes);
    ASSERT_LE(s.live_bytes + s.cached_bytes, peak) << step;
  }
  for (const auto& [p, bytes] : live) big_deallocate(p, bytes);
  EXPECT_EQ(big_alloc_stats().live_bytes, 0u);
  EXPECT_GT(big_alloc_stats().hits, 0u);
  EXPECT_GT(big_alloc_stats().moved_bytes, 0u);
}

TEST_F(BigAlloc, BigVectorsReuseBlocksWithCorrectContents) {
  for (int round = 0; round < 3; ++round) {
    clusterscore::BigVector<uint64_t> v(kMiB, uint64_t(round));  // 8 MiB, filled
    for (size_t i = 0; i < v.size(); i += 4096) ASSERT_EQ(v[i], uint64_t(round));
    v.assign(kMiB, 7);
    EXPECT_EQ(v.back(), 7u);
  }
  EXPECT_GE(big_alloc_stats().hits, 2u);
}

// Elements made without a value are default-initialised (no zeroing pass): a type's
// default member initialisers still run, and values given are kept, however the element
// is made (sized, resized, emplaced, inserted).
TEST_F(BigAlloc, BigVectorsDefaultInitialiseButKeepGivenValues) {
  struct Counted {
    uint64_t n = 42;
    double w = 0.5;
  };
  for (size_t size : {size_t(10), kMiB}) {  // operator new, and the block cache
    clusterscore::BigVector<Counted> c(size);
    EXPECT_EQ(c.front().n, 42u);
    EXPECT_EQ(c.back().w, 0.5);
    c.resize(size + 3);
    c.emplace_back();
    EXPECT_EQ(c.back().n, 42u);
    EXPECT_EQ(c[size + 1].w, 0.5);
    clusterscore::BigVector<uint32_t> v(size, 9u);
    v.resize(size + 5, 3u);
    v.insert(v.end(), 2, 4u);
    v.emplace_back(5u);
    EXPECT_EQ(v[size - 1], 9u);
    EXPECT_EQ(v[size + 4], 3u);
    EXPECT_EQ(v[size + 6], 4u);
    EXPECT_EQ(v.back(), 5u);
    clusterscore::BigVector<uint32_t> zeros(size, uint32_t{});
    EXPECT_EQ(std::count(zeros.begin(), zeros.end(), 0u), ptrdiff_t(size));
  }
}

// The VmFlags line /proc/self/smaps gives for the mapping that holds `p`.
std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2) inside = from <= at && at < to;
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

// Huge pages are asked for (madvise, shown as "hg") only when set: by default fresh
// blocks follow the system's policy. Cached blocks keep what they were mapped with.
TEST_F(BigAlloc, HugePagesAreAskedForOnlyWhenSet) {
  ASSERT_FALSE(clusterscore::huge_pages());  // the default
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "this kernel has no transparent huge pages to ask for";
  char* plain = static_cast<char*>(big_allocate(8 * kMiB));
  const std::string plain_flags = vm_flags_of(plain);
  ASSERT_NE(plain_flags, "");
  EXPECT_EQ(plain_flags.find(" hg"), std::string::npos) << plain_flags;

  clusterscore::set_huge_pages(true);
  EXPECT_TRUE(clusterscore::huge_pages());
  char* huge = static_cast<char*>(big_allocate(8 * kMiB));  // the cache is empty: fresh
  const std::string huge_flags = vm_flags_of(huge);
  clusterscore::set_huge_pages(false);
  EXPECT_NE(huge_flags.find(" hg"), std::string::npos) << huge_flags;
  std::memset(huge, 3, 8 * kMiB);
  EXPECT_EQ(huge[8 * kMiB - 1], 3);
  big_deallocate(huge, 8 * kMiB);
  big_deallocate(plain, 8 * kMiB);
}

}  // namespace

// The cache's lock is taken around fork() and released on both sides: a child can
// allocate and free, and so can the parent after it.
TEST_F(BigAlloc, ForkedChildAndParentKeepUsingTheCache) {
  void* before = big_allocate(8 * kMiB);
  big_deallocate(before, 8 * kMiB);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    char* p = static_cast<char*>(big_allocate(16 * kMiB));
    p[0] = 1;
    big_deallocate(p, 16 * kMiB);
    _exit(big_alloc_stats().cached_bytes >= 16 * kMiB ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  void* after = big_allocate(8 * kMiB);
  big_deallocate(after, 8 * kMiB);
}
