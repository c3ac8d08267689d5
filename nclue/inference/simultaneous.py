"""Simultaneous (max-|T|) intervals for the endpoints of a selection block.

The n-Clue paper (arXiv 2607.24165, sec. 3.4, Table 5, supplement 2) displays, per controlled
block, the endpoint with the best n-Clue Score and adjusts its p-value by max-|T| over every
tried endpoint. A plain 95% interval of the displayed endpoint ignores that selection; the
interval here does not.

For endpoint j with per-family difference sums ``D_fj`` (of the per-query vectors), observed
sum ``S_j = sum_f D_fj``, sign-flip null SD ``s_j = sqrt(sum_f D_fj**2)`` and ``N`` queries, the
randomization distribution of the block maximum ``M* = max_j |sum_f e_f D_fj| / s_j`` (the same
family signs ``e_f`` for every endpoint, as :meth:`Resampler.max_t_block`) gives the critical
value ``c``: the smallest draw value with at least ``level`` of the draws at or below it (the
type-1 quantile; ``ceil(level * B)``-th smallest of ``B`` draws). The simultaneous interval is
``(S_j -/+ c s_j) / N``: it covers every endpoint's mean difference at once with probability
``level`` under the sign-flip reference distribution (the max-|T| analogue of the normal
interval ``delta -/+ z s / N``; with one endpoint ``c`` is the ``|T*|`` quantile). Endpoints with
``s_j = 0`` (no query differs) get the degenerate interval ``[delta, delta]`` and are left out of
the maximum.
"""

import math
from dataclasses import dataclass
from typing import Dict, Hashable, Mapping, Tuple

from ..errors import NclueError
from .resampling import (DEFAULT_DRAWS, DEFAULT_LEVEL, Resampler, Vector, _byte_tables, _GETITEM,
                         _paired, _sort_key)


@dataclass(frozen=True)
class SimultaneousInterval:
    """One endpoint's mean difference and its simultaneous interval; ``critical`` is ``c``."""

    delta: float
    lo: float
    hi: float
    critical: float
    draws: int


def block_intervals(resampler: Resampler, contrasts: Mapping[Hashable, Tuple[Vector, Vector]], *,
                    draws: int = DEFAULT_DRAWS, level: float = DEFAULT_LEVEL,
                    exact: bool = False) -> Dict[Hashable, SimultaneousInterval]:
    """Simultaneous intervals for every endpoint of one block (module docstring)."""
    if not isinstance(contrasts, Mapping) or not contrasts:
        raise NclueError("block_intervals: expected a non-empty mapping name -> (base, variant)")
    if not 0 < level < 1:
        raise NclueError(f"confidence level must be strictly between 0 and 1, got {level!r}")
    names = sorted(contrasts, key=_sort_key)
    sums, n_queries = [], []
    for name in names:
        base, variant = contrasts[name]
        diff = _paired(base, variant)
        sums.append(resampler.family_sums(diff))
        n_queries.append(len(diff))
    totals = [math.fsum(s) for s in sums]
    scales = [math.sqrt(math.fsum(v * v for v in s)) for s in sums]
    tables = [_byte_tables(s) for s in sums]
    signs = resampler._all_signs() if exact else resampler.sign_draws(draws)
    maxima = []
    for vector in signs:
        best = 0.0
        for k in range(len(names)):
            if not scales[k]:
                continue
            t = abs(totals[k] - 2 * sum(map(_GETITEM, tables[k], vector))) / scales[k]
            if t > best:
                best = t
        maxima.append(best)
    maxima.sort()
    b = len(maxima)
    critical = maxima[max(0, math.ceil(level * b - 1e-12) - 1)]
    out = {}
    for k, name in enumerate(names):
        n = n_queries[k]
        delta = totals[k] / n
        half = critical * scales[k] / n
        out[name] = SimultaneousInterval(delta, delta - half, delta + half, critical, b)
    return out


@dataclass(frozen=True)
class BlockAnalysis:
    """One endpoint: its own sign-flip p, its max-|T| block p (both exactly those of
    :meth:`Resampler.max_t_block` with ``standardize=True``) and its simultaneous interval."""

    delta: float
    p_raw: float
    p_block: float
    interval: SimultaneousInterval


def block_analysis(resampler: Resampler, contrasts: Mapping[Hashable, Tuple[Vector, Vector]], *,
                   draws: int = DEFAULT_DRAWS, level: float = DEFAULT_LEVEL
                   ) -> Dict[Hashable, BlockAnalysis]:
    """p-values and simultaneous intervals of one block from one pass over the sign draws.

    With integer outcomes (0/1 scores) the comparisons are exact integer comparisons of
    ``T**2`` scaled by the lcm of the endpoints' null variances, as in
    :meth:`Resampler.max_t_block`; the critical value is then ``sqrt(max / lcm)``.
    """
    if not isinstance(contrasts, Mapping) or not contrasts:
        raise NclueError("block_analysis: expected a non-empty mapping name -> (base, variant)")
    if not 0 < level < 1:
        raise NclueError(f"confidence level must be strictly between 0 and 1, got {level!r}")
    names = sorted(contrasts, key=_sort_key)
    sums, n_queries = [], []
    for name in names:
        base, variant = contrasts[name]
        diff = _paired(base, variant)
        sums.append(resampler.family_sums(diff))
        n_queries.append(len(diff))
    integral = all(isinstance(v, int) for s in sums for v in s)
    if not integral:
        return _float_block(resampler, names, contrasts, draws, level)
    totals = [sum(s) for s in sums]
    variances = [sum(v * v for v in s) for s in sums]
    tables = [_byte_tables(s) for s in sums]
    lcm = 1
    for v in variances:
        if v:
            lcm = lcm * v // math.gcd(lcm, v)
    weights = [lcm // v if v else 0 for v in variances]
    observed = [t * t * w for t, w in zip(totals, weights)]
    m = len(names)
    raw_hits = [0] * m
    maxima = []
    for vector in resampler.sign_draws(draws):
        best = 0
        for k in range(m):
            t = totals[k] - 2 * sum(map(_GETITEM, tables[k], vector))
            s = t * t * weights[k]
            if s >= observed[k]:
                raw_hits[k] += 1
            if s > best:
                best = s
        maxima.append(best)
    maxima.sort()
    b = len(maxima)
    critical = math.sqrt(maxima[max(0, math.ceil(level * b - 1e-12) - 1)] / lcm)
    out = {}
    for k, name in enumerate(names):
        hits = b - _bisect_left(maxima, observed[k])
        n = n_queries[k]
        delta = totals[k] / n
        half = critical * math.sqrt(variances[k]) / n
        out[name] = BlockAnalysis(delta, (1 + raw_hits[k]) / (1 + b), (1 + hits) / (1 + b),
                                  SimultaneousInterval(delta, delta - half, delta + half,
                                                       critical, b))
    return out


def _bisect_left(values, x) -> int:
    from bisect import bisect_left
    return bisect_left(values, x)


def _float_block(resampler, names, contrasts, draws, level):
    tested = resampler.max_t_block({n: contrasts[n] for n in names}, draws=draws)
    intervals = block_intervals(resampler, {n: contrasts[n] for n in names}, draws=draws,
                                level=level)
    return {n: BlockAnalysis(tested[n].delta, tested[n].p_raw, tested[n].p_adjusted, intervals[n])
            for n in names}
