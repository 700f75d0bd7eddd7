// Tables from a component's key to its cell or group: open addressing with linear probing
// and backward-shift deletion (no tombstones, so probes stay short however many keys come
// and go). A merge asks them for each of the smaller component's cells and groups:
// scanning a truth cluster's cells instead cost its number of cells per merge (quadratic
// in an entity linked one record at a time), and a large cluster's sorted groups cost
// their number per merge.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "detail/big_vector.h"
#include "detail/hash.h"

namespace clusterscore::curves_detail {

// Key → value (never kMissing). `Key` has operator== and a free hash_of(const Key&).
template <class Key>
class FlatIndex {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;

  // Room for `keys` keys before it first grows (doubling past half full): a table sized
  // for every key it might hold would be written, page by page, before its first use.
  explicit FlatIndex(size_t keys = 0) { reset(keys); }
  uint32_t find(const Key& key) const {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].value == kMissing) return kMissing;
      if (slots_[i].key == key) return slots_[i].value;
    }
  }
  // The key must be absent.
  void insert(const Key& key, uint32_t value) {
    if (2 * ++size_ > slots_.size()) grow();
    size_t i = home(key);
    while (slots_[i].value != kMissing) i = (i + 1) & mask_;
    slots_[i] = {key, value};
  }
  // The key must be present.
  void assign(const Key& key, uint32_t value) {
    size_t i = home(key);
    while (!(slots_[i].value != kMissing && slots_[i].key == key)) i = (i + 1) & mask_;
    slots_[i].value = value;
  }
  // The key must be present.
  void erase(const Key& key) {
    size_t i = home(key);
    while (!(slots_[i].value != kMissing && slots_[i].key == key)) i = (i + 1) & mask_;
    // Backward shift: each later key of the run moves into the hole unless its home lies
    // (cyclically) after the hole.
    for (size_t j = (i + 1) & mask_; slots_[j].value != kMissing; j = (j + 1) & mask_) {
      if (((j - home(slots_[j].key)) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].value = kMissing;
    --size_;
  }

 private:
  struct Slot {
    Key key;
    uint32_t value;
  };
  size_t home(const Key& key) const { return hash_of(key) & mask_; }
  void reset(size_t keys) {
    size_t capacity = 16;
    while (capacity < 2 * keys) capacity *= 2;
    slots_.assign(capacity, Slot{Key{}, kMissing});
    mask_ = capacity - 1;
  }
  void grow() {
    BigVector<Slot> old = std::move(slots_);
    reset(old.size());
    for (const Slot& s : old) {
      if (s.value == kMissing) continue;
      size_t i = home(s.key);
      while (slots_[i].value != kMissing) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  BigVector<Slot> slots_;  // 2 MiB-aligned: huge pages can back it (clusterscore/memory.h)
  size_t mask_ = 0;
  size_t size_ = 0;  // keys held
};

// A component's cell of one truth cluster; the component named by its slot
// (curve_pass.h), which it keeps whichever node is its root.
struct CellKey {
  uint32_t slot = 0, truth = 0;
  bool operator==(const CellKey&) const = default;
};
inline uint64_t hash_of(const CellKey& k) {
  return detail::mix64(uint64_t(k.slot) << 32 | k.truth);
}

// A component's group of cells of one (truth weight, cell weight), as groups.h keys them.
struct GroupKey {
  uint32_t slot = 0;
  double truth = 0, tp = 0;
  bool operator==(const GroupKey& o) const {
    return slot == o.slot && truth == o.truth && tp == o.tp;
  }
};
inline uint64_t hash_of(const GroupKey& k) {
  return detail::mix64(k.slot ^ detail::mix64(std::bit_cast<uint64_t>(k.truth)) ^
                       detail::mix64(std::bit_cast<uint64_t>(k.tp) + 0x9E3779B97F4A7C15ull));
}

}  // namespace clusterscore::curves_detail
