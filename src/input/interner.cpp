#include "input/interner.h"

namespace clusterscore::detail {

std::pair<uint32_t, bool> Interner::insert(const IdColumn& col, size_t row) {
  const auto got = table_.insert(key_of(col, row), same_as(col, row));
  if (got.second && strings_) refs_.push_back(Ref{column_index(col), row});
  return got;
}

uint32_t Interner::find(const IdColumn& col, size_t row) const {
  const KeyView view = key_view();
  return view.slots[view.find_slot(key_of(col, row), same_as(col, row))].id;
}

uint32_t Interner::column_index(const IdColumn& col) {
  for (size_t k = cols_.size(); k-- > 0;)
    if (cols_[k].chars == col.chars && cols_[k].offsets32 == col.offsets32 &&
        cols_[k].offsets64 == col.offsets64)
      return uint32_t(k);
  cols_.push_back(col);
  return uint32_t(cols_.size() - 1);
}

}  // namespace clusterscore::detail
