#include "clusterscore/cells.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "detail/interner.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/line_scatter.h"
#include "detail/prefetch.h"

namespace clusterscore {
namespace {

using detail::KahanSum;

void add_marginals(CellTable* t) {
  std::vector<KahanSum> rw(t->n_rows), cw(t->n_cols);
  KahanSum total;
  t->row_count.assign(t->n_rows, 0);
  t->col_count.assign(t->n_cols, 0);
  t->row_cells.assign(t->n_rows, 0);
  t->col_cells.assign(t->n_cols, 0);
  for (size_t k = 0; k < t->size(); ++k) {
    const uint32_t r = t->row[k], c = t->col[k];
    t->row_count[r] += t->count[k];
    t->col_count[c] += t->count[k];
    ++t->row_cells[r];
    ++t->col_cells[c];
    rw[r].add(t->weight[k]);
    cw[c].add(t->weight[k]);
    total.add(t->weight[k]);
    t->total_count += t->count[k];
  }
  t->row_weight.reserve(t->n_rows);
  t->col_weight.reserve(t->n_cols);
  for (const KahanSum& s : rw) t->row_weight.push_back(s.value());
  for (const KahanSum& s : cw) t->col_weight.push_back(s.value());
  t->total_weight = total.value();
}

// Cells from (row, col) pairs in any order, through a hash table of the pairs.
struct CellBuilder {
  detail::Interner index{false, 1024};
  BigVector<uint32_t> row, col;
  BigVector<uint64_t> count;
  BigVector<KahanSum> weight, weight_sq;

  uint32_t add(uint32_t r, uint32_t c, uint64_t n, double w, double w2) {
    auto [cell, inserted] = index.insert_key((uint64_t(r) << 32) | c);
    if (inserted) {
      row.push_back(r);
      col.push_back(c);
      count.push_back(0);
      weight.emplace_back();
      weight_sq.emplace_back();
    }
    count[cell] += n;
    weight[cell].add(w);
    weight_sq[cell].add(w2);
    return cell;
  }

