// The floor for the classic metrics: a plain hand-written pass over the same label arrays
// (ids interned through one open-addressing table, cells counted in another, then every
// metric from the cells and their marginals), timed against classic_scores() in the same
// process, in turns. The same metrics on both sides: the pair-counting ones, mutual
// information and NMI, homogeneity, completeness and V, F-measure, purity and B-cubed (the
// core's AMI and clustering_error, which the floor does not compute, switched off; the
// last column has them on, as all_scores() computes them).
//   [CLUSTERSCORE_THREADS=1|2] bench_floor [n_items] [rounds]  (both sides on that many threads)
// Shapes: records moved to random clusters (5%), or whole clusters split and merged (10%
// each); ids dense (0..k) or random 64-bit. Prints each shape's best time of `rounds` and
// the ratio; the two sides' values are checked equal to 1e-9 first.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "clusterscore/classic.h"
#include "clusterscore/threads.h"

using namespace clusterscore;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// Open addressing with linear probing, doubling at half full: key → dense index.
class Table {
 public:
  explicit Table(size_t expected) {
    size_t cap = 16;
    while (cap < 2 * expected) cap <<= 1;
    keys_.assign(cap, kEmpty);
    vals_.resize(cap);
  }
  // Where `key` would be looked up first, fetched ahead of find_or_add(key).
  void prefetch(uint64_t key) const {
    __builtin_prefetch(&keys_[mix(key) & (keys_.size() - 1)]);
    __builtin_prefetch(&vals_[mix(key) & (keys_.size() - 1)]);
  }
  // The index of `key`, a new one (size() before the call) if absent.
  uint32_t find_or_add(uint64_t key) {
    size_t i = mix(key) & (keys_.size() - 1);
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & (keys_.size() - 1);
    if (keys_[i] == key) return vals_[i];
    keys_[i] = key;
    vals_[i] = uint32_t(size_++);
    if (2 * size_ > keys_.size()) grow();
    return uint32_t(size_ - 1);
  }
  size_t size() const { return size_; }
  // Calls f(key, index) for every key.
  template <class F>
  void each(F f) const {
    for (size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != kEmpty) f(keys_[i], vals_[i]);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  void grow() {
    std::vector<uint64_t> keys(2 * keys_.size(), kEmpty);
    std::vector<uint32_t> vals(keys.size());
    for (size_t j = 0; j < keys_.size(); ++j) {
      if (keys_[j] == kEmpty) continue;
      size_t i = mix(keys_[j]) & (keys.size() - 1);
      while (keys[i] != kEmpty) i = (i + 1) & (keys.size() - 1);
      keys[i] = keys_[j];
      vals[i] = vals_[j];
    }
    keys_.swap(keys);
    vals_.swap(vals);
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t size_ = 0;
};

struct Floor {
  double ari, ri, fmi, pair_p, pair_r, mi, nmi, h, c, v, f, purity, inverse_purity, bp, br, bf;
};

double comb2(double x) { return x * (x - 1) / 2; }

// Dense codes of a label column, and how many: the labels themselves where they are
// already small non-negative integers, else numbered through a hash table.
std::vector<uint32_t> codes(const std::vector<int64_t>& l, size_t* k) {
  const auto [lo, hi] = std::minmax_element(l.begin(), l.end());
  std::vector<uint32_t> out(l.size());
  if (*lo >= 0 && uint64_t(*hi) < 4 * l.size()) {
    for (size_t i = 0; i < l.size(); ++i) out[i] = uint32_t(l[i]);
    *k = size_t(*hi) + 1;
    return out;
  }
  // Sized for a quarter of the rows distinct (no growth below), the slots fetched ahead.
  Table t(l.size() / 4);
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < l.size(); ++i) {
    if (i + kAhead < l.size()) t.prefetch(uint64_t(l[i + kAhead]));
    out[i] = t.find_or_add(uint64_t(l[i]));
  }
  *k = t.size();
  return out;
}

// Every metric from the labels, by hand: the cells by a counting sort of the items by
// their row, then each row's columns counted in a scratch array.
// One range of rows' cells, counted in a scratch array of its own.
struct Cells {
  std::vector<uint32_t> row, col;
  std::vector<double> count;
};
void count_rows(const std::vector<uint32_t>& start, const std::vector<uint32_t>& by_row, size_t kb,
                size_t lo, size_t hi, Cells* out) {
  std::vector<uint32_t> scratch(kb, 0), touched;
  for (size_t r = lo; r < hi; ++r) {
    for (size_t j = start[r]; j < start[r + 1]; ++j)
      if (scratch[by_row[j]]++ == 0) touched.push_back(by_row[j]);
    for (uint32_t c : touched) {
      out->row.push_back(uint32_t(r)), out->col.push_back(c), out->count.push_back(scratch[c]);
      scratch[c] = 0;
    }
    touched.clear();
  }
}

// Every metric from the labels, by hand: the cells by a counting sort of the items by
// their row, then each row's columns counted in a scratch array. On `threads` (1 or 2):
// the two columns coded side by side, and the rows counted in two halves.
Floor floor_pass(const std::vector<int64_t>& a, const std::vector<int64_t>& b, unsigned threads) {
  const size_t n = a.size();
  size_t ka = 0, kb = 0;
  std::vector<uint32_t> da, db;
  if (threads > 1) {
    std::thread t([&] { db = codes(b, &kb); });
    da = codes(a, &ka);
    t.join();
  } else {
    da = codes(a, &ka), db = codes(b, &kb);
  }
  std::vector<uint32_t> start(ka + 1, 0);
  for (uint32_t x : da) ++start[x + 1];
  for (size_t r = 0; r < ka; ++r) start[r + 1] += start[r];
  std::vector<uint32_t> at(start.begin(), start.end() - 1), by_row(n);
  for (size_t i = 0; i < n; ++i) by_row[at[da[i]]++] = db[i];
  Cells first, second;
  if (threads > 1) {
    // Halves of the items, cut at a row.
    const size_t mid =
        size_t(std::upper_bound(start.begin(), start.end(), uint32_t(n / 2)) - start.begin()) - 1;
    std::thread t([&] { count_rows(start, by_row, kb, mid, ka, &second); });
    count_rows(start, by_row, kb, 0, mid, &first);
    t.join();
  } else {
    count_rows(start, by_row, kb, 0, ka, &first);
  }
  std::vector<uint32_t>& row = first.row;
  std::vector<uint32_t>& col = first.col;
  std::vector<double>& count = first.count;
  row.insert(row.end(), second.row.begin(), second.row.end());
  col.insert(col.end(), second.col.begin(), second.col.end());
  count.insert(count.end(), second.count.begin(), second.count.end());
  std::vector<double> ra(ka, 0), cb(kb, 0), best_a(ka, 0), best_b(kb, 0);
  for (size_t k = 0; k < count.size(); ++k) ra[row[k]] += count[k], cb[col[k]] += count[k];
  const double N = double(n);
  double sum_cells = 0, sum_a = 0, sum_b = 0, mi = 0, ha = 0, hb = 0, bp = 0, br = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    const double x = count[k], r = ra[row[k]], c = cb[col[k]];
    sum_cells += comb2(x);
    mi += x / N * std::log(x * N / (r * c));
    bp += x * x / c, br += x * x / r;
    best_a[row[k]] = std::max(best_a[row[k]], 2 * x / (r + c));  // F of the cell, for its row
    best_b[col[k]] = std::max(best_b[col[k]], x);
  }
  double f = 0, purity = 0, inverse = 0;
  for (size_t r = 0; r < ra.size(); ++r) {
    if (ra[r] == 0) continue;  // a label the dense codes skip
    sum_a += comb2(ra[r]);
    ha -= ra[r] / N * std::log(ra[r] / N);
    f += ra[r] / N * best_a[r];
  }
  for (size_t c = 0; c < cb.size(); ++c) {
    if (cb[c] == 0) continue;
    sum_b += comb2(cb[c]);
    hb -= cb[c] / N * std::log(cb[c] / N);
    purity += best_b[c];
  }
  std::vector<double> best_row(ka, 0);
  for (size_t k = 0; k < count.size(); ++k) best_row[row[k]] = std::max(best_row[row[k]], count[k]);
  for (double x : best_row) inverse += x;
  const double pairs = comb2(N), expected = sum_a * sum_b / pairs;
  Floor out{};
  out.ari = (sum_cells - expected) / ((sum_a + sum_b) / 2 - expected);
  out.ri = (pairs + 2 * sum_cells - sum_a - sum_b) / pairs;
  out.fmi = sum_cells / std::sqrt(sum_a * sum_b);
  out.pair_p = sum_cells / sum_b, out.pair_r = sum_cells / sum_a;
  out.mi = mi, out.nmi = 2 * mi / (ha + hb);
  out.h = ha > 0 ? mi / ha : 1, out.c = hb > 0 ? mi / hb : 1;
  out.v = 2 * out.h * out.c / (out.h + out.c);
  out.f = f, out.purity = purity / N, out.inverse_purity = inverse / N;
  out.bp = bp / N, out.br = br / N, out.bf = 2 * out.bp * out.br / (out.bp + out.br);
  return out;
}

