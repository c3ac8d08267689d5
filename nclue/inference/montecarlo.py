"""Monte Carlo error of randomization p-values and percentile-bootstrap bounds, and fragility.

A randomization p-value from B random draws, ``p = (1 + hits) / (1 + B)``, estimates the exact
p-value (the share of all sign vectors at least as extreme); its Monte Carlo standard error is
the binomial ``sqrt(p (1 - p) / B)`` (e.g. Davison & Hinkley 1997, sec. 4.2.5).

A percentile-bootstrap bound is the type-7 ``q`` quantile of B replicate statistics. Its Monte
Carlo standard error is the asymptotic SE of a sample quantile (e.g. Serfling 1980, sec. 2.3.3;
Hall 1992, sec. 3.2), ``sqrt(q (1 - q) / B) / f(x_q)``, with the replicates' density at the bound
estimated from a normal with their standard deviation ``s``: ``f(x_q) = phi(z_q) / s``, so

    SE(q) = s * sqrt(q (1 - q) / B) / phi(z_q),   z_q = Phi^-1(q)

(``normal scale``; 0.0845 s at B = 1,000 and q = .025 or .975, 0.0668 s at q = .05 or .95). It
uses every replicate, so it barely varies between seeds; estimators that read the density from a
few order statistics near the bound (the binomial order-statistic spacing used before,
Maritz-Jarrett, batch means) are right on average, but one seed's value is off by up to a factor
of about 2 at B = 1,000. Checked against the real spread of 34 report bounds over 100 seeds
(``bench/mc_error_check.py``, ``bench/results/mc_error_v1.md``; docs/inference.md, "Monte Carlo
error of a bound, and the bound that decides").

One exception: when the replicates are discrete and the bound sits on an atom that holds every
quantile within three binomial SDs of q (the type-7 quantiles at ``q -/+ 3 sqrt(q (1 - q) / B)``
are equal), the bound is that atom at almost every seed (the number of replicates below the atom
is binomial, more than 3 SD away from ``q B``), so its SE is 0 (small releases: a bound of exactly
0 from the 0/1 outcomes of a few families).

A verdict depends on one bound: the bound nearest a point where the verdict would change (0 for
a directional verdict on the 95% interval; -m and +m for an equivalence verdict on the 90%
interval, margin m), nearest in its own Monte Carlo SEs (:func:`deciding_bound`). The verdict is
*fragile* when that bound lies within two SE of its decision point, and the tables print that
bound's SE. A p-value verdict is fragile when ``|p - alpha| < 2 SE(p)``. Randomness follows
:mod:`nclue.inference` (the same draws as the reported numbers).
"""

import math
import statistics
from dataclasses import dataclass
from typing import Dict, Hashable, List, Mapping, Sequence, Tuple, Union

from ..errors import NclueError
from .resampling import Resampler, _as_vector, _paired, percentile

Number = Union[int, float]
_NORMAL = statistics.NormalDist()
#: A bound is on an atom when every quantile within this many binomial SDs of q is the same value.
ATOM_REACH = 3.0


def p_value_se(p: float, draws: int) -> float:
    """Binomial Monte Carlo standard error of a randomization p-value from ``draws`` draws."""
    if not 0 <= p <= 1 or draws < 1:
        raise NclueError(f"p_value_se: needs 0 <= p <= 1 and draws >= 1, got {p!r}, {draws!r}")
    return math.sqrt(p * (1.0 - p) / draws)