  CellTable finish(size_t n_rows, size_t n_cols) {
    CellTable t;
    t.n_rows = n_rows;
    t.n_cols = n_cols;
    t.row = std::move(row);
    t.col = std::move(col);
    t.count = std::move(count);
    t.weight.reserve(weight.size());
    t.weight_sq.reserve(weight_sq.size());
    for (const KahanSum& s : weight) t.weight.push_back(s.value());
    for (const KahanSum& s : weight_sq) t.weight_sq.push_back(s.value());
    add_marginals(&t);
    return t;
  }
};

// How far ahead the cell pass fetches column states, in records. Only the first record
// of a run (about one record in five) brings a new column, so the usual distance keeps
// only three or four misses ahead; four times it does better (eight times: no better).
constexpr size_t kAhead = 4 * detail::kPrefetch;

// What the cell pass needs of an item, in one record so that the sort's scatter writes
// one line per item rather than one per array (at 1e7 items in random row order, three
// separate arrays took twice as long): its column, its row (for the sort within a
// block), and its weight if weights were given. The item itself is not carried: its cell
// is written in the records' order and put back in item order at the end (unsplit()).
struct CountRec {
  uint32_t col, row;
};
struct WeightRec {
  uint32_t col, row;
  double weight;
};
template <class Rec>
concept HasWeight = requires(Rec r) { r.weight; };

template <class Rec>
Rec make_rec(uint32_t col, uint32_t row, size_t i, const double* weights) {
  if constexpr (HasWeight<Rec>)
    return {col, row, weights[i]};
  else
    return {col, row};
}

// The common items in blocks of consecutive rows, about kBlockItems items each, so that
// each block is sorted by row where it fits in L2. A direct counting sort of 1e7 items
// by row wrote each one to a random place among hundreds of MB: a cache miss and a
// line written back per item. Here the first pass writes to one sequential stream per
// block, and the second pass stays in cache.
constexpr size_t kBlockItems = 16384;
// Blocks are made of buckets of 2^shift rows, counted first: at most 2^17 buckets, so
// their counters stay in L2 (rows are counted one by one only within a block).
constexpr unsigned kBucketBits = 17;

template <class Rec>
struct RowBlocks {
  std::vector<uint32_t> first_row;  // block b holds rows [first_row[b], first_row[b + 1])
  std::vector<size_t> begin;        // and records [begin[b], begin[b + 1])
  BigBuffer<Rec> rec;               // by block, in item order within each block
  unsigned shift = 0;               // row r is in bucket r >> shift,
  std::vector<uint32_t> of_bucket;  // which is in block of_bucket[r >> shift]
  size_t blocks() const { return first_row.size() - 1; }
  size_t block_of(uint32_t row) const { return of_bucket[row >> shift]; }
};

// Rows [0, n_rows) cut into blocks at bucket boundaries (b->of_bucket gets each bucket's
// block). A bucket heavier than kBlockItems makes a block of its own.
template <class Rec>
void cut_blocks(const std::vector<uint32_t>& count, size_t n_rows, RowBlocks<Rec>* b) {
  b->first_row.assign(1, 0);
  b->begin.assign(1, 0);
  b->of_bucket.resize(count.size());
  size_t held = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    if (held > 0 && held + count[k] > kBlockItems) {
      b->first_row.push_back(uint32_t(k << b->shift));
      b->begin.push_back(b->begin.back() + held);
      held = 0;
    }
    b->of_bucket[k] = uint32_t(b->first_row.size() - 1);
    held += count[k];
  }
  b->first_row.push_back(uint32_t(n_rows));
  b->begin.push_back(b->begin.back() + held);
}

template <class Rec>
RowBlocks<Rec> split_rows(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                          const double* weights, size_t n_rows) {
  const size_t n = rows.size();
  RowBlocks<Rec> b;
  while ((n_rows >> b.shift) >= (size_t(1) << kBucketBits)) ++b.shift;
  std::vector<uint32_t> count((n_rows >> b.shift) + 1, 0);
  for (size_t i = 0; i < n; ++i)
    if (rows[i] != kNone && cols[i] != kNone) ++count[rows[i] >> b.shift];
  cut_blocks(count, n_rows, &b);
  b.rec = BigBuffer<Rec>(b.begin.back());
  std::vector<size_t> next(b.begin.begin(), b.begin.end() - 1);
  // A line at a time where that pays, as the join's partitions (detail/line_scatter.h).
  detail::LineScatter<Rec> to(b.rec.data(), next);
  for (size_t i = 0; i < n; ++i) {
    detail::poll_every(i);
    if (rows[i] == kNone || cols[i] == kNone) continue;
    const size_t block = b.block_of(rows[i]);
    to.put(block, next[block]++, make_rec<Rec>(cols[i], rows[i], i, weights));
  }
  to.finish(next);
  return b;
}

// Each item's cell, from the cells of the blocks' records (`cell`, in the records'
// order): the blocks are read again in item order, as split_rows() wrote them, one
// sequential stream per block, rather than each record carrying its item for the cell
// pass to write the item's cell at random: the records stay 16 bytes, not 24.
template <class Rec>
void unsplit(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
             const RowBlocks<Rec>& b, const BigBuffer<uint32_t>& cell,
             BigVector<uint32_t>* cell_of_item) {
  std::vector<size_t> next(b.begin.begin(), b.begin.end() - 1);
  // Written through a plain pointer, as push_back() stored the vector's end every item.
  cell_of_item->clear();
  cell_of_item->resize(rows.size());
  uint32_t* const out = cell_of_item->data();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] == kNone || cols[i] == kNone) {
      out[i] = kNone;
      continue;
    }
    const size_t at = next[b.block_of(rows[i])]++;
    detail::prefetch_lines_ahead(cell.data() + at, 1);  // the stream's next line
    out[i] = cell[at];
  }
}

// Per B cluster while cells are built: where its cell in the current row is, and its
// marginals so far. 32 bytes, aligned, so the cell pass touches one line per column (at
// 40 bytes, most straddled two, and only the first was prefetched).
struct alignas(32) ColumnState {
  uint64_t seen = 0;   // (row + 1) << 32 | cell of this column in that row; 0 if none yet
  uint32_t count = 0;  // items < 2^32 - 1 (build_cells checks)
  uint32_t cells = 0;
  KahanSum weight;
};
static_assert(sizeof(ColumnState) == 32);

// The cell pass, fed every row in order with its items. Within a row, one array indexed
// by column finds the row's cells: no hashing, and only arrays the size of the cluster
// counts are accessed at random. A row's cells are numbered consecutively, so their sums
// are kept in small local arrays and written once, and the marginals are added up as each
// row ends, in cell order (the order add_marginals() uses), while the columns are still
// in cache.
class CellPass {
 public:
  // `squares`: whether to sum the squared weights too (t_.weight_sq).
  CellPass(size_t n_rows, size_t n_cols, size_t items, bool squares)
      : m_(items), squares_(squares), cols_(n_cols) {
    t_.n_rows = n_rows;
    t_.n_cols = n_cols;
    // The cell arrays grow as cells are found: reserving one cell per item would hold
    // up to five times the memory needed, resident if it came from the block cache.
    t_.row_count.resize(n_rows);
    t_.row_weight.resize(n_rows);
    t_.row_cells.resize(n_rows);
  }

  // Row r, whose items are rec[begin, end) in item order; rec[end, stop) may be read
  // ahead (prefetched). If `cell` is not null, cell[p] receives the cell of rec[p].
  template <class R>
  void add_row(uint32_t r, const R* rec, size_t begin, size_t end, size_t stop, uint32_t* cell) {
    add_row_items(r, rec, begin, end, stop, cell);
    finish_row(r, end - begin);
  }

