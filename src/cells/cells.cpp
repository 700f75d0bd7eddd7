#include "cells/cells.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "detail/interrupt.h"
#include "detail/kahan.h"
#include "detail/parallel.h"
#include "detail/prefetch.h"
#include "detail/radix_partition.h"
#include "detail/weight.h"
#include "input/interner.h"

namespace clusterscore {
namespace {

using detail::KahanSum;

// The columns' marginals and the total weight, each added up in cell order (so the same
// bits on any number of threads): every task reads all cells and adds those of its own
// range of columns; the first also adds every cell's weight to the total, in the same
// loop (a pass of its own after the others cost a serial pass over the weights).
void add_column_marginals(CellTable* t) {
  t->col_count.assign(t->n_cols, 0);
  t->col_cells.assign(t->n_cols, 0);
  t->col_weight.resize(t->n_cols);
  const size_t parts = detail::workers_for((t->n_cols >> 16) + 1);
  // One line per column while they are added up: 32 bytes, aligned.
  struct alignas(32) Column {
    uint64_t count = 0;
    uint32_t cells = 0;
    KahanSum weight;
  };
  KahanSum total;
  // One loop for both tasks: with the total's adds in it when `with_total`.
  const auto add_cells = [&](size_t lo, size_t hi, Column* column, auto with_total) {
    const size_t cells = t->size();
    for (size_t k = 0; k < cells; ++k) {
      detail::poll_every(k);
      if constexpr (decltype(with_total)::value) total.add(t->weight[k]);
      if (k + detail::kColumnAhead < cells) {
        const size_t ahead = t->col[k + detail::kColumnAhead];
        if (ahead >= lo && ahead < hi) detail::prefetch_for_write(&column[ahead - lo]);
      }
      const size_t c = t->col[k];
      if (c < lo || c >= hi) continue;
      Column& x = column[c - lo];
      x.count += t->count[k];
      ++x.cells;
      x.weight.add(t->weight[k]);
    }
  };
  detail::parallel_parts(t->n_cols, parts, [&](size_t part, size_t lo, size_t hi) {
    BigVector<Column> column(hi - lo);
    if (part == 0)
      add_cells(lo, hi, column.data(), std::true_type{});
    else
      add_cells(lo, hi, column.data(), std::false_type{});
    for (size_t c = lo; c < hi; ++c) {
      t->col_count[c] = column[c - lo].count;
      t->col_cells[c] = column[c - lo].cells;
      t->col_weight[c] = column[c - lo].weight.value();
    }
  });
  t->total_weight = total.value();
}

// Every marginal of a table whose cells are filled in.
void add_marginals(CellTable* t) {
  std::vector<KahanSum> rw(t->n_rows);
  t->row_count.assign(t->n_rows, 0);
  t->row_cells.assign(t->n_rows, 0);
  for (size_t k = 0; k < t->size(); ++k) {
    const uint32_t r = t->row[k];
    t->row_count[r] += t->count[k];
    ++t->row_cells[r];
    rw[r].add(t->weight[k]);
    t->total_count += t->count[k];
  }
  t->row_weight.reserve(t->n_rows);
  for (const KahanSum& s : rw) t->row_weight.push_back(s.value());
  add_column_marginals(t);
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

// Items are read in chunks, one task each, to split them into blocks and to put their
// cells back in item order: at most kMaxChunks chunks of about equal size, a number that
// depends on the items only. Within a block, records stay in item order whatever the
// chunks, so the layout is the same on any number of threads.
constexpr size_t kChunkItems = size_t(1) << 20;
constexpr size_t kMaxChunks = 64;

template <class Rec>
struct RowBlocks {
  std::vector<uint32_t> first_row;  // block b holds rows [first_row[b], first_row[b + 1])
  std::vector<size_t> begin;        // and records [begin[b], begin[b + 1])
  BigBuffer<Rec> rec;               // by block, in item order within each block
  unsigned shift = 0;               // row r is in bucket r >> shift,
  std::vector<uint32_t> of_bucket;  // which is in block of_bucket[r >> shift]
  size_t chunk_items = 1;           // items [c * chunk_items, ...) make chunk c
  // Per chunk, per block: where the chunk's records of the block start.
  std::vector<std::vector<size_t>> chunk_begin;
  size_t blocks() const { return first_row.size() - 1; }
  size_t chunks() const { return chunk_begin.size(); }
};

// Chunk c of n items: items [first, end).
std::pair<size_t, size_t> chunk_bounds(size_t c, size_t n, size_t chunk_items) {
  return {c * chunk_items, std::min(n, (c + 1) * chunk_items)};
}

// Calls f(chunk, first item, end item) for every chunk of n items, in parallel.
template <class F>
void for_each_chunk(size_t n, size_t chunk_items, size_t chunks, F f) {
  detail::parallel_for(chunks, [&](size_t, size_t c) {
    const auto [i0, i1] = chunk_bounds(c, n, chunk_items);
    f(c, i0, i1);
  });
}

// Rows [0, n_rows) cut into blocks at bucket boundaries (b->of_bucket gets each bucket's
// block). A bucket heavier than kBlockItems makes a block of its own. (Where each block's
// records begin comes from placing them: split_rows().)
template <class Rec>
void cut_blocks(const std::vector<uint32_t>& count, size_t n_rows, RowBlocks<Rec>* b) {
  b->first_row.assign(1, 0);
  b->of_bucket.resize(count.size());
  size_t held = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    if (held > 0 && held + count[k] > kBlockItems) {
      b->first_row.push_back(uint32_t(k << b->shift));
      held = 0;
    }
    b->of_bucket[k] = uint32_t(b->first_row.size() - 1);
    held += count[k];
  }
  b->first_row.push_back(uint32_t(n_rows));
}

// The records of the common items, by block: each chunk counts its items per bucket,
// the blocks are cut from the totals, and each chunk writes its records after those of
// the chunks before it in every block.
template <class Rec>
RowBlocks<Rec> split_rows(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                          const double* weights, size_t n_rows) {
  const size_t n = rows.size();
  RowBlocks<Rec> b;
  while ((n_rows >> b.shift) >= (size_t(1) << kBucketBits)) ++b.shift;
  const size_t buckets = (n_rows >> b.shift) + 1;
  const size_t chunks = std::clamp<size_t>((n + kChunkItems - 1) / kChunkItems, 1, kMaxChunks);
  b.chunk_items = (n + chunks - 1) / chunks + (n == 0);
  std::vector<std::vector<uint32_t>> count(chunks);
  // Inside the tasks, everything read in the loops is first copied to locals: read
  // through the lambda's references, the compiler reloads them after every store.
  for_each_chunk(n, b.chunk_items, chunks, [&](size_t c, size_t i0, size_t i1) {
    count[c].assign(buckets, 0);
    uint32_t* const bucket = count[c].data();
    const uint32_t *const row = rows.data(), *const col = cols.data();
    const unsigned shift = b.shift;
    for (size_t i = i0; i < i1; ++i) {
      detail::poll_every(i);
      if (row[i] != kNone && col[i] != kNone) ++bucket[row[i] >> shift];
    }
  });
  std::vector<uint32_t> total(buckets, 0);
  for (const std::vector<uint32_t>& chunk : count)
    for (size_t k = 0; k < buckets; ++k) total[k] += chunk[k];
  cut_blocks(total, n_rows, &b);
  // Each chunk's records, per block, placed after the chunks' before it (a block's records
  // in item order: detail/radix_partition.h).
  std::vector<std::vector<size_t>> in_block(chunks, std::vector<size_t>(b.blocks(), 0));
  for (size_t c = 0; c < chunks; ++c)
    for (size_t k = 0; k < buckets; ++k) in_block[c][b.of_bucket[k]] += count[c][k];
  detail::Placement placed = detail::place(in_block, b.blocks());
  b.begin = std::move(placed.start);
  b.rec = BigBuffer<Rec>(b.begin.back());
  // A line shared with the chunk before or after in the same block is stored plainly
  // (LineScatter writes a stream's partial first and last lines element by element).
  detail::scatter(b.rec.data(), placed, [&](size_t c, auto put) {
    const auto [i0, i1] = chunk_bounds(c, n, b.chunk_items);
    const uint32_t *const row = rows.data(), *const col = cols.data();
    const uint32_t* const of_bucket = b.of_bucket.data();
    const unsigned shift = b.shift;
    for (size_t i = i0; i < i1; ++i) {
      detail::poll_every(i);
      if (row[i] == kNone || col[i] == kNone) continue;
      put(of_bucket[row[i] >> shift], make_rec<Rec>(col[i], row[i], i, weights));
    }
  });
  b.chunk_begin = std::move(placed.at);
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
  cell_of_item->clear();
  cell_of_item->resize(rows.size());
  // Written through a plain pointer, as push_back() stored the vector's end every item.
  uint32_t* const out = cell_of_item->data();
  for_each_chunk(rows.size(), b.chunk_items, b.chunks(), [&](size_t c, size_t i0, size_t i1) {
    std::vector<size_t> next = b.chunk_begin[c];
    size_t* const at_next = next.data();
    const uint32_t *const row = rows.data(), *const col = cols.data();
    const uint32_t* const of_bucket = b.of_bucket.data();
    const uint32_t* const cells = cell.data();
    const unsigned shift = b.shift;
    for (size_t i = i0; i < i1; ++i) {
      if (row[i] == kNone || col[i] == kNone) {
        out[i] = kNone;
        continue;
      }
      const size_t block = of_bucket[row[i] >> shift], at = at_next[block]++;
      detail::prefetch_lines_ahead(cells + at, 1);  // the stream's next line
      out[i] = cells[at];
    }
  });
}

// The cells that one piece (a range of blocks) finds, numbered from 0 in row order.
struct PieceCells {
  std::vector<uint32_t> row, col;
  std::vector<uint64_t> count;
  std::vector<double> weight, weight_sq;
  size_t size() const { return row.size(); }
};

// The cell pass of one worker, fed the rows of a piece in order with their items. Within
// a row, one array indexed by column finds the row's cells: no hashing, and only an
// array the size of the column count is accessed at random. A row's cells are numbered
// consecutively, so their sums are kept in small local arrays and written once as the
// row ends, with the row's marginals. The columns' marginals are added up once every
// piece is done (add_column_marginals()).
class CellPass {
 public:
  // `squares`: whether to sum the squared weights too (weight_sq).
  CellPass(size_t n_cols, bool squares) : squares_(squares), seen_(n_cols, 0) {}

