#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <string_view>

#include "clusterscore/threads.h"
#include "detail/hash.h"
#include "helpers.h"
#include "input/id_chunks.h"
#include "input/intern_column.h"
#include "input/interner.h"

using clusterscore::BigVector;
using clusterscore::concatenate;
using clusterscore::ConcatenatedIds;
using clusterscore::IdColumn;
using clusterscore::kNone;
using clusterscore::detail::Interner;

TEST(Interner, DenseIdsInFirstSeenOrderThroughGrowth) {
  std::mt19937_64 rng(1);
  std::vector<int64_t> keys(50000);
  for (auto& k : keys) k = int64_t(rng());
  keys.push_back(keys[10]);
  auto col = cstest::ints(keys);
  Interner in(false, 4);  // forces many grow() calls
  for (size_t r = 0; r < 50000; ++r) {
    auto [id, inserted] = in.insert(col, r);
    EXPECT_TRUE(inserted);
    EXPECT_EQ(id, r);
  }
  auto [id, inserted] = in.insert(col, 50000);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(id, 10u);
  for (size_t r = 0; r < 50000; r += 997) EXPECT_EQ(in.find(col, r), r);
}

// Every key hashed to one slot: the worst probe runs, still the same ids.
struct OneSlot {
  uint64_t operator()(uint64_t) const { return 0; }
};

template <class Hash>
std::vector<uint32_t> dense_ids_of(const std::vector<uint64_t>& keys) {
  clusterscore::detail::DenseIds<Hash> t;  // sized for none: grows many times
  std::vector<uint32_t> ids;
  for (uint64_t k : keys) ids.push_back(t.insert(k).first);
  for (size_t r = 0; r < keys.size(); ++r) EXPECT_EQ(t.key_view().find(keys[r]), ids[r]);
  EXPECT_EQ(t.key_view().find(~uint64_t(0) - 7), kNone);
  return ids;
}

TEST(DenseIds, IdsFollowTheOrderOfInsertionWhateverTheHash) {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> keys;
  for (int r = 0; r < 3000; ++r) keys.push_back(rng() % 1000 == 0 ? 0 : rng() % 2000);
  const std::vector<uint32_t> want = dense_ids_of<clusterscore::detail::Mix64>(keys);
  EXPECT_EQ(dense_ids_of<clusterscore::detail::Golden>(keys), want);
  EXPECT_EQ(dense_ids_of<OneSlot>(keys), want);
  std::map<uint64_t, uint32_t> first;  // oracle: numbered as first met
  for (size_t r = 0; r < keys.size(); ++r) {
    first.emplace(keys[r], uint32_t(first.size()));
    EXPECT_EQ(want[r], first[keys[r]]);
  }
}

TEST(DenseIds, SameTellsApartIdsThatShareAKey) {
  // Keys that are hashes of longer ids: two ids share key 5, told apart by their names.
  const std::vector<std::string> names = {"x", "y", "x", "z", "y"};
  const std::vector<uint64_t> keys = {5, 5, 5, 6, 5};
  clusterscore::detail::DenseIds<OneSlot> t;
  std::vector<std::string> name_of;
  std::vector<uint32_t> ids;
  for (size_t r = 0; r < keys.size(); ++r) {
    auto [id, added] = t.insert(keys[r], [&](uint32_t i) { return name_of[i] == names[r]; });
    if (added) name_of.push_back(names[r]);
    ids.push_back(id);
  }
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(t.size(), 3u);
}

TEST(Interner, StringsCompareBytesNotHashes) {
  cstest::Strings a({"", "a", "ab", "abcdefghi", "abcdefgh", "日本"});
  cstest::Strings b({"ab", "abcdefghi", "zz", ""});
  Interner in(true, 2);
  for (size_t r = 0; r < 6; ++r) EXPECT_EQ(in.insert(a.col(), r).first, r);
  EXPECT_EQ(in.find(b.col(), 0), 2u);
  EXPECT_EQ(in.find(b.col(), 1), 3u);
  EXPECT_EQ(in.find(b.col(), 2), kNone);
  EXPECT_EQ(in.find(b.col(), 3), 0u);
}

TEST(Interner, ExtremeIntegers) {
  std::vector<int64_t> keys = {INT64_MIN, INT64_MAX, 0, -1};
  Interner in(false, 1);
  for (size_t r = 0; r < keys.size(); ++r) EXPECT_TRUE(in.insert(cstest::ints(keys), r).second);
  EXPECT_EQ(in.size(), 4u);
}