  CellTable finish() && {
    t_.col_count.reserve(t_.n_cols);
    t_.col_weight.reserve(t_.n_cols);
    t_.col_cells.reserve(t_.n_cols);
    for (const ColumnState& c : cols_) {
      t_.col_count.push_back(c.count);
      t_.col_weight.push_back(c.weight.value());
      t_.col_cells.push_back(c.cells);
    }
    t_.total_count = m_;
    t_.total_weight = total_.value();
    return std::move(t_);
  }

 private:
  // Items of one column that follow each other (most of a row, usually) are a run, added
  // up in registers: adding each item to its cell's sums in memory chained every item to
  // the previous one through a store and a reload. The same additions in the same
  // order: the same bits.
  template <class R>
  void add_row_items(uint32_t r, const R* rec, size_t begin, size_t end, size_t stop,
                     uint32_t* cell) {
    const uint64_t tag = uint64_t(r + 1) << 32;
    const uint32_t first = uint32_t(t_.row.size());
    w_.clear();
    w2_.clear();
    for (size_t p = begin; p < end;) {
      const uint32_t col = rec[p].col;
      uint64_t& slot = cols_[col].seen;
      if ((slot & ~uint64_t(0xFFFFFFFF)) != tag) {
        slot = tag | uint32_t(t_.row.size());
        t_.row.push_back(r);
        t_.col.push_back(col);
        t_.count.push_back(0);
        w_.emplace_back();
        w2_.emplace_back();
      }
      const uint32_t k = uint32_t(slot);
      KahanSum w = w_[k - first], w2 = w2_[k - first];
      const size_t run = p;
      do {
        // The column states are touched at random.
        if (p + kAhead < stop) detail::prefetch_for_write(&cols_[rec[p + kAhead].col]);
        double wi = 1.0;
        if constexpr (HasWeight<R>) wi = rec[p].weight;
        w.add(wi);
        if (squares_) w2.add(wi * wi);
        if (cell) cell[p] = k;
      } while (++p < end && rec[p].col == col);
      t_.count[k] += p - run;
      w_[k - first] = w;
      w2_[k - first] = w2;
    }
  }

  void finish_row(uint32_t r, size_t items) {
    const size_t first = t_.weight.size();
    KahanSum row_weight;
    for (size_t i = 0; i < w_.size(); ++i) {
      const double w = w_[i].value();
      t_.weight.push_back(w);
      if (squares_) t_.weight_sq.push_back(w2_[i].value());
      row_weight.add(w);
      total_.add(w);
      ColumnState& c = cols_[t_.col[first + i]];
      c.count += t_.count[first + i];
      c.weight.add(w);
      ++c.cells;
    }
    t_.row_count[r] = items;
    t_.row_weight[r] = row_weight.value();
    t_.row_cells[r] = uint32_t(w_.size());
  }

  const size_t m_;
  const bool squares_;
  BigVector<ColumnState> cols_;
  std::vector<KahanSum> w_, w2_;  // the current row's cells
  KahanSum total_;
  CellTable t_;
};

// Sorts one block's records by row (stable: item order within a row) into `local_`, and
// passes its rows in order. A block of one row needs no sorting. If `cell` is not null,
// cell[e] receives the cell of record e of the block, in the block's (item) order.
template <class Rec>
class BlockSorter {
 public:
  void pass(const RowBlocks<Rec>& b, size_t k, CellPass* pass, uint32_t* cell) {
    const uint32_t r0 = b.first_row[k], r1 = b.first_row[k + 1];
    const size_t e0 = b.begin[k], e1 = b.begin[k + 1];
    if (r1 - r0 == 1) return pass->add_row(r0, b.rec.data(), e0, e1, e1, cell);
    start_.assign(size_t(r1 - r0) + 1, 0);
    // The block's records come from memory here, fetched ahead: the hardware prefetcher
    // follows a stream that restarts every block too late.
    for (size_t e = e0; e < e1; ++e) {
      detail::prefetch_stream(b.rec.data(), e);
      ++start_[b.rec[e].row - r0 + 1];
    }
    for (size_t r = 0; r < r1 - r0; ++r) start_[r + 1] += start_[r];
    if (local_.size() < e1 - e0) local_.resize(e1 - e0);
    if (cell && sorted_at_.size() < e1 - e0) {
      sorted_at_.resize(e1 - e0);
      local_cell_.resize(e1 - e0);
    }
    next_.assign(start_.begin(), start_.end() - 1);
    for (size_t e = e0; e < e1; ++e) {
      const uint32_t at = next_[b.rec[e].row - r0]++;
      local_[at] = b.rec[e];
      if (cell) sorted_at_[e - e0] = at;
    }
    uint32_t* local_cell = cell ? local_cell_.data() : nullptr;
    for (uint32_t r = r0; r < r1; ++r)
      pass->add_row(r, local_.data(), start_[r - r0], start_[r - r0 + 1], e1 - e0, local_cell);
    if (cell)
      for (size_t e = e0; e < e1; ++e) cell[e] = local_cell_[sorted_at_[e - e0]];
  }

