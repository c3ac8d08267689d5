"""Agreement statistics for label audits (n-Clue paper, supplement sec. 10, Tables S8-S14).

Percent agreement with Wilson score intervals (Wilson 1927; Newcombe 1998), Cohen's kappa
(Cohen 1960) for nominal labels, weighted kappa (Cohen 1968) with linear or quadratic weights
over ordered grades, Fleiss' kappa for a fixed number of raters per item (Fleiss 1971),
transition (confusion) matrices, and Spearman's rank correlation with average ranks for ties
(pre/post system rankings, sec. 10.6). Standard library only; every function refuses input it
cannot handle with :class:`~nclue.errors.NclueError`.
"""

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import NclueError

Labels = Union[Mapping[Hashable, Hashable], Sequence[Hashable]]


def _sort_key(value: Hashable) -> Tuple[str, Any]:
    return (type(value).__name__, value)


def _pairs(a: Labels, b: Labels, names: Tuple[str, str] = ("a", "b")) -> List[Tuple[Any, Any]]:
    """Aligned label pairs from two mappings with identical keys or two equal-length sequences."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if a.keys() != b.keys():
            only_a = sorted(a.keys() - b.keys(), key=_sort_key)[:3]
            only_b = sorted(b.keys() - a.keys(), key=_sort_key)[:3]
            raise NclueError(f"mismatched items: only in {names[0]} {only_a}, "
                             f"only in {names[1]} {only_b}")
        keys = sorted(a, key=_sort_key)
        pairs = [(a[k], b[k]) for k in keys]
    elif isinstance(a, Mapping) or isinstance(b, Mapping):
        raise NclueError("pass two mappings (item -> label) or two sequences, not one of each")
    else:
        for name, seq in zip(names, (a, b)):
            if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
                raise NclueError(f"{name}: expected a sequence or mapping of labels")
        if len(a) != len(b):
            raise NclueError(f"sequences differ in length: {len(a)} vs {len(b)}")
        pairs = list(zip(a, b))
    if not pairs:
        raise NclueError("no items to compare")
    for x, y in pairs:
        for label in (x, y):
            if label is None:
                raise NclueError("a label is missing (None)")
            try:
                hash(label)
            except TypeError:
                raise NclueError(f"label is not hashable: {label!r}") from None
    return pairs


# --------------------------------------------------------------------------------------------
# Percent agreement and Wilson intervals
# --------------------------------------------------------------------------------------------

def wilson_interval(successes: int, n: int, level: float = 0.95) -> Tuple[float, float]:
    """Wilson (1927) score interval for a binomial proportion (Newcombe 1998, method 3).

    ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``z`` the two-sided
    normal quantile of ``level``; clipped to [0, 1] against rounding.
    """
    for name, value in (("successes", successes), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise NclueError(f"{name} must be an integer, got {value!r}")
    if n < 1:
        raise NclueError(f"n must be >= 1, got {n}")
    if not 0 <= successes <= n:
        raise NclueError(f"successes must be in [0, n={n}], got {successes}")
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise NclueError(f"level must be strictly between 0 and 1, got {level!r}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    z2n = z * z / n
    centre = p + z2n / 2
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
    denom = 1 + z2n
    return max(0.0, (centre - half) / denom), min(1.0, (centre + half) / denom)


@dataclass(frozen=True)
class Agreement:
    """Exact agreement count, total, proportion and its Wilson interval."""

    agree: int
    n: int
    proportion: float
    lo: float
    hi: float


def percent_agreement(a: Labels, b: Labels, level: float = 0.95) -> Agreement:
    """Proportion of items with identical labels, with its Wilson interval (Table S8)."""
    pairs = _pairs(a, b)
    agree = sum(1 for x, y in pairs if x == y)
    lo, hi = wilson_interval(agree, len(pairs), level)
    return Agreement(agree=agree, n=len(pairs), proportion=agree / len(pairs), lo=lo, hi=hi)


# --------------------------------------------------------------------------------------------
# Confusion / transition matrices and kappas
# --------------------------------------------------------------------------------------------

def _categories(pairs: List[Tuple[Any, Any]], categories: Optional[Sequence[Hashable]]
                ) -> List[Hashable]:
    seen = {x for pair in pairs for x in pair}
    if categories is None:
        return sorted(seen, key=_sort_key)
    cats = list(categories)
    if len(set(cats)) != len(cats):
        raise NclueError(f"categories contain duplicates: {cats}")
    unknown = seen - set(cats)
    if unknown:
        raise NclueError(f"labels not among the categories: {sorted(unknown, key=_sort_key)}")
    return cats


def confusion_matrix(a: Labels, b: Labels, categories: Optional[Sequence[Hashable]] = None
                     ) -> Tuple[List[Hashable], List[List[int]]]:
    """Counts ``matrix[i][j]`` of items labelled ``categories[i]`` by a and ``categories[j]`` by b.

    Categories default to the sorted set of observed labels; pass them to fix the order (the
    order matters for weighted kappa) or to include unused categories.
    """
    pairs = _pairs(a, b)
    cats = _categories(pairs, categories)
    index = {c: i for i, c in enumerate(cats)}
    matrix = [[0] * len(cats) for _ in cats]
    for x, y in pairs:
        matrix[index[x]][index[y]] += 1
    return cats, matrix


@dataclass(frozen=True)
class Transitions:
    """Transition matrix between two labelings of the same items (e.g. pre/post qrel grades)."""

    states: Tuple[Hashable, ...]
    counts: Dict[Tuple[Hashable, Hashable], int]
    changed: int
    total: int

    def row(self, state: Hashable) -> Dict[Hashable, int]:
        return {to: self.counts.get((state, to), 0) for to in self.states}


def transition_matrix(before: Labels, after: Labels,
                      states: Optional[Sequence[Hashable]] = None) -> Transitions:
    """Counts of every (before, after) label pair (supplement Tables S9 and S12)."""
    pairs = _pairs(before, after, ("before", "after"))
    cats = _categories(pairs, states)
    counts: Dict[Tuple[Hashable, Hashable], int] = {}
    for x, y in pairs:
        counts[(x, y)] = counts.get((x, y), 0) + 1
    changed = sum(c for (x, y), c in counts.items() if x != y)
    return Transitions(states=tuple(cats), counts=counts, changed=changed, total=len(pairs))


def _check_matrix(matrix: Sequence[Sequence[int]]) -> List[List[int]]:
    if isinstance(matrix, (str, bytes)) or not isinstance(matrix, Sequence) or not matrix:
        raise NclueError("expected a non-empty square matrix of counts")
    k = len(matrix)
    rows = []
    for i, row in enumerate(matrix):
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or len(row) != k:
            raise NclueError(f"matrix row {i} must have {k} entries (square matrix)")
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise NclueError(f"matrix row {i}: counts must be integers >= 0, got {value!r}")
        rows.append(list(row))
    if sum(map(sum, rows)) == 0:
        raise NclueError("matrix has no items")
    return rows


def kappa_from_matrix(matrix: Sequence[Sequence[int]], weights: Optional[str] = None) -> float:
    """Cohen's kappa from a square confusion matrix (rows: rater a, columns: rater b).

    ``weights=None``: unweighted (Cohen 1960), ``(p_o - p_e) / (1 - p_e)``.
    ``"linear"`` / ``"quadratic"``: weighted kappa (Cohen 1968) with agreement weights
    ``w_ij = 1 - |i-j|/(K-1)`` or ``1 - (i-j)^2/(K-1)^2`` over the ordered categories; kappa is
    ``(p_o,w - p_e,w) / (1 - p_e,w)`` with ``p_o,w = sum w_ij o_ij`` and ``p_e,w = sum w_ij r_i c_j``.
    Undefined (refused) when chance agreement is 1.
    """
    rows = _check_matrix(matrix)
    k = len(rows)
    n = sum(map(sum, rows))
    if weights is None:
        def w(i: int, j: int) -> float:
            return 1.0 if i == j else 0.0
    elif weights in ("linear", "quadratic"):
        if k < 2:
            raise NclueError("weighted kappa needs at least two ordered categories")
        power = 1 if weights == "linear" else 2

        def w(i: int, j: int) -> float:
            return 1.0 - (abs(i - j) / (k - 1)) ** power
    else:
        raise NclueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    row_tot = [sum(r) for r in rows]
    col_tot = [sum(rows[i][j] for i in range(k)) for j in range(k)]
    p_o = math.fsum(w(i, j) * rows[i][j] for i in range(k) for j in range(k)) / n
    p_e = math.fsum(w(i, j) * row_tot[i] * col_tot[j] for i in range(k) for j in range(k)) / (n * n)
    if p_e >= 1 - 1e-15:
        raise NclueError("kappa is undefined: chance agreement is 1 (a single category is used)")
    return (p_o - p_e) / (1 - p_e)


def cohen_kappa(a: Labels, b: Labels, categories: Optional[Sequence[Hashable]] = None,
                weights: Optional[str] = None) -> float:
    """Cohen's kappa of two raters' labels (binary/nominal; or weighted over ordered categories).

    For ``weights`` the category order is ``categories`` (default: sorted labels, which suits
    integer grades 0 < 1 < 2 < 3).
    """
    _, matrix = confusion_matrix(a, b, categories)
    return kappa_from_matrix(matrix, weights)


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' (1971) kappa from an items x categories table of rating counts.

    Every row must sum to the same number of raters m >= 2. ``P_i = (sum_j n_ij^2 - m) /
    (m (m - 1))``, ``P_bar`` their mean, ``p_j`` the category shares of all ratings,
    ``P_e = sum_j p_j^2``; kappa ``= (P_bar - P_e) / (1 - P_e)`` (undefined when P_e = 1).
    """
    if isinstance(table, (str, bytes)) or not isinstance(table, Sequence) or not table:
        raise NclueError("fleiss_kappa: expected a non-empty items x categories table")
    width = None
    raters = None
    for i, row in enumerate(table):
        if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or not row:
            raise NclueError(f"fleiss_kappa: row {i} must be a non-empty sequence of counts")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise NclueError(f"fleiss_kappa: row {i} has {len(row)} categories, expected {width}")
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise NclueError(f"fleiss_kappa: row {i}: counts must be integers >= 0")
        total = sum(row)
        if raters is None:
            raters = total
        elif total != raters:
            raise NclueError(f"fleiss_kappa: row {i} has {total} ratings, expected {raters} "
                             "(the same number of raters for every item)")
    if raters < 2:
        raise NclueError("fleiss_kappa: needs at least two ratings per item")
    n_items = len(table)
    m = raters
    p_bar = math.fsum((sum(x * x for x in row) - m) / (m * (m - 1)) for row in table) / n_items
    shares = [sum(row[j] for row in table) / (n_items * m) for j in range(width)]
    p_e = math.fsum(p * p for p in shares)
    if p_e >= 1 - 1e-15:
        raise NclueError("fleiss_kappa is undefined: every rating falls in one category")
    return (p_bar - p_e) / (1 - p_e)


