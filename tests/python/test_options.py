"""evaluate's options are checked once, when the call starts: a bad one is named before
any input is read (here the inputs do not exist), by every entry point alike."""

from __future__ import annotations

import pytest

import clusterscore as cs
from clusterscore._options import ScoreOptions

CALLS = {
    "evaluate": lambda **o: cs.evaluate("no/truth.csv", "no/actual.csv", **o),
    "compare": lambda **o: cs.compare("no/truth.csv", ["no/a.csv", "no/b.csv"], **o),
    "threshold_curve": lambda **o: cs.threshold_curve("no/truth.csv", "no/pairs.csv", **o),
}
BAD = [
    ({"resamples": 0}, "resamples must be a whole number"),
    ({"confidence": 1.5}, "confidence must be a number in"),
    ({"seed": -1}, "seed must be a whole number"),
    ({"truth_scope": "all"}, "truth_scope"),
    ({"average": "entities"}, "average"),
]


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize(("options", "message"), BAD, ids=[str(b[0]) for b in BAD])
def test_a_bad_option_is_named_before_any_input_is_read(call, options, message):
    with pytest.raises(ValueError, match=message):
        CALLS[call](**options)


def test_options_hand_on_their_keywords_and_change_by_copy():
    o = ScoreOptions(truth_scope="entities", resamples=10, item_col="id")
    assert cs.evaluate.__kwdefaults__.keys() >= o.keywords().keys()
    changed = o.but(cluster_col="c")
    assert (changed.cluster_col, o.cluster_col, changed.resamples) == ("c", "cluster_id", 10)
    with pytest.raises(AttributeError):
        o.seed = 3  # type: ignore[misc]
