from collections.abc import Sequence
import enum
from typing import Annotated

import numpy
from numpy.typing import NDArray


def set_threads(n: int) -> None:
    """Uses up to `n` threads in every later call; 0: one per core."""

def threads() -> int:
    """The number of threads in use."""

MOST_THREADS: int = 1024

MOST_DRAWS: int = 100000000

NONE: int = 4294967295

def show_progress(callable: object | None) -> None:
    """
    Calls `callable(done, total)` as the core's long loops advance (each loop starts again at 0); None stops it. The command line's progress bars use it.
    """

class InputError(ValueError):
    pass

class MetricGroup(enum.Enum):
    pointwise = 0

    impact = 1

    estimate = 2

    classic = 3

class Better(enum.Enum):
    higher = 0

    lower = 1

    neither = 2

class Unit(enum.Enum):
    share = 0

    count = 1

    weight = 2

    score = 3

class MetricInfo:
    @property
    def name(self) -> str: ...

    @property
    def group(self) -> MetricGroup: ...

    @property
    def better(self) -> Better: ...

    @property
    def unit(self) -> Unit: ...

    @property
    def low(self) -> float: ...

    @property
    def high(self) -> float: ...

    @property
    def symmetric(self) -> bool: ...

    @property
    def weightable(self) -> bool: ...

def metric_registry() -> list[MetricInfo]: ...

def set_huge_pages(on: bool) -> None:
    """
    Asks for huge pages for the big arrays mapped from now on (true), or leaves the system's policy (false, the default).
    """

def huge_pages() -> bool:
    """Whether huge pages are asked for."""

def release_memory() -> int:
    """
    Hands the big arrays kept for reuse back to the system; returns their bytes.
    """

class Average(enum.Enum):
    arithmetic = 0

    geometric = 1

    min = 2

    max = 3

def classic_from_labels(a: object, b: object, weights: object | None, average: Average, beta: float, ami: bool, matching: bool) -> dict: ...

def classic_from_cells(n_rows: int, n_cols: int, rows: Sequence[int], cols: Sequence[int], counts: Sequence[int], weights: Sequence[float], weights_sq: Sequence[float], weighted: bool, average: Average, beta: float, ami: bool, matching: bool) -> dict: ...

class LabelCells:
    """
    The cells of two labelings (row, col, count, weight) and each label's first position (read-only views of the core's arrays).
    """

    @property
    def row(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def col(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def count(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def weight(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def a_first(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def b_first(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

def label_cells(a: object, b: object, weights: object | None) -> LabelCells: ...

class PairKind(enum.Enum):
    split = 0

    merge = 1

    stable = 2

    self = 3

class PairSampleTable:
    """
    A sample's distinct pairs of items with their draws (read-only views of the core's arrays).
    """

    @property
    def item_i(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def item_j(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def draws(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def kind(self) -> Annotated[NDArray[numpy.uint8], dict(shape=(None,), writable=False)]: ...

    @property
    def stratum(self) -> Annotated[NDArray[numpy.uint8], dict(shape=(None,), writable=False)]: ...

    @property
    def U_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def B_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def E_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

class UnitPairDraws:
    """
    A sample's draws as units and positions in them, for the engine that holds the units' items (read-only views).
    """

    @property
    def unit_i(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def unit_j(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def at_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def at_j(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def kind(self) -> Annotated[NDArray[numpy.uint8], dict(shape=(None,), writable=False)]: ...

    @property
    def stratum(self) -> Annotated[NDArray[numpy.uint8], dict(shape=(None,), writable=False)]: ...

    @property
    def U_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def B_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def E_i(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

class SampleMode(enum.Enum):
    plain = 0

    stratified = 1

    distance_only = 2

class JudgedSample:
    def __init__(self, kind: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], stratum: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], draws: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], U: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], B: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], E: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], same: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], votes: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], totals: dict, mode: SampleMode, unit: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)] | None = None, needed: dict | None = None) -> None: ...

    def estimate(self) -> list: ...

    def raters(self) -> dict: ...

    def shares(self) -> dict: ...

    def contributions(self, values: object) -> dict: ...

def replicated_pairs(kind: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], draws: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], unit: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], count: int) -> object: ...

def plan_pairs(totals: dict, same_split: float, same_merge: float, same_stable: float, half_width: float, confidence: float, metrics: Sequence[str]) -> dict: ...

def match_pairs(sample_i: object, sample_j: object, verdict_i: object, verdict_j: object) -> object: ...

def fingerprint(items: object, clusters: object) -> int: ...

def items_fingerprint(items: object, weights: object | None) -> int: ...

def pick_by_weight(member_group: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], draw_group: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], at: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> object: ...

def combine_fingerprints(parts: Sequence[int], rows: Sequence[int], items: bool) -> int: ...