  // The piece's cells go to `out`; its rows' marginals to `t` (rows of other pieces are
  // written by other workers: each row by one).
  void start(PieceCells* out, CellTable* t) { out_ = out, t_ = t; }

  // Row r, whose items are rec[begin, end) in item order; rec[end, stop) may be read
  // ahead (prefetched). If `cell` is not null, cell[p] receives the cell of rec[p].
  template <class R>
  void add_row(uint32_t r, const R* rec, size_t begin, size_t end, size_t stop, uint32_t* cell) {
    add_row_items(r, rec, begin, end, stop, cell);
    finish_row(r, end - begin);
  }

 private:
  // Items of one column that follow each other (most of a row, usually) are a run, added
  // up in registers: adding each item to its cell's sums in memory chained every item to
  // the previous one through a store and a reload. The same additions in the same
  // order: the same bits.
  template <class R>
  void add_row_items(uint32_t r, const R* rec, size_t begin, size_t end, size_t stop,
                     uint32_t* cell) {
    // (row + 1) << 32 | the column's cell in that row. Rows are unique, so a tag left by
    // another piece this worker passed never matches.
    const uint64_t tag = uint64_t(r + 1) << 32;
    const uint32_t first = uint32_t(out_->size());
    w_.clear();
    w2_.clear();
    for (size_t p = begin; p < end;) {
      const uint32_t col = rec[p].col;
      uint64_t& slot = seen_[col];
      if ((slot & ~uint64_t(0xFFFFFFFF)) != tag) {
        slot = tag | uint32_t(out_->size());
        out_->row.push_back(r);
        out_->col.push_back(col);
        out_->count.push_back(0);
        w_.emplace_back();
        w2_.emplace_back();
      }
      const uint32_t k = uint32_t(slot);
      KahanSum w = w_[k - first], w2 = w2_[k - first];
      const size_t run = p;
      do {
        // The column slots are touched at random.
        if (p + kAhead < stop) detail::prefetch_for_write(&seen_[rec[p + kAhead].col]);
        double wi = 1.0;
        if constexpr (HasWeight<R>) wi = rec[p].weight;
        w.add(wi);
        if (squares_) w2.add(wi * wi);
        if (cell) cell[p] = k;
      } while (++p < end && rec[p].col == col);
      out_->count[k] += p - run;
      w_[k - first] = w;
      w2_[k - first] = w2;
    }
  }