// Power-law cluster sizes, as bench/synth.py draws them.
std::vector<int64_t> labels(size_t n, std::mt19937_64& rng) {
  std::vector<int64_t> out(n);
  std::uniform_real_distribution<> u(0, 1);
  int64_t label = 0;
  for (size_t i = 0; i < n; ++label) {
    const size_t size = std::min<size_t>(10000, 1 + size_t(1.0 / (1e-3 + u(rng)) / 2));
    for (size_t k = 0; k < size && i < n; ++k) out[i++] = label;
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

std::vector<int64_t> moved(std::vector<int64_t> l, std::mt19937_64& rng) {
  const int64_t k = *std::max_element(l.begin(), l.end()) + 1;
  for (auto& x : l)
    if (rng() % 20 == 0) x = int64_t(rng() % uint64_t(k));
  return l;
}

// Every tenth cluster split in two, every tenth (other) merged into the next.
std::vector<int64_t> split_and_merged(std::vector<int64_t> l, std::mt19937_64& rng) {
  const int64_t k = *std::max_element(l.begin(), l.end()) + 1;
  for (auto& x : l) {
    if (x % 10 == 0 && rng() % 2 == 0)
      x += k;
    else if (x % 10 == 5)
      x += 1;
  }
  return l;
}

std::vector<int64_t> random_ids(const std::vector<int64_t>& l, const std::vector<int64_t>& map) {
  std::vector<int64_t> out(l.size());
  for (size_t i = 0; i < l.size(); ++i) out[i] = map[size_t(l[i])];
  return out;
}

IdColumn ints(const std::vector<int64_t>& v) {
  IdColumn c;
  c.ints = v.data();
  c.size = v.size();
  return c;
}

bool near(double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(y)); }

// The two sides' values, checked equal before anything is timed.
void check(const Floor& f, const ClassicScores& s, const char* shape) {
  const double pairs[][2] = {
      {f.ari, *s.adjusted_rand_score},
      {f.ri, s.rand_score},
      {f.fmi, s.fowlkes_mallows_score},
      {f.pair_p, *s.pair_precision_score},
      {f.pair_r, *s.pair_recall_score},
      {f.mi, s.mutual_info_score},
      {f.nmi, s.normalized_mutual_info_score},
      {f.h, s.homogeneity_score},
      {f.c, s.completeness_score},
      {f.v, s.v_measure_score},
      {f.f, *s.f_measure_score},
      {f.purity, *s.purity_score},
      {f.inverse_purity, *s.inverse_purity_score},
      {f.bp, *s.bcubed_precision_score},
      {f.br, *s.bcubed_recall_score},
      {f.bf, *s.bcubed_f_score},
  };
  for (size_t i = 0; i < std::size(pairs); ++i)
    if (!near(pairs[i][0], pairs[i][1])) {
      std::fprintf(stderr, "%s: value %zu differs: floor %.17g, clusterscore %.17g\n", shape, i,
                   pairs[i][0], pairs[i][1]);
      std::exit(1);
    }
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? size_t(std::strtod(argv[1], nullptr)) : 10'000'000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  unsigned threads = 1;
  if (const char* t = std::getenv("CLUSTERSCORE_THREADS")) threads = unsigned(std::atoi(t));
  set_threads(threads);
  std::mt19937_64 rng(1);
  const std::vector<int64_t> truth = labels(n, rng);
  const int64_t k = *std::max_element(truth.begin(), truth.end()) + 1;
  std::vector<int64_t> map(size_t(2 * k + 1));
  for (auto& x : map) x = int64_t(rng() >> 1);
  const std::vector<int64_t> by_move = moved(truth, rng), by_cluster = split_and_merged(truth, rng);
  ClassicOptions options;
  options.adjusted_mutual_info = false;
  options.matching = false;
  std::printf("n = %zu, %u thread(s), best of %d rounds in turns\n\n", n, threads, rounds);
  std::printf(
      "| shape | ids | hand-written (s) | classic_scores, the same metrics (s) | ratio |"
      " with AMI and clustering_error (s) |\n|---|---|---|---|---|---|\n");
  for (const auto& [shape, other] : {std::pair{"records moved", &by_move},
                                     std::pair{"clusters split and merged", &by_cluster}}) {
    for (const bool dense : {true, false}) {
      const std::vector<int64_t> a = dense ? truth : random_ids(truth, map);
      const std::vector<int64_t> b = dense ? *other : random_ids(*other, map);
      check(floor_pass(a, b, threads), classic_scores(ints(a), ints(b), nullptr, options), shape);
      double best_floor = 1e300, best_core = 1e300, best_all = 1e300;
      for (int r = 0; r < rounds; ++r) {
        auto t = Clock::now();
        const Floor f = floor_pass(a, b, threads);
        best_floor = std::min(best_floor, since(t));
        t = Clock::now();
        const ClassicScores s = classic_scores(ints(a), ints(b), nullptr, options);
        best_core = std::min(best_core, since(t));
        t = Clock::now();
        const ClassicScores all = classic_scores(ints(a), ints(b), nullptr, ClassicOptions{});
        best_all = std::min(best_all, since(t));
        if (f.ari != f.ari || s.rand_score < 0 || all.rand_score < 0) std::printf("?");
      }
      std::printf("| %s | %s | %.3f | %.3f | %.2fx | %.3f |\n", shape,
                  dense ? "dense" : "random 64-bit", best_floor, best_core, best_core / best_floor,
                  best_all);
    }
  }
  return 0;
}
