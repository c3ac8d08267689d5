"""Resampling inference for paired retrieval comparisons (n-Clue paper, arXiv 2607.24165).

Sec. 3.4 and Table 5: family-clustered bootstrap intervals, family sign-flip randomization,
blockwise max-|T| selection adjustment followed by Holm across blocks; supplement sec. 8
(Table S4): query-paired permutation tests. The shared random draws are described in
:mod:`nclue.inference`.
"""

import math
import operator
import random
import sys
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from typing import (Any, Dict, Hashable, Iterable, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from ..errors import NclueError

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
#: bits of one replicate's count in a packed column (:meth:`Resampler._count_columns`: a count is
#: at most F, so packed columns serve designs of fewer than 2**16 families); wider fields for
#: larger totals are whole multiples of it
COUNT_BITS = 16
_FIELD = "H"  # an unsigned 16-bit field (2 bytes on every platform Python runs on)
_WIDE = next(code for code in "IL" if array(code).itemsize == 4)  # 32-bit draws past 2**16 families


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


def _pack(column: "array", stride: int) -> int:
    """A column of unsigned ``COUNT_BITS``-bit counts as one int, entry r in bits
    ``[COUNT_BITS * stride * r, COUNT_BITS * stride * (r + 1))``."""
    if stride != 1:
        wide = array(_FIELD, bytes(COUNT_BITS // 8 * stride * len(column)))
        wide[::stride] = column
        column = wide
    if sys.byteorder != "little":
        column = array(_FIELD, column)
        column.byteswap()
    return int.from_bytes(column.tobytes(), "little")


def _unpack(packed: int, count: int, stride: int) -> "array":
    """The counts :func:`_pack` packed (entries below ``2**COUNT_BITS``)."""
    column = array(_FIELD, packed.to_bytes(COUNT_BITS // 8 * stride * count, "little"))
    if sys.byteorder != "little":
        column.byteswap()
    return column[::stride] if stride != 1 else column


def _fields(packed: int, count: int, stride: int) -> List[int]:
    """The ``count`` non-negative fields of ``COUNT_BITS * stride`` bits of ``packed``."""
    if stride == 1:
        return _unpack(packed, count, 1).tolist()
    width = COUNT_BITS // 8 * stride
    data = packed.to_bytes(width * count, "little")
    return [int.from_bytes(data[i:i + width], "little") for i in range(0, len(data), width)]


def _common_binary_scale(values: Sequence[float]) -> Optional[Tuple[List[int], int]]:
    """``(weights, D)`` with ``values[i] == weights[i] / D`` exactly, ``D`` a power of two (every
    finite float is a whole multiple of a power of two), or None when a value is -0.0."""
    ratios = []
    for v in values:
        if v == 0 and math.copysign(1.0, v) < 0:
            return None
        ratios.append(v.as_integer_ratio())
    scale = max(den for _, den in ratios)
    return [num * (scale // den) for num, den in ratios], scale


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
        self._bootstrap: Dict[int, List[Sequence[int]]] = {}
        self._denominators: Dict[int, List[int]] = {}
        self._signs: Dict[int, List[bytes]] = {}
        self._columns: Dict[int, List[int]] = {}

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
    def bootstrap_draws(self, replicates: int) -> List[Sequence[int]]:
        """Family indices of each replicate: ``Random(seed).choices(range(F), k=F)`` repeatedly,
        each held as an array of unsigned ints (the same indices in the same order, 2 bytes
        each below 2**16 families, else 4; the draws are cached for every table of a context)."""
        replicates = _positive_int(replicates, "replicates")
        if replicates not in self._bootstrap:
            rng = random.Random(self.seed)
            population = range(self.n_families)
            k = self.n_families
            code = _FIELD if self.n_families <= 0xFFFF else _WIDE
            self._bootstrap[replicates] = [array(code, rng.choices(population, k=k))
                                           for _ in range(replicates)]
        return self._bootstrap[replicates]

    def _count_columns(self, replicates: int) -> List[int]:
        """Family f's column of the replicate-by-family count matrix (how often replicate r drew
        f), packed into one non-negative int: replicate r's count in bits
        ``[COUNT_BITS * r, COUNT_BITS * (r + 1))``. Cached with the draws."""
        if replicates not in self._columns:
            draws = self.bootstrap_draws(replicates)
            columns = [array(_FIELD, bytes(COUNT_BITS // 8 * replicates)) for _ in range(self.n_families)]
            for r, idx in enumerate(draws):
                for f in idx:
                    columns[f][r] += 1
            self._columns[replicates] = [_pack(c, 1) for c in columns]
        return self._columns[replicates]

    def _replicate_totals(self, weights: Sequence[int], replicates: int) -> Optional[List[int]]:
        """``sum(weights[f] for f in draw)`` of every replicate, exactly (integer arithmetic);
        None for a design of 2**16 families or more (a count would not fit its field).

        Each replicate draws F families, so its totals of the positive and of the negated
        negative weights are at most ``max|weight| * F``; with fields of ``COUNT_BITS * stride``
        bits above that no field carries into the next, and adding ``weights[f]`` times family
        f's packed column (re-packed at that width) adds every replicate's total at once."""
        if self.n_families > 0xFFFF:
            return None
        largest = max((abs(v) for v in weights), default=0)
        stride = max(1, -(-(largest * self.n_families).bit_length() // COUNT_BITS))
        columns = self._count_columns(replicates)
        positive = negative = 0
        for f, value in enumerate(weights):
            if value:
                column = columns[f] if stride == 1 else _pack(_unpack(columns[f], replicates, 1), stride)
                if value > 0:
                    positive += value * column
                else:
                    negative -= value * column
        return list(map(operator.sub, _fields(positive, replicates, stride),
                        _fields(negative, replicates, stride)))

    def replicate_means(self, values: Mapping[Hashable, Union[int, float]], replicates: int) -> List[float]:
        """The statistic of every bootstrap replicate, in draw order: the sum of the drawn
        families' sums over the sum of their sizes (n-Clue paper, sec. 3.4). Integer sums are
        exact (Python ints); float sums are correctly rounded, as ``math.fsum`` of the drawn
        family sums is on every Python (3.12 changed ``sum()`` of floats): the sums are whole
        multiples of one power of two ``1 / D``, so the exact total of a replicate is an integer
        ``T / D``, and ``T / D`` in Python is the correctly rounded quotient."""
        sums = self.family_sums(values)
        sizes = self._bootstrap_sizes(replicates)
        getter = sums.__getitem__
        if all(isinstance(v, int) for v in sums):
            totals = self._replicate_totals(sums, replicates)
            if totals is None:
                return [sum(map(getter, idx)) / den for idx, den in zip(self.bootstrap_draws(replicates), sizes)]
            return [total / den for total, den in zip(totals, sizes)]
        scaled = _common_binary_scale(sums)
        totals = None if scaled is None else self._replicate_totals(scaled[0], replicates)
        if totals is None:  # a -0.0 family sum (what fsum makes of signed zeros is its own
            # rule), or too many families for packed columns
            return [math.fsum(map(getter, idx)) / den
                    for idx, den in zip(self.bootstrap_draws(replicates), sizes)]
        return [(total / scaled[1]) / den for total, den in zip(totals, sizes)]

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
        stats = self.replicate_means(vec, replicates)
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
