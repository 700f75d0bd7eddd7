#include "detail/intern_column.h"

#include <algorithm>

#include "detail/interner.h"

namespace clusterscore::detail {
namespace {

constexpr size_t kPrefetch = 16;

bool dense_range(const IdColumn& col, int64_t* lo) {
  if (col.is_string() || col.size == 0) return false;
  const auto [mn, mx] = std::minmax_element(col.ints, col.ints + col.size);
  const unsigned __int128 span = (unsigned __int128)(*mx - (__int128)*mn);
  *lo = *mn;
  return span < (unsigned __int128)(4 * col.size + 1024) && span < kNone;
}

}  // namespace

BigVector<uint32_t> intern_column(const IdColumn& col, std::vector<uint64_t>* first_row) {
  BigVector<uint32_t> out(col.size);
  int64_t lo = 0;
  if (dense_range(col, &lo)) {
    BigVector<uint32_t> id_of(size_t(*std::max_element(col.ints, col.ints + col.size) - lo) + 1,
                              kNone);
    for (size_t r = 0; r < col.size; ++r) {
      uint32_t& id = id_of[size_t(col.ints[r] - lo)];
      if (id == kNone) {
        id = uint32_t(first_row->size());
        first_row->push_back(r);
      }
      out[r] = id;
    }
    return out;
  }
  Interner interner(col.is_string(), col.size / 8 + 16);
  for (size_t r = 0; r < col.size; ++r) {
    if (r + kPrefetch < col.size) interner.prefetch(col, r + kPrefetch);
    auto [id, inserted] = interner.insert(col, r);
    if (inserted) first_row->push_back(r);
    out[r] = id;
  }
  return out;
}

}  // namespace clusterscore::detail
