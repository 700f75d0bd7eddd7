// Private: the parts classic_scores() is assembled from, one file each.
#pragma once

#include "classic/classic_cells.h"

namespace clusterscore {

double adjusted_rand(const PairConfusion& p);
void pair_scores(const CellTable& c, bool weighted, ClassicScores* s);
// `emi`: the expected mutual information of `c`'s counts, for AMI (unused if AMI is not
// asked for, or weighted).
void information_scores(const CellTable& c, const ClassicOptions& o, double emi, ClassicScores* s);
void matching_scores(const CellTable& c, const ClassicOptions& o, ClassicScores* s);

}  // namespace clusterscore
