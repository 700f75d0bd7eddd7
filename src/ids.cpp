#include "clusterscore/ids.h"

namespace clusterscore {

IdColumn IdColumn::of_ints(const int64_t* values, size_t n) {
  IdColumn c;
  c.type = Type::kInt64;
  c.size = n;
  c.ints = values;
  return c;
}

IdColumn IdColumn::of_strings(const char* chars, const int32_t* offsets, size_t n) {
  IdColumn c;
  c.type = Type::kString32;
  c.size = n;
  c.chars = chars;
  c.offsets32 = offsets;
  return c;
}

IdColumn IdColumn::of_strings(const char* chars, const int64_t* offsets, size_t n) {
  IdColumn c;
  c.type = Type::kString64;
  c.size = n;
  c.chars = chars;
  c.offsets64 = offsets;
  return c;
}

std::string IdColumn::repr(size_t row) const {
  if (is_null(row)) return "null";
  if (type == Type::kInt64) return std::to_string(ints[row]);
  std::string_view s = str(row);
  constexpr size_t kMax = 60;  // keep one-line messages short
  std::string out = "'";
  out.append(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  out += "'";
  return out;
}

}  // namespace clusterscore
