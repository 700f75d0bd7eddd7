// The core's one open-addressing hash table: 64-bit keys to dense ids 0..size()-1 in order
// of first insertion (cluster ids, slice tuples, cells, pairs), and the probe that the join's
// per-partition table shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "detail/big_vector.h"
#include "detail/hash.h"
#include "detail/prefetch.h"
#include "input/clustering.h"

namespace clusterscore::detail {

// Linear probing in a table of mask + 1 slots (a power of two): from slot `i`, the first slot
// that is empty or holds the key. Inlined: as a call, the loops that probe kept their state
// in memory.
template <class Slot, class Empty, class Holds>
[[gnu::always_inline]] inline size_t probe(const Slot* slots, size_t mask, size_t i, Empty empty,
                                           Holds holds) {
  while (!empty(slots[i]) && !holds(slots[i])) i = (i + 1) & mask;
  return i;
}

// Where a key's probe starts: the top bits of a 64-bit hash of the key. Mix64 suits integer
// ids, which often share their low bits (and string hashes, at a few operations' cost);
// Golden, one multiplication, suits short strings packed into a key, which differ in their
// low bytes (the multiplication carries them to the top).
struct Mix64 {
  uint64_t operator()(uint64_t key) const { return mix64(key); }
};
struct Golden {
  uint64_t operator()(uint64_t key) const { return key * 0x9E3779B97F4A7C15ull; }
};

// Dense ids of exact 64-bit keys. At most 5/8 full: short probe runs without doubling
// memory. Ids depend on the order of insertion alone, never on the hash, which changes
// speed only. O(1) expected per operation.
template <class Hash>
class DenseIds {
 public:
  struct Slot {
    uint64_t key;
    uint32_t id;  // kNone: empty
  };
  // The table as it is until the next insert, for a loop to hold in registers (through the
  // table, a loop reloaded its fields every row, as any store it made might have changed
  // them).
  struct KeyView {
    const Slot* slots;
    size_t mask;
    unsigned shift;
    [[gnu::always_inline]] size_t slot_of(uint64_t key) const {
      return size_t(Hash{}(key) >> shift);
    }
    [[gnu::always_inline]] void prefetch(uint64_t key) const {
      detail::prefetch(&slots[slot_of(key)]);
    }
    // The slot of `key`, or of the empty slot where it would go. `same(id)`: whether the
    // id of a slot holding `key` is the caller's (keys that are hashes of longer ids).
    // Inlined, with find(): they are the inner loop of every numbering.
    template <class Same>
    [[gnu::always_inline]] size_t find_slot(uint64_t key, Same same) const {
      return probe(
          slots, mask, slot_of(key), [](const Slot& s) { return s.id == kNone; },
          [&](const Slot& s) { return s.key == key && same(s.id); });
    }
    // The id of `key`, or kNone if it has none yet.
    [[gnu::always_inline]] uint32_t find(uint64_t key) const {
      return slots[find_slot(key, [](uint32_t) { return true; })].id;
    }
  };

  // Sized for `expected` ids without growing, and at least 64 slots: with few ids (slice
  // values, say) a lookup then rarely probes twice, so its loop's branch stays predicted.
  explicit DenseIds(size_t expected = 0) {
    unsigned bits = 6;
    while ((size_t(5) << bits) < 8 * expected) ++bits;
    slots_.assign(size_t(1) << bits, Slot{0, kNone});
    shift_ = 64 - bits;
  }

  KeyView key_view() const { return {slots_.data(), slots_.size() - 1, shift_}; }
  size_t size() const { return size_; }

  // {id, true if new} of `key`; with `same`, as KeyView::find_slot. Throws
  // std::length_error beyond 2^32 − 2 ids.
  template <class Same>
  std::pair<uint32_t, bool> insert(uint64_t key, Same same) {
    const size_t i = key_view().find_slot(key, same);
    if (slots_[i].id != kNone) return {slots_[i].id, false};
    return add(i, key);
  }
  std::pair<uint32_t, bool> insert(uint64_t key) {
    return insert(key, [](uint32_t) { return true; });
  }

 private:
  std::pair<uint32_t, bool> add(size_t i, uint64_t key) {
    if (size_ >= kNone - 1) throw std::length_error("clusterscore: more than 2^32-2 distinct ids");
    const uint32_t id = uint32_t(size_++);
    slots_[i] = Slot{key, id};
    if (size_ * 8 > slots_.size() * 5) grow();
    return {id, true};
  }
  void grow() {
    BigVector<Slot> old(slots_.size() * 2, Slot{0, kNone});
    old.swap(slots_);
    --shift_;
    const KeyView view = key_view();
    for (const Slot& s : old)
      if (s.id != kNone)
        slots_[probe(
            slots_.data(), view.mask, view.slot_of(s.key),
            [](const Slot& t) { return t.id == kNone; }, [](const Slot&) { return false; })] = s;
  }

  BigVector<Slot> slots_;
  unsigned shift_ = 58;  // 64 − log2(slots)
  size_t size_ = 0;
};

}  // namespace clusterscore::detail
