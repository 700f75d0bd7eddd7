// A cluster column coded as it is read, batch by batch (Parquet row groups), so that its
// strings are never held whole: at 1e8 rows of ids like "cluster-<n>", ~1.7 GiB of
// characters and offsets that column_codes() would need at once, of which only the
// distinct values are kept here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "clusterscore/ids.h"
#include "detail/big_vector.h"
#include "detail/hash.h"
#include "input/dense_ids.h"
#include "input/representatives.h"

namespace clusterscore {

// Codes in order of first appearance over all the batches added, in order: the codes
// column_codes() gives the whole column, and each code's value. Exact: strings are
// matched by a 64-bit hash and then compared byte for byte.
class BatchCoder {
 public:
  // `expected_rows` (all the batches') sizes the table; `weak_hash` (tests) replaces the
  // string hash with one whose collisions the byte comparison must resolve.
  explicit BatchCoder(size_t expected_rows = 0, detail::StringHashFn weak_hash = nullptr);

  // Writes the code of each of `batch`'s rows to out[0, batch.size). `batch`'s data is
  // read during the call only. Throws std::invalid_argument if `batch` holds integers or
  // has a validity array (nulls have no code here; the caller keeps such a column as read).
  void add(const IdColumn& batch, uint32_t* out);
  // Codes given so far.
  size_t size() const { return values_.size(); }
  // The values, code by code: their bytes and each one's end offset (size() of them,
  // offsets from 0 without the leading 0). For the caller to take once it adds no more.
  detail::Representatives& values() { return values_; }
  // The values' bytes and end offsets (as values() has them), moved out: the coder is left
  // with no values and adds no more.
  struct Values {
    BigVector<char> bytes;
    BigVector<uint64_t> ends;
  };
  Values take_values() {
    Values v{std::move(values_.bytes()), std::move(values_.ends())};
    values_ = detail::Representatives();
    return v;
  }

 private:
  detail::StringHashFn weak_hash_;
  detail::DenseIds<detail::Mix64> table_;  // the hash of each value's bytes → its code
  detail::Representatives values_;
  BigVector<uint64_t> hashes_;  // the batch's, reused from batch to batch
};

}  // namespace clusterscore
