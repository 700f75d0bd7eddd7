#include <stdexcept>

#include "classic_parts.h"
#include "clusterscore/ids.h"
#include "detail/intern_column.h"
#include "detail/interrupt.h"

namespace clusterscore {
LabelCells cells_from_labels(const IdColumn& a, const IdColumn& b, const double* weights) {
  if (a.size != b.size)
    throw std::invalid_argument("labels_true and labels_pred differ in length: " +
                                std::to_string(a.size) + " and " + std::to_string(b.size));
  LabelCells out;
  const BigVector<uint32_t> rows = detail::intern_column(a, &out.a_first);
  const BigVector<uint32_t> cols = detail::intern_column(b, &out.b_first);
  detail::poll_interrupt();
  out.cells = build_cells(rows, cols, weights, out.a_first.size(), out.b_first.size(), nullptr);
  return out;
}

ClassicScores classic_scores(const CellTable& cells, const ClassicOptions& options) {
  ClassicScores s;
  pair_scores(cells, options.weighted, &s);
  detail::poll_interrupt();
  information_scores(cells, options, &s);
  detail::poll_interrupt();
  matching_scores(cells, options, &s);
  return s;
}

}  // namespace clusterscore
