"""The report's charts, as Vega-Lite specifications made with altair. Each takes tables
the core computed and only arranges them: bucketing for display, and the chart library's
own marks. Imported only when a report is asked for (altair is an optional extra)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import _format as F

# Colours of deltas: better, worse, and not distinguishable from 0 at the confidence asked.
BETTER, WORSE, UNSURE = "#1a9850", "#d73027", "#9e9e9e"
_SIZE_EDGES = [1, 2, 3, 6, 11, 21, 51, 101, 1001, np.inf]
_SIZE_LABELS = ["1", "2", "3–5", "6–10", "11–20", "21–50", "51–100", "101–1000", "1000+"]


def _alt() -> Any:
    try:
        import altair as alt
    except ImportError:  # pragma: no cover (the extra is installed in tests)
        raise ValueError(
            "reports need the chart library: pip install 'clusterscore[report]'"
        ) from None
    return alt


def size_bucket(items: pd.Series) -> pd.Series:
    """Cluster sizes (items) in display buckets: 1, 2, 3–5, ..., 1000+."""
    return pd.cut(items, bins=_SIZE_EDGES, right=False, labels=_SIZE_LABELS)


def estimates_with_intervals(df: pd.DataFrame, title: str, domain: Any = None) -> Any:
    """A point per row (`label`, `estimate`) with its interval as a rule, coloured by
    `colour` if the frame has one."""
    alt = _alt()
    scale = alt.Scale(zero=False) if domain is None else alt.Scale(zero=False, domain=domain)
    x = alt.X("estimate:Q", title="value", scale=scale)
    colour = (
        alt.Color("colour:N", scale=None, legend=None) if "colour" in df else alt.value("#3366cc")
    )
    order = list(dict.fromkeys(df["label"]))
    y = alt.Y("label:N", title=None, sort=order)
    base = alt.Chart(df).encode(y=y, tooltip=[c for c in df.columns if c != "colour"])
    rule = base.mark_rule(strokeWidth=2).encode(x=alt.X("ci_low:Q", title="value"), x2="ci_high:Q",
                                                color=colour)  # fmt: skip
    point = base.mark_point(filled=True, size=60).encode(x=x, color=colour)
    return (rule + point).properties(title=title, width=480)


def delta_colours(df: pd.DataFrame, group: str) -> pd.Series:
    """Each delta's colour: better or worse by its metric's direction where its interval
    excludes 0, grey where it does not."""
    marks = [F.mark(lo, hi, F.better(m, group)) for m, lo, hi in
             zip(df["metric"], df["ci_low"], df["ci_high"], strict=True)]  # fmt: skip
    if "significant" in df.columns:  # a comparison's deltas: by slice, read together
        marks = [m if s else "" for m, s in zip(marks, df["significant"], strict=True)]
    return pd.Series([BETTER if m == "▲" else WORSE if m == "▼" else UNSURE for m in marks],
                     index=df.index)  # fmt: skip


def deltas(df: pd.DataFrame, title: str, by: str | None = None) -> Any:
    """Deltas with their intervals, one row per metric (or per metric and value of `by`),
    coloured by direction and significance, beside a dashed line at 0."""
    alt = _alt()
    data = df.assign(colour=delta_colours(df, "pointwise")).rename(columns={"delta": "estimate"})
    label = data["metric"] if by is None else data["metric"] + " · " + data[by].map(F.label)
    data = data.assign(label=label)
    keep = ["label", "estimate", "ci_low", "ci_high", "colour", "value_a", "value_b"]
    keep += ["interval_note"] if data["interval_note"].notna().any() else []
    chart = estimates_with_intervals(data[keep], title)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[4, 4]).encode(x="x:Q")
    return alt.layer(zero, chart)


def size_sums(per_cluster: pd.DataFrame) -> pd.DataFrame:
    """Per size bucket of a per-cluster table (`size`, every bucket, in order): how many
    clusters, and for precision and recall where the table has them, the sum of the
    clusters' values and how many have one. Sums, so that those of the parts of a table
    (an engine's partitions) add up to the table's."""
    bucket = size_bucket(per_cluster["items"])
    clusters = per_cluster.groupby(bucket, observed=False).size()
    out = pd.DataFrame({"clusters": clusters.astype(np.float64)})
    for m in ("precision", "recall"):
        if m in per_cluster:
            values = per_cluster[m].astype(np.float64).groupby(bucket, observed=False)
            out[f"{m}_sum"], out[f"{m}_count"] = values.sum(), values.count().astype(np.float64)
    return out.rename_axis("size").reset_index().astype({"size": str})


def size_distribution(sizes: dict[str, pd.DataFrame], title: str) -> Any:
    """How many clusters of each size bucket each side has (`sizes`: size_sums per side)."""
    alt = _alt()
    data = pd.concat([pd.DataFrame({"side": side, "size": df["size"], "clusters": df["clusters"]})
                      for side, df in sizes.items()], ignore_index=True)  # fmt: skip
    return _by_bucket(data, "side", alt.Y("clusters:Q"), "cluster size (items)", title)


def by_size(truth_sizes: pd.DataFrame, title: str) -> Any:
    """Precision and recall of truth clusters by their size (`truth_sizes`: size_sums):
    the mean over the clusters of each size bucket that has some (each cluster's value is
    its items' weighted mean)."""
    alt = _alt()
    rows = []
    for r in truth_sizes[truth_sizes["clusters"] > 0].itertuples(index=False):
        for m in ("precision", "recall"):
            count = getattr(r, f"{m}_count")
            mean = getattr(r, f"{m}_sum") / count if count > 0 else np.nan
            rows.append({"size": r.size, "metric": m, "mean over clusters": mean,
                         "clusters": int(r.clusters)})  # fmt: skip
    y = alt.Y("mean over clusters:Q", scale=alt.Scale(domain=[0, 1]))
    return _by_bucket(pd.DataFrame(rows), "metric", y, "truth cluster size (items)", title)


def _by_bucket(data: pd.DataFrame, series: str, y: Any, x_title: str, title: str) -> Any:
    """Bars per size bucket (the frame's `size`), one per value of `series` side by side."""
    alt = _alt()
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("size:N", sort=_SIZE_LABELS, title=x_title),
            xOffset=f"{series}:N",
            y=y,
            color=f"{series}:N",
            tooltip=list(data.columns),
        )
        .properties(title=title, width=480)
    )


