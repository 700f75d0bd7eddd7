// Maps ids (from one or more IdColumns of the same kind) to dense indices 0..size()-1
// in order of first insertion: DenseIds on the integer itself or the string's hash, with
// the string's bytes compared where hashes meet. O(1) expected per op.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "clusterscore/ids.h"
#include "detail/hash.h"
#include "input/dense_ids.h"

namespace clusterscore::detail {

class Interner {
 public:
  using Table = DenseIds<Mix64>;
  using KeyView = Table::KeyView;

  // `string_keys` must match every column later passed in; `expected` sizes the table.
  // String ids are compared against the column they were first inserted from: that
  // column's data (not the IdColumn object) must outlive the interner.
  Interner(bool string_keys, size_t expected) : strings_(string_keys), table_(expected) {}

  // Returns {dense id, true if newly inserted}. Throws if more than 2^32-2 ids.
  std::pair<uint32_t, bool> insert(const IdColumn& col, size_t row);
  // Integer-key interners only: the same for a bare 64-bit key (cells, group tuples).
  // Inline: it is the inner loop of interning slice tuples and cells (loops over cluster
  // ids look up through key_view() and insert only what it does not find).
  std::pair<uint32_t, bool> insert_key(uint64_t key) { return table_.insert(key); }
  // The id of a bare key, or kNone (integer-key interners only).
  uint32_t find_key(uint64_t key) const { return key_view().find(key); }
  // Dense id of the row's value, or kNone.
  uint32_t find(const IdColumn& col, size_t row) const;
  // Touches the slot the row's value hashes to, so a later insert/find is a cache hit.
  void prefetch(const IdColumn& col, size_t row) const { key_view().prefetch(key_of(col, row)); }
  size_t size() const { return table_.size(); }
  // Integer-key interners only: the table as it is until the next insert.
  KeyView key_view() const { return table_.key_view(); }

 private:
  struct Ref {     // where a string id was first seen, to compare bytes
    uint32_t col;  // index into cols_
    uint64_t row;
  };

  uint64_t key_of(const IdColumn& col, size_t row) const {
    return strings_ ? hash_bytes(col.str(row)) : uint64_t(col.ints[row]);
  }
  // Whether id `id` (whose key equals the row's) is the row's value.
  auto same_as(const IdColumn& col, size_t row) const {
    return [this, &col, row](uint32_t id) {
      if (!strings_) return true;
      const Ref& r = refs_[id];
      return cols_[r.col].str(r.row) == col.str(row);
    };
  }
  uint32_t column_index(const IdColumn& col);

  bool strings_;
  Table table_;
  std::vector<Ref> refs_;
  std::vector<IdColumn> cols_;  // copies of the views strings were inserted from
};

}  // namespace clusterscore::detail
