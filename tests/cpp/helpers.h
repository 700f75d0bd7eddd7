// Small builders for id columns in C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clusterscore/error.h"
#include "detail/hash.h"
#include "input/clustering.h"

namespace cstest {

// Owns Arrow-style string storage for an IdColumn.
struct Strings {
  std::string chars;
  std::vector<int32_t> offsets{0};
  explicit Strings(const std::vector<std::string>& v) {
    for (const auto& s : v) {
      chars += s;
      offsets.push_back(int32_t(chars.size()));
    }
  }
  clusterscore::IdColumn col() const {
    return clusterscore::IdColumn::of_strings(chars.data(), offsets.data(), offsets.size() - 1);
  }
};

// A weak string hash for the hashed paths' collision checks: only "item-2" collides,
// with "item-1".
inline uint64_t hash_item2_as_item1(std::string_view s) {
  return clusterscore::detail::hash_bytes(s == "item-2" ? "item-1" : s);
}

// The InputError `f` throws (a test failure if it throws none).
template <class F>
clusterscore::InputError error_of(F f) {
  try {
    f();
  } catch (const clusterscore::InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return clusterscore::InputError("", -1, "");
}

// A repeat's error as "<message> (rows <first> and <row>)": both rows it names.
inline std::string repeat_of(const clusterscore::InputError& e) {
  return std::string(e.what()) + " (rows " + std::to_string(e.first_row()) + " and " +
         std::to_string(e.row()) + ")";
}

inline clusterscore::IdColumn ints(const std::vector<int64_t>& v) {
  return clusterscore::IdColumn::of_ints(v.data(), v.size());
}

}  // namespace cstest
