// std::vector for the large per-item and hash-table arrays: allocations of 4 MiB or more
// are 2 MiB-aligned blocks (on huge pages if set_huge_pages(true) or the system's policy
// says so: clusterscore/memory.h), and freed ones are cached for reuse (src/detail/big_alloc.cpp).
// Behaves as std::vector, but for one thing: elements made without a value are
// default-initialised, so BigVector<T>(n), resize(n) and emplace_back() leave a trivial T
// unwritten (std::vector zeroes it). Say T{} for zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace clusterscore {
namespace detail {

// `bytes` of uninitialised memory, 2 MiB-aligned; throws std::bad_alloc. Freed blocks
// are kept (marked MADV_FREE, so the kernel may reclaim them under memory pressure) and
// reused: memory fresh from the kernel costs a fault and a zeroing per page. A request
// no cached block holds gets the cached pages moved into a fresh range (mremap), so
// blocks in use plus blocks cached never exceed the most ever in use at once, and the
// cache never raises peak memory. Blocks unused for 30 s are unmapped at the next call.
// Thread-safe.
void* big_allocate(size_t bytes);
// Frees a block from big_allocate(bytes), with the same `bytes`.
void big_deallocate(void* p, size_t bytes);
// Unmaps every cached block now.
void big_release_cached();

struct BigAllocStats {
  uint64_t allocations = 0, hits = 0;  // big_allocate calls, and those one cached block held
  uint64_t moved_bytes = 0;            // cached bytes moved into fresh ranges by the others
  uint64_t cached_bytes = 0, cached_blocks = 0;
  uint64_t live_bytes = 0;  // handed out and not yet freed
};
BigAllocStats big_alloc_stats();

}  // namespace detail

template <class T>
struct BigAllocator {
  using value_type = T;
  static constexpr size_t kThreshold = size_t(1) << 22;
  static constexpr bool kOverAligned = alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  static constexpr std::align_val_t kAlign{alignof(T)};

  BigAllocator() noexcept = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}

  // Small blocks come from operator new, with T's alignment if it is stricter than new's.
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes >= kThreshold) return static_cast<T*>(detail::big_allocate(bytes));
    if constexpr (kOverAligned) return static_cast<T*>(::operator new(bytes, kAlign));
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) >= kThreshold)
      detail::big_deallocate(p, n * sizeof(T));
    else if constexpr (kOverAligned)
      ::operator delete(p, kAlign);
    else
      ::operator delete(p);
  }
  // Default-initialisation where std::vector value-initialises. Why: the per-item arrays
  // are written in full right after they are sized, and zeroing them first was wasted
  // memory traffic (~30 bytes per item per call).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) noexcept(std::is_nothrow_constructible_v<U, Args...>) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const BigAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

// Uninitialised storage for `n` trivial Ts from the same allocator, for buffers that are
// written in full before they are read and never change size: no vector's capacity.
template <class T>
class BigBuffer {
  static_assert(std::is_trivial_v<T>);

 public:
  BigBuffer() = default;
  explicit BigBuffer(size_t n) : data_(n ? BigAllocator<T>().allocate(n) : nullptr), n_(n) {}
  BigBuffer(BigBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), n_(o.n_) {}
  BigBuffer& operator=(BigBuffer o) noexcept {
    std::swap(data_, o.data_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~BigBuffer() {
    if (data_) BigAllocator<T>().deallocate(data_, n_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t n_ = 0;
};

}  // namespace clusterscore
