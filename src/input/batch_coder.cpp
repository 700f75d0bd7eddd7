#include "input/batch_coder.h"

#include <stdexcept>
#include <string_view>

#include "detail/interrupt.h"
#include "detail/prefetch.h"

namespace clusterscore {

// As intern_column's string path sizes its table: cluster columns hold several rows per
// value, and the table doubles if not.
BatchCoder::BatchCoder(size_t expected_rows, detail::StringHashFn weak_hash)
    : weak_hash_(weak_hash), table_(expected_rows / 8 + 16) {}

void BatchCoder::add(const IdColumn& batch, uint32_t* const out) {
  if (!batch.is_string() || batch.valid != nullptr)
    throw std::invalid_argument("clusterscore: BatchCoder codes strings without nulls");
  const size_t n = batch.size;
  hashes_.resize(n);
  uint64_t* const hash = hashes_.data();
  for (size_t r = 0; r < n; ++r) {
    detail::poll_every(r);
    hash[r] = detail::hash_string(weak_hash_, batch.str(r));
  }
  // A first guess for every row, its slot fetched well ahead: the code of the first value
  // with the row's hash, or kNone.
  constexpr size_t kAhead = 2 * detail::kPrefetch;
  const auto view = table_.key_view();
  for (size_t r = 0; r < n; ++r) {
    if (r + kAhead < n) view.prefetch(hash[r + kAhead]);
    out[r] = view.find(hash[r]);
  }
  // Then in row order, each guess checked against its value's bytes (fetched ahead in two
  // steps); new values, values first met earlier in this batch and values whose hash
  // another shares are looked up again, with the bytes compared: codes are given in row
  // order only, so they are numbered in order of first appearance.
  for (size_t r = 0; r < n; ++r) {
    detail::poll_every(r);
    if (r + 2 * kAhead < n && out[r + 2 * kAhead] != kNone)
      values_.prefetch_end(out[r + 2 * kAhead]);
    if (r + kAhead < n && out[r + kAhead] != kNone) values_.prefetch_bytes(out[r + kAhead]);
    const std::string_view s = batch.str(r);
    if (out[r] != kNone && values_.of(out[r]) == s) continue;
    const auto [code, fresh] =
        table_.insert(hash[r], [&](uint32_t c) { return values_.of(c) == s; });
    if (fresh) values_.add(s);
    out[r] = code;
  }
}

}  // namespace clusterscore