class MetricFamily(enum.Enum):
    pointwise = 0

    impact = 1

class TruthScope(enum.Enum):
    common = 0

    entities = 1

class Side(enum.Enum):
    a = 0

    b = 1

class DesignKind(enum.Enum):
    uniform = 0

    inverse_size = 1

    given = 2

class Coverage:
    @property
    def a_items(self) -> int: ...

    @property
    def b_items(self) -> int: ...

    @property
    def common_items(self) -> int: ...

    @property
    def a_only_items(self) -> int: ...

    @property
    def b_only_items(self) -> int: ...

    @property
    def a_weight(self) -> float: ...

    @property
    def b_weight(self) -> float: ...

    @property
    def common_weight(self) -> float: ...

    @property
    def a_only_weight(self) -> float: ...

    @property
    def b_only_weight(self) -> float: ...

    @property
    def a_clusters(self) -> int: ...

    @property
    def b_clusters(self) -> int: ...

    @property
    def a_clusters_common(self) -> int: ...

    @property
    def b_clusters_common(self) -> int: ...

    @property
    def items_table_rows(self) -> int: ...

    @property
    def items_table_unmatched(self) -> int: ...

class ImpactSummary:
    @property
    def affected_items(self) -> int: ...

    @property
    def affected_weight(self) -> float: ...

    @property
    def affected_jaccard_index(self) -> float: ...

    @property
    def unaffected_jaccard_index(self) -> float: ...

    @property
    def base_clusters_split(self) -> int: ...

    @property
    def exp_clusters_merged(self) -> int: ...

class ClusterSums:
    pass

class CellSums:
    pass

def run_sums(comparison: Comparison, grouping: ItemGrouping | None) -> ClusterSums | CellSums: ...

def stacked_sums(comparison: Comparison, groupings: Sequence[ItemGrouping | None]) -> ClusterSums | CellSums: ...

def column_codes(ids: object) -> tuple: ...

class BatchCoder:
    def __init__(self, expected_rows: int) -> None: ...

    def add(self, ids: object, out: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu')]) -> None: ...

    def __len__(self) -> int: ...

    def values(self) -> tuple: ...

class BootstrapResult:
    """
    A paired bootstrap's value rows (per run, group, metric) and delta rows (per pair of runs, group, metric); their columns are read-only views of the rows.
    """

    @property
    def metrics(self) -> list[str]: ...

    @property
    def clusters(self) -> int: ...

    def value_column(self, name: str) -> object: ...

    def delta_column(self, name: str) -> object: ...

def paired_bootstrap(sums: list, resamples: int, seed: int, confidence: float, cluster_rank: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> BootstrapResult: ...

class ItemGrouping:
    @property
    def group_row(self) -> object: ...

    @property
    def n_groups(self) -> int: ...

    def keep(self, groups: Sequence[int]) -> ItemGrouping:
        """This grouping with only `groups`, renumbered in their order."""

class MetricTable:
    pass

class GroupTable:
    """
    One row per non-empty group: its code, items, weight, and a column per name (read-only views of the core's arrays).
    """

    @property
    def group(self) -> Annotated[NDArray[numpy.uint32], dict(shape=(None,), writable=False)]: ...

    @property
    def items(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def weight(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def names(self) -> list[str]: ...

    def column(self, k: int) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

class PerItemRows:
    """
    Per item: the first row of its B cluster, its weight, and a column per name (read-only views of the core's arrays).
    """

    @property
    def b_cluster_row(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def weight(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def names(self) -> list[str]: ...

    def column(self, k: int) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

class ClusterFlows:
    """
    Changed (Base cluster, Exp cluster) flows, largest first: the first rows naming each flow's clusters, its items, weight and shares.
    """

    @property
    def a_cluster_row(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def b_cluster_row(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def items(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def weight(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def share_of_base(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def share_of_exp(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

class Comparison:
    def __init__(self, role_a: str, a_items: object, a_clusters: object, role_b: str, b_items: object, b_clusters: object, items: object | None, weights: object | None, family: MetricFamily, scope: TruthScope, counts: object | None = None, weights_sq: object | None = None) -> None: ...

    def use_design(self, kind: DesignKind, given: Sequence[float], per_entity: bool) -> float:
        """
        Sets the design weights for the comparison's scope; returns the share of the population drawn.
        """

    def coverage(self) -> Coverage: ...

    def impact(self) -> ImpactSummary: ...

    def overall(self) -> GroupTable: ...

    def by_cluster(self, side: Side) -> GroupTable: ...

    def by_items(self, grouping: ItemGrouping) -> GroupTable: ...

    def group_items(self, columns: list) -> ItemGrouping: ...

    def common_items(self) -> object: ...

    def cell_counts(self) -> MetricTable: ...

    def per_item(self, items: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], counts: MetricTable) -> PerItemRows: ...

    def sample_pairs(self, pairs: int, stable_pairs: int, mode: SampleMode, seed: int) -> PairSampleTable: ...

    def sample_unit_pairs(self, pairs: int, stable_pairs: int, mode: SampleMode, seed: int) -> UnitPairDraws: ...

    def items_rows(self, items: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> object: ...

    def sample_totals(self) -> dict: ...

    def draws_needed(self, mode: SampleMode) -> dict: ...

    def flows(self) -> ClusterFlows: ...

    def classic(self) -> dict: ...

    def cluster_first_rows(self, side: Side) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

def marked_deltas(delta: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], std_error: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], units: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], level: float) -> tuple: ...

class CurveTable:
    """
    A curve's rows: each threshold, its clusters and overall metrics (read-only views of the core's arrays), the best row of each of f1, f1_of_means and pair_f1, and the pairs counted.
    """

    @property
    def threshold(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def clusters(self) -> Annotated[NDArray[numpy.uint64], dict(shape=(None,), writable=False)]: ...

    @property
    def names(self) -> list[str]: ...

    def column(self, k: int) -> Annotated[NDArray[numpy.float64], dict(shape=(None,), writable=False)]: ...

    @property
    def best(self) -> dict: ...

    @property
    def pairs(self) -> int: ...

    @property
    def distinct_scores(self) -> int: ...

def threshold_curve(comparison: Comparison, left: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], right: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], score: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], thresholds: Sequence[float], max_points: int) -> CurveTable: ...

def components_at(rows: int, left: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], right: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], score: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], threshold: float) -> object: ...

def unit_level_sums(count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight_sq: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], cell_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], truth_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], actual_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], truth_size: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)] | None, total: float, scale: float, per_entity: bool) -> GroupTable:
    """
    Per unit of one cell's items (count, Σw, Σw²) with its cell's weight, its truth cluster's and its actual cluster's as the scope reads them: what it adds to every level's sums (design_weight, each metric's design-weighted sum, the pair sums). `truth_size`: per unit, its truth cluster's items in the truth (inverse_size design), None for design weights of 1; `total`: w(T), or w(S') in the entities scope; `scale`: pair_scale() of T, the same for every part.
    """

