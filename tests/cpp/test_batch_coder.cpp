#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "detail/hash.h"
#include "helpers.h"
#include "input/batch_coder.h"
#include "input/id_chunks.h"

using clusterscore::BatchCoder;
using clusterscore::BigVector;
using clusterscore::IdColumn;

namespace {

uint64_t hash_by_length(std::string_view s) { return s.size(); }

// Rows [begin, end) of `col` as a batch of its own, its offsets rebased to start at 0 as a
// Parquet batch's do (and of the other width if `wide`).
struct Batch {
  std::string chars;
  std::vector<int32_t> off32{0};
  std::vector<int64_t> off64{0};
  Batch(const std::vector<std::string>& v, size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      chars += v[r];
      off32.push_back(int32_t(chars.size()));
      off64.push_back(int64_t(chars.size()));
    }
  }
  IdColumn col(bool wide) const {
    const size_t n = off32.size() - 1;
    return wide ? IdColumn::of_strings(chars.data(), off64.data(), n)
                : IdColumn::of_strings(chars.data(), off32.data(), n);
  }
};

// `v` coded in batches of random sizes (some empty) against column_codes() of the whole
// column: the same codes, and each code's value is its first row's.
void expect_whole_column_codes(const std::vector<std::string>& v, std::mt19937_64& rng,
                               clusterscore::detail::StringHashFn weak_hash,
                               const std::string& what) {
  const cstest::Strings whole(v);
  const clusterscore::ColumnCodes want = clusterscore::column_codes(whole.col());
  BatchCoder coder(v.size(), weak_hash);
  std::vector<uint32_t> got(v.size());
  for (size_t at = 0; at < v.size();) {
    const size_t rows = std::min(v.size() - at, size_t(rng() % 3000));
    const Batch b(v, at, at + rows);
    coder.add(b.col(rng() % 2 == 0), got.data() + at);
    at += rows;
  }
  ASSERT_EQ(coder.size(), want.first_row.size()) << what;
  for (size_t r = 0; r < v.size(); ++r) ASSERT_EQ(got[r], want.code[r]) << what << " row " << r;
  for (size_t c = 0; c < coder.size(); ++c)
    ASSERT_EQ(coder.values().of(uint32_t(c)), v[want.first_row[c]]) << what << " code " << c;
}

}  // namespace

// Batch by batch, with the real hash and with hashes that collide (all of a length, or one
// pair only, first met in different batches), short and long strings, few or many values:
// the codes and values of the whole column.
TEST(BatchCoder, CodesOfTheWholeColumnWhateverTheBatchesAndHash) {
  std::mt19937_64 rng(41);
  for (int round = 0; round < 12; ++round) {
    const size_t n = 1 + rng() % 20000, distinct = 1 + rng() % (round % 2 ? 15000 : 40);
    std::vector<std::string> v(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t x = rng() % distinct;
      v[i] = round % 3 == 0 ? std::to_string(x).substr(0, x % 4) : "cluster-" + std::to_string(x);
    }
    v[rng() % n] = "item-1";
    v[rng() % n] = "item-2";
    const std::string what = "round " + std::to_string(round);
    expect_whole_column_codes(v, rng, nullptr, what);
    expect_whole_column_codes(v, rng, hash_by_length, what + " by length");
    expect_whole_column_codes(v, rng, cstest::hash_item2_as_item1, what + " one pair");
  }
}

TEST(BatchCoder, RefusesIntegersAndNulls) {
  BatchCoder coder;
  std::vector<uint32_t> out(3);
  const std::vector<int64_t> ints = {1, 2, 3};
  EXPECT_THROW(coder.add(cstest::ints(ints), out.data()), std::invalid_argument);
  const cstest::Strings s({"a", "b", "c"});
  const std::vector<uint8_t> valid = {1, 0, 1};
  IdColumn with_nulls = s.col();
  with_nulls.valid = valid.data();
  EXPECT_THROW(coder.add(with_nulls, out.data()), std::invalid_argument);
  EXPECT_EQ(coder.size(), 0u);
}