# --------------------------------------------------------------------------------------------
# Rank correlation
# --------------------------------------------------------------------------------------------

def average_ranks(values: Sequence[float]) -> List[float]:
    """1-based ranks, ascending, with tied values sharing the mean of their positions."""
    vals = _numbers(values, "values")
    order = sorted(range(len(vals)), key=lambda i: vals[i])
    ranks = [0.0] * len(vals)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and vals[order[j + 1]] == vals[order[i]]:
            j += 1
        mean_rank = (i + j) / 2 + 1
        for t in range(i, j + 1):
            ranks[order[t]] = mean_rank
        i = j + 1
    return ranks


def _numbers(values: Any, name: str) -> List[float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise NclueError(f"{name}: expected a sequence of numbers")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise NclueError(f"{name}: expected finite numbers, got {v!r}")
        out.append(v)
    return out


def spearman_rho(x: Union[Mapping[Hashable, float], Sequence[float]],
                 y: Union[Mapping[Hashable, float], Sequence[float]]) -> float:
    """Spearman's rho: Pearson correlation of average ranks (ties share their mean rank).

    Mappings (e.g. system -> score before and after a qrel repair) must have identical keys.
    Refused for fewer than two items or when either side is constant (rho undefined).
    """
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        if x.keys() != y.keys():
            raise NclueError("spearman_rho: the two mappings have different keys")
        keys = sorted(x, key=_sort_key)
        xs, ys = [x[k] for k in keys], [y[k] for k in keys]
    elif isinstance(x, Mapping) or isinstance(y, Mapping):
        raise NclueError("spearman_rho: pass two mappings or two sequences, not one of each")
    else:
        xs, ys = _numbers(x, "x"), _numbers(y, "y")
        if len(xs) != len(ys):
            raise NclueError(f"spearman_rho: sequences differ in length: {len(xs)} vs {len(ys)}")
    if len(xs) < 2:
        raise NclueError("spearman_rho: needs at least two items")
    rx, ry = average_ranks(xs), average_ranks(ys)
    n = len(rx)
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = math.fsum((a - mx) ** 2 for a in rx)
    syy = math.fsum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        raise NclueError("spearman_rho is undefined: one side has all values tied")
    return sxy / math.sqrt(sxx * syy)


__all__ = [
    "Agreement", "Transitions", "average_ranks", "cohen_kappa", "confusion_matrix",
    "fleiss_kappa", "kappa_from_matrix", "percent_agreement", "spearman_rho",
    "transition_matrix", "wilson_interval",
]
