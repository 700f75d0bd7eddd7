#include "clusterscore/pointwise.h"

namespace clusterscore {

MetricTable pointwise_cells(const CellTable& cells) {
  MetricTable t;
  t.names = {"tp",
             "fp",
             "fn",
             "tn",
             "precision",
             "recall",
             "f1",
             "accuracy",
             "jaccard_index",
             "jaccard_distance",
             "over_merge_rate",
             "under_merge_rate"};
  t.n_rows = cells.size();
  t.values.reserve(t.n_rows * t.width());
  const double total = cells.total_weight;
  for (size_t k = 0; k < cells.size(); ++k) {
    const double tp = cells.weight[k];
    const double fp = cells.col_weight[cells.col[k]] - tp;
    const double fn = cells.row_weight[cells.row[k]] - tp;
    const double tn = total - tp - fp - fn;
    // Complements are computed from fp/fn directly, not as 1 − x, to keep small rates exact.
    const double row[] = {tp,
                          fp,
                          fn,
                          tn,
                          tp / (tp + fp),
                          tp / (tp + fn),
                          2 * tp / (2 * tp + fp + fn),
                          (tp + tn) / total,
                          tp / (tp + fp + fn),
                          (fp + fn) / (tp + fp + fn),
                          fp / (tp + fp),
                          fn / (tp + fn)};
    t.values.insert(t.values.end(), std::begin(row), std::end(row));
  }
  return t;
}

void add_pointwise_derived(GroupTable* g) {
  const BigVector<double>& p = g->column("precision");
  const BigVector<double>& r = g->column("recall");
  BigVector<double> f(g->size());
  for (size_t i = 0; i < f.size(); ++i) f[i] = 2 * p[i] * r[i] / (p[i] + r[i]);  // p, r > 0
  g->names.push_back("f1_of_means");
  g->columns.push_back(std::move(f));
}

}  // namespace clusterscore
