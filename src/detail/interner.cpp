#include "detail/interner.h"

#include <stdexcept>

namespace clusterscore::detail {

namespace {
// Load factor at most 5/8: short probe runs without doubling memory.
size_t capacity_for(size_t n) {
  size_t cap = 16;
  while (cap * 5 < n * 8) cap <<= 1;
  return cap;
}
}  // namespace

Interner::Interner(bool string_keys, size_t expected) : strings_(string_keys) {
  slots_.assign(capacity_for(expected), Slot{0, kNone});
  mask_ = slots_.size() - 1;
}

std::pair<uint32_t, bool> Interner::insert(const IdColumn& col, size_t row) {
  const uint64_t key = key_of(col, row);
  size_t i = slot_of(key);
  while (slots_[i].id != kNone) {
    if (same(slots_[i], key, col, row)) return {slots_[i].id, false};
    i = (i + 1) & mask_;
  }
  if (size_ >= kNone - 1) throw std::length_error("clusterscore: more than 2^32-2 distinct ids");
  const uint32_t id = uint32_t(size_++);
  slots_[i] = Slot{key, id};
  if (strings_) refs_.push_back(Ref{column_index(col), row});
  if (size_ * 8 > slots_.size() * 5) grow();
  return {id, true};
}

std::pair<uint32_t, bool> Interner::add_key(size_t i, uint64_t key) {
  const uint32_t id = uint32_t(size_++);
  slots_[i] = Slot{key, id};
  if (size_ * 8 > slots_.size() * 5) grow();
  return {id, true};
}

uint32_t Interner::find(const IdColumn& col, size_t row) const {
  const uint64_t key = key_of(col, row);
  size_t i = slot_of(key);
  while (slots_[i].id != kNone) {
    if (same(slots_[i], key, col, row)) return slots_[i].id;
    i = (i + 1) & mask_;
  }
  return kNone;
}

uint32_t Interner::column_index(const IdColumn& col) {
  for (size_t k = cols_.size(); k-- > 0;)
    if (cols_[k].chars == col.chars && cols_[k].offsets32 == col.offsets32 &&
        cols_[k].offsets64 == col.offsets64)
      return uint32_t(k);
  cols_.push_back(col);
  return uint32_t(cols_.size() - 1);
}

void Interner::grow() {
  BigVector<Slot> old(slots_.size() * 2, Slot{0, kNone});
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNone) continue;
    size_t i = slot_of(s.key);
    while (slots_[i].id != kNone) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace clusterscore::detail
