"""Uncertainty, significance and sensitivity for paired retrieval comparisons.

Implements the inference of the n-Clue paper (arXiv 2607.24165):
sec. 3.4 and Table 5 (family-clustered bootstrap intervals, family sign-flip randomization,
blockwise max-|T| selection adjustment followed by Holm across blocks), supplement sec. 3-4
(Tables S1e-S1i: common-support ordering, miss/subset-first/gold-first decomposition,
crossed query/document weighting, leave-one-document ranges, removal of the highest-degree
documents, connected components of the membership graph, adversarial promotion bounds) and
sec. 8 (Table S4: query-paired permutation tests).

Everything works on *per-query outcome vectors*: a mapping ``qid -> number`` (or an aligned
sequence, whose positions then act as query ids), e.g. the 0/1 n-Clue Score@10 of each query
from :func:`nclue.metrics.per_query`. Rankings are never re-scored inside a resampling loop:
each analysis first reduces the vectors to per-family (or per-query) sums, and the replicates
only add precomputed numbers.

Randomness and reuse (recorded so that every number can be regenerated):

* Defaults are the paper's (supplement Table "Frozen setting"): seed 11, 1,000 bootstrap
  replicates, 10,000 randomization draws.
* Families are ordered by their id (sorted, :func:`_sort_key`); family ``i`` is that position.
* Bootstrap replicate ``r`` is ``random.Random(seed).choices(range(F), k=F)`` called ``r + 1``
  times: the family indices drawn with replacement. The draws depend only on
  ``(seed, F, replicates)``, so every contrast over the same family map sees the *same* resampled
  family multisets (common random numbers); a contrast analysed alone gives exactly the numbers
  it gets inside a batch (:class:`Resampler`).
* Randomization draw ``b`` is the ``b``-th ``random.Random(seed).getrandbits(F)``; family ``i`` is
  sign-flipped iff bit ``i`` is set. The same sign vectors are reused for every contrast over the
  same family map; this is *required* for max-|T| (the joint null distribution of a block) and
  harmless elsewhere.
* Two-sided randomization p-values use the +1 correction (the observed assignment counts as one
  draw): ``p = (1 + #{b : |T*_b| >= |T_obs|}) / (1 + B)``, so ``p >= 1/(1+B)`` and ``p`` is a valid
  (slightly conservative) Monte Carlo p-value. With ``exact=True`` all ``2**F`` sign vectors are
  enumerated instead and ``p = #{s : |T(s)| >= |T_obs|} / 2**F`` (no correction needed; refused
  above :data:`MAX_EXACT_UNITS` units).
* Ties: when every outcome is an integer (0/1 scores) all sums are Python ints and ``>=`` is exact.
  Otherwise floats are compared with a relative tolerance of 1e-9 of the statistic's scale so that
  rounding cannot break an exact tie.
* Percentile intervals use the linear-interpolation quantile (Hyndman-Fan type 7, the default of
  ``numpy.percentile`` and hence of ``scipy.stats.bootstrap(method="percentile")``).
"""

