// Maps ids (from one or more IdColumns of the same kind) to dense indices 0..size()-1
// in order of first insertion. Open addressing with linear probing; O(1) expected per op.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "clusterscore/big_vector.h"
#include "clusterscore/clustering.h"
#include "clusterscore/ids.h"
#include "detail/hash.h"
#include "detail/prefetch.h"

namespace clusterscore::detail {

class Interner {
 public:
  // `string_keys` must match every column later passed in; `expected` sizes the table.
  // String ids are compared against the column they were first inserted from: that
  // column's data (not the IdColumn object) must outlive the interner.
  Interner(bool string_keys, size_t expected);

  // Returns {dense id, true if newly inserted}. Throws if more than 2^32-2 ids.
  std::pair<uint32_t, bool> insert(const IdColumn& col, size_t row);
  // Integer-key interners only: the same for a bare 64-bit key (cells, group tuples).
  // Inline: it is the inner loop of interning slice tuples and cells (loops over cluster
  // ids look up through key_view() and insert only what it does not find).
  std::pair<uint32_t, bool> insert_key(uint64_t key) {
    size_t i = slot_of(key);
    while (slots_[i].id != kNone) {
      if (slots_[i].key == key) return {slots_[i].id, false};
      i = (i + 1) & mask_;
    }
    return add_key(i, key);
  }
  // The id of a bare key, or kNone (integer-key interners only).
  uint32_t find_key(uint64_t key) const { return key_view().find(key); }
  // Dense id of the row's value, or kNone.
  uint32_t find(const IdColumn& col, size_t row) const;
  // Touches the slot the row's value hashes to, so a later insert/find is a cache hit.
  void prefetch(const IdColumn& col, size_t row) const {
    detail::prefetch(&slots_[slot_of(key_of(col, row))]);
  }
  size_t size() const { return size_; }

  struct Slot {
    uint64_t key;  // the integer itself, or the string's hash
    uint32_t id;   // kNone when empty
  };
  // Integer-key interners only: the table as it is until the next insert, for a loop to
  // hold in registers (through the interner, a loop reloaded its fields every row, as
  // any store it made might have changed them).
  struct KeyView {
    const Slot* slots;
    size_t mask;
    size_t slot_of(uint64_t key) const { return mix64(key) & mask; }
    void prefetch(uint64_t key) const { detail::prefetch(&slots[slot_of(key)]); }
    // The id of `key`, or kNone if it has none yet.
    uint32_t find(uint64_t key) const {
      for (size_t i = slot_of(key);; i = (i + 1) & mask)
        if (slots[i].id == kNone || slots[i].key == key) return slots[i].id;
    }
  };
  KeyView key_view() const { return {slots_.data(), mask_}; }

 private:
  struct Ref {     // where a string id was first seen, to compare bytes
    uint32_t col;  // index into cols_
    uint64_t row;
  };

  uint64_t key_of(const IdColumn& col, size_t row) const {
    return strings_ ? hash_bytes(col.str(row)) : uint64_t(col.ints[row]);
  }
  size_t slot_of(uint64_t key) const { return (strings_ ? key : mix64(key)) & mask_; }
  bool same(const Slot& s, uint64_t key, const IdColumn& col, size_t row) const {
    if (s.key != key) return false;
    if (!strings_) return true;
    const Ref& r = refs_[s.id];
    return cols_[r.col].str(r.row) == col.str(row);
  }
  std::pair<uint32_t, bool> add_key(size_t i, uint64_t key);  // at empty slot i
  void grow();
  uint32_t column_index(const IdColumn& col);

  bool strings_;
  BigVector<Slot> slots_;
  std::vector<Ref> refs_;
  std::vector<IdColumn> cols_;  // copies of the views strings were inserted from
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace clusterscore::detail
