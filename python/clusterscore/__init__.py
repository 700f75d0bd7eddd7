"""clusterscore: fast, exact evaluation of clusterings.

- `evaluate(truth, actual, items=None)`: pointwise precision, recall, Jaccard... at
  every level (docs/metrics.md).
- `compare(truth, runs, items=None)`: several runs against one truth, the delta of every
  metric between each pair with a paired bootstrap over truth clusters (docs/metrics.md).
- `diff(base, exp, items=None)`: ABCDE impact (split and merge distances, affected
  items, changed clusters) at every level (docs/metrics.md, diff).
- `sample_pairs(base, exp, pairs=N, seed=S)` and `estimate(sample, verdicts)`: judge the
  difference with human verdicts on weighted pairs (docs/metrics.md, judging).
- `plan_pairs(base, exp, half_width=H)`: how many pairs to draw and judge for intervals
  of half-width H (docs/metrics.md, judging).
- `report(result, path)`: one self-contained HTML file of any of those results.
- `release_memory()`: hand the big arrays kept for reuse back to the operating system.
"""

from ._diff import Diff, diff
from ._evaluate import Evaluation, evaluate
from ._html_report import report
from ._memory import release_memory
from ._plan import plan_pairs
from ._runs import RunComparison, compare
from ._sample import PairSample, estimate, load_sample, sample_pairs
from ._version import __version__ as __version__

__all__ = [
    "Diff",
    "Evaluation",
    "PairSample",
    "RunComparison",
    "compare",
    "diff",
    "estimate",
    "evaluate",
    "load_sample",
    "plan_pairs",
    "release_memory",
    "report",
    "sample_pairs",
]