def replicate_sd(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1) of replicate statistics, from correctly rounded sums."""
    n = len(values)
    if n < 2:
        raise NclueError("replicate_sd: needs at least two replicates")
    mean = math.fsum(values) / n
    return math.sqrt(math.fsum((v - mean) * (v - mean) for v in values) / (n - 1))


def quantile_se(sorted_stats: Sequence[float], q: float) -> float:
    """Monte Carlo SE of the type-7 ``q`` quantile of B replicate statistics ``sorted_stats``:
    ``s sqrt(q (1 - q) / B) / phi(z_q)`` with ``s`` their standard deviation, or 0 when the bound
    sits on an atom of the replicates (module docstring). Only the values matter, not their
    order; 0 when every replicate is equal."""
    b = len(sorted_stats)
    if b < 2:
        raise NclueError("quantile_se: needs at least two replicates")
    if not 0 < q < 1:
        raise NclueError(f"quantile_se: needs 0 < q < 1, got {q!r}")
    reach = ATOM_REACH * math.sqrt(q * (1.0 - q) / b)
    if percentile(sorted_stats, max(0.0, q - reach)) == percentile(sorted_stats, min(1.0, q + reach)):
        return 0.0  # the bound sits on an atom of the replicates (module docstring)
    z = _NORMAL.inv_cdf(q)
    return replicate_sd(sorted_stats) * math.sqrt(q * (1.0 - q) / b) / _NORMAL.pdf(z)


@dataclass(frozen=True)
class Deciding:
    """The bound a verdict depends on (:func:`deciding_bound`): which one (``side``), its value,
    its Monte Carlo SE, its distance to the nearest decision point in SEs, and whether that
    distance is below two (the verdict is fragile)."""

    side: str
    bound: float
    se: float
    distance: float
    fragile: bool


def deciding_bound(bounds: Sequence[Tuple[str, float, float]],
                   points: Sequence[float]) -> Deciding:
    """Of the ``(side, bound, se)`` candidates, the bound nearest one of the decision ``points``
    measured in its own SEs (``|bound - point| / se``; a bound with SE 0 cannot move and is
    infinitely far; ties: the earlier candidate). Fragile when that distance is below 2, i.e.
    ``|bound - point| < 2 se``."""
    if not bounds or not points:
        raise NclueError("deciding_bound: needs at least one bound and one decision point")
    best = None
    for side, bound, se in bounds:
        gap = min(abs(bound - p) for p in points)
        distance = gap / se if se > 0 else math.inf
        if best is None or distance < best.distance:
            best = Deciding(side, bound, se, distance, distance < 2.0)
    return best


def directional_decision(lo: float, hi: float, se_lo: float, se_hi: float) -> Deciding:
    """The deciding bound of "the interval [lo, hi] excludes zero" (decision point 0)."""
    return deciding_bound((("lo", lo, se_lo), ("hi", hi, se_hi)), (0.0,))


def equivalence_decision(lo90: float, hi90: float, se_lo90: float, se_hi90: float,
                         margin: float) -> Deciding:
    """The deciding bound of a two-one-sided-tests verdict on the 90% interval: its verdict
    (inside (-m, m), outside [-m, m], or neither) changes where a bound crosses -m or +m."""
    return deciding_bound((("lo90", lo90, se_lo90), ("hi90", hi90, se_hi90)), (-margin, margin))


def bootstrap_distribution(resampler: Resampler, values: Mapping[Hashable, Number],
                           replicates: int) -> List[float]:
    """The sorted replicate means of :meth:`Resampler.bootstrap` (same draws, same numbers)."""
    stats = resampler.replicate_means(_as_vector(values, "values"), replicates)
    stats.sort()
    return stats


@dataclass(frozen=True)
class BoundsError:
    """A percentile interval (``lo``, ``hi``) with the Monte Carlo SE of each bound."""

    lo: float
    hi: float
    se_lo: float
    se_hi: float
    fragile: bool
    #: the Monte Carlo SE of the bound that decides "excludes zero" (:func:`directional_decision`)
    se: float


def paired_bounds_error(resampler: Resampler, base: Mapping[Hashable, Number],
                        variant: Mapping[Hashable, Number], replicates: int,
                        level: float) -> BoundsError:
    """The paired family-bootstrap interval of ``mean(variant - base)`` and its bounds' SEs."""
    stats = bootstrap_distribution(resampler, _paired(base, variant), replicates)
    return bounds_error(stats, level)


def bounds_error(sorted_stats: Sequence[float], level: float) -> BoundsError:
    """The ``level`` percentile interval of sorted replicates with its bounds' Monte Carlo SEs."""
    alpha = (1.0 - level) / 2.0
    lo, hi = percentile(sorted_stats, alpha), percentile(sorted_stats, 1.0 - alpha)
    se_lo, se_hi = quantile_se(sorted_stats, alpha), quantile_se(sorted_stats, 1.0 - alpha)
    decision = directional_decision(lo, hi, se_lo, se_hi)
    return BoundsError(lo, hi, se_lo, se_hi, decision.fragile, decision.se)


def interval_fragile(lo: float, hi: float, se_lo: float, se_hi: float) -> bool:
    """Whether "the interval excludes zero" could flip: the bound nearest 0 in its own SEs lies
    within two SE of 0 (:func:`directional_decision`)."""
    return directional_decision(lo, hi, se_lo, se_hi).fragile


def p_fragile(p: float, draws: int, alpha: float = 0.05) -> bool:
    """Whether "p <= alpha" could flip within two Monte Carlo SE of ``p``."""
    return abs(p - alpha) < 2.0 * p_value_se(p, draws)


def fragile_flags(values: Dict[str, bool]) -> float:
    """1.0 when any flag is set (a table cell), else 0.0."""
    return 1.0 if any(values.values()) else 0.0


def holm_with_terms(pvalues: Mapping[Hashable, float]) -> Dict[Hashable, Tuple[float, Hashable, int]]:
    """Holm step-down (as :func:`nclue.inference.holm`), with, per name, the (name, multiplier)
    of the term ``multiplier * p`` that sets its adjusted value (before capping at 1)."""
    order = sorted(pvalues, key=lambda n: (pvalues[n], str(n)))
    m = len(order)
    out = {}
    running, source = 0.0, (order[0], m)
    for i, name in enumerate(order):
        term = min(1.0, (m - i) * pvalues[name])
        if term > running:
            running, source = term, (name, m - i)
        out[name] = (running, source[0], source[1])
    return out
