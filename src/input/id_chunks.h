// A column of ids that arrives in chunks (Parquet row groups, Arrow chunked arrays), joined
// into one column: the only place ids are copied.
#pragma once

#include <cstdint>
#include <vector>

#include "clusterscore/ids.h"
#include "detail/big_vector.h"

namespace clusterscore {

// One column made of several chunk columns, in order: its storage and its view. Not
// copyable: `column` points into the members (moving keeps the buffers in place).
struct ConcatenatedIds {
  ConcatenatedIds() = default;
  ConcatenatedIds(ConcatenatedIds&&) = default;
  ConcatenatedIds(const ConcatenatedIds&) = delete;

  BigVector<int64_t> ints;
  BigVector<char> chars;
  BigVector<int32_t> offsets32;  // strings, unless the characters pass 2^31 bytes
  BigVector<int64_t> offsets;
  BigVector<uint8_t> valid;  // only if some chunk has validity
  IdColumn column;           // views the members above
};

// Concatenates chunks that are all integers or all strings (either offset width); the
// result's string offsets are 32-bit when they fit. Throws std::invalid_argument when
// integers and strings are mixed.
ConcatenatedIds concatenate(const std::vector<IdColumn>& chunks);

// A column's values as dense codes 0..n-1 in order of first appearance, with each code's
// first row: what the core numbers a cluster column by. A caller that keeps the codes and
// the first rows' values (a dictionary) can drop the column's strings and hand the codes
// back as ClusteringInput::cluster_codes.
struct ColumnCodes {
  BigVector<uint32_t> code;       // per row
  BigVector<uint64_t> first_row;  // per code
};
ColumnCodes column_codes(const IdColumn& column);

}  // namespace clusterscore
