"""clusterscore: fast, exact evaluation of clusterings.

- `evaluate(truth, actual, items=None)`: pointwise precision, recall, Jaccard... at
  every level (SPEC §1).
- `diff(base, exp, items=None)`: ABCDE impact (split and merge distances, affected
  items, changed clusters) at every level (SPEC §3).
"""

from ._diff import Diff, diff
from ._evaluate import Evaluation, evaluate

__all__ = ["Diff", "Evaluation", "diff", "evaluate"]
__version__ = "0.1.0"
