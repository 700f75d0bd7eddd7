// Big blocks for BigVector and BigBuffer, with a cache of freed ones.
//
// Why a cache: a comparison at 1e7 items allocates and frees over a GB of big arrays,
// and memory fresh from the kernel must be faulted in and zeroed page by page; on
// virtual machines, that can be a quarter of all the time. Freed blocks are
// kept and handed out again, so later phases of a call, and repeated calls (several
// candidate runs scored against one truth), reuse pages that are already mapped.
//
// How a request is served: by the smallest cached block that holds it (split if larger);
// failing that, by a fresh range into which cached blocks are moved, largest first, with
// mremap, which moves page tables and not bytes. So every cached page is reusable by any
// request, however the cache is fragmented, and a request only maps fresh memory for
// what the whole cache cannot cover.
//
// Why it never raises peak memory: a request grows blocks in use plus blocks cached only
// by what exceeds the cache, and then the cache is empty, so that total is always the
// most that was ever in use at once: what an allocator without a cache would have had
// at its peak (if it touched every page it was given; pages reserved and never touched
// cost neither of them anything, which is why the callers reserve tightly).
// Cached blocks are marked MADV_FREE (the kernel may take them back under memory
// pressure without swapping) and unmapped once they have been unused for kMaxAge.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sys/mman.h>
#endif

#include "clusterscore/memory.h"
#include "detail/big_vector.h"

namespace clusterscore {

namespace {
std::atomic<bool> ask_for_huge_pages{false};
}  // namespace

void set_huge_pages(bool on) noexcept { ask_for_huge_pages.store(on, std::memory_order_relaxed); }
bool huge_pages() noexcept { return ask_for_huge_pages.load(std::memory_order_relaxed); }

}  // namespace clusterscore

namespace clusterscore::detail {

#if defined(__linux__)
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kHuge = size_t(1) << 21;
constexpr auto kMaxAge = std::chrono::seconds(30);

size_t round_up(size_t bytes) { return (bytes + kHuge - 1) & ~(kHuge - 1); }

// `bytes` (a multiple of kHuge) of fresh memory, kHuge-aligned (so that huge pages can
// back it, whether asked for here or by the system's policy), asking for huge pages if
// set_huge_pages(true).
char* map_fresh(size_t bytes) {
  void* p =
      mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = uintptr_t(p), aligned = round_up(start);
  if (aligned > start) munmap(p, aligned - start);
  const uintptr_t tail = aligned + bytes, end = start + bytes + kHuge;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
#if defined(MADV_HUGEPAGE)
  if (huge_pages()) madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // advisory
#endif
  return reinterpret_cast<char*>(aligned);
}

void mark_unused(void* p, size_t bytes) {
#if defined(MADV_FREE)
  madvise(p, bytes, MADV_FREE);  // advisory: the pages stay ours unless memory runs short
#endif
}

// Moves the pages of [from, from + bytes) to `to`, replacing what was mapped there. One
// call fails if the range spans mappings (merged neighbours may), so it then goes 2 MiB
// at a time: every mapping here starts and ends on a 2 MiB boundary. A piece that cannot
// be moved is unmapped, leaving the fresh pages at `to`.
void move_pages(char* from, size_t bytes, char* to) {
  const int flags = MREMAP_MAYMOVE | MREMAP_FIXED;
  if (mremap(from, bytes, bytes, flags, to) != MAP_FAILED) return;
  for (size_t at = 0; at < bytes; at += kHuge)
    if (mremap(from + at, kHuge, kHuge, flags, to + at) == MAP_FAILED) munmap(from + at, kHuge);
}

class BlockCache {
 public:
  void* allocate(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.allocations;
    expire(Clock::now());
    const auto fit = by_size_.lower_bound({bytes, nullptr});  // best fit, lowest address
    if (fit == by_size_.end()) {
      char* out = assemble(bytes);
      stats_.live_bytes += bytes;
      return out;
    }
    ++stats_.hits;
    stats_.live_bytes += bytes;
    const auto [have, data] = *fit;
    const Clock::time_point freed = by_addr_.at(data).freed;
    forget(data);
    if (have > bytes) keep(data + bytes, have - bytes, freed);
    return data;
  }

