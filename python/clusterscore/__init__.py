"""clusterscore: fast, exact evaluation of clusterings.

- `evaluate(truth, actual, items=None)`: pointwise precision, recall, Jaccard... at
  every level (docs/metrics.md).
- `compare(truth, runs, items=None)`: several runs against one truth, the delta of every
  metric between each pair with a paired bootstrap over truth clusters (docs/metrics.md).
- `diff(base, exp, items=None)`: ABCDE impact (split and merge distances, affected
  items, changed clusters) at every level (docs/metrics.md, diff).
- `sample_pairs(base, exp, pairs=N, seed=S)` and `estimate(sample, verdicts)`: judge the
  difference with human verdicts on weighted pairs (docs/metrics.md, judging);
  `continue_sample(sample, base, exp, pairs=N)`: draw the next round of the same sample.
- `plan_pairs(base, exp, half_width=H)`: how many pairs to draw and judge for intervals
  of half-width H (docs/metrics.md, judging).
- `threshold_curve(truth, pairs, items=None)`: the clustering's overall metrics at every
  match threshold of scored pairs (connected components), in one pass (docs/metrics.md,
  curves).
- `draw_truth_sample(actual, other_runs, items, records=N, seed=S)`, then
  `TruthSample.page(path)` to label each seed's entity and `truth_from_labels(labels,
  sample)`: a truth of complete entities with its design weights 1/π, for the entities
  scope (docs/metrics.md, drawing the truth sample).
- `report(result, path)`: one self-contained HTML file of any of those results.
- `CommonScopeWarning`: warned by `evaluate` and `compare` in the common scope when actual
  items lie outside the truth (precision then speaks of the common items only).
- `set_threads(n)`: how many threads the core uses (default: one per core; results
  are the same for any number).
- `release_memory()`: hand the big arrays kept for reuse back to the operating system.
- `set_huge_pages(on)`: huge pages for the big arrays, for processes that make many calls
  (default: the system's page policy, which makes a process's first call faster).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Each public name and the module that holds it. The modules load when a name is first
# used, not at `import clusterscore`: numpy, pandas, pyarrow and the core take about a
# second to load, and the command line must be able to answer Ctrl-C during that second.
_HOME = {
    "CommonScopeWarning": "_estimates",
    "Diff": "_diff", "diff": "_diff",
    "Evaluation": "_evaluate", "evaluate": "_evaluate",
    "report": "_html_report",
    "release_memory": "_memory", "set_huge_pages": "_memory",
    "plan_pairs": "_plan",
    "RunComparison": "_runs", "compare": "_runs",
    "ThresholdCurve": "_curve", "threshold_curve": "_curve",
    "PairSample": "_sample", "estimate": "_sample", "load_sample": "_sample",
    "sample_pairs": "_sample", "continue_sample": "_sample", "Estimates": "_sample",
    "set_threads": "_threads", "threads": "_threads",
    "TruthSample": "_truth_sample", "draw_truth_sample": "_truth_sample",
    "load_truth_sample": "_truth_sample",
    "LabelledTruth": "_truth_labels", "truth_from_labels": "_truth_labels",
    "__version__": "_version",
}  # fmt: skip

__all__ = [
    "CommonScopeWarning",
    "Diff",
    "Estimates",
    "Evaluation",
    "LabelledTruth",
    "PairSample",
    "RunComparison",
    "compare",
    "continue_sample",
    "diff",
    "draw_truth_sample",
    "estimate",
    "evaluate",
    "load_sample",
    "load_truth_sample",
    "plan_pairs",
    "release_memory",
    "report",
    "sample_pairs",
    "set_huge_pages",
    "set_threads",
    "threads",
    "threshold_curve",
    "ThresholdCurve",
    "truth_from_labels",
    "TruthSample",
]


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'clusterscore' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])


if TYPE_CHECKING:  # what a type checker and an editor see
    from ._diff import Diff, diff
    from ._estimates import CommonScopeWarning
    from ._evaluate import Evaluation, evaluate
    from ._html_report import report
    from ._memory import release_memory, set_huge_pages
    from ._plan import plan_pairs
    from ._runs import RunComparison, compare
    from ._sample import (
        Estimates,
        PairSample,
        continue_sample,
        estimate,
        load_sample,
        sample_pairs,
    )
    from ._threads import set_threads, threads
    from ._truth_labels import LabelledTruth, truth_from_labels
    from ._truth_sample import TruthSample, draw_truth_sample, load_truth_sample
    from ._version import __version__ as __version__