TEST(InternColumn, ShortStringsGetOneCodeWhereverTheyLie) {
  // Strings of up to 7 bytes are packed into integer keys, with an 8-byte load where the
  // buffer allows and byte by byte near its end: both must give the same key.
  const std::vector<std::string> values = {"ab", "c", "", "abcdefg", "ab", "c", "", "abcdefg"};
  for (size_t n = 1; n <= values.size(); ++n) {
    cstest::Strings s(std::vector<std::string>(values.begin(), values.end() - n + 1));
    std::vector<std::string> v(values.begin(), values.end() - n + 1);
    BigVector<uint64_t> first;
    const BigVector<uint32_t> codes = clusterscore::detail::intern_column(s.col(), &first);
    for (size_t i = 0; i < v.size(); ++i)
      for (size_t k = 0; k < v.size(); ++k) EXPECT_EQ(codes[i] == codes[k], v[i] == v[k]);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[first[codes[i]]], v[i]);
  }
}

TEST(InternColumn, DenseIntegersMapDirectly) {
  const std::vector<int64_t> v = {-3, 5, -3, 0, 5, 2};
  BigVector<uint64_t> first;
  const BigVector<uint32_t> codes = clusterscore::detail::intern_column(cstest::ints(v), &first);
  EXPECT_EQ(codes, (BigVector<uint32_t>{0, 1, 0, 2, 1, 3}));
  EXPECT_EQ(first, (BigVector<uint64_t>{0, 1, 3, 5}));
}

// intern_column(col) against a map oracle: ids in order of first appearance, nulls sharing
// one id of their own; `v` holds the column's values.
template <class V>
void expect_first_seen_ids(const IdColumn& col, const std::vector<V>& v, const std::string& what,
                           clusterscore::detail::StringHashFn weak_hash = nullptr) {
  BigVector<uint64_t> first;
  const BigVector<uint32_t> codes = clusterscore::detail::intern_column(col, &first, weak_hash);
  std::map<V, uint32_t> seen;
  uint32_t null_id = kNone;
  BigVector<uint64_t> want_first;
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t want;
    if (col.is_null(i)) {
      if (null_id == kNone) null_id = uint32_t(want_first.size()), want_first.push_back(i);
      want = null_id;
    } else {
      auto [it, fresh] = seen.emplace(v[i], uint32_t(want_first.size()));
      if (fresh) want_first.push_back(i);
      want = it->second;
    }
    ASSERT_EQ(codes[i], want) << what << " row " << i;
  }
  EXPECT_EQ(first, want_first) << what;
}

// Sparse integers (not a dense range) against a map oracle: ids in order of first
// appearance, with and without nulls (which share one id of their own), through growth.
TEST(InternColumn, SparseIntegersInFirstSeenOrderWithAndWithoutNulls) {
  std::mt19937_64 rng(5);
  std::vector<int64_t> v(50000);
  std::vector<uint8_t> valid(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = int64_t(rng() % 20000) * 1000003 - (int64_t(1) << 40);
    valid[i] = rng() % 7 != 0;
  }
  for (bool nulls : {false, true}) {
    IdColumn col = cstest::ints(v);
    if (nulls) col.valid = valid.data();
    expect_first_seen_ids(col, v, nulls ? "with nulls" : "no nulls");
  }
}

// Strings against a map oracle: ids in order of first appearance, nulls sharing one id
// (whatever bytes their slot spans), both offset widths, through the short-key table's
// growth, and with one longer string somewhere, which sends the column down the general
// path after the short one has started.
TEST(InternColumn, StringsInFirstSeenOrderShortOrNotWithAndWithoutNulls) {
  std::mt19937_64 rng(9);
  for (int round = 0; round < 24; ++round) {
    const size_t n = 1 + rng() % 40000, distinct = 1 + rng() % (round % 2 ? 30000 : 40);
    std::vector<std::string> v(n);
    std::vector<uint8_t> valid(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t x = rng() % distinct;
      v[i] = std::to_string(x).substr(0, x % 8);  // 0 to 7 bytes
      valid[i] = round % 3 == 0 || rng() % 5 != 0;
      if (!valid[i] && rng() % 2) v[i] = "a null's bytes";
    }
    if (round % 4 == 1) v[rng() % n] = "eight by";
    cstest::Strings s(v);
    std::vector<int64_t> offsets64(s.offsets.begin(), s.offsets.end());
    for (bool wide : {false, true}) {
      IdColumn col = wide ? IdColumn::of_strings(s.chars.data(), offsets64.data(), n) : s.col();
      col.valid = valid.data();
      expect_first_seen_ids(col, v, "round " + std::to_string(round) + (wide ? " wide" : ""));
    }
  }
}

