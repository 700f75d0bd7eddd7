#include "detail/intern_column.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <tuple>

#include "detail/interner.h"
#include "detail/prefetch.h"

namespace clusterscore::detail {
namespace {

// Integer ids spanning a range under 4 × rows: [*lo, *lo + *span] maps directly.
bool dense_range(const IdColumn& col, int64_t* lo, size_t* span) {
  if (col.is_string() || col.size == 0 || col.valid != nullptr) return false;
  int64_t mn = col.ints[0], mx = col.ints[0];
  for (size_t r = 1; r < col.size; ++r) {  // values only: cheaper than minmax_element's positions
    mn = std::min(mn, col.ints[r]);
    mx = std::max(mx, col.ints[r]);
  }
  const unsigned __int128 width = (unsigned __int128)(mx - (__int128)mn);
  *lo = mn;
  *span = size_t(width);
  return width < (unsigned __int128)(4 * col.size + 1024) && width < kNone;
}

bool all_short(const IdColumn& col) {
  if (!col.is_string()) return false;
  for (size_t r = 0; r < col.size; ++r)
    if (!col.is_null(r) && col.str(r).size() > 7) return false;
  return true;
}

// A string of at most 7 bytes as an exact 64-bit key: its bytes, and its length on top.
uint64_t pack(std::string_view s) {
  uint64_t k = 0;
  std::memcpy(&k, s.data(), s.size());
  return k | (uint64_t(s.size()) << 56);
}

// The same, reading 8 bytes at once (and masking) wherever 8 bytes remain in the buffer:
// a variable-length memcpy per row costs more than all the rest.
uint64_t pack_row(const IdColumn& col, size_t row, const char* end) {
  const std::string_view s = col.str(row);
  if (std::endian::native != std::endian::little || s.data() + 8 > end) return pack(s);
  uint64_t k;
  std::memcpy(&k, s.data(), 8);
  k &= s.size() == 0 ? 0 : ~uint64_t(0) >> (64 - 8 * s.size());
  return k | (uint64_t(s.size()) << 56);
}

// Assigns ids in order of first appearance; nulls share one id of their own.
template <class Find>
BigVector<uint32_t> assign(const IdColumn& col, BigVector<uint64_t>* first_row, Find find) {
  BigVector<uint32_t> out(col.size);
  uint32_t null_id = kNone;
  for (size_t r = 0; r < col.size; ++r) {
    uint32_t id;
    bool inserted;
    if (col.is_null(r)) {
      inserted = null_id == kNone;
      if (inserted) null_id = uint32_t(first_row->size());
      id = null_id;
    } else {
      std::tie(id, inserted) = find(r);
    }
    if (inserted) first_row->push_back(r);
    out[r] = id;
  }
  return out;
}

// Values that are exact 64-bit keys (integers, short strings), in a column without nulls:
// the interner's ids are the ids, with no null id to number around (through assign(),
// 1e7 sparse integers took 0.21 s; this loop takes 0.11 s). A big table outgrows the
// caches (a million distinct ids take 32 MB), so its slots are prefetched, twice the usual
// distance ahead as the loop does little else.
constexpr size_t kInternAhead = 2 * kPrefetch;

template <bool kPrefetchSlots, class KeyOf>
BigVector<uint32_t> intern_keys(size_t n, Interner* interner, BigVector<uint64_t>* first_row,
                                KeyOf key_of) {
  BigVector<uint32_t> out(n);
  for (size_t r = 0; r < n; ++r) {
    if (kPrefetchSlots && r + kInternAhead < n) interner->prefetch_key(key_of(r + kInternAhead));
    const auto [id, inserted] = interner->insert_key(key_of(r));
    if (inserted) first_row->push_back(r);
    out[r] = id;
  }
  return out;
}

}  // namespace

BigVector<uint32_t> intern_column(const IdColumn& col, BigVector<uint64_t>* first_row) {
  int64_t lo = 0;
  size_t span = 0;
  if (dense_range(col, &lo, &span)) {
    BigVector<uint32_t> out(col.size);
    BigVector<uint32_t> id_of(span + 1, kNone);
    for (size_t r = 0; r < col.size; ++r) {
      if (r + kPrefetch < col.size)  // id_of is read at random and outgrows the caches
        __builtin_prefetch(&id_of[size_t(col.ints[r + kPrefetch] - lo)]);
      uint32_t& id = id_of[size_t(col.ints[r] - lo)];
      if (id == kNone) {
        id = uint32_t(first_row->size());
        first_row->push_back(r);
      }
      out[r] = id;
    }
    return out;
  }
  if (!col.is_string() && col.valid == nullptr) {
    Interner interner(false, col.size / 8 + 16);
    return intern_keys<true>(col.size, &interner, first_row,
                             [&](size_t r) { return uint64_t(col.ints[r]); });
  }
  // Ids are numbered after the null id may have taken one: map interner ids to output ids.
  std::vector<uint32_t> ids;
  auto number = [&](std::pair<uint32_t, bool> got) {
    if (got.second) ids.push_back(uint32_t(first_row->size()));
    return std::pair<uint32_t, bool>{ids[got.first], got.second};
  };
  if (all_short(col)) {
    Interner interner(false, 64);
    const char* end =
        col.size ? col.str(col.size - 1).data() + col.str(col.size - 1).size() : nullptr;
    auto key_of = [&](size_t r) { return pack_row(col, r, end); };
    if (col.valid == nullptr) return intern_keys<false>(col.size, &interner, first_row, key_of);
    return assign(col, first_row, [&](size_t r) { return number(interner.insert_key(key_of(r))); });
  }
  Interner interner(col.is_string(), col.size / 8 + 16);  // strings; integers with nulls
  return assign(col, first_row, [&](size_t r) {
    if (r + kPrefetch < col.size && !col.is_null(r + kPrefetch))
      interner.prefetch(col, r + kPrefetch);
    return number(interner.insert(col, r));
  });
}

}  // namespace clusterscore::detail
