"""clusterscore: fast, exact evaluation of clusterings.

- `evaluate(truth, actual, items=None)`: pointwise precision, recall, Jaccard... at
  every level (SPEC §1).
"""

from ._evaluate import Evaluation, evaluate

__all__ = ["Evaluation", "evaluate"]
__version__ = "0.1.0"