// Weak string hashes: different ids that share one must still get different codes.
uint64_t hash_by_length(std::string_view s) { return s.size(); }
uint64_t hash_by_last_byte(std::string_view s) {
  return s.empty() ? 0 : clusterscore::detail::mix64(uint8_t(s.back()));
}
// Strings longer than 7 bytes, without nulls, go by a 64-bit hash and are then compared
// with their id's first row: with the real hash and with hashes that collide (all of
// a length, all of a last byte, or one pair only, placed first, last or anywhere), the
// codes equal the oracle's, for both offset widths.
TEST(InternColumn, LongStringsByHashThenBytesWhateverTheHash) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 16; ++round) {
    const size_t n = 1 + rng() % 30000, distinct = 3 + rng() % (round % 2 ? 20000 : 50);
    std::vector<std::string> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = "item-" + std::to_string(rng() % distinct);
    v[round % 3 == 0 ? 0 : rng() % n] = "item-1";
    v[round % 3 == 1 ? n - 1 : rng() % n] = "item-2";
    cstest::Strings s(v);
    std::vector<int64_t> offsets64(s.offsets.begin(), s.offsets.end());
    for (bool wide : {false, true}) {
      const IdColumn col =
          wide ? IdColumn::of_strings(s.chars.data(), offsets64.data(), n) : s.col();
      const std::string what = "round " + std::to_string(round) + (wide ? " wide" : "");
      expect_first_seen_ids(col, v, what);
      expect_first_seen_ids(col, v, what + " by length", hash_by_length);
      expect_first_seen_ids(col, v, what + " by last byte", hash_by_last_byte);
      expect_first_seen_ids(col, v, what + " one pair", cstest::hash_item2_as_item1);
    }
  }
}

// Columns past 2^21 rows are interned in parts on every thread and merged: the same ids
// and first rows as one thread's, for every kind of column, with values and nulls first
// met in a later part, a long string only in the last part (so the parts take different
// paths), and string hashes that collide.
TEST(InternColumn, LongColumnsInPartsEqualOneThread) {
  using clusterscore::set_threads;
  std::mt19937_64 rng(31);
  const size_t n = (size_t(1) << 21) + 12345;
  std::vector<int64_t> dense(n), sparse(n);
  std::vector<std::string> short_v(n), long_v(n);
  std::vector<uint8_t> valid(n);
  for (size_t i = 0; i < n; ++i) {
    // Values past the middle are new there: ids first met in the second part.
    const uint64_t x = rng() % (i < n / 2 ? 1000 : 300000);
    dense[i] = int64_t(x);
    sparse[i] = int64_t(x) * 1000003 - (int64_t(1) << 40);
    short_v[i] = std::to_string(x).substr(0, 7);
    long_v[i] = "item-" + std::to_string(x);
    valid[i] = i < n / 2 || rng() % 9 != 0;  // nulls only in the second half
  }
  std::vector<std::string> mixed = short_v;
  mixed[n - 5] = "eight by";
  const cstest::Strings s(short_v), l(long_v), m(mixed);
  IdColumn sparse_nulls = cstest::ints(sparse), short_nulls = s.col();
  sparse_nulls.valid = short_nulls.valid = valid.data();
  const std::vector<std::pair<std::string, IdColumn>> cases = {
      {"dense", cstest::ints(dense)},        {"sparse", cstest::ints(sparse)},
      {"sparse with nulls", sparse_nulls},   {"short", s.col()},
      {"short with nulls", short_nulls},     {"long", l.col()},
      {"one long in the last part", m.col()}};
  const auto intern = [](const IdColumn& col, unsigned threads, auto hash) {
    set_threads(threads);
    std::pair<BigVector<uint32_t>, BigVector<uint64_t>> out;
    out.first = clusterscore::detail::intern_column(col, &out.second, hash);
    return out;
  };
  for (const auto& [what, col] : cases) {
    const auto one = intern(col, 1, nullptr);
    EXPECT_EQ(intern(col, 3, nullptr), one) << what;
    if (col.is_string()) EXPECT_EQ(intern(col, 2, hash_by_last_byte), one) << what << ", weak hash";
  }
  set_threads(0);
}

