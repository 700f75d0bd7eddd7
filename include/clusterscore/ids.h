// Read-only views of id columns (item ids, cluster ids, slice values).
// The data stays where the caller put it (numpy / Arrow buffers); nothing is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clusterscore {

// A column of opaque ids: either 64-bit integers or byte strings laid out as
// Arrow does (one offsets array of size+1 entries into one character buffer).
// Ids are compared exactly: integers by value, strings by bytes.
struct IdColumn {
  enum class Type : uint8_t { kInt64, kString32, kString64 };

  Type type = Type::kInt64;
  size_t size = 0;
  const int64_t* ints = nullptr;       // kInt64: `size` values
  const char* chars = nullptr;         // strings: character data
  const int32_t* offsets32 = nullptr;  // kString32: size+1 offsets
  const int64_t* offsets64 = nullptr;  // kString64: size+1 offsets
  // Optional validity, one byte a row (0 = null). Only slice columns may have nulls.
  const uint8_t* valid = nullptr;

  static IdColumn of_ints(const int64_t* values, size_t n);
  static IdColumn of_strings(const char* chars, const int32_t* offsets, size_t n);
  static IdColumn of_strings(const char* chars, const int64_t* offsets, size_t n);

  bool is_string() const { return type != Type::kInt64; }
  bool is_null(size_t row) const { return valid != nullptr && valid[row] == 0; }
  std::string_view str(size_t row) const {
    if (type == Type::kString32)
      return {chars + offsets32[row], size_t(offsets32[row + 1] - offsets32[row])};
    return {chars + offsets64[row], size_t(offsets64[row + 1] - offsets64[row])};
  }
  // The id as a user would write it, quoted if a string; for error messages.
  std::string repr(size_t row) const;
};

}  // namespace clusterscore