def finish_level_sums(items: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], names: Sequence[str], columns: Sequence[Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)]]) -> GroupTable:
    """
    Each group's values from its sums of unit_level_sums()' rows (the same names and order): the means, f1_of_means and the pair metrics (NaN where undefined).
    """

def impact_unit_sums(count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], cell_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], base_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], exp_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], cell_count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], base_count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], exp_count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> GroupTable:
    """
    Per unit of one cell of a diff (count, Σw) with its cell's, its Base cluster's and its Exp cluster's weights and item counts over T: what it adds to every level's sums (each impact metric's weighted sum, the summary's parts, the flow shares), and whether its Base cluster is split and its Exp cluster merged.
    """

def impact_unit_item_values(count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], cell_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], base_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], exp_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], cell_count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], base_count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], exp_count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> GroupTable:
    """
    Per unit of one cell of a diff (as impact_unit_sums() takes them): the values the per-item table gives each of its items (B, E, X, U, then the impact metrics).
    """

def unit_item_values(count: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], cell_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], truth_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], actual_weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], total: float) -> GroupTable:
    """
    Per unit of one cell's items (as unit_level_sums() takes them): the values the per-item table gives each of its items (tp, fp, fn, tn, then the pointwise metrics).
    """

def finish_impact_sums(items: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], names: Sequence[str], columns: Sequence[Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)]]) -> GroupTable:
    """
    Each group's impact means from its sums of impact_unit_sums()' rows (the same names and order), and affected_weight.
    """

def impact_summary_of_sums(items: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], weight: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], names: Sequence[str], columns: Sequence[Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)]], base_clusters_split: int, exp_clusters_merged: int) -> ImpactSummary:
    """
    The impact summary of one row: impact_unit_sums()' rows summed over T, with the counts of Base clusters split and Exp clusters merged.
    """

def pair_scale(total_weight: float, total_count: int) -> float:
    """The pair sums' power of two near 1 / the mean weight of an item of T."""

NO_GROUP: int = 4294967295

def draw_records(records: int, n: int, seed: int) -> object: ...

def inclusion_probabilities(records: int, n: int, sizes: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> object: ...

def seed_chances(weights: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], n: int) -> object: ...

def draw_records_in_proportion(chances: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], seed: int) -> object: ...

def entity_inclusion_probabilities(chances: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', device='cpu', writable=False)], record: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], entity: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], entities: int) -> object: ...

def gather_candidates(groups: Sequence[Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)]], seeds: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], most_per_group: int) -> tuple: ...
