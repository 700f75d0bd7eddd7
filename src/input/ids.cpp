#include <climits>
#include <stdexcept>

#include "input/id_chunks.h"
#include "input/intern_column.h"

namespace clusterscore {

IdColumn IdColumn::of_ints(const int64_t* values, size_t n) {
  return {.type = Type::kInt64, .size = n, .ints = values};
}

IdColumn IdColumn::of_strings(const char* chars, const int32_t* offsets, size_t n) {
  return {.type = Type::kString32, .size = n, .chars = chars, .offsets32 = offsets};
}

IdColumn IdColumn::of_strings(const char* chars, const int64_t* offsets, size_t n) {
  return {.type = Type::kString64, .size = n, .chars = chars, .offsets64 = offsets};
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

namespace {

void append_validity(const IdColumn& chunk, ConcatenatedIds* out) {
  if (chunk.valid)
    out->valid.insert(out->valid.end(), chunk.valid, chunk.valid + chunk.size);
  else
    out->valid.resize(out->valid.size() + chunk.size, 1);
}

int64_t offset(const IdColumn& c, size_t r) {
  return c.type == IdColumn::Type::kString32 ? int64_t(c.offsets32[r]) : c.offsets64[r];
}

template <class Offset>
void append_strings(const IdColumn& chunk, BigVector<char>* chars, BigVector<Offset>* offsets) {
  const int64_t first = offset(chunk, 0), shift = int64_t(chars->size()) - first;
  chars->insert(chars->end(), chunk.chars + first, chunk.chars + offset(chunk, chunk.size));
  for (size_t r = 1; r <= chunk.size; ++r) offsets->push_back(Offset(offset(chunk, r) + shift));
}

}  // namespace

ConcatenatedIds concatenate(const std::vector<IdColumn>& chunks) {
  ConcatenatedIds out;
  size_t n = 0, n_chars = 0;
  bool any_valid = false;
  const bool strings = !chunks.empty() && chunks[0].is_string();
  for (const IdColumn& c : chunks) {
    if (c.is_string() != strings)
      throw std::invalid_argument("clusterscore: a column's chunks mix integers and strings");
    n += c.size;
    if (strings && c.size > 0) n_chars += size_t(offset(c, c.size) - offset(c, 0));
    any_valid |= c.valid != nullptr;
  }
  const bool narrow = n_chars <= size_t(INT32_MAX);  // 32-bit offsets: half the memory
  if (strings) {
    out.chars.reserve(n_chars);
    if (narrow) {
      out.offsets32.reserve(n + 1);
      out.offsets32.push_back(0);
    } else {
      out.offsets.reserve(n + 1);
      out.offsets.push_back(0);
    }
  } else {
    out.ints.reserve(n);
  }
  if (any_valid) out.valid.reserve(n);
  for (const IdColumn& c : chunks) {
    if (c.size == 0) continue;
    if (!strings)
      out.ints.insert(out.ints.end(), c.ints, c.ints + c.size);
    else if (narrow)
      append_strings(c, &out.chars, &out.offsets32);
    else
      append_strings(c, &out.chars, &out.offsets);
    if (any_valid) append_validity(c, &out);
  }
  if (!strings)
    out.column = IdColumn::of_ints(out.ints.data(), n);
  else if (narrow)
    out.column = IdColumn::of_strings(out.chars.data(), out.offsets32.data(), n);
  else
    out.column = IdColumn::of_strings(out.chars.data(), out.offsets.data(), n);
  if (any_valid) out.column.valid = out.valid.data();
  return out;
}

ColumnCodes column_codes(const IdColumn& column) {
  ColumnCodes c;
  c.code = detail::intern_column(column, &c.first_row);
  return c;
}

}  // namespace clusterscore
