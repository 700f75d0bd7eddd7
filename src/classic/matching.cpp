// Set-matching metrics: F-measure, purity, B-cubed, and the optimal one-to-one mapping
// of clusters (maximum-weight bipartite matching: the cells some optimum must contain
// are fixed first, a sparse assignment solver takes the rest).
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "classic/assignment.h"
#include "classic/parts.h"
#include "detail/counting_order.h"
#include "detail/interrupt.h"
#include "detail/kahan.h"

namespace clusterscore {
namespace {

double mass(const CellTable& c, size_t k, bool w) { return w ? c.weight[k] : double(c.count[k]); }
double row_mass(const CellTable& c, size_t r, bool w) {
  return w ? c.row_weight[r] : double(c.row_count[r]);
}
double col_mass(const CellTable& c, size_t q, bool w) {
  return w ? c.col_weight[q] : double(c.col_count[q]);
}

// Cells that some optimal matching contains. If 3·m(r, q) ≥ a(r) + b(q), with a and b
// the masses of row r and column q over the cells still open, then swapping (r, q) into
// any matching (dropping what r and q were matched to, at most a − m and b − m) loses
// nothing. Fixed cells close their row and column; the rule is applied again on the
// smaller problem until a pass fixes nothing. On entity-resolution data (each cluster
// mostly one entity, records moved at random), this settles nearly every cluster and
// leaves the solver only small knots. Returns the fixed mass; `open` gets the cells left.
struct Fixing {
  double mass = 0.0;
  std::vector<uint32_t> open;
};

Fixing fix_dominant_cells(const CellTable& c, bool weighted) {
  std::vector<double> a(c.n_rows), b(c.n_cols);
  for (size_t r = 0; r < c.n_rows; ++r) a[r] = row_mass(c, r, weighted);
  for (size_t q = 0; q < c.n_cols; ++q) b[q] = col_mass(c, q, weighted);
  std::vector<uint8_t> row_closed(c.n_rows, 0), col_closed(c.n_cols, 0);
  Fixing out;
  out.open.resize(c.size());
  std::iota(out.open.begin(), out.open.end(), 0u);
  // Weights: a margin so that a rounding error in a marginal cannot fix a cell that ties
  // the rule's bound; counts are exact integers.
  const double margin = weighted ? 1e-12 : 0.0;
  detail::KahanSum fixed;
  for (bool progress = true; progress && !out.open.empty();) {
    detail::poll_interrupt();
    progress = false;
    for (uint32_t k : out.open) {
      const uint32_t r = c.row[k], q = c.col[k];
      if (row_closed[r] || col_closed[q]) continue;
      const double m = mass(c, k, weighted);
      if (3 * m >= (a[r] + b[q]) * (1 + margin)) {
        row_closed[r] = col_closed[q] = 1;
        fixed.add(m);
        progress = true;
      }
    }
    // The open cells and their rows' and columns' masses, for the next pass.
    size_t kept = 0;
    for (uint32_t k : out.open) {
      const uint32_t r = c.row[k], q = c.col[k];
      if (!row_closed[r] && !col_closed[q]) out.open[kept++] = k;
    }
    out.open.resize(kept);
    if (!progress) break;
    for (uint32_t k : out.open) a[c.row[k]] = b[c.col[k]] = 0.0;
    for (uint32_t k : out.open) {
      a[c.row[k]] += mass(c, k, weighted);
      b[c.col[k]] += mass(c, k, weighted);
    }
  }
  out.mass = fixed.value();
  return out;
}

// The best matching's mass over `cells`, by the sparse assignment solver on their rows
// and columns renumbered densely.
double solve_open_cells(const CellTable& c, const std::vector<uint32_t>& cells, bool weighted) {
  if (cells.empty()) return 0.0;
  std::vector<uint32_t> local_row(c.n_rows, kNone), local_col(c.n_cols, kNone);
  uint32_t nr = 0, nq = 0;
  for (uint32_t k : cells) {
    if (local_row[c.row[k]] == kNone) local_row[c.row[k]] = nr++;
    if (local_col[c.col[k]] == kNone) local_col[c.col[k]] = nq++;
  }
  const detail::CountingOrder by_row = detail::counting_order(
      cells.size(), nr, [&](size_t i) { return size_t(local_row[c.row[cells[i]]]); });
  const std::vector<uint64_t> start(by_row.start.begin(), by_row.start.end());
  std::vector<uint32_t> col;
  std::vector<double> profit;
  for (size_t i : by_row.order) {
    col.push_back(local_col[c.col[cells[i]]]);
    profit.push_back(mass(c, cells[i], weighted));
  }
  const std::vector<uint32_t> match = detail::max_weight_matching(nr, nq, start, col, profit);
  detail::KahanSum total;
  for (uint32_t r = 0; r < nr; ++r) {
    if (match[r] == UINT32_MAX) continue;
    for (uint64_t e = start[r]; e < start[r + 1]; ++e)
      if (col[e] == match[r]) total.add(profit[e]);
  }
  return total.value();
}

}  // namespace

double max_matching_mass(const CellTable& c, bool weighted) {
  const Fixing fixing = fix_dominant_cells(c, weighted);
  return fixing.mass + solve_open_cells(c, fixing.open, weighted);
}

void matching_scores(const CellTable& c, const ClassicOptions& o, ClassicScores* s) {
  const bool w = o.weighted;
  const double n = w ? c.total_weight : double(c.total_count);
  size_t k_rows = 0, k_cols = 0;
  for (uint64_t x : c.row_count) k_rows += x > 0;
  for (uint64_t x : c.col_count) k_cols += x > 0;
  if (k_rows > 0) s->clustering_ratio = double(k_cols) / double(k_rows);
  if (n == 0) return;
  std::vector<double> best_f(c.n_rows, 0), best_in_row(c.n_rows, 0), best_in_col(c.n_cols, 0);
  detail::KahanSum bp, br;
  for (size_t k = 0; k < c.size(); ++k) {
    const uint32_t r = c.row[k], q = c.col[k];
    const double m = mass(c, k, w), a = row_mass(c, r, w), b = col_mass(c, q, w);
    best_f[r] = std::max(best_f[r], 2 * m / (a + b));  // F_ij = 2PR/(P+R) = 2 n_ij/(a_i + b_j)
    best_in_row[r] = std::max(best_in_row[r], m);
    best_in_col[q] = std::max(best_in_col[q], m);
    bp.add(m * (m / b));
    br.add(m * (m / a));
  }
  detail::KahanSum f, purity, inverse;
  for (size_t r = 0; r < c.n_rows; ++r) {
    f.add(row_mass(c, r, w) * best_f[r]);
    inverse.add(best_in_row[r]);
  }
  for (double x : best_in_col) purity.add(x);
  s->f_measure_score = f.value() / n;
  s->purity_score = purity.value() / n;
  s->inverse_purity_score = inverse.value() / n;
  const double p = bp.value() / n, rc = br.value() / n;
  s->bcubed_precision_score = p;
  s->bcubed_recall_score = rc;
  s->bcubed_f_score = 2 * p * rc / (p + rc);
  if (o.matching) s->clustering_error = 1.0 - max_matching_mass(c, w) / n;
}

}  // namespace clusterscore