 private:
  std::vector<uint32_t> start_, next_;
  BigVector<Rec> local_;
  std::vector<uint32_t> sorted_at_, local_cell_;  // per record of the block, in L2
};

template <class Rec>
CellTable sort_and_pass(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                        const double* weights, size_t n_rows, size_t n_cols,
                        BigVector<uint32_t>* cell_of_item, bool squares) {
  const RowBlocks<Rec> b = split_rows<Rec>(rows, cols, weights, n_rows);
  CellPass pass(n_rows, n_cols, b.rec.size(), squares);
  BigBuffer<uint32_t> cell(cell_of_item ? b.rec.size() : 0);
  BlockSorter<Rec> sorter;
  for (size_t k = 0; k < b.blocks(); ++k)
    sorter.pass(b, k, &pass, cell_of_item ? cell.data() : nullptr);
  if (cell_of_item) unsplit(rows, cols, b, cell, cell_of_item);
  return std::move(pass).finish();
}

}  // namespace

CellTable build_cells(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                      const double* weights, size_t n_rows, size_t n_cols,
                      BigVector<uint32_t>* cell_of_item, WeightSquares sq) {
  const bool squares = sq == WeightSquares::kSum;
  if (rows.size() != cols.size())
    throw std::invalid_argument("clusterscore: row and column index arrays differ in length");
  const size_t n = rows.size();
  if (n >= kNone) throw std::length_error("clusterscore: more than 2^32-2 items");
  if (weights)
    return sort_and_pass<WeightRec>(rows, cols, weights, n_rows, n_cols, cell_of_item, squares);
  return sort_and_pass<CountRec>(rows, cols, weights, n_rows, n_cols, cell_of_item, squares);
}

CellTable build_cells(const JoinedClusterings& j, BigVector<uint32_t>* cell_of_item,
                      WeightSquares sq) {
  const bool squares = sq == WeightSquares::kSum;
  if (j.units()) {
    // Units come from another engine's group-by, already few: one hash table of their cells.
    CellBuilder b;
    if (cell_of_item) cell_of_item->assign(j.n_items(), kNone);
    for (size_t i = 0; i < j.n_items(); ++i) {
      detail::poll_every(i);
      if (!j.in_both(i)) continue;
      const uint32_t k = b.add(j.a_cluster[i], j.b_cluster[i], j.count[i], j.weight[i],
                               squares ? j.weight_sq[i] : 0.0);
      if (cell_of_item) (*cell_of_item)[i] = k;
    }
    CellTable t = b.finish(j.n_a_clusters(), j.n_b_clusters());
    if (!squares) t.weight_sq.clear();
    return t;
  }
  return build_cells(j.a_cluster, j.b_cluster, j.weight.data(), j.n_a_clusters(), j.n_b_clusters(),
                     cell_of_item, sq);
}

CellTable cells_from_lists(size_t n_rows, size_t n_cols, const std::vector<uint32_t>& row,
                           const std::vector<uint32_t>& col, const std::vector<uint64_t>& count,
                           const std::vector<double>& weight,
                           const std::vector<double>& weight_sq) {
  const size_t n = row.size();
  if (col.size() != n || count.size() != n || weight.size() != n || weight_sq.size() != n)
    throw std::invalid_argument("clusterscore: cell lists differ in length");
  CellBuilder b;
  uint64_t total = 0;
  for (size_t k = 0; k < n; ++k) {
    if (row[k] >= n_rows || col[k] >= n_cols)
      throw std::invalid_argument("cell " + std::to_string(k) + ": row or column out of range");
    if (count[k] == 0)
      throw std::invalid_argument("cell " + std::to_string(k) + ": count 0 (a cell holds items)");
    if (__builtin_add_overflow(total, count[k], &total))
      throw std::invalid_argument("cell " + std::to_string(k) +
                                  ": the counts sum past 2^64 - 1 items");
    if (!std::isfinite(weight[k]) || weight[k] <= 0 || !std::isfinite(weight_sq[k]) ||
        weight_sq[k] < 0)
      throw std::invalid_argument("cell " + std::to_string(k) +
                                  ": its weights must be finite, Σw > 0 and Σw² ≥ 0");
    b.add(row[k], col[k], count[k], weight[k], weight_sq[k]);
  }
  return b.finish(n_rows, n_cols);
}

}  // namespace clusterscore
