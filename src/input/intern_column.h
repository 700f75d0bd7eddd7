// Dense ids for the values of one column, in order of first appearance.
#pragma once

#include <cstdint>
#include <vector>

#include "clusterscore/ids.h"
#include "detail/big_vector.h"
#include "detail/hash.h"

namespace clusterscore::detail {

// Returns each row's dense id and puts the first row of each id in `first_row`, which
// must be empty. Ids are the same on any number of threads (long columns are interned
// in parts on every thread, then merged).
// Null rows (col.valid) share one id. Integer columns whose values span a range of at
// most 4 rows per row are indexed directly (no hashing: most label and cluster columns
// are such small integers); strings of at most 7 bytes are packed into exact integer
// keys; longer strings are interned by a 64-bit hash and then compared with a copy of
// their id's bytes; anything else goes through the hash interner. O(rows) expected.
BigVector<uint32_t> intern_column(const IdColumn& col, BigVector<uint64_t>* first_row);
// The same with strings hashed by `weak_hash` (null: hash_id_bytes), for tests: different
// strings it maps to the same hash are told apart by the hash interner instead.
BigVector<uint32_t> intern_column(const IdColumn& col, BigVector<uint64_t>* first_row,
                                  StringHashFn weak_hash);

}  // namespace clusterscore::detail