// Integers mostly distinct over more than 2^21 rows (random 64-bit ids) are interned in
// parts by their hash on every thread: the ids and first rows of a map oracle and of one
// thread, repeats far apart and in other parts' stretches included.
TEST(InternColumn, ManyDistinctIntegersByHashEqualOneThreadAndAMap) {
  using clusterscore::set_threads;
  std::mt19937_64 rng(37);
  const size_t n = (size_t(1) << 21) + 4321;
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i % 5 == 4 ? v[rng() % i] : int64_t(rng());
  const IdColumn col = cstest::ints(v);
  set_threads(3);
  expect_first_seen_ids(col, v, "many distinct, 3 threads");
  BigVector<uint64_t> first_three, first_one;
  const BigVector<uint32_t> three = clusterscore::detail::intern_column(col, &first_three);
  set_threads(1);
  EXPECT_EQ(clusterscore::detail::intern_column(col, &first_one), three);
  EXPECT_EQ(first_one, first_three);
  set_threads(0);
}

// The join's string hash reads every byte of the id and nothing beyond it, at every
// length its loads are chosen by (0-3, 4-7, 8-16, more in blocks of 16).
TEST(HashIdBytes, EveryByteAndOnlyThoseCount) {
  std::mt19937_64 rng(23);
  for (size_t n = 0; n <= 70; ++n) {
    std::string buf(n + 8, '\0');
    for (char& c : buf) c = char(rng());
    const uint64_t h = clusterscore::detail::hash_id_bytes(std::string_view(buf.data(), n));
    for (size_t k = 0; k < n + 8; ++k) {
      std::string changed = buf;
      changed[k] = char(changed[k] ^ (1 << (k % 8)));
      const uint64_t g = clusterscore::detail::hash_id_bytes(std::string_view(changed.data(), n));
      EXPECT_EQ(g != h, k < n) << "length " << n << " byte " << k;
    }
  }
}

TEST(Concatenate, IntegerChunksInOrder) {
  const std::vector<int64_t> a = {5, -1}, b = {}, c = {7, 8, 9};
  const ConcatenatedIds all = concatenate({cstest::ints(a), cstest::ints(b), cstest::ints(c)});
  ASSERT_EQ(all.column.size, 5u);
  EXPECT_FALSE(all.column.is_string());
  EXPECT_EQ(all.column.valid, nullptr);
  const std::vector<int64_t> want = {5, -1, 7, 8, 9};
  for (size_t r = 0; r < want.size(); ++r) EXPECT_EQ(all.column.ints[r], want[r]);
}

TEST(Concatenate, StringChunksOfBothOffsetWidthsAndSlicedBuffers) {
  const cstest::Strings a({"ab", "", "xyz"});
  // A chunk viewing the middle of its buffer, with 64-bit offsets (as Arrow slices are).
  const std::string chars = "skipQRsT";
  const std::vector<int64_t> off = {4, 6, 6, 8};
  std::vector<IdColumn> chunks = {a.col(), IdColumn::of_strings(chars.data(), off.data(), 3)};
  std::vector<uint8_t> valid = {1, 0, 1};
  chunks[1].valid = valid.data();
  const ConcatenatedIds all = concatenate(chunks);
  ASSERT_EQ(all.column.size, 6u);
  const std::vector<std::string> want = {"ab", "", "xyz", "QR", "", "sT"};
  for (size_t r = 0; r < want.size(); ++r) EXPECT_EQ(all.column.str(r), want[r]) << r;
  // Validity for all rows once any chunk has it: the first chunk's rows are all valid.
  for (size_t r = 0; r < want.size(); ++r) EXPECT_EQ(all.column.is_null(r), r == 4) << r;
  EXPECT_EQ(all.column.type, IdColumn::Type::kString32);
}

TEST(Concatenate, MixedKindsAreRefused) {
  const cstest::Strings s({"a"});
  const std::vector<int64_t> v = {1};
  EXPECT_THROW(concatenate({cstest::ints(v), s.col()}), std::invalid_argument);
}

TEST(Concatenate, NoChunksGiveAnEmptyColumn) { EXPECT_EQ(concatenate({}).column.size, 0u); }
