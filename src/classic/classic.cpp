#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <vector>

#include "classic/parts.h"
#include "clusterscore/ids.h"
#include "detail/interrupt.h"
#include "detail/parallel.h"
#include "input/intern_column.h"

namespace clusterscore {

LabelCells cells_from_labels(const IdColumn& a, const IdColumn& b, const double* weights) {
  if (a.size != b.size)
    throw std::invalid_argument("labels_true and labels_pred differ in length: " +
                                std::to_string(a.size) + " and " + std::to_string(b.size));
  LabelCells out;
  BigVector<uint32_t> rows, cols;
  detail::parallel_invoke([&] { rows = detail::intern_column(a, &out.a_first); },
                          [&] { cols = detail::intern_column(b, &out.b_first); });
  detail::poll_interrupt();
  out.cells = build_cells(rows, cols, weights, out.a_first.size(), out.b_first.size(), nullptr);
  return out;
}

namespace {

// Weights whose largest is beyond 2^±200 are divided by a power of two (exactly) first: the
// pair metrics sum products w(i)·w(j), which overflow near 1e154 and underflow near
// 1e-154, and every metric is a ratio that the scale leaves unchanged. 0 where no scaling
// is needed; else the exponent e the weights are divided by 2^e with.
constexpr int kExtremeExponent = 200;
int extreme_exponent(const double* weights, size_t n) {
  if (weights == nullptr || n == 0) return 0;
  const double largest = *std::max_element(weights, weights + n);
  if (!(largest > 0) || !std::isfinite(largest)) return 0;  // checked by the cells
  const int e = std::ilogb(largest) + 1;                    // frexp's exponent
  return std::abs(e) <= kExtremeExponent ? 0 : e;
}

}  // namespace

ClassicScores classic_scores(const IdColumn& a, const IdColumn& b, const double* weights,
                             const ClassicOptions& options) {
  const int e = extreme_exponent(weights, a.size == b.size ? a.size : 0);
  if (e == 0) return classic_scores(cells_from_labels(a, b, weights).cells, options);
  std::vector<double> scaled(weights, weights + a.size);
  for (double& w : scaled) w = std::ldexp(w, -e);
  ClassicScores s = classic_scores(cells_from_labels(a, b, scaled.data()).cells, options);
  // Weighted pair counts are reported in the weights' own scale: beyond the double range,
  // inf, as the sum is.
  for (double* x :
       {&s.weighted_pairs.tn, &s.weighted_pairs.fp, &s.weighted_pairs.fn, &s.weighted_pairs.tp})
    *x = std::ldexp(*x, 2 * e);
  return s;
}

ClassicScores classic_scores(const CellTable& cells, const ClassicOptions& options) {
  ClassicScores s;
  // The expected mutual information and the matching cost the most. The matching (with
  // the pair scores) is task 0; the expected mutual information's blocks follow, so one
  // thread takes the matching while the others sum blocks, and joins them when done.
  // Both only read the cells.
  const bool want_emi = !options.weighted && options.adjusted_mutual_info;
  std::optional<ExpectedMutualInfo> emi;
  if (want_emi) emi.emplace(cells);
  const size_t blocks = emi ? emi->blocks() : 0;
  detail::parallel_for(1 + blocks, [&](size_t, size_t task) {
    if (task > 0) return emi->run(task - 1);
    pair_scores(cells, options.weighted, &s);
    detail::poll_interrupt();
    matching_scores(cells, options, &s);
  });
  detail::poll_interrupt();
  information_scores(cells, options, emi ? emi->value() : 0.0, &s);
  return s;
}

}  // namespace clusterscore
