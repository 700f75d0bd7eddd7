// Where the cell of a (component, truth cluster) is: an open-addressing table with linear
// probing and backward-shift deletion (no tombstones, so probes stay short however many
// keys come and go). A merge asks it for each of the smaller component's cells: scanning
// a truth cluster's cells instead cost its number of cells per merge, quadratic in the
// size of an entity linked one record at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "detail/hash.h"

namespace clusterscore::curves_detail {

class CellIndex {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;

  // Room for `keys` keys at most at a time.
  explicit CellIndex(size_t keys) {
    size_t capacity = 16;
    while (capacity < 2 * keys) capacity *= 2;
    slots_.assign(capacity, Slot{kEmpty, 0});
    mask_ = capacity - 1;
  }
  uint32_t find(uint32_t root, uint32_t truth) const {
    const uint64_t key = key_of(root, truth);
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].cell;
      if (slots_[i].key == kEmpty) return kMissing;
    }
  }
  // The key must be absent.
  void insert(uint32_t root, uint32_t truth, uint32_t cell) {
    const uint64_t key = key_of(root, truth);
    size_t i = home(key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = {key, cell};
  }
  // The key must be present.
  void erase(uint32_t root, uint32_t truth) {
    const uint64_t key = key_of(root, truth);
    size_t i = home(key);
    while (slots_[i].key != key) i = (i + 1) & mask_;
    // Backward shift: each later key of the run moves into the hole unless its home lies
    // (cyclically) after the hole.
    for (size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      const size_t h = home(slots_[j].key);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].key = kEmpty;
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;  // no (root, truth) is two kNone
  struct Slot {
    uint64_t key;
    uint32_t cell;
  };
  static uint64_t key_of(uint32_t root, uint32_t truth) { return uint64_t(root) << 32 | truth; }
  size_t home(uint64_t key) const { return detail::mix64(key) & mask_; }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace clusterscore::curves_detail
