// Each id's bytes, copied as the id is first met, in id order.
#pragma once

#include <cstdint>
#include <string_view>

#include "detail/big_vector.h"
#include "detail/prefetch.h"

namespace clusterscore::detail {

// Rows are compared with their id's bytes here, in a compact buffer, rather than at the
// id's first row in a column (three dependent reads at random, then: that row, its offset,
// its bytes); and a column coded batch by batch keeps its values here after the batches
// are gone.
class Representatives {
 public:
  void add(std::string_view s) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    end_.push_back(bytes_.size());
  }
  void prefetch_end(uint32_t id) const { detail::prefetch(&end_[id]); }
  void prefetch_bytes(uint32_t id) const { detail::prefetch(bytes_.data() + begin(id)); }
  std::string_view of(uint32_t id) const {
    return {bytes_.data() + begin(id), end_[id] - begin(id)};
  }
  size_t size() const { return end_.size(); }
  // Every id's bytes, one after the other, and each id's end offset in them (no leading
  // 0): for the caller to take once it is done adding.
  BigVector<char>& bytes() { return bytes_; }
  BigVector<uint64_t>& ends() { return end_; }

 private:
  size_t begin(uint32_t id) const { return id == 0 ? 0 : end_[id - 1]; }
  BigVector<char> bytes_;
  BigVector<uint64_t> end_;
};

}  // namespace clusterscore::detail
