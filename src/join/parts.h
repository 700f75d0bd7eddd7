// What the two join strategies share: join/partitioned_join.h's radix partitions (the
// usual one) and join.cpp's exact hash table of strings (when string hashes collide).
#pragma once

#include <cstddef>
#include <limits>
#include <string>

#include "detail/hash.h"
#include "detail/weight.h"
#include "input/clustering.h"

namespace clusterscore::join_detail {

// Throws InputError: `row` of `role` names the same item as row `first`.
[[noreturn]] void duplicate(const std::string& role, const IdColumn& col, size_t first, size_t row);
// The first row before `row` holding the same id (an O(row) scan, for error messages).
size_t first_row_with(const IdColumn& col, size_t row);
// Throws InputError naming the first weight that is not detail::is_weight().
void check_weights(const ItemsInput& t);
// A weight with every digit it has (17 significant), for error messages.
std::string fmt_weight(double w);

// Rows per partition when none is given (at most; 1e7 rows make 1024 partitions of ~10k).
// With plain stores, fewer partitions mean fewer write streams when scattering, which
// matters more than the hash table (16 B a slot, a quarter full) fitting in L2.
// Scattered a cache line at a time, more streams cost little, and at 32768 rows a
// partition's table fills a 2 MiB L2: 16384 is the best of both.
inline constexpr size_t kPartitionRows = 16384;

using detail::StringHashFn;

// The join of item ids (all three columns integers, or all strings) by radix partitions
// on a hash of the id, so that every lookup hits a cache-resident table: fills every
// field of `j` but the roles and row counts, with the numbering and errors of join().
// `partition_rows` (> 0) sets the partitions' size (tests make it tiny). String ids are
// hashed with `weak_hash`, or hash_id_bytes with `string_seed` if null, and every match is
// then compared byte for byte: returns false (and leaves `j` unspecified) if two different
// ids had the same hash, for the caller to start again with another seed. Integer ids
// always return true.
bool join_partitioned(const ClusteringInput& a, const ClusteringInput& b, const ItemsInput* items,
                      size_t partition_rows, StringHashFn weak_hash, JoinedClusterings* j,
                      uint64_t string_seed = detail::wy::kP0);

// Attempts at joining string ids, each with its own seed, before join() gives up (two ids
// sharing a 64-bit hash under every one of them).
inline constexpr unsigned kJoinSeeds = 4;

// join() with string ids hashed by `weak_hash` (null: hash_id_bytes) in the first
// `weak_attempts` attempts, for tests.
JoinedClusterings join_with(const ClusteringInput& a, const ClusteringInput& b,
                            const ItemsInput* items, StringHashFn weak_hash,
                            unsigned weak_attempts = 1);

}  // namespace clusterscore::join_detail
