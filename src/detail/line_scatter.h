// Writes records to many sequential streams at once (the partitions of a radix scatter),
// on most machines through one cache-line buffer per stream, each full line written out
// with non-temporal stores.
//
// Why: a plain scatter into ~500 streams reads every destination line from memory
// before writing it (a read for ownership), and the lines of so many streams leave the
// cache before they are full. Whole lines written around the cache need no such read:
// on Intel Xeon processors this was much faster. On AMD EPYC it is the other way round,
// and the buffering itself is the cost (with non-temporal stores or plain ones), so AMD
// processors store plainly (plain_stores_pay_off()). The results are the same bits
// either way.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace clusterscore::detail {

// Whether plain stores beat line buffers on this machine (see above): on AMD processors.
// Read once; the same answer for every call in a process.
inline bool plain_stores_pay_off() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool amd = __builtin_cpu_is("amd");
  return amd;
#else
  return false;  // unmeasured: buffered, as before
#endif
}

template <class T>
class LineScatter {
  // Records are buffered in runs that fill whole cache lines: one line when the record
  // size divides 64 bytes, else the least common multiple (24-byte records: 8 to 3 lines).
  static constexpr size_t kBytes = std::lcm(size_t(64), sizeof(T));
  static constexpr size_t kRun = kBytes / sizeof(T);  // records per run
  static_assert(std::is_trivially_copyable_v<T> && kBytes <= 256);
  struct alignas(64) Run {
    T v[kRun];
  };

 public:
  // Streams p = 0 .. begin.size() - 1 start at out[begin[p]] (`out` aligned to
  // alignof(T)); runs are counted from 64-byte boundaries of memory, not from `out`.
  // `plain`: every record stored where it goes at once, no buffers (tests choose); also
  // taken where no record of `out` starts on a 64-byte boundary (then no run is a line).
  LineScatter(T* out, std::vector<size_t> begin, bool plain = plain_stores_pay_off())
      : out_(out), begin_(std::move(begin)) {
    assert(reinterpret_cast<uintptr_t>(out) % alignof(T) == 0);
    size_t first = 0;  // the first record on a 64-byte boundary, if any
    while (first < kRun && (reinterpret_cast<uintptr_t>(out) + first * sizeof(T)) % 64 != 0)
      ++first;
    plain_ = plain || first == kRun;
    shift_ = (kRun - first) % kRun;
    if (!plain_) runs_.resize(begin_.size());
  }

  // Writes v to out[at], `at` the next position of stream p: each stream's positions
  // must come one by one upwards from begin[p]. Until finish(), the last run of each
  // stream may still be in its buffer only.
  [[gnu::always_inline]] void put(size_t p, size_t at, const T& v) {
    if (plain_) {  // the same branch for every record: predicted
      out_[at] = v;
      return;
    }
    const size_t slot = (at + shift_) % kRun;
    runs_[p].v[slot] = v;
    if (slot == kRun - 1) flush(p, at);
  }

  // Writes out what the buffers hold: the last, partial run of each stream p, which
  // ends at out[end[p]] (exclusive).
  void finish(const std::vector<size_t>& end) {
    if (plain_) return;
    for (size_t p = 0; p < end.size(); ++p) {
      if (end[p] == begin_[p] || (end[p] + shift_) % kRun == 0) continue;  // nothing held
      const size_t last = end[p] - 1, slot = (last + shift_) % kRun;
      copy(p, last - begin_[p] < slot ? begin_[p] : last - slot, last);  // from its run's start
    }
#if defined(__SSE2__)
    _mm_sfence();  // non-temporal stores are ordered before whatever reads them next
#endif
  }

 private:
  // The run ending at out[at] is complete: written whole, unless the stream began inside
  // it (its first bytes belong to the stream before, which writes them itself).
  void flush(size_t p, size_t at) {
    if (at < begin_[p] + kRun - 1) return copy(p, begin_[p], at);
    T* const to = out_ + (at - (kRun - 1));
#if defined(__SSE2__)
    const __m128i* from = reinterpret_cast<const __m128i*>(&runs_[p]);
    __m128i* dest = reinterpret_cast<__m128i*>(to);
    for (size_t k = 0; k < kBytes / 16; ++k) _mm_stream_si128(dest + k, _mm_load_si128(from + k));
#else
    std::memcpy(static_cast<void*>(to), &runs_[p], kBytes);
#endif
  }
  // Plain stores of the buffered records at positions [first, last] of stream p.
  void copy(size_t p, size_t first, size_t last) {
    for (size_t i = first; i <= last; ++i) out_[i] = runs_[p].v[(i + shift_) % kRun];
  }

  bool plain_ = true;
  T* out_;
  std::vector<size_t> begin_;
  size_t shift_ = 0;  // records between the start of the run holding out[0] and out[0]
  std::vector<Run> runs_;
};

}  // namespace clusterscore::detail
