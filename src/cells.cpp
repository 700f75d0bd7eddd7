#include "clusterscore/cells.h"

#include <stdexcept>

#include "detail/interner.h"
#include "detail/kahan.h"
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

constexpr size_t kAhead = detail::kPrefetch;

// What the cell pass needs of an item, in one record so that the sort's scatter writes
// one line per item rather than one per array (at 1e7 items in random row order, three
// separate arrays took twice as long). The smallest record that holds what was asked.
struct ColRec {
  uint32_t col;
};
struct ItemRec {
  uint32_t col, item;
};
struct WeightRec {
  uint32_t col, item;  // item: read only when cell_of_item is asked for
  double weight;
};
template <class Rec>
concept HasItem = requires(Rec r) { r.item; };
template <class Rec>
concept HasWeight = requires(Rec r) { r.weight; };

template <class Rec>
Rec make_rec(uint32_t col, size_t i, const double* weights) {
  if constexpr (HasWeight<Rec>)
    return {col, uint32_t(i), weights[i]};
  else if constexpr (HasItem<Rec>)
    return {col, uint32_t(i)};
  else
    return {col};
}

// Items of T grouped by row (a stable counting sort), so that the per-row pass reads
// sequentially.
template <class Rec>
struct ItemsByRow {
  BigVector<uint32_t> start;  // row r is positions [start[r], start[r + 1])
  BigBuffer<Rec> rec;
};