  void finish_row(uint32_t r, size_t items) {
    KahanSum row_weight;
    for (size_t i = 0; i < w_.size(); ++i) {
      const double w = w_[i].value();
      out_->weight.push_back(w);
      if (squares_) out_->weight_sq.push_back(w2_[i].value());
      row_weight.add(w);
    }
    t_->row_count[r] = items;
    t_->row_weight[r] = row_weight.value();
    t_->row_cells[r] = uint32_t(w_.size());
  }

  const bool squares_;
  BigVector<uint64_t> seen_;      // per column (zeroed: BigVector default-initialises)
  std::vector<KahanSum> w_, w2_;  // the current row's cells
  PieceCells* out_ = nullptr;
  CellTable* t_ = nullptr;
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

// Pieces of consecutive blocks of about kPieceItems records each, passed in parallel;
// the cut depends on the blocks only.
constexpr size_t kPieceItems = size_t(1) << 18;

template <class Rec>
std::vector<size_t> cut_pieces(const RowBlocks<Rec>& b) {
  std::vector<size_t> first_block{0};
  for (size_t k = 0; k < b.blocks(); ++k)
    if (b.begin[k + 1] - b.begin[first_block.back()] >= kPieceItems) first_block.push_back(k + 1);
  if (first_block.back() != b.blocks()) first_block.push_back(b.blocks());
  return first_block;  // piece p is blocks [first_block[p], first_block[p + 1])
}

// The pieces' cells, one after the other, into t's cell arrays; the records' cells
// (`cell`, null if not kept) from numbers within their piece (records [record[p],
// record[p + 1]) of piece p) to numbers in the table.
void join_pieces(const std::vector<PieceCells>& pieces, const std::vector<size_t>& first,
                 const std::vector<size_t>& record, uint32_t* cell, bool squares, CellTable* t) {
  const size_t cells = first.back();
  t->row.resize(cells);
  t->col.resize(cells);
  t->count.resize(cells);
  t->weight.resize(cells);
  if (squares) t->weight_sq.resize(cells);
  detail::parallel_for(pieces.size(), [&](size_t, size_t p) {
    const PieceCells& c = pieces[p];
    std::copy(c.row.begin(), c.row.end(), t->row.begin() + long(first[p]));
    std::copy(c.col.begin(), c.col.end(), t->col.begin() + long(first[p]));
    std::copy(c.count.begin(), c.count.end(), t->count.begin() + long(first[p]));
    std::copy(c.weight.begin(), c.weight.end(), t->weight.begin() + long(first[p]));
    if (squares)
      std::copy(c.weight_sq.begin(), c.weight_sq.end(), t->weight_sq.begin() + long(first[p]));
    if (cell && first[p] > 0)
      for (size_t e = record[p]; e < record[p + 1]; ++e) cell[e] += uint32_t(first[p]);
  });
}

template <class Rec>
CellTable sort_and_pass(std::span<const uint32_t> rows, std::span<const uint32_t> cols,
                        const double* weights, size_t n_rows, size_t n_cols,
                        BigVector<uint32_t>* cell_of_item, bool squares) {
  const RowBlocks<Rec> b = split_rows<Rec>(rows, cols, weights, n_rows);
  CellTable t;
  t.n_rows = n_rows;
  t.n_cols = n_cols;
  t.row_count.resize(n_rows);
  t.row_weight.resize(n_rows);
  t.row_cells.resize(n_rows);
  t.total_count = b.rec.size();
  BigBuffer<uint32_t> cell(cell_of_item ? b.rec.size() : 0);
  const std::vector<size_t> first_block = cut_pieces(b);
  const size_t n_pieces = first_block.size() - 1;
  std::vector<PieceCells> pieces(n_pieces);
  struct Worker {
    CellPass pass;
    BlockSorter<Rec> sorter;
  };
  std::vector<std::unique_ptr<Worker>> workers(detail::workers_for(n_pieces));
  detail::parallel_for(n_pieces, [&](size_t w, size_t p) {
    if (!workers[w]) workers[w] = std::make_unique<Worker>(Worker{CellPass(n_cols, squares), {}});
    Worker& worker = *workers[w];
    worker.pass.start(&pieces[p], &t);
    for (size_t k = first_block[p]; k < first_block[p + 1]; ++k) {
      detail::poll_interrupt();
      worker.sorter.pass(b, k, &worker.pass, cell_of_item ? cell.data() : nullptr);
    }
  });
  workers.clear();
  std::vector<size_t> first_cell(n_pieces + 1, 0);
  for (size_t p = 0; p < n_pieces; ++p) first_cell[p + 1] = first_cell[p] + pieces[p].size();
  std::vector<size_t> first_record(n_pieces + 1);
  for (size_t p = 0; p <= n_pieces; ++p) first_record[p] = b.begin[first_block[p]];
  join_pieces(pieces, first_cell, first_record, cell_of_item ? cell.data() : nullptr, squares, &t);
  pieces.clear();
  add_column_marginals(&t);
  if (cell_of_item) unsplit(rows, cols, b, cell, cell_of_item);
  return t;
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
    if (!detail::is_weight(weight[k]) || !std::isfinite(weight_sq[k]) || weight_sq[k] < 0)
      throw std::invalid_argument("cell " + std::to_string(k) +
                                  ": its weights must be finite, Σw > 0 and Σw² ≥ 0");
    b.add(row[k], col[k], count[k], weight[k], weight_sq[k]);
  }
  return b.finish(n_rows, n_cols);
}

}  // namespace clusterscore