  // Caches the block, merged with cached neighbours, so that blocks split for small
  // requests serve big ones again without moving pages.
  void deallocate(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    expire(now);
    mark_unused(p, bytes);
    stats_.live_bytes -= bytes;
    char* start = static_cast<char*>(p);
    const auto next = by_addr_.find(start + bytes);
    if (next != by_addr_.end()) {
      bytes += next->second.bytes;
      forget(next->first);
    }
    const auto after = by_addr_.lower_bound(start);
    if (after != by_addr_.begin()) {
      const auto prev = std::prev(after);
      if (prev->first + prev->second.bytes == start) {
        start = prev->first;
        bytes += prev->second.bytes;
        forget(start);
      }
    }
    keep(start, bytes, now);
  }

  void lock() { mu_.lock(); }
  void unlock() { mu_.unlock(); }

  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    unmap_all();
  }

  BigAllocStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  struct Cached {
    size_t bytes;
    Clock::time_point freed;
  };

  // A fresh range with cached blocks moved in at its front, largest first (vectors fill
  // from the front, and reservations may leave the back untouched). The last block moved
  // may be split, its rest staying cached.
  char* assemble(size_t bytes) {
    char* out = nullptr;
    try {
      out = map_fresh(bytes);
    } catch (const std::bad_alloc&) {  // out of address space: what is cached goes first
      unmap_all();
      out = map_fresh(bytes);
    }
    size_t filled = 0;
    while (filled < bytes && !by_size_.empty()) {
      const auto [have, data] = *by_size_.rbegin();
      const size_t take = std::min(have, bytes - filled);
      const Clock::time_point freed = by_addr_.at(data).freed;
      forget(data);
      if (have > take) keep(data + take, have - take, freed);
      move_pages(data, take, out + filled);
      filled += take;
      stats_.moved_bytes += take;
    }
    return out;
  }

  void keep(char* data, size_t bytes, Clock::time_point freed) {
    by_addr_.emplace(data, Cached{bytes, freed});
    by_size_.emplace(bytes, data);
    stats_.cached_bytes += bytes;
    ++stats_.cached_blocks;
  }
  // Drops a cached block from the books (the caller hands it out, merges or unmaps it).
  void forget(char* data) {
    const auto it = by_addr_.find(data);
    by_size_.erase({it->second.bytes, data});
    stats_.cached_bytes -= it->second.bytes;
    --stats_.cached_blocks;
    by_addr_.erase(it);
  }
  void unmap_all() {
    while (!by_size_.empty()) unmap_block(by_size_.begin()->second);
  }
  void unmap_block(char* data) {
    const size_t bytes = by_addr_.at(data).bytes;
    forget(data);
    munmap(data, bytes);
  }

  void expire(Clock::time_point now) {
    std::vector<char*> old;
    for (const auto& [data, c] : by_addr_)
      if (now - c.freed >= kMaxAge) old.push_back(data);
    for (char* data : old) unmap_block(data);
  }

  std::mutex mu_;
  std::map<char*, Cached> by_addr_;             // every cached block, by address
  std::set<std::pair<size_t, char*>> by_size_;  // the same, by size, for best fit
  BigAllocStats stats_;
};

// Never destroyed: vectors freed during static destruction may still return blocks.
BlockCache* the_cache = nullptr;

// A fork() while another thread holds the cache's lock would leave the child's lock held
// forever: the lock is taken around fork and released on both sides (as malloc does).
BlockCache& cache() {
  static BlockCache* c = [] {
    the_cache = new BlockCache;
    pthread_atfork([] { the_cache->lock(); }, [] { the_cache->unlock(); },
                   [] { the_cache->unlock(); });
    return the_cache;
  }();
  return *c;
}

}  // namespace

void* big_allocate(size_t bytes) { return cache().allocate(round_up(bytes)); }
void big_deallocate(void* p, size_t bytes) { cache().deallocate(p, round_up(bytes)); }
void big_release_cached() { cache().release(); }
BigAllocStats big_alloc_stats() { return cache().stats(); }

#else  // no mremap to move pages with: plain aligned allocations, nothing cached

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

namespace clusterscore {

unsigned long long release_memory() {
  const uint64_t cached = detail::big_alloc_stats().cached_bytes;
  detail::big_release_cached();
  return cached;
}

}  // namespace clusterscore
