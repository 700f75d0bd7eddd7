// Set-matching metrics: F-measure, purity, B-cubed, and the optimal one-to-one mapping
// of clusters (maximum-weight bipartite matching, one connected component at a time).
#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>
#include <vector>

#include "classic_parts.h"
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

struct DisjointSets {
  std::vector<uint32_t> parent;
  explicit DisjointSets(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

// Maximum-weight matching of one component by successive shortest paths (min-cost flow
// with costs −w, Dijkstra on reduced costs), stopping when no path improves the weight.
class ComponentMatching {
 public:
  // edges: (local row, local col, weight > 0)
  ComponentMatching(size_t rows, size_t cols,
                    const std::vector<std::tuple<uint32_t, uint32_t, double>>& edges)
      : rows_(rows), cols_(cols), n_(rows + cols + 2), head_(n_, -1) {
    const uint32_t s = source(), t = sink();
    for (uint32_t r = 0; r < rows; ++r) add_edge(s, r, 0.0);
    for (uint32_t q = 0; q < cols; ++q) add_edge(uint32_t(rows + q), t, 0.0);
    for (const auto& [r, q, w] : edges) add_edge(r, uint32_t(rows + q), -w);
    // Initial potentials making every reduced cost ≥ 0 (the graph is a DAG).
    pot_.assign(n_, 0.0);
    for (const auto& [r, q, w] : edges) pot_[rows + q] = std::min(pot_[rows + q], -w);
    for (uint32_t q = 0; q < cols; ++q) pot_[t] = std::min(pot_[t], pot_[rows + q]);
  }

  double solve() {
    double total = 0.0;
    const size_t limit = std::min(rows_, cols_);
    for (size_t k = 0; k < limit; ++k) {
      if (!shortest_paths()) break;
      const double cost = dist_[sink()] + pot_[sink()] - pot_[source()];
      if (cost >= 0) break;  // no augmenting path adds weight
      for (uint32_t v = 0; v < n_; ++v)
        if (dist_[v] < kInf) pot_[v] += dist_[v];
      for (uint32_t v = sink(); v != source(); v = to_[prev_[v] ^ 1]) {
        cap_[prev_[v]] -= 1;
        cap_[prev_[v] ^ 1] += 1;
      }
      total -= cost;
    }
    return total;
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  uint32_t source() const { return uint32_t(rows_ + cols_); }
  uint32_t sink() const { return uint32_t(rows_ + cols_ + 1); }

  // Edge e and its residual twin e ^ 1.
  void add_edge(uint32_t u, uint32_t v, double cost) {
    add_arc(u, v, cost, 1);
    add_arc(v, u, -cost, 0);
  }
  void add_arc(uint32_t from, uint32_t to, double cost, int cap) {
    to_.push_back(to);
    cost_.push_back(cost);
    cap_.push_back(cap);
    next_.push_back(head_[from]);
    head_[from] = int32_t(to_.size() - 1);
  }

  bool shortest_paths() {
    dist_.assign(n_, kInf);
    prev_.assign(n_, -1);
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    dist_[source()] = 0;
    heap.push({0.0, source()});
    while (!heap.empty()) {
      auto [d, u] = heap.top();
      heap.pop();
      if (d > dist_[u]) continue;
      for (int32_t e = head_[u]; e >= 0; e = next_[e]) {
        if (cap_[e] <= 0) continue;
        const uint32_t v = to_[e];
        // Reduced costs are ≥ 0 up to rounding: clamp so Dijkstra stays sound.
        const double nd = d + std::max(0.0, cost_[e] + pot_[u] - pot_[v]);
        if (nd < dist_[v]) {
          dist_[v] = nd;
          prev_[v] = e;
          heap.push({nd, v});
        }
      }
    }
    return dist_[sink()] < kInf;
  }

  size_t rows_, cols_, n_;
  std::vector<int32_t> head_, next_, prev_;
  std::vector<uint32_t> to_;
  std::vector<double> cost_, pot_, dist_;
  std::vector<int> cap_;
};

// The components of the cells in `cells` (whole components: every cell of each), each
// solved by ComponentMatching: the sum of their best matchings' masses.
double general_components(const CellTable& c, const std::vector<uint32_t>& cells, bool weighted) {
  if (cells.empty()) return 0.0;
  const uint32_t rows = uint32_t(c.n_rows);
  DisjointSets sets(c.n_rows + c.n_cols);
  for (uint32_t k : cells) sets.join(c.row[k], rows + c.col[k]);
  // Cells grouped by component, through a counting sort on the component root.
  std::vector<uint32_t> root(cells.size()), start(c.n_rows + c.n_cols + 1, 0);
  for (size_t i = 0; i < cells.size(); ++i) ++start[(root[i] = sets.find(c.row[cells[i]])) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<uint32_t> order(cells.size()), fill(start.begin(), start.end() - 1);
  for (size_t i = 0; i < cells.size(); ++i) order[fill[root[i]]++] = cells[i];
  detail::KahanSum total;
  std::vector<uint32_t> local(c.n_rows + c.n_cols, kNone);
  std::vector<std::tuple<uint32_t, uint32_t, double>> edges;
  for (size_t g = 0; g + 1 < start.size(); ++g) {
    const uint32_t b = start[g], e = start[g + 1];
    if (e - b == 0) continue;
    size_t nr = 0, nq = 0;
    edges.clear();
    for (uint32_t p = b; p < e; ++p) {
      const uint32_t k = order[p];
      uint32_t& lr = local[c.row[k]];
      uint32_t& lq = local[rows + c.col[k]];
      if (lr == kNone) lr = uint32_t(nr++);
      if (lq == kNone) lq = uint32_t(nq++);
      edges.emplace_back(lr, lq, mass(c, k, weighted));
    }
    total.add(ComponentMatching(nr, nq, edges).solve());
  }
  return total.value();
}

}  // namespace

// Most components are a single cell, or a star: one row whose columns have no other
// cell, or one column whose rows have none. Their best matching is their heaviest cell,
// found in one pass over the cells; only the other components go to the flow solver
// (at 5e6 items of bench/synth.py, 725,522 components, of which 5,865 are neither).
double max_matching_mass(const CellTable& c, bool weighted) {
  // A row (column) with several cells is a star's centre unless one of its cells has a
  // column (row) with other cells: then it is "tangled".
  std::vector<double> row_best(c.n_rows, 0.0), col_best(c.n_cols, 0.0);
  std::vector<uint8_t> row_tangled(c.n_rows, 0), col_tangled(c.n_cols, 0);
  detail::KahanSum total;
  for (size_t k = 0; k < c.size(); ++k) {
    const uint32_t r = c.row[k], q = c.col[k];
    const bool lone_in_row = c.row_cells[r] == 1, lone_in_col = c.col_cells[q] == 1;
    const double m = mass(c, k, weighted);
    if (lone_in_row && lone_in_col)
      total.add(m);  // a component of its own
    else if (lone_in_col)
      row_best[r] = std::max(row_best[r], m);
    else if (lone_in_row)
      col_best[q] = std::max(col_best[q], m);
    else
      row_tangled[r] = col_tangled[q] = 1;
  }
  // Whether a row (column) is the centre of a star.
  auto row_star = [&](size_t r) { return c.row_cells[r] > 1 && !row_tangled[r]; };
  auto col_star = [&](size_t q) { return c.col_cells[q] > 1 && !col_tangled[q]; };
  for (size_t r = 0; r < c.n_rows; ++r)
    if (row_star(r)) total.add(row_best[r]);
  for (size_t q = 0; q < c.n_cols; ++q)
    if (col_star(q)) total.add(col_best[q]);
  std::vector<uint32_t> rest;  // the cells of every other component
  for (size_t k = 0; k < c.size(); ++k) {
    const uint32_t r = c.row[k], q = c.col[k];
    if (!row_star(r) && !col_star(q) && (c.row_cells[r] > 1 || c.col_cells[q] > 1))
      rest.push_back(uint32_t(k));
  }
  total.add(general_components(c, rest, weighted));
  return total.value();
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
