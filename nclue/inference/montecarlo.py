"""Monte Carlo error of randomization p-values and percentile-bootstrap bounds, and fragility.

A randomization p-value from B random draws, ``p = (1 + hits) / (1 + B)``, estimates the exact
p-value (the share of all sign vectors at least as extreme); its Monte Carlo standard error is
the binomial ``sqrt(p (1 - p) / B)`` (e.g. Davison & Hinkley 1997, sec. 4.2.5).

A percentile-bootstrap bound is a sample quantile of B replicate statistics. Its Monte Carlo
standard error is estimated without a density by the binomial order-statistic method: the
number of replicates below the true q-quantile is Binomial(B, q), so the bound is as uncertain
as the order statistics ``B q -/+ sqrt(B q (1 - q))`` apart; the SE is half the distance
between the type-7 quantiles at ``q -/+ sqrt(q (1 - q) / B)`` (Hall 1992, sec. 3.2; the
Maritz-Jarrett idea with a normal approximation).

A verdict is *fragile* when it could flip within two Monte Carlo standard errors: a p-value
with ``|p - alpha| < 2 SE(p)``, or an interval whose bound nearest zero has
``|bound| < 2 SE(bound)`` (zero lies within two SE of the bound). Randomness follows
:mod:`nclue.inference` (the same draws as the reported numbers).
"""

import math
from dataclasses import dataclass
from typing import Dict, Hashable, List, Mapping, Sequence, Tuple, Union

from ..errors import NclueError
from .resampling import Resampler, _as_vector, _paired, percentile

Number = Union[int, float]


def p_value_se(p: float, draws: int) -> float:
    """Binomial Monte Carlo standard error of a randomization p-value from ``draws`` draws."""
    if not 0 <= p <= 1 or draws < 1:
        raise NclueError(f"p_value_se: needs 0 <= p <= 1 and draws >= 1, got {p!r}, {draws!r}")
    return math.sqrt(p * (1.0 - p) / draws)


def quantile_se(sorted_stats: Sequence[float], q: float) -> float:
    """Monte Carlo SE of the type-7 ``q`` quantile of ``sorted_stats`` (module docstring)."""
    b = len(sorted_stats)
    if b < 2:
        raise NclueError("quantile_se: needs at least two replicates")
    half = math.sqrt(q * (1.0 - q) / b)
    lo = percentile(sorted_stats, max(0.0, q - half))
    hi = percentile(sorted_stats, min(1.0, q + half))
    return (hi - lo) / 2.0


def bootstrap_distribution(resampler: Resampler, values: Mapping[Hashable, Number],
                           replicates: int) -> List[float]:
    """The sorted replicate means of :meth:`Resampler.bootstrap` (same draws, same numbers)."""
    vec = _as_vector(values, "values")
    sums = resampler.family_sums(vec)
    getter = sums.__getitem__
    add = sum if all(isinstance(v, int) for v in sums) else math.fsum
    stats = [add(map(getter, idx)) / den
             for idx, den in zip(resampler.bootstrap_draws(replicates),
                                 resampler._bootstrap_sizes(replicates))]
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


def paired_bounds_error(resampler: Resampler, base: Mapping[Hashable, Number],
                        variant: Mapping[Hashable, Number], replicates: int,
                        level: float) -> BoundsError:
    """The paired family-bootstrap interval of ``mean(variant - base)`` and its bounds' SEs."""
    stats = bootstrap_distribution(resampler, _paired(base, variant), replicates)
    alpha = (1.0 - level) / 2.0
    lo, hi = percentile(stats, alpha), percentile(stats, 1.0 - alpha)
    se_lo, se_hi = quantile_se(stats, alpha), quantile_se(stats, 1.0 - alpha)
    return BoundsError(lo, hi, se_lo, se_hi, interval_fragile(lo, hi, se_lo, se_hi))


def interval_fragile(lo: float, hi: float, se_lo: float, se_hi: float) -> bool:
    """Whether "the interval excludes zero" could flip within two SE of the bound nearest 0."""
    if lo > 0:
        return lo < 2.0 * se_lo
    if hi < 0:
        return -hi < 2.0 * se_hi
    # covers zero: it would flip if either bound could cross zero
    return -lo < 2.0 * se_lo or hi < 2.0 * se_hi


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
