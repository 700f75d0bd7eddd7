// LineScatter against plain stores: every record lands where a plain scatter puts it,
// whatever the streams' lengths (empty, shorter than a line, many lines), where they
// start within a cache line, and how `out` sits against 64-byte boundaries; with line
// buffers and without (each machine uses one: plain_stores_pay_off()).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "detail/line_scatter.h"

namespace clusterscore::detail {
namespace {

struct Rec16 {
  uint64_t a;
  uint32_t b, c;
  bool operator==(const Rec16&) const = default;
};
// 24 bytes: buffered in runs of 8 records, three cache lines.
struct Rec24 {
  uint64_t a;
  uint32_t b, c;
  double w;
  bool operator==(const Rec24&) const = default;
};
// 24 bytes aligned to 4: at 4 bytes past an 8-byte boundary, no record starts a line.
struct Rec24x4 {
  uint32_t v[6];
  bool operator==(const Rec24x4&) const = default;
};

// Streams of random lengths laid end to end into a buffer that starts `shift` bytes past
// a 64-byte boundary, from its record `offset` on, with `gap` unused records between
// consecutive streams; records go to streams in random order.
template <class T, class Make>
void check(std::mt19937_64& rng, bool plain, size_t shift, size_t offset, size_t gap, Make make) {
  const size_t streams = 1 + rng() % 12;
  std::vector<size_t> begin(streams), end(streams);
  size_t at = offset;
  for (size_t p = 0; p < streams; ++p) {
    begin[p] = at;
    const size_t kind = rng() % 4;  // empty, within a line, a few lines, many
    const size_t len = kind == 0 ? 0 : kind == 1 ? rng() % 5 : kind == 2 ? rng() % 40 : rng() % 300;
    end[p] = at = begin[p] + len;
    at += gap;
  }
  std::vector<size_t> order;
  for (size_t p = 0; p < streams; ++p) order.insert(order.end(), end[p] - begin[p], p);
  std::shuffle(order.begin(), order.end(), rng);

  struct alignas(64) Line {
    unsigned char bytes[64];
  };
  const T filler = make(~uint64_t(0));
  std::vector<Line> mem_want((shift + at * sizeof(T)) / 64 + 2), mem_got(mem_want.size());
  T* const want = reinterpret_cast<T*>(mem_want.data()->bytes + shift);
  T* const got = reinterpret_cast<T*>(mem_got.data()->bytes + shift);
  for (size_t i = 0; i < at; ++i) want[i] = got[i] = filler;
  LineScatter<T> scatter(got, begin, plain);
  std::vector<size_t> next = begin;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t p = order[k], i = next[p]++;
    want[i] = make(k);
    scatter.put(p, i, make(k));
  }
  scatter.finish(next);
  for (size_t i = 0; i < at; ++i) ASSERT_TRUE(got[i] == want[i]) << "record " << i;
}

class LineScatterBoth : public ::testing::TestWithParam<bool> {};  // plain stores or not

TEST_P(LineScatterBoth, EveryRecordLandsWherePlainStoresPutIt) {
  std::mt19937_64 rng(18);
  const bool plain = GetParam();
  for (int round = 0; round < 400; ++round) {
    const size_t offset = rng() % 3 == 0 ? rng() % 9 : 0, gap = rng() % 3 == 0 ? rng() % 5 : 0;
    const size_t shift = rng() % 16;  // records of 4 bytes: every place in a line
    check<Rec16>(rng, plain, 16 * (shift % 4), offset, gap,
                 [](uint64_t k) { return Rec16{k, uint32_t(k), 7}; });
    check<double>(rng, plain, 8 * (shift % 8), offset, gap,
                  [](uint64_t k) { return double(k) + 0.5; });
    check<uint32_t>(rng, plain, 4 * shift, offset, gap, [](uint64_t k) { return uint32_t(k); });
    check<Rec24>(rng, plain, 8 * (shift % 8), offset, gap,
                 [](uint64_t k) { return Rec24{k, uint32_t(k), 7, double(k) / 4}; });
    check<Rec24x4>(rng, plain, 4 * shift, offset, gap, [](uint64_t k) {
      const uint32_t x = uint32_t(k);
      return Rec24x4{{x, x + 1, x + 2, x + 3, x + 4, x + 5}};
    });
  }
}

TEST_P(LineScatterBoth, RecordsOutsideTheStreamsAreLeftAlone) {
  // One stream inside a line, and the records before and after it in that line untouched.
  struct alignas(64) Line {
    double v[8];
  };
  Line line{{-1, -1, -1, -1, -1, -1, -1, -1}};
  LineScatter<double> scatter(line.v, {2}, GetParam());
  scatter.put(0, 2, 1.0);
  scatter.put(0, 3, 2.0);
  scatter.put(0, 4, 3.0);
  scatter.finish({5});
  EXPECT_EQ(std::vector<double>(line.v, line.v + 8),
            (std::vector<double>{-1, -1, 1, 2, 3, -1, -1, -1}));
}

INSTANTIATE_TEST_SUITE_P(Stores, LineScatterBoth, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Plain" : "LineBuffers"; });

}  // namespace
}  // namespace clusterscore::detail
