// What each metric family computes, in one place (docs/metrics.md): a Comparison reads its
// family's entry instead of asking which family it holds.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cells/cells.h"
#include "levels/metric_table.h"
#include "metrics/pointwise.h"

namespace clusterscore {

enum class MetricFamily {
  kPointwise,  // docs/metrics.md: A is the truth, B the actual clustering
  kImpact,     // docs/metrics.md, diff: A is Base, B is Exp
};

struct FamilyKernel {
  // Per cell: the metrics averaged over groups, and the weights they are made of (tp, fp,
  // fn, tn or B, E, X, U), from the cells and B's marginals as the comparison reads them.
  MetricTable (*cell_metrics)(const CellTable&, const ActualMarginals&);
  MetricTable (*cell_counts)(const CellTable&, const ActualMarginals&);
  // Group tables: means renamed (per-cell name → reported name), then the values derived
  // from them, after them.
  std::vector<std::pair<std::string, std::string>> rename;
  void (*add_derived)(GroupTable*);
  // The pair metrics beside the means (cells keep Σw²), truth scopes and design weights.
  bool pairs;
};

const FamilyKernel& family_kernel(MetricFamily family);

}  // namespace clusterscore