import math
import operator
import random
from bisect import bisect_left
from dataclasses import dataclass
from typing import (Any, Dict, FrozenSet, Hashable, Iterable, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from .errors import NclueError

DEFAULT_SEED = 11
DEFAULT_REPLICATES = 1000
DEFAULT_DRAWS = 10000
DEFAULT_LEVEL = 0.95
#: Largest number of resampling units for which ``exact=True`` enumerates all sign vectors.
MAX_EXACT_UNITS = 20
#: Relative tolerance for comparing non-integer statistics (exact ties must survive rounding).
FLOAT_TIE_TOLERANCE = 1e-9

Vector = Union[Mapping[Hashable, Any], Sequence[Any]]
Families = Union[Mapping[Hashable, Hashable], Sequence[Hashable]]

_GETITEM = list.__getitem__


# --------------------------------------------------------------------------------------------
# Input checking
# --------------------------------------------------------------------------------------------

def _sort_key(value: Hashable) -> Tuple[str, Any]:
    """Stable order for ids of possibly different types (type name first, then value)."""
    return (type(value).__name__, value)


def _number(value: Any, what: str) -> Union[int, float]:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NclueError(f"{what}: non-finite value {value!r}")
        return value
    raise NclueError(f"{what}: expected a number, got {type(value).__name__} {value!r}")


def _as_vector(values: Vector, name: str) -> Dict[Hashable, Union[int, float]]:
    """A mapping ``qid -> number``; a sequence is keyed by its positions 0..n-1."""
    if isinstance(values, Mapping):
        items = list(values.items())
    elif isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise NclueError(f"{name}: expected a mapping qid -> number or a sequence of numbers, "
                         f"got {type(values).__name__}")
    else:
        items = list(enumerate(values))
    if not items:
        raise NclueError(f"{name}: empty outcome vector")
    return {key: _number(value, f"{name}[{key!r}]") for key, value in items}


def _describe(keys: Iterable[Hashable], limit: int = 3) -> str:
    keys = sorted(keys, key=_sort_key)
    shown = ", ".join(repr(k) for k in keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _same_queries(first: Mapping, second: Mapping, names: Tuple[str, str]) -> None:
    if first.keys() == second.keys():
        return
    only_a = first.keys() - second.keys()
    only_b = second.keys() - first.keys()
    parts = []
    if only_a:
        parts.append(f"{len(only_a)} only in {names[0]} ({_describe(only_a)})")
    if only_b:
        parts.append(f"{len(only_b)} only in {names[1]} ({_describe(only_b)})")
    raise NclueError(f"mismatched query sets: {'; '.join(parts)}")


def _paired(base: Vector, variant: Vector) -> Dict[Hashable, Union[int, float]]:
    """Per-query differences ``variant - base`` over identical query sets."""
    a = _as_vector(base, "base")
    b = _as_vector(variant, "variant")
    _same_queries(a, b, ("base", "variant"))
    return {q: b[q] - a[q] for q in a}


def _family_of(families: Families, qids: Iterable[Hashable]) -> Dict[Hashable, Hashable]:
    """The family id of every query; every query must be mapped (extra entries are ignored)."""
    if isinstance(families, Mapping):
        lookup = families
    elif isinstance(families, (str, bytes)) or not isinstance(families, Sequence):
        raise NclueError("families: expected a mapping qid -> family id or a sequence aligned "
                         f"with the outcome vectors, got {type(families).__name__}")
    else:
        lookup = dict(enumerate(families))
    missing = [q for q in qids if q not in lookup]
    if missing:
        raise NclueError(f"family map is missing {len(missing)} queries ({_describe(missing)})")
    out = {}
    for q in qids:
        fam = lookup[q]
        if fam is None:
            raise NclueError(f"family map gives no family (None) for query {q!r}")
        try:
            hash(fam)
        except TypeError:
            raise NclueError(f"family id for query {q!r} is not hashable: {fam!r}") from None
        out[q] = fam
    return out


def _positive_int(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise NclueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise NclueError(f"confidence level must be strictly between 0 and 1, got {level!r}")
    return float(level)


def _integral(values: Iterable[Union[int, float]]) -> bool:
    return all(isinstance(v, int) or (v.is_integer() and abs(v) < 2 ** 53) for v in values)


def _mean(values: Iterable[Union[int, float]]) -> float:
    values = list(values)
    if _integral(values):
        return sum(int(v) for v in values) / len(values)
    return math.fsum(values) / len(values)


# --------------------------------------------------------------------------------------------
# Quantiles and Holm
# --------------------------------------------------------------------------------------------

def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (Hyndman & Fan 1996 type 7) of already sorted values."""
    n = len(sorted_values)
    if n == 0:
        raise NclueError("percentile of an empty list")
    if not 0 <= q <= 1:
        raise NclueError(f"quantile must be in [0, 1], got {q!r}")
    h = (n - 1) * q
    lo = math.floor(h)
    if lo + 1 >= n:
        return float(sorted_values[-1])
    frac = h - lo
    return sorted_values[lo] + frac * (sorted_values[lo + 1] - sorted_values[lo])


def holm(pvalues: Mapping[Hashable, float]) -> Dict[Hashable, float]:
    """Holm (1979) step-down adjustment across blocks (n-Clue paper, sec. 3.4 and Table 5).

    Sort the m p-values ascending (ties by name); the i-th smallest (i = 1..m) becomes
    ``min(1, max_{j <= i} (m - j + 1) * p_(j))``.
    """
    if not isinstance(pvalues, Mapping) or not pvalues:
        raise NclueError("holm: expected a non-empty mapping name -> p-value")
    for name, p in pvalues.items():
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise NclueError(f"holm: p-value for {name!r} must be in [0, 1], got {p!r}")
    order = sorted(pvalues, key=lambda name: (pvalues[name], _sort_key(name)))
    m = len(order)
    out: Dict[Hashable, float] = {}
    running = 0.0
    for i, name in enumerate(order):
        running = max(running, min(1.0, (m - i) * pvalues[name]))
        out[name] = running
    return out


# --------------------------------------------------------------------------------------------
# Families and the shared random draws
# --------------------------------------------------------------------------------------------

def _byte_tables(sums: Sequence[Union[int, float]]) -> List[list]:
    """For each block of 8 units, the sum of the units selected by every byte value 0..255."""
    tables = []
    zero = 0 if all(isinstance(v, int) for v in sums) else 0.0
    for start in range(0, len(sums), 8):
        chunk = list(sums[start:start + 8])
        chunk += [zero] * (8 - len(chunk))
        table = [zero] * 256
        for byte in range(1, 256):
            low = byte & -byte
            table[byte] = table[byte ^ low] + chunk[low.bit_length() - 1]
        tables.append(table)
    return tables


class _AllSigns:
    """The 2**F sign vectors of F units as little-endian bytes (a sized, re-iterable view)."""

    def __init__(self, units: int) -> None:
        self.units = units
        self.nbytes = (units + 7) // 8

    def __len__(self) -> int:
        return 2 ** self.units

    def __iter__(self):
        nbytes = self.nbytes
        return (bits.to_bytes(nbytes, "little") for bits in range(2 ** self.units))


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval: ``estimate`` is the statistic on the observed data."""

    estimate: float
    lo: float
    hi: float
    level: float
    replicates: int
    units: int


@dataclass(frozen=True)
class FlipTest:
    """A paired sign-flip randomization test of ``mean(variant - base) = 0`` (two-sided).

    ``delta`` is the observed mean difference, ``statistic`` the observed sum of differences,
    ``units`` the number of exchangeable units (families or queries), ``draws`` the number of
    random sign vectors (``2**units`` when ``exact``).
    """

    delta: float
    statistic: float
    p: float
    draws: int
    units: int
    queries: int
    exact: bool


@dataclass(frozen=True)
class BlockEndpoint:
    """One endpoint of a max-|T| block: its own randomization p and its block-adjusted p."""

    delta: float
    t: float
    p_raw: float
    p_adjusted: float


class Resampler:
    """Family structure of one query set plus lazily generated, cached random draws.

    ``families`` maps every query to its family (e.g. :func:`nclue.release.gold_families`:
    queries with identical gold-document sets). Analyses that share a Resampler share its draws
    (see the module docstring); results are identical to running each analysis alone.
    """

    def __init__(self, qids: Iterable[Hashable], families: Families, *,
                 seed: int = DEFAULT_SEED) -> None:
        qids = sorted(set(qids), key=_sort_key)
        if not qids:
            raise NclueError("no queries to resample")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise NclueError(f"seed must be an integer, got {seed!r}")
        fam_of = _family_of(families, qids)
        self.seed = seed
        self.qids: Tuple[Hashable, ...] = tuple(qids)
        self.family_ids: Tuple[Hashable, ...] = tuple(sorted(set(fam_of.values()), key=_sort_key))
        index = {fam: i for i, fam in enumerate(self.family_ids)}
        members: List[List[Hashable]] = [[] for _ in self.family_ids]
        for q in qids:
            members[index[fam_of[q]]].append(q)
        self.members: Tuple[Tuple[Hashable, ...], ...] = tuple(tuple(m) for m in members)
        self.sizes: List[int] = [len(m) for m in members]
        self._bootstrap: Dict[int, List[List[int]]] = {}
        self._denominators: Dict[int, List[int]] = {}
        self._signs: Dict[int, List[bytes]] = {}

    @property
    def n_families(self) -> int:
        return len(self.family_ids)

    # -- reductions ----------------------------------------------------------------------
    def family_sums(self, values: Mapping[Hashable, Union[int, float]]) -> list:
        """Per-family sums (Python ints when every value is an integer, else exact fsums)."""
        if values.keys() != set(self.qids):
            _same_queries(dict.fromkeys(self.qids), values, ("the family design", "the vector"))
        if _integral(values.values()):
            return [sum(int(values[q]) for q in fam) for fam in self.members]
        return [math.fsum(values[q] for q in fam) for fam in self.members]

    # -- draws ---------------------------------------------------------------------------
    def bootstrap_draws(self, replicates: int) -> List[List[int]]:
        """Family indices of each replicate: ``Random(seed).choices(range(F), k=F)`` repeatedly."""
        replicates = _positive_int(replicates, "replicates")
        if replicates not in self._bootstrap:
            rng = random.Random(self.seed)
            population = range(self.n_families)
            k = self.n_families
            self._bootstrap[replicates] = [rng.choices(population, k=k) for _ in range(replicates)]
        return self._bootstrap[replicates]

    def _bootstrap_sizes(self, replicates: int) -> List[int]:
        """Number of queries in each replicate (shared by every contrast; cached)."""
        if replicates not in self._denominators:
            sizes = self.sizes
            self._denominators[replicates] = [sum(map(sizes.__getitem__, idx))
                                              for idx in self.bootstrap_draws(replicates)]
        return self._denominators[replicates]

    def sign_draws(self, draws: int) -> List[bytes]:
        """Sign vectors as little-endian bytes of ``Random(seed).getrandbits(F)``; bit i = flip i."""
        draws = _positive_int(draws, "draws")
        if draws not in self._signs:
            rng = random.Random(self.seed)
            f = self.n_families
            nbytes = (f + 7) // 8
            self._signs[draws] = [rng.getrandbits(f).to_bytes(nbytes, "little")
                                  for _ in range(draws)]
        return self._signs[draws]

    def _all_signs(self) -> "_AllSigns":
        """Every sign vector (as bytes), generated lazily: 2**F of them."""
        f = self.n_families
        if f > MAX_EXACT_UNITS:
            raise NclueError(f"exact enumeration of 2**{f} sign vectors refused "
                             f"(at most {MAX_EXACT_UNITS} units); use Monte Carlo draws")
        return _AllSigns(f)

    # -- analyses ------------------------------------------------------------------------
    def bootstrap(self, values: Vector, *, replicates: int = DEFAULT_REPLICATES,
                  level: float = DEFAULT_LEVEL) -> Interval:
        """Family-clustered percentile bootstrap of the mean outcome (n-Clue paper, sec. 3.4).

        Each replicate draws F families with replacement; the statistic is the mean over all
        queries of the drawn families (sum of drawn family sums / sum of drawn family sizes),
        i.e. whole families are resampled as units. The interval is the (1-level)/2 and
        (1+level)/2 type-7 quantiles of the replicate statistics.
        """
        vec = _as_vector(values, "values")
        level = _level(level)
        sums = self.family_sums(vec)
        getter = sums.__getitem__
        # integer sums are exact with sum(); float sums use fsum (correctly rounded, so the
        # same on every Python: 3.12 changed sum() of floats)
        add = sum if all(isinstance(v, int) for v in sums) else math.fsum
        stats = [add(map(getter, idx)) / den
                 for idx, den in zip(self.bootstrap_draws(replicates),
                                     self._bootstrap_sizes(replicates))]
        stats.sort()
        alpha = (1 - level) / 2
        return Interval(estimate=_mean(vec.values()), lo=percentile(stats, alpha),
                        hi=percentile(stats, 1 - alpha), level=level, replicates=replicates,
                        units=self.n_families)

    def paired_bootstrap(self, base: Vector, variant: Vector, *,
                         replicates: int = DEFAULT_REPLICATES,
                         level: float = DEFAULT_LEVEL) -> Interval:
        """Family-clustered percentile bootstrap of ``mean(variant - base)`` (Table 5 CIs)."""
        return self.bootstrap(_paired(base, variant), replicates=replicates, level=level)

    def flip_test(self, base: Vector, variant: Vector, *, draws: int = DEFAULT_DRAWS,
                  exact: bool = False) -> FlipTest:
        """Paired randomization test flipping the sign of whole families (n-Clue paper, sec. 3.4).

        Statistic: ``T = sum_q (variant_q - base_q) = sum_f D_f``; under the null of exchangeable
        system labels within each family, ``T* = sum_f s_f D_f`` with independent signs ``s_f``.
        Two-sided p with the +1 correction (module docstring).
        """
        diff = _paired(base, variant)
        sums = self.family_sums(diff)
        tables = _byte_tables(sums)
        integral = all(isinstance(v, int) for v in sums)
        observed = sum(sums) if integral else math.fsum(sums)
        signs = self._all_signs() if exact else self.sign_draws(draws)
        threshold = abs(observed)
        if not integral:
            threshold -= FLOAT_TIE_TOLERANCE * max(1.0, math.fsum(abs(v) for v in sums))
        hits = 0
        for vector in signs:
            flipped = sum(map(_GETITEM, tables, vector))
            if abs(observed - 2 * flipped) >= threshold:
                hits += 1
        if exact:
            p = hits / len(signs)
        else:
            p = (1 + hits) / (1 + len(signs))
        return FlipTest(delta=_mean(diff.values()), statistic=float(observed), p=p,
                        draws=len(signs), units=self.n_families, queries=len(diff), exact=exact)

    def max_t_block(self, contrasts: Mapping[Hashable, Tuple[Vector, Vector]], *,
                    draws: int = DEFAULT_DRAWS, exact: bool = False,
                    standardize: bool = True) -> Dict[Hashable, BlockEndpoint]:
        """Selection-aware max-|T| randomization over one block of endpoints (sec. 3.4, Table 5).

        For endpoint j with family difference sums ``D_fj`` the statistic is standardized by its
        sign-flip null standard deviation: ``T_j = sum_f D_fj / sqrt(sum_f D_fj**2)`` (the
        denominator is invariant under sign flips; ``T_j = 0`` when every ``D_fj = 0``). Every
        draw applies the *same* family signs to all endpoints; the adjusted p of endpoint j is
        ``(1 + #{b : max_k |T*_bk| >= |T_j|}) / (1 + B)`` (single-step max-T, Westfall & Young
        1993), which controls the family-wise error over every tried endpoint of the block.
        ``p_raw`` is the endpoint's own family-flip p from the same draws.
        With ``standardize=False`` the statistic is the raw sum of differences ``T_j = sum_f D_fj``
        (endpoints then compete on the points scale rather than in null standard deviations).
        """
        if not isinstance(contrasts, Mapping) or not contrasts:
            raise NclueError("max_t_block: expected a non-empty mapping name -> (base, variant)")
        names = sorted(contrasts, key=_sort_key)
        sums_list, deltas = [], []
        for name in names:
            pair = contrasts[name]
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise NclueError(f"max_t_block: contrast {name!r} must be a (base, variant) pair")
            try:
                diff = _paired(pair[0], pair[1])
                sums_list.append(self.family_sums(diff))
            except NclueError as exc:
                raise NclueError(f"contrast {name!r}: {exc}") from None
            deltas.append(_mean(diff.values()))
        signs = self._all_signs() if exact else self.sign_draws(draws)
        integral = all(isinstance(v, int) for sums in sums_list for v in sums)
        tables = [_byte_tables(sums) for sums in sums_list]
        add = sum if integral else math.fsum
        totals = [add(sums) for sums in sums_list]
        variances = [add(v * v for v in sums) for sums in sums_list]
        if standardize:
            t_obs = [t / math.sqrt(v) if v else 0.0 for t, v in zip(totals, variances)]
        else:
            t_obs = [float(t) for t in totals]
        m = len(names)
        raw_hits = [0] * m
        maxima = []
        if integral:
            # Exact integer comparison of T**2 scaled by L = lcm of the positive variances:
            # T_k**2 * L = t_k**2 * (L // V_k), an integer for every endpoint.
            positive = [v for v in variances if v]
            lcm = 1
            for v in positive:
                lcm = lcm * v // math.gcd(lcm, v)
            weights = ([lcm // v if v else 0 for v in variances] if standardize else [1] * m)
            observed = [t * t * w for t, w in zip(totals, weights)]
            for vector in signs:
                best = 0
                for k in range(m):
                    t = totals[k] - 2 * sum(map(_GETITEM, tables[k], vector))
                    s = t * t * weights[k]
                    if s >= observed[k]:
                        raw_hits[k] += 1
                    if s > best:
                        best = s
                maxima.append(best)
        else:
            scale = ([math.sqrt(v) if v else 0.0 for v in variances] if standardize
                     else [1.0] * m)
            observed = [abs(t) * (1 - FLOAT_TIE_TOLERANCE) for t in t_obs]
            for vector in signs:
                best = 0.0
                for k in range(m):
                    if not scale[k]:
                        if observed[k] <= 0:
                            raw_hits[k] += 1
                        continue
                    s = abs(totals[k] - 2 * sum(map(_GETITEM, tables[k], vector))) / scale[k]
                    if s >= observed[k]:
                        raw_hits[k] += 1
                    if s > best:
                        best = s
                maxima.append(best)
        maxima.sort()
        n = len(signs)
        out = {}
        for k, name in enumerate(names):
            hits = n - bisect_left(maxima, observed[k])
            if exact:
                p_raw, p_adj = raw_hits[k] / n, hits / n
            else:
                p_raw, p_adj = (1 + raw_hits[k]) / (1 + n), (1 + hits) / (1 + n)
            out[name] = BlockEndpoint(delta=deltas[k], t=t_obs[k], p_raw=p_raw, p_adjusted=p_adj)
        return out


# --------------------------------------------------------------------------------------------
# Convenience wrappers over one contrast
# --------------------------------------------------------------------------------------------

def shared_resampler(cache: Dict[frozenset, Resampler], vector: Mapping[Hashable, Any],
                     families: Families, seed: int) -> Resampler:
    """The Resampler of ``vector``'s query set from ``cache`` (made on first use), so that several
    analyses of one table share their draws; each result is identical to running it alone."""
    key = frozenset(vector)
    if key not in cache:
        cache[key] = Resampler(vector.keys(), families, seed=seed)
    return cache[key]


def _resampler_for(vectors: Sequence[Mapping], families: Families, seed: int) -> Resampler:
    return Resampler(vectors[0].keys(), families, seed=seed)


def family_bootstrap(values: Vector, families: Families, *, replicates: int = DEFAULT_REPLICATES,
                     seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> Interval:
    """Family-clustered percentile bootstrap interval of a system's mean score (sec. 3.4)."""
    vec = _as_vector(values, "values")
    return _resampler_for([vec], families, seed).bootstrap(vec, replicates=replicates, level=level)


def paired_family_bootstrap(base: Vector, variant: Vector, families: Families, *,
                            replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                            level: float = DEFAULT_LEVEL) -> Interval:
    """Family-clustered percentile bootstrap of ``mean(variant - base)`` (Table 5)."""
    diff = _paired(base, variant)
    return _resampler_for([diff], families, seed).bootstrap(diff, replicates=replicates,
                                                            level=level)


def family_flip_test(base: Vector, variant: Vector, families: Families, *,
                     draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
                     exact: bool = False) -> FlipTest:
    """Two-sided paired randomization test flipping whole families (sec. 3.4; +1 correction)."""
    diff = _paired(base, variant)
    return _resampler_for([diff], families, seed).flip_test(base, variant, draws=draws,
                                                            exact=exact)


def query_permutation_test(base: Vector, variant: Vector, *, draws: int = DEFAULT_DRAWS,
                           seed: int = DEFAULT_SEED, exact: bool = False) -> FlipTest:
    """Query-paired permutation test (supplement Table S4): every query is its own unit.

    Permuting the two systems' outcomes within a query pair is a sign flip of that query's
    difference, so this is :func:`family_flip_test` with singleton families.
    """
    diff = _paired(base, variant)
    singletons = {q: q for q in diff}
    return Resampler(diff.keys(), singletons, seed=seed).flip_test(base, variant, draws=draws,
                                                                   exact=exact)


def max_t_block(contrasts: Mapping[Hashable, Tuple[Vector, Vector]], families: Families, *,
                draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED, exact: bool = False,
                standardize: bool = True) -> Dict[Hashable, BlockEndpoint]:
    """Max-|T| block adjustment over every tried endpoint (see :meth:`Resampler.max_t_block`).

    All endpoints must cover the same query set.
    """
    if not isinstance(contrasts, Mapping) or not contrasts:
        raise NclueError("max_t_block: expected a non-empty mapping name -> (base, variant)")
    first = sorted(contrasts, key=_sort_key)[0]
    pair = contrasts[first]
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise NclueError(f"max_t_block: contrast {first!r} must be a (base, variant) pair")
    diff = _paired(pair[0], pair[1])
    return Resampler(diff.keys(), families, seed=seed).max_t_block(
        contrasts, draws=draws, exact=exact, standardize=standardize)


def selection_adjusted(blocks: Mapping[Hashable, Tuple[Hashable, Mapping[Hashable, BlockEndpoint]]]
                       ) -> Dict[Hashable, float]:
    """Holm across blocks of the displayed endpoints' max-|T| p-values (Table 5 "Sel.+Holm p").

    ``blocks`` maps a block name to ``(displayed endpoint name, max_t_block result)``.
    """
    if not isinstance(blocks, Mapping) or not blocks:
        raise NclueError("selection_adjusted: expected a non-empty mapping of blocks")
    pvalues = {}
    for block, entry in blocks.items():
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise NclueError(f"block {block!r}: expected (displayed endpoint, block result)")
        shown, result = entry
        if shown not in result:
            raise NclueError(f"block {block!r}: displayed endpoint {shown!r} is not in the block")
        pvalues[block] = result[shown].p_adjusted
    return holm(pvalues)


@dataclass(frozen=True)
class ContrastRow:
    """One row of a selection-aware contrast table (Table 5 / Table S1e).

    ``delta``, ``ci_lo``, ``ci_hi`` are in the units of the outcome vectors (x 100 for points);
    ``p_raw`` the displayed endpoint's family-flip p, ``p_block`` its max-|T| p over every tried
    endpoint of its block, ``p_holm`` the Holm adjustment of ``p_block`` across blocks.
    """

    block: Hashable
    endpoint: Hashable
    endpoints_tried: int
    delta: float
    ci_lo: float
    ci_hi: float
    p_raw: float
    p_block: float
    p_holm: float


def selection_table(blocks: Mapping[Hashable, Tuple[Hashable, Mapping[Hashable, Tuple[Vector, Vector]]]],
                    families: Families, *, seed: int = DEFAULT_SEED,
                    replicates: int = DEFAULT_REPLICATES, draws: int = DEFAULT_DRAWS,
                    level: float = DEFAULT_LEVEL, standardize: bool = True) -> List[ContrastRow]:
    """Table 5 in one call: family CI, blockwise max-|T| p, then Holm across blocks (sec. 3.4).

    ``blocks`` maps a block name to ``(displayed endpoint, {endpoint: (base, variant)})``; the
    mapping holds *every* tried endpoint of the block (the displayed one included). One
    :class:`Resampler` serves all blocks, so every block sees the same bootstrap and sign draws.
    Rows come back in sorted block order.
    """
    if not isinstance(blocks, Mapping) or not blocks:
        raise NclueError("selection_table: expected a non-empty mapping of blocks")
    resampler: Optional[Resampler] = None
    results = {}
    for block in sorted(blocks, key=_sort_key):
        entry = blocks[block]
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise NclueError(f"block {block!r}: expected (displayed endpoint, endpoints)")
        shown, endpoints = entry
        if not isinstance(endpoints, Mapping) or shown not in endpoints:
            raise NclueError(f"block {block!r}: displayed endpoint {shown!r} is not among its "
                             "tried endpoints")
        pair = endpoints[shown]
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise NclueError(f"block {block!r}: endpoint {shown!r} must be a (base, variant) pair")
        if resampler is None:
            resampler = Resampler(_paired(pair[0], pair[1]).keys(), families, seed=seed)
        try:
            tested = resampler.max_t_block(endpoints, draws=draws, standardize=standardize)
            interval = resampler.paired_bootstrap(pair[0], pair[1], replicates=replicates,
                                                  level=level)
        except NclueError as exc:
            raise NclueError(f"block {block!r}: {exc}") from None
        results[block] = (shown, tested, interval, len(endpoints))
    adjusted = holm({b: r[1][r[0]].p_adjusted for b, r in results.items()})
    rows = []
    for block, (shown, tested, interval, tried) in results.items():
        e = tested[shown]
        rows.append(ContrastRow(block=block, endpoint=shown, endpoints_tried=tried,
                                delta=e.delta, ci_lo=interval.lo, ci_hi=interval.hi,
                                p_raw=e.p_raw, p_block=e.p_adjusted, p_holm=adjusted[block]))
    return rows


def query_bootstrap(base: Vector, variant: Vector, *, replicates: int = DEFAULT_REPLICATES,
                    seed: int = DEFAULT_SEED, level: float = DEFAULT_LEVEL) -> Interval:
    """Query-level paired percentile bootstrap (every query its own unit; e.g. Table S5a)."""
    diff = _paired(base, variant)
    return Resampler(diff.keys(), {q: q for q in diff}, seed=seed).bootstrap(
        diff, replicates=replicates, level=level)


# --------------------------------------------------------------------------------------------
# Shared-document dependence (supplement sec. 4, Table S1i)
# --------------------------------------------------------------------------------------------

Memberships = Mapping[Hashable, Iterable[Hashable]]


def _memberships(memberships: Memberships, qids: Iterable[Hashable], *,
                 require_nonempty: bool) -> Dict[Hashable, FrozenSet[Hashable]]:
    if not isinstance(memberships, Mapping):
        raise NclueError("memberships: expected a mapping qid -> iterable of document ids")
    out = {}
    missing = []
    for q in qids:
        if q not in memberships:
            missing.append(q)
            continue
        docs = memberships[q]
        if isinstance(docs, (str, bytes)):
            raise NclueError(f"memberships[{q!r}]: expected an iterable of document ids, "
                             f"got the string {docs!r}")
        try:
            docs = frozenset(docs)
        except TypeError:
            raise NclueError(f"memberships[{q!r}]: expected an iterable of hashable "
                             "document ids") from None
        if require_nonempty and not docs:
            raise NclueError(f"query {q!r} has no document memberships")
        out[q] = docs
    if missing:
        raise NclueError(f"membership map is missing {len(missing)} queries ({_describe(missing)})")
    return out


def membership_components(memberships: Memberships) -> List[Tuple[Hashable, ...]]:
    """Connected components of the query-document membership graph (Table S1i).

    Two queries are connected when they share a document (transitively). Each component is
    returned as a sorted tuple of query ids; components are ordered by size (largest first),
    then by their first query id. A query without memberships is its own component.
    """
    if not isinstance(memberships, Mapping) or not memberships:
        raise NclueError("membership_components: expected a non-empty mapping qid -> documents")
    mem = _memberships(memberships, memberships.keys(), require_nonempty=False)
    parent: Dict[Hashable, Hashable] = {q: q for q in mem}

    def find(x: Hashable) -> Hashable:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: Dict[Hashable, Hashable] = {}
    for q in sorted(mem, key=_sort_key):
        for d in mem[q]:
            if d in owner:
                a, b = find(owner[d]), find(q)
                if a != b:
                    parent[b] = a
            else:
                owner[d] = q
    groups: Dict[Hashable, List[Hashable]] = {}
    for q in mem:
        groups.setdefault(find(q), []).append(q)
    comps = [tuple(sorted(g, key=_sort_key)) for g in groups.values()]
    comps.sort(key=lambda c: (-len(c), _sort_key(c[0])))
    return comps


@dataclass(frozen=True)
class CrossedWeights:
    """Replicate weights of the crossed query/document bootstrap, drawn once and reusable for
    every contrast over the same queries and memberships (the draws do not depend on values).

    ``qids`` is the sorted query order; ``replicates[r]`` is ``(indices, weights)`` of the
    queries with a nonzero weight in replicate r.
    """

    qids: Tuple[Hashable, ...]
    replicates: Tuple[Tuple[Tuple[int, ...], Tuple[float, ...]], ...]
    seed: int


def crossed_weights(qids: Iterable[Hashable], memberships: Memberships, *,
                    replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED) -> CrossedWeights:
    """Draw the crossed query/document weights (see :func:`crossed_bootstrap`)."""
    replicates = _positive_int(replicates, "replicates")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise NclueError(f"seed must be an integer, got {seed!r}")
    order = sorted(qids, key=_sort_key)
    mem = _memberships(memberships, order, require_nonempty=True)
    docs = sorted(set().union(*mem.values()), key=_sort_key)
    doc_index = {d: i for i, d in enumerate(docs)}
    doc_lists = [sorted(doc_index[d] for d in mem[q]) for q in order]
    nq, nd = len(order), len(docs)
    rng = random.Random(seed)
    qpop, dpop = range(nq), range(nd)
    drawn = []
    attempts = 0
    while len(drawn) < replicates:
        attempts += 1
        if attempts > 100 * replicates + 1000:
            raise NclueError("crossed_bootstrap: weights keep vanishing; too few queries/documents")
        qcount = [0] * nq
        for i in rng.choices(qpop, k=nq):
            qcount[i] += 1
        dcount = [0] * nd
        for i in rng.choices(dpop, k=nd):
            dcount[i] += 1
        indices, weights = [], []
        for i in range(nq):
            c = qcount[i]
            if c:
                lst = doc_lists[i]
                w = c * sum(map(dcount.__getitem__, lst)) / len(lst)
                if w:
                    indices.append(i)
                    weights.append(w)
        if weights:
            drawn.append((tuple(indices), tuple(weights)))
    return CrossedWeights(tuple(order), tuple(drawn), seed)


def crossed_bootstrap(base: Vector, variant: Vector, memberships: Memberships, *,
                      replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                      level: float = DEFAULT_LEVEL,
                      weights: Optional[CrossedWeights] = None) -> Interval:
    """Crossed query/document weighting interval for ``mean(variant - base)`` (Table S1i).

    A stress model for nonidentical queries that share documents (a pigeonhole bootstrap,
    Owen 2007): each replicate draws independent multinomial resampling counts for the Q queries
    (``rng.choices(range(Q), k=Q)``) and then for the D documents (``rng.choices(range(D), k=D)``),
    queries and documents in sorted id order. Query q gets weight
    ``W_q = c_q * mean_{d in M_q} c_d`` over its memberships ``M_q`` (gold memberships, or every
    judged gold/subset membership), and the replicate statistic is
    ``sum_q W_q (variant_q - base_q) / sum_q W_q``. A replicate whose weights are all zero is
    redrawn (from the same stream). Every query needs at least one membership.

    ``weights``: draws from :func:`crossed_weights` for the same queries, memberships, seed and
    replicate count, reused across contrasts (the result is identical to drawing them here).
    """
    diff = _paired(base, variant)
    level = _level(level)
    if weights is None:
        weights = crossed_weights(diff.keys(), memberships, replicates=replicates, seed=seed)
    elif set(weights.qids) != set(diff) or len(weights.replicates) != replicates or weights.seed != seed:
        raise NclueError("crossed_bootstrap: the precomputed weights were drawn for other "
                         "queries, replicates or seed")
    values = [diff[q] for q in weights.qids]
    pick = values.__getitem__
    # fsum: correctly rounded, so the same on every Python version
    stats = [math.fsum(map(operator.mul, ws, map(pick, indices))) / math.fsum(ws)
             for indices, ws in weights.replicates]
    stats.sort()
    alpha = (1 - level) / 2
    return Interval(estimate=_mean(values), lo=percentile(stats, alpha),
                    hi=percentile(stats, 1 - alpha), level=level, replicates=len(weights.replicates),
                    units=len(values))


@dataclass(frozen=True)
class LeaveOneOut:
    """Range of ``mean(variant - base)`` after dropping, in turn, every query of one document."""

    observed: float
    lo: float
    hi: float
    lo_document: Hashable
    hi_document: Hashable
    per_document: Dict[Hashable, Optional[float]]


def leave_one_document_out(base: Vector, variant: Vector,
                           memberships: Memberships) -> LeaveOneOut:
    """Leave-one-(gold-)document ranges (Table S1i).

    For every document d appearing in the memberships, the mean difference over the queries
    whose memberships do not contain d. Documents whose removal leaves no query get ``None`` and
    do not enter the range. Ties for lo/hi go to the first document in sorted id order.
    """
    diff = _paired(base, variant)
    qids = sorted(diff, key=_sort_key)
    mem = _memberships(memberships, qids, require_nonempty=False)
    integral = _integral(diff.values())
    vals = {q: (int(diff[q]) if integral else diff[q]) for q in qids}
    total = sum(vals.values()) if integral else math.fsum(vals.values())
    by_doc: Dict[Hashable, List[Hashable]] = {}
    for q in qids:
        for d in mem[q]:
            by_doc.setdefault(d, []).append(q)
    if not by_doc:
        raise NclueError("leave_one_document_out: the memberships name no documents")
    per_doc: Dict[Hashable, Optional[float]] = {}
    for d in sorted(by_doc, key=_sort_key):
        removed = by_doc[d]
        left = len(qids) - len(removed)
        if left == 0:
            per_doc[d] = None
            continue
        if integral:
            per_doc[d] = (total - sum(vals[q] for q in removed)) / left
        else:
            keep = set(qids) - set(removed)
            per_doc[d] = math.fsum(vals[q] for q in keep) / left
    defined = [(v, d) for d, v in per_doc.items() if v is not None]
    if not defined:
        raise NclueError("leave_one_document_out: every document is shared by all queries")
    lo_v, lo_d = min(defined, key=lambda x: x[0])
    hi_v, hi_d = max(defined, key=lambda x: x[0])
    return LeaveOneOut(observed=_mean(diff.values()), lo=lo_v, hi=hi_v, lo_document=lo_d,
                       hi_document=hi_d, per_document=per_doc)


@dataclass(frozen=True)
class Removal:
    """``mean(variant - base)`` on the queries left after removing the top-degree documents."""

    delta: float
    queries_left: int
    removed: Tuple[Hashable, ...]


def remove_top_degree_documents(base: Vector, variant: Vector, memberships: Memberships,
                                k: int = 20) -> Removal:
    """Remove the k highest-degree documents and every query that contains one (Table S1i).

    Degree = number of queries (of the compared set) whose memberships contain the document;
    ties go to the smaller document id (sorted order). Refused when k exceeds the number of
    documents or when no query is left.
    """
    diff = _paired(base, variant)
    qids = sorted(diff, key=_sort_key)
    mem = _memberships(memberships, qids, require_nonempty=False)
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise NclueError(f"k must be an integer >= 0, got {k!r}")
    degree: Dict[Hashable, int] = {}
    for q in qids:
        for d in mem[q]:
            degree[d] = degree.get(d, 0) + 1
    if k > len(degree):
        raise NclueError(f"cannot remove {k} documents: the memberships name only {len(degree)}")
    ranked = sorted(degree, key=lambda d: (-degree[d], _sort_key(d)))
    removed = tuple(ranked[:k])
    gone = set(removed)
    left = [q for q in qids if not (mem[q] & gone)]
    if not left:
        raise NclueError(f"removing the {k} highest-degree documents leaves no query")
    return Removal(delta=_mean(diff[q] for q in left), queries_left=len(left), removed=removed)


# --------------------------------------------------------------------------------------------
# Common-support ordering and failure decomposition (Table S1f)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcomes:
    """Unconditional outcome proportions of one system (they sum to 1)."""

    miss: float
    subset_first: float
    gold_first: float


@dataclass(frozen=True)
class CommonSupport:
    """Table S1f for one contrast.

    ``support`` is the number of queries where both systems have a gold within the cutoff;
    ``d_base``/``d_variant`` are ``1 - P(subset > gold)`` on that support (``None`` when the support
    is empty) and ``delta_d`` their difference (variant - base).
    """

    queries: int
    support: int
    d_base: Optional[float]
    d_variant: Optional[float]
    delta_d: Optional[float]
    base: Outcomes
    variant: Outcomes


def _rank(value: Any, what: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise NclueError(f"{what}: a rank must be an integer >= 1 or None, got {value!r}")
    return value


def _classify(first_gold: Optional[int], first_subset: Optional[int], k: int) -> str:
    if first_gold is None or first_gold > k:
        return "miss"
    if first_subset is not None and first_subset < first_gold:
        return "subset_first"
    return "gold_first"


def outcome_class(first_ranks: Tuple[Optional[int], Optional[int]], k: int = 10) -> str:
    """``"miss"``, ``"subset_first"`` or ``"gold_first"`` for one query (Table S1f, n-Clue sec. 3.1).

    ``first_ranks = (r_G, r_S)``: 1-based rank of the first gold and of the first judged subset in
    the whole ranking, ``None`` when absent. Miss: no gold within the cutoff (``r_G`` is None or
    ``> k``); subset-first: a gold within the cutoff but ``r_S < r_G``; gold-first (= n-Clue
    success): ``r_G <= k`` and ``r_G < r_S`` (or no subset).
    """
    g, s = _check_pair(first_ranks, "first_ranks")
    return _classify(g, s, _positive_int(k, "k"))


def _check_pair(pair: Any, what: str) -> Tuple[Optional[int], Optional[int]]:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise NclueError(f"{what}: expected (first_gold_rank, first_subset_rank), got {pair!r}")
    g = _rank(pair[0], what)
    s = _rank(pair[1], what)
    if g is not None and g == s:
        raise NclueError(f"{what}: gold and subset cannot share rank {g}")
    return g, s


def common_support_ordering(base: Mapping[Hashable, Tuple[Optional[int], Optional[int]]],
                            variant: Mapping[Hashable, Tuple[Optional[int], Optional[int]]],
                            k: int = 10) -> CommonSupport:
    """Common-support ordering ``D = 1 - P(subset > gold)`` and M/P/G decomposition (Table S1f).

    Inputs map every query to ``(first_gold_rank, first_subset_rank)`` (see :func:`outcome_class`).
    The common support is the set of queries where *both* systems place a gold within rank k;
    on it, ``P(subset > gold)`` is the fraction of queries where a judged subset is ranked above
    the system's first gold, so ``D`` is the fraction that are gold-first. M/P/G are the
    unconditional proportions over all queries (fixed denominator).
    """
    k = _positive_int(k, "k")
    for name, ranks in (("base", base), ("variant", variant)):
        if not isinstance(ranks, Mapping) or not ranks:
            raise NclueError(f"{name}: expected a non-empty mapping qid -> (gold rank, subset rank)")
    _same_queries(base, variant, ("base", "variant"))
    classes = {}
    for name, ranks in (("base", base), ("variant", variant)):
        classes[name] = {q: _classify(*_check_pair(ranks[q], f"{name}[{q!r}]"), k) for q in ranks}
    qids = list(base)
    n = len(qids)
    support = [q for q in qids
               if classes["base"][q] != "miss" and classes["variant"][q] != "miss"]

    def d_of(name: str) -> Optional[float]:
        if not support:
            return None
        return sum(classes[name][q] == "gold_first" for q in support) / len(support)

    def outcomes(name: str) -> Outcomes:
        c = list(classes[name].values())
        return Outcomes(miss=c.count("miss") / n, subset_first=c.count("subset_first") / n,
                        gold_first=c.count("gold_first") / n)

    d_b, d_v = d_of("base"), d_of("variant")
    delta = None
    if d_b is not None:
        hits_b = sum(classes["base"][q] == "gold_first" for q in support)
        hits_v = sum(classes["variant"][q] == "gold_first" for q in support)
        delta = (hits_v - hits_b) / len(support)
    return CommonSupport(queries=n, support=len(support), d_base=d_b, d_variant=d_v,
                         delta_d=delta, base=outcomes("base"), variant=outcomes("variant"))


# --------------------------------------------------------------------------------------------
# Adversarial promotion bounds (Table S1h)
# --------------------------------------------------------------------------------------------

LABELS = ("gold", "subset")


@dataclass(frozen=True)
class PromotionBound:
    """Minimum variant-minus-base n-Clue Score (points) after up to k promotions per query.

    ``observed`` is the current difference (k = 0); ``promoted`` names, per query, the judged
    subsets whose promotion to gold attains ``minimum`` (queries needing none are omitted).
    """

    k: int
    observed: float
    minimum: float
    promoted: Dict[Hashable, Tuple[Hashable, ...]]
    queries: int


def _top_list(entries: Any, what: str, depth: int) -> List[Tuple[Hashable, Optional[str]]]:
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
        raise NclueError(f"{what}: expected a sequence of (docid, label) pairs")
    out = []
    seen = set()
    for pos, entry in enumerate(entries[:depth], start=1):
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise NclueError(f"{what}, rank {pos}: expected (docid, label), got {entry!r}")
        doc, label = entry
        if label is not None and label not in LABELS:
            raise NclueError(f"{what}, rank {pos}: label must be 'gold', 'subset' or None "
                             f"(unjudged), got {label!r}")
        try:
            if doc in seen:
                raise NclueError(f"{what}: document {doc!r} appears twice")
        except TypeError:
            raise NclueError(f"{what}, rank {pos}: document id is not hashable: {doc!r}") from None
        seen.add(doc)
        out.append((doc, label))
    return out


def _first_judged(top: List[Tuple[Hashable, Optional[str]]]
                  ) -> Tuple[Optional[Hashable], Optional[str]]:
    for doc, label in top:
        if label is not None:
            return doc, label
    return None, None


def success_after(top: Sequence[Tuple[Hashable, Optional[str]]],
                  promoted: Iterable[Hashable] = ()) -> int:
    """n-Clue success (0/1) of one top-k list after promoting ``promoted`` subsets to gold.

    Success iff the first judged document within the list is a gold (n-Clue sec. 3.1:
    ``r_G <= k`` and ``r_G < r_S``; a subset beyond the list cannot precede an in-list gold).
    """
    promoted = set(promoted)
    for doc, label in top:
        if label is None:
            continue
        return int(label == "gold" or doc in promoted)
    return 0


def promotion_bound(base_top: Mapping[Hashable, Sequence[Tuple[Hashable, Optional[str]]]],
                    variant_top: Mapping[Hashable, Sequence[Tuple[Hashable, Optional[str]]]],
                    k: int, *, depth: int = 10) -> PromotionBound:
    """Exact minimum of variant-minus-base n-Clue Score@depth under judged-subset promotion.

    Supplement Table S1h: each query's qrels may change by promoting up to ``k`` currently judged
    subsets that appear in either system's top-``depth`` list to gold; a promotion is a qrel change
    and so applies to both rankings. Unjudged (``None``) documents stay unjudged.

    Exact solution (proof): promotion never changes which documents are judged, so each list's
    first judged document (``b1`` for base, ``v1`` for variant) stays the same and a system
    succeeds iff that document is gold after promotion. Promotion only turns subsets into golds,
    so success can only rise. Queries are independent (promotions are per query), so the
    minimum of the sum is the sum of per-query minima. For one query, the base can only be
    made to succeed by promoting ``b1`` (when it is a subset), which costs one promotion, and
    nothing else affects either system. Hence with ``k >= 1`` and ``b1`` a subset the minimum is
    ``[v1 is gold or v1 == b1] - 1`` (promote ``b1`` unless ``v1 == b1``, where it changes
    nothing), otherwise it is the current ``s_V - s_B``. In particular every ``k >= 1`` gives the
    same bound as ``k = 1``. The tests confirm this against exhaustive search over all
    promotion sets.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise NclueError(f"k must be an integer >= 0, got {k!r}")
    depth = _positive_int(depth, "depth")
    for name, tops in (("base_top", base_top), ("variant_top", variant_top)):
        if not isinstance(tops, Mapping) or not tops:
            raise NclueError(f"{name}: expected a non-empty mapping qid -> [(docid, label), ...]")
    _same_queries(base_top, variant_top, ("base", "variant"))
    observed = 0
    minimum = 0
    promoted: Dict[Hashable, Tuple[Hashable, ...]] = {}
    for q in sorted(base_top, key=_sort_key):
        b = _top_list(base_top[q], f"base_top[{q!r}]", depth)
        v = _top_list(variant_top[q], f"variant_top[{q!r}]", depth)
        labels = dict(b)
        for doc, label in v:
            if doc in labels and labels[doc] != label:
                raise NclueError(f"query {q!r}: document {doc!r} is labelled {labels[doc]!r} for "
                                 f"base but {label!r} for variant (one qrel per document)")
        s_b, s_v = success_after(b), success_after(v)
        observed += s_v - s_b
        b1, b1_label = _first_judged(b)
        v1, v1_label = _first_judged(v)
        if k >= 1 and b1_label == "subset" and v1 != b1:
            minimum += int(v1_label == "gold") - 1
            promoted[q] = (b1,)
        else:
            minimum += s_v - s_b
    n = len(base_top)
    return PromotionBound(k=k, observed=100 * observed / n, minimum=100 * minimum / n,
                          promoted=promoted, queries=n)


# --------------------------------------------------------------------------------------------
# Adapters from a loaded release/run (duck-typed: nclue.release.Release, nclue.runs.Run)
# --------------------------------------------------------------------------------------------

def gold_memberships(release: Any) -> Dict[Hashable, Tuple[Hashable, ...]]:
    """``qid -> sorted gold docids`` for every query of a release (Table S1i gold graph)."""
    return {q: tuple(release.golds(q)) for q in sorted(release.queries)}


def judged_memberships(release: Any) -> Dict[Hashable, Tuple[Hashable, ...]]:
    """``qid -> sorted judged (gold or subset) docids`` (Table S1i all-judged graph)."""
    return {q: tuple(sorted(release.judgments.get(q, {}))) for q in sorted(release.queries)}


def top_labels(release: Any, run: Any, depth: int = 10
               ) -> Dict[Hashable, List[Tuple[Hashable, Optional[str]]]]:
    """``qid -> [(docid, "gold" | "subset" | None), ...]`` for the run's top ``depth`` documents.

    Every query of the release is present; a query the run lacks has an empty list. This is
    the input of :func:`promotion_bound`.
    """
    depth = _positive_int(depth, "depth")
    out = {}
    for q in sorted(release.queries):
        judged = release.judgments.get(q, {})
        ranking = run.rankings.get(q)
        docs = ranking.docs[:depth] if ranking is not None else ()
        out[q] = [(d, judged[d].label if d in judged else None) for d in docs]
    return out


__all__ = [
    "BlockEndpoint", "CommonSupport", "ContrastRow", "gold_memberships", "judged_memberships",
    "query_bootstrap", "selection_table", "top_labels", "DEFAULT_DRAWS", "DEFAULT_LEVEL", "DEFAULT_REPLICATES",
    "DEFAULT_SEED", "FlipTest", "Interval", "LeaveOneOut", "Outcomes", "PromotionBound",
    "Removal", "Resampler", "common_support_ordering", "crossed_bootstrap", "crossed_weights", "family_bootstrap",
    "family_flip_test", "holm", "leave_one_document_out", "max_t_block", "membership_components",
    "outcome_class", "paired_family_bootstrap", "percentile", "promotion_bound",
    "query_permutation_test", "remove_top_degree_documents", "selection_adjusted",
    "success_after",
]