def grouped_bars(df: pd.DataFrame, label: str, metrics: list[str], title: str) -> Any:
    """One bar per metric for each value of `label` (per-slice split and merge distances)."""
    alt = _alt()
    # The column is renamed: a field name is an expression to the chart library ("a.b"
    # reads a nested field), and `label` comes from someone's items table.
    data = df[[label, *metrics]].rename(columns={label: "group"})
    data = data.melt(id_vars=["group"], value_vars=metrics, var_name="metric", value_name="value")
    data["group"] = data["group"].map(F.label)
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("group:N", title=label),
            x=alt.X("value:Q", stack=True),
            color="metric:N",
            tooltip=[alt.Tooltip("group:N", title=label), "metric", "value"],
        )
        .properties(title=title, width=480)
    )


def flows(df: pd.DataFrame, title: str) -> Any:
    """Weight moving between Base and Exp clusters, as a grid of the largest flows."""
    alt = _alt()
    data = df.assign(base=df["base_cluster"].map(F.label), exp=df["exp_cluster"].map(F.label))
    return (
        alt.Chart(data)
        .mark_rect()
        .encode(
            x=alt.X("exp:N", title="exp cluster", sort="-color"),
            y=alt.Y("base:N", title="base cluster", sort="-color"),
            color=alt.Color("weight:Q", scale=alt.Scale(scheme="blues")),
            tooltip=["base", "exp", "items", "weight", "share_of_base", "share_of_exp"],
        )
        .properties(title=title)
    )


def judged_draws(draws: dict[str, int], title: str) -> Any:
    """How many judged draws each class of pairs has."""
    alt = _alt()
    data = pd.DataFrame({"class": list(draws), "judged draws": list(draws.values())})
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x="judged draws:Q", y=alt.Y("class:N", title=None), tooltip=["class", "judged draws"]
        )
        .properties(title=title, width=480)
    )


def curve_lines(curves: dict[str, pd.DataFrame], x: str, metrics: list[str], title: str) -> Any:
    """`metrics` of each model's curve against `x` (a column of the curves): a line per
    model and metric, steps where x is the threshold (the curve is a step function)."""
    alt = _alt()
    parts = [df[[x, *metrics]].melt(x, var_name="metric").assign(model=name)
             for name, df in curves.items()]  # fmt: skip
    data = pd.concat(parts, ignore_index=True).dropna()
    series = data["model"] + " · " + data["metric"] if len(curves) > 1 else data["metric"]
    data = data.assign(series=series)
    interpolate = "step-after" if x == "threshold" else "linear"
    return (
        alt.Chart(data)
        .mark_line(interpolate=interpolate, point=len(data) <= 200)
        .encode(
            x=alt.X(f"{x}:Q", scale=alt.Scale(zero=False)),
            y=alt.Y("value:Q"),
            color="series:N",
            tooltip=list(data.columns),
        )  # fmt: skip
        .properties(title=title, width=480)
    )


def precision_recall(curves: dict[str, pd.DataFrame], kind: str, title: str) -> Any:
    """Precision against recall along each model's curve (`kind`: "" for the means over
    items, "pair_" for the pair metrics), the threshold in the tooltip."""
    alt = _alt()
    p, r = f"{kind}precision", f"{kind}recall"
    data = pd.concat([df[["threshold", p, r]].assign(model=name) for name, df in curves.items()],
                     ignore_index=True).dropna()  # fmt: skip
    return (
        alt.Chart(data)
        .mark_line(point=len(data) <= 200)
        .encode(
            x=alt.X(f"{r}:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y(f"{p}:Q", scale=alt.Scale(domain=[0, 1])),
            color="model:N",
            order="threshold:Q",
            tooltip=list(data.columns),
        )  # fmt: skip
        .properties(title=title, width=480)
    )


def no_row_limit() -> Any:
    """A context in which charts keep every row: the chart library's limit (5,000) guards
    notebooks, not a file drawn once (a curve holds up to max_points rows per model and
    metric)."""
    return _alt().data_transformers.disable_max_rows()


def _typed(data: pd.DataFrame) -> list[str]:
    """Tooltip fields with their types."""
    return [f"{c}:{'Q' if pd.api.types.is_numeric_dtype(data[c]) else 'N'}" for c in data.columns]
