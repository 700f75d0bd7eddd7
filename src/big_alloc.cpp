// Big blocks for BigVector and BigBuffer, with a cache of freed ones.
//
// Why a cache: a comparison at 1e7 items allocates and frees about 1.5 GB of big arrays,
// and memory fresh from the kernel must be faulted in and zeroed page by page; on the
// virtual machines this runs on, that was a quarter of all the time. Freed blocks are
// kept and handed out again (best fit, split), so a repeated call - several candidate
// runs scored against one truth - reuses pages that are already mapped.
//
// Why it never raises peak memory: blocks in use plus blocks cached never exceed the
// most that was ever in use at once (what an allocator without a cache would have had
// resident at its peak). On a miss, the smallest cached blocks are unmapped until the
// fresh mapping fits under that bound. Cached blocks are also marked MADV_FREE (the
// kernel may take them back under memory pressure without swapping) and unmapped once
// they have sat unused for kMaxAge.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "clusterscore/big_vector.h"

namespace clusterscore::detail {

#if defined(__linux__)
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kHuge = size_t(1) << 21;
constexpr auto kMaxAge = std::chrono::seconds(30);

size_t round_up(size_t bytes) { return (bytes + kHuge - 1) & ~(kHuge - 1); }

// `bytes` (a multiple of kHuge) of fresh memory, kHuge-aligned, asking for huge pages.
void* map_fresh(size_t bytes) {
  void* p =
      mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = uintptr_t(p), aligned = round_up(start);
  if (aligned > start) munmap(p, aligned - start);
  const uintptr_t tail = aligned + bytes, end = start + bytes + kHuge;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
#if defined(MADV_HUGEPAGE)
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // advisory
#endif
  return reinterpret_cast<void*>(aligned);
}
void unmap(void* p, size_t bytes) { munmap(p, bytes); }
void mark_unused(void* p, size_t bytes) {
#if defined(MADV_FREE)
  madvise(p, bytes, MADV_FREE);  // advisory: the pages stay ours unless memory runs short
#endif
}

struct Block {
  char* data;
  Clock::time_point freed;
};

class BlockCache {
 public:
  void* allocate(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.allocations;
    auto it = blocks_.lower_bound(bytes);
    stats_.live_bytes += bytes;
    stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
    if (it == blocks_.end()) {
      while (!blocks_.empty() && stats_.live_bytes + stats_.cached_bytes > stats_.peak_live_bytes)
        unmap_block(blocks_.begin());
      return map_fresh(bytes);
    }
    ++stats_.hits;
    const size_t have = it->first;
    const Block b = it->second;
    blocks_.erase(it);
    stats_.cached_bytes -= bytes;
    if (have > bytes) blocks_.emplace(have - bytes, Block{b.data + bytes, b.freed});
    return b.data;
  }

  void deallocate(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    for (auto it = blocks_.begin(); it != blocks_.end();)
      it = now - it->second.freed < kMaxAge ? std::next(it) : unmap_block(it);
    mark_unused(p, bytes);
    blocks_.emplace(bytes, Block{static_cast<char*>(p), now});
    stats_.live_bytes -= bytes;
    stats_.cached_bytes += bytes;
  }

  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    release_all();
  }

  BigAllocStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.cached_blocks = blocks_.size();
    return stats_;
  }

 private:
  using Blocks = std::multimap<size_t, Block>;  // by size, for best fit

  void release_all() {
    while (!blocks_.empty()) unmap_block(blocks_.begin());
  }
  Blocks::iterator unmap_block(Blocks::iterator it) {
    unmap(it->second.data, it->first);
    stats_.cached_bytes -= it->first;
    return blocks_.erase(it);
  }

  std::mutex mu_;
  Blocks blocks_;
  BigAllocStats stats_;
};

// Never destroyed: vectors freed during static destruction may still return blocks.
BlockCache& cache() {
  static BlockCache* c = new BlockCache;
  return *c;
}

}  // namespace

void* big_allocate(size_t bytes) { return cache().allocate(round_up(bytes)); }
void big_deallocate(void* p, size_t bytes) { cache().deallocate(p, round_up(bytes)); }
void big_release_cached() { cache().release(); }
BigAllocStats big_alloc_stats() { return cache().stats(); }

#else  // no mmap to split blocks with: plain aligned allocations, nothing cached

void* big_allocate(size_t bytes) {
  constexpr size_t kAlign = size_t(1) << 21;
  void* p = std::aligned_alloc(kAlign, (bytes + kAlign - 1) & ~(kAlign - 1));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void big_deallocate(void* p, size_t) { std::free(p); }
void big_release_cached() {}
BigAllocStats big_alloc_stats() { return {}; }

#endif

}  // namespace clusterscore::detail