template <class Rec>
ItemsByRow<Rec> sort_by_row(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                            const double* weights, size_t n_rows) {
  const size_t n = rows.size();
  ItemsByRow<Rec> s;
  s.start.assign(n_rows + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(&s.start[rows[i + kAhead] + 1], 1);  // kNone wraps
    if (rows[i] != kNone && cols[i] != kNone) ++s.start[rows[i] + 1];
  }
  for (size_t r = 0; r < n_rows; ++r) s.start[r + 1] += s.start[r];
  s.rec = BigBuffer<Rec>(s.start[n_rows]);
  BigVector<uint32_t> next(s.start.begin(), s.start.end() - 1);
  for (size_t i = 0; i < n; ++i) {
    // Two steps: next[] is read at random too, so it is fetched twice as far ahead as the
    // positions it gives are.
    if (i + 2 * kAhead < n && rows[i + 2 * kAhead] != kNone)
      __builtin_prefetch(&next[rows[i + 2 * kAhead]]);
    if (i + kAhead < n && rows[i + kAhead] != kNone)
      __builtin_prefetch(s.rec.data() + next[rows[i + kAhead]], 1);
    if (rows[i] == kNone || cols[i] == kNone) continue;
    s.rec[next[rows[i]]++] = make_rec<Rec>(cols[i], i, weights);
  }
  return s;
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

// The cell pass over items grouped by row. Within a row, one array indexed by column
// finds the row's cells: no hashing, and only arrays the size of the cluster counts are
// accessed at random. A row's cells are numbered consecutively, so their sums are kept in
// small local arrays and written once, and the marginals are added up as each row ends,
// in cell order (the order add_marginals() uses), while the columns are still in cache.
template <class Rec>
class CellPass {
 public:
  CellPass(const ItemsByRow<Rec>& s, size_t n_rows, size_t n_cols,
           BigVector<uint32_t>* cell_of_item)
      : s_(s), m_(s.start[n_rows]), cell_of_item_(cell_of_item), cols_(n_cols) {
    t_.n_rows = n_rows;
    t_.n_cols = n_cols;
    // The cell arrays grow as cells are found: reserving one cell per item would hold
    // up to five times the memory needed, resident if it came from the block cache.
    t_.row_count.resize(n_rows);
    t_.row_weight.resize(n_rows);
    t_.row_cells.resize(n_rows);
  }

  CellTable run() && {
    for (uint32_t r = 0; r < t_.n_rows; ++r) {
      add_row_items(r);
      finish_row(r);
    }
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
  void add_row_items(uint32_t r) {
    const uint64_t tag = uint64_t(r + 1) << 32;
    const uint32_t first = uint32_t(t_.row.size());
    w_.clear();
    w2_.clear();
    for (uint32_t p = s_.start[r]; p < s_.start[r + 1]; ++p) {
      if (p + kAhead < m_) prefetch(s_.rec[p + kAhead]);
      const Rec& x = s_.rec[p];
      uint64_t& slot = cols_[x.col].seen;
      if ((slot & ~uint64_t(0xFFFFFFFF)) != tag) {
        slot = tag | uint32_t(t_.row.size());
        t_.row.push_back(r);
        t_.col.push_back(x.col);
        t_.count.push_back(0);
        w_.emplace_back();
        w2_.emplace_back();
      }
      const uint32_t k = uint32_t(slot);
      double wi = 1.0;
      if constexpr (HasWeight<Rec>) wi = x.weight;
      ++t_.count[k];
      w_[k - first].add(wi);
      w2_[k - first].add(wi * wi);
      if constexpr (HasItem<Rec>)
        if (cell_of_item_) (*cell_of_item_)[x.item] = k;
    }
  }

  // The column states and cell_of_item are touched at random.
  [[gnu::always_inline]] void prefetch(const Rec& ahead) const {
    __builtin_prefetch(&cols_[ahead.col], 1);
    if constexpr (HasItem<Rec>)
      if (cell_of_item_) __builtin_prefetch(cell_of_item_->data() + ahead.item, 1);
  }

  void finish_row(uint32_t r) {
    const size_t first = t_.weight.size();
    KahanSum row_weight;
    for (size_t i = 0; i < w_.size(); ++i) {
      const double w = w_[i].value();
      t_.weight.push_back(w);
      t_.weight_sq.push_back(w2_[i].value());
      row_weight.add(w);
      total_.add(w);
      ColumnState& c = cols_[t_.col[first + i]];
      c.count += t_.count[first + i];
      c.weight.add(w);
      ++c.cells;
    }
    t_.row_count[r] = s_.start[r + 1] - s_.start[r];
    t_.row_weight[r] = row_weight.value();
    t_.row_cells[r] = uint32_t(w_.size());
  }

  const ItemsByRow<Rec>& s_;
  const size_t m_;
  BigVector<uint32_t>* cell_of_item_;
  BigVector<ColumnState> cols_;
  std::vector<KahanSum> w_, w2_;  // the current row's cells
  KahanSum total_;
  CellTable t_;
};

template <class Rec>
CellTable sort_and_pass(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                        const double* weights, size_t n_rows, size_t n_cols,
                        BigVector<uint32_t>* cell_of_item) {
  const ItemsByRow<Rec> s = sort_by_row<Rec>(rows, cols, weights, n_rows);
  return CellPass<Rec>(s, n_rows, n_cols, cell_of_item).run();
}

}  // namespace

CellTable build_cells(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                      const double* weights, size_t n_rows, size_t n_cols,
                      BigVector<uint32_t>* cell_of_item) {
  if (rows.size() != cols.size())
    throw std::invalid_argument("clusterscore: row and column index arrays differ in length");
  const size_t n = rows.size();
  if (n >= kNone) throw std::length_error("clusterscore: more than 2^32-2 items");
  if (cell_of_item) cell_of_item->assign(n, kNone);
  if (weights) return sort_and_pass<WeightRec>(rows, cols, weights, n_rows, n_cols, cell_of_item);
  if (cell_of_item)
    return sort_and_pass<ItemRec>(rows, cols, weights, n_rows, n_cols, cell_of_item);
  return sort_and_pass<ColRec>(rows, cols, weights, n_rows, n_cols, cell_of_item);
}

CellTable build_cells(const JoinedClusterings& j, BigVector<uint32_t>* cell_of_item) {
  return build_cells(j.a_cluster, j.b_cluster, j.weight.data(), j.n_a_clusters(), j.n_b_clusters(),
                     cell_of_item);
}

CellTable cells_from_lists(size_t n_rows, size_t n_cols, const std::vector<uint32_t>& row,
                           const std::vector<uint32_t>& col, const std::vector<uint64_t>& count,
                           const std::vector<double>& weight,
                           const std::vector<double>& weight_sq) {
  const size_t n = row.size();
  if (col.size() != n || count.size() != n || weight.size() != n || weight_sq.size() != n)
    throw std::invalid_argument("clusterscore: cell lists differ in length");
  CellBuilder b;
  for (size_t k = 0; k < n; ++k) {
    if (row[k] >= n_rows || col[k] >= n_cols)
      throw std::invalid_argument("clusterscore: cell row or column out of range");
    b.add(row[k], col[k], count[k], weight[k], weight_sq[k]);
  }
  return b.finish(n_rows, n_cols);
}

}  // namespace clusterscore
