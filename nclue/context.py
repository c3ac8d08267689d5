"""A loaded release with its frozen runs, and per-query vectors computed once per run.

The context is the layer every table builder, figure and finding reads from (it sits below
them: nothing here knows about tables). It holds the validated :class:`nclue.release.Release`,
the :class:`nclue.run_index.RunIndex` (every listed file checked against its sha256), the
rank cutoff ``k`` and the tie rule, and caches, per distinct run file: the parsed run, the
per-query outcomes at each cutoff, and the per-query vectors of every measure asked for.
"""

from array import array
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .coverage import PerspectiveQuery, perspectives_from_release
from .errors import InputError
from .formats import PathLike
from .inference.resampling import Resampler
from .layout import ReleaseLayout
from .measures import DEFAULT_K, REGISTRY, Measure, MeasureRegistry
from .metrics import QueryOutcome, aggregate, query_facts
from .release import Release, gold_families, load_release
from .run_index import RunEntry, RunIndex
from .runs import Run, load_run
from .tie_contract import Scorer, outcome_records, plan

Vector = Dict[str, float]


@dataclass(frozen=True)
class PackedVector:
    """A per-query vector held as its query order (one tuple shared by every vector with that
    order) and an array of its values: 8 bytes a query, where a dict takes about 40 (issue 23).
    Only vectors whose values are all ints or all floats are packed; :meth:`unpacked` gives the
    dict back, same keys in the same order and the same values (ints stay ints, -0.0 stays)."""

    qids: Tuple[str, ...]
    values: "array"

    def unpacked(self) -> Vector:
        return dict(zip(self.qids, self.values))


def packed_vector(vector: Optional[Vector], orders: Dict[Tuple[str, ...], Tuple[str, ...]]) -> object:
    """``vector`` as a :class:`PackedVector` (query orders interned in ``orders``), or as it is
    when it is not a dict of only ints (within 64 bits) or only floats."""
    if type(vector) is not dict or not vector:
        return vector
    values = list(vector.values())
    kinds = set(map(type, values))
    if kinds == {int} and -2 ** 63 <= min(values) and max(values) < 2 ** 63:
        array_of = array("q", values)
    elif kinds == {float}:
        array_of = array("d", values)
    else:
        return vector
    qids = tuple(vector)
    return PackedVector(orders.setdefault(qids, qids), array_of)


def unpacked_vector(stored: object) -> Optional[Vector]:
    """The vector :func:`packed_vector` stored (a new dict each time: callers may change it)."""
    return stored.unpacked() if isinstance(stored, PackedVector) else stored


class ReleaseContext:
    """A release, its run index and caches of per-query results (computed once per run file)."""

    def __init__(self, release_dir: PathLike, ties: str = "input", k: int = DEFAULT_K,
                 registry: MeasureRegistry = REGISTRY,
                 shared: Optional[Dict[Path, "ReleaseContext"]] = None) -> None:
        self.layout = ReleaseLayout.of(release_dir)
        #: contexts of sibling releases loaded in this run, by folder (see :meth:`sibling`)
        self.shared: Dict[Path, "ReleaseContext"] = {} if shared is None else shared
        self.path = self.layout.folder
        self.release: Release = load_release(release_dir)
        self.index = RunIndex.load(self.layout)
        self.ties = ties
        self.k = k
        self.registry = registry
        self._facts = query_facts(self.release)
        self._families: Optional[Dict[str, str]] = None
        self._runs: Dict[str, Run] = {}
        self._parsed: Dict[str, Run] = {}  # by file sha256: identical files are parsed once
        self._vectors: Dict[Tuple[str, int], Dict[str, object]] = {}  # packed (PackedVector)
        self._orders: Dict[Tuple[str, ...], Tuple[str, ...]] = {}  # query orders of packed vectors
        self._outcomes: Dict[Tuple[str, int], Mapping[str, QueryOutcome]] = {}
        self._coverage: Dict[Tuple[Tuple[str, int], str], object] = {}  # packed (PackedVector)
        self._perspectives: Optional[Mapping[str, PerspectiveQuery]] = None
        self._derived: Dict[Tuple, Tuple[object, bool]] = {}
        self._reads = [0]  # calls that read run rankings or their scores (shared with views)
        #: Resamplers by seed and family design, shared with the views (see :meth:`resampler`)
        self._resamplers: Dict[Tuple, Resampler] = {}

    @property
    def name(self) -> str:
        return self.layout.name

    @staticmethod
    def opened(release_dir: PathLike, ties: str = "input", registry: MeasureRegistry = REGISTRY,
               shared: Optional[Dict[Path, "ReleaseContext"]] = None) -> "ReleaseContext":
        """The context of ``release_dir`` from ``shared`` when one with the same tie rule and
        registry was loaded in this run (e.g. by another release's source-shift table), else a
        new one, recorded there: each release is loaded, and each run file parsed, once."""
        shared = {} if shared is None else shared
        key = Path(release_dir).resolve()
        ctx = shared.get(key)
        if ctx is None or ctx.ties != ties or ctx.registry is not registry:
            ctx = ReleaseContext(release_dir, ties, registry=registry, shared=shared)
            shared[key] = ctx
        return ctx

    def sibling(self, name: str) -> "ReleaseContext":
        """The context of the release ``name`` beside this one (``data/<name>``), loaded once
        per run (:meth:`opened`)."""
        return ReleaseContext.opened(self.layout.folder.parent / name, self.ties, self.registry,
                                     self.shared)

    @property
    def families(self) -> Dict[str, str]:
        """Exact-gold-set families of the release's queries (n-Clue paper, sec. 3.4)."""
        if self._families is None:
            self._families = gold_families(self.release)
        return self._families

    def entry(self, run_id: str) -> RunEntry:
        if run_id not in self.index:
            raise InputError(self.layout.report_spec, f"unknown run id {run_id!r}")
        return self.index[run_id]

    @property
    def ranking_reads(self) -> int:
        """How many times anything read a run's rankings or per-query results through this
        context (or a view of it): a table whose build moves it was scored under the tie rule
        (:func:`nclue.tables.kinds.build_table` names the rule under it)."""
        return self._reads[0]

    def run(self, run_id: str) -> Run:
        self._reads[0] += 1
        if run_id not in self._runs:
            entry = self.entry(run_id)
            if entry.sha256 not in self._parsed:
                self._parsed[entry.sha256] = load_run(self.index.path(run_id), self.release,
                                                      self.ties, run_id=run_id)
            self._runs[run_id] = replace(self._parsed[entry.sha256], run_id=run_id)
        return self._runs[run_id]

    def preload(self) -> None:
        """Parse every indexed run file now (each distinct file once), in this process: worker
        processes saved about 1% of the wall time for 25% more CPU (issue 23), and were the
        source of shutdown hangs and orphan risks, so there are none."""
        for run_id in self.index:
            self.run(run_id)

    def _content_key(self, run_id: str, k: Optional[int]) -> Tuple[str, int]:
        """Cache key of per-query results: runs with identical files share them."""
        return (self.entry(run_id).sha256, k or self.k)

    def outcomes(self, run_id: str, k: Optional[int] = None) -> Mapping[str, QueryOutcome]:
        self._reads[0] += 1
        key = self._content_key(run_id, k)
        if key not in self._outcomes:
            self._outcomes[key] = outcome_records(self._facts, self.run(run_id), key[1])
        return self._outcomes[key]

    @property
    def scorer(self) -> Scorer:
        """The tie contract's scorer over this context's release (:mod:`nclue.tie_contract`)."""
        return Scorer(self.release, self.registry, self._facts, lambda: self.perspectives)

    def vectors(self, run_id: str, k: Optional[int] = None) -> Dict[str, Vector]:
        """Per-query vectors of every outcome measure of the registry at cutoff ``k`` that the
        context's tie rule computes (:func:`nclue.tie_contract.outcome_vectors`)."""
        self._reads[0] += 1
        return {name: unpacked_vector(stored) for name, stored in self._stored_vectors(run_id, k).items()}

    def _stored_vectors(self, run_id: str, k: Optional[int]) -> Dict[str, object]:
        """The cached (packed) vectors of :meth:`vectors`, computed on first use."""
        key = self._content_key(run_id, k)
        if key not in self._vectors:
            # the records are kept only if they were already (ctx.outcomes): the vectors are
            # what the tables read, and a record per query, run and cutoff would double them
            records = self._outcomes.get(key)
            if records is None:
                records = outcome_records(self._facts, self.run(run_id), key[1])
            vectors = Scorer(self.release, self.registry, self._facts).outcome_vectors(
                self.run(run_id), key[1], records)
            self._vectors[key] = {name: packed_vector(vector, self._orders)
                                  for name, vector in vectors.items()}
        return self._vectors[key]

    def vector(self, run_id: str, measure: Measure) -> Optional[Vector]:
        """The per-query vector of one measure, or None where the run does not have it (page
        measures of a run without page scores), computed as the measure's tie contract says
        under the context's rule (:mod:`nclue.tie_contract`: outcome measures from the outcome
        records, hard coverage ``hc@k`` with the release's conditions as perspectives, Multi³IR
        eq. 5); a measure the rule refuses, or one a release report cannot provide, is an
        InputError naming the report spec."""
        self._reads[0] += 1
        definition = self.registry.definition(measure)
        if definition.computation == "outcome":  # from the cached vectors: no ranking is read
            plan(definition, self.ties, self.layout.report_spec)
            return unpacked_vector(self._stored_vectors(run_id, measure.k or self.k).get(measure.name))
        key = (self._content_key(run_id, measure.k), measure.name)
        if key not in self._coverage:
            self._coverage[key] = packed_vector(self.scorer.vector(self.run(run_id), measure,
                                                                   self.layout.report_spec),
                                                self._orders)
        return unpacked_vector(self._coverage[key])

    @property
    def perspectives(self) -> Mapping[str, PerspectiveQuery]:
        """Each query's conditions as Multi³IR perspectives (:mod:`nclue.coverage`)."""
        if self._perspectives is None:
            self._perspectives = perspectives_from_release(self.release)
        return self._perspectives

    def scores(self, run_id: str, qids: Optional[Sequence[str]] = None,
               k: Optional[int] = None) -> Dict[str, float]:
        """Aggregates (percentage points) of every outcome measure, optionally over ``qids``."""
        return aggregate(self.vectors(run_id, k), qids, self.registry)

    def score(self, run_id: str, measure: Measure, qids: Optional[Sequence[str]] = None) -> float:
        """One aggregate (percentage points) of a measure the run has."""
        vector = self.vector(run_id, measure)
        if vector is None:
            raise InputError(self.layout.report_spec,
                             f"run {run_id!r} has no per-query {measure.name!r}")
        return aggregate({measure.name: vector}, qids, self.registry)[measure.name]

    def derived(self, key: Tuple, compute: Callable[[], object]) -> object:
        """A value computed once per context (several tables read one computation, e.g. the
        Multi³IR section's tables); ``key`` names it and its settings."""
        if key not in self._derived:
            before = self._reads[0]
            value = compute()
            self._derived[key] = (value, self._reads[0] > before)
        value, read_rankings = self._derived[key]
        if read_rankings:  # a later reader of a value scored from rankings reads them too
            self._reads[0] += 1
        return value

    def close(self) -> None:
        """Drop every cache and view of this context (a finished release): its views refer back
        to it, a reference cycle, so without this only the cyclic collector would free them,
        after a pass over every object alive."""
        for cache in (self._derived, self._runs, self._parsed, self._vectors, self._outcomes,
                      self._coverage, self._resamplers, self._orders):
            cache.clear()

    def resampler(self, qids: Iterable[str], seed: int) -> Resampler:
        """The family Resampler of one query set and seed, shared by every table of this context
        and by every view whose families of those queries are the same (its draws depend only on
        the seed and the families, so each table's numbers are those of a Resampler of its own;
        sharing only saves drawing them again)."""
        families = self.families
        design = (seed, tuple(sorted((q, families.get(q)) for q in set(qids))))
        if design not in self._resamplers:  # views with the same families share it too
            self._resamplers[design] = Resampler([q for q, _ in design[1]], families, seed=seed)
        return self._resamplers[design]

    def view(self, release: Release, tag: Tuple) -> "ReleaseContext":
        """A context over another label version or query subset of this release (the same run
        index and parsed runs; every per-query cache is its own). ``release`` must hold a
        subset of this release's queries; ``tag`` names the view, and each tag is built once."""
        if not set(release.queries) <= set(self.release.queries):
            raise InputError(self.layout.report_spec, f"view {tag!r}: queries outside the release")

        def make() -> "ReleaseContext":
            other = object.__new__(ReleaseContext)
            other.__dict__.update(self.__dict__)
            other.release = release
            other._facts = query_facts(release)
            other._families = None
            other._vectors, other._outcomes, other._coverage = {}, {}, {}
            other._perspectives = None
            other._derived = {}
            other.run = self.run  # runs are parsed and checked against the whole release, once
            return other
        return self.derived(("view",) + tuple(tag), make)  # type: ignore[return-value]

    def label(self, run_id: str) -> str:
        entry = self.index.get(run_id)
        return entry.label if entry is not None else run_id

    def fair_runs(self) -> List[str]:
        """Runs that are neither controls nor privileged (n-Clue paper, Figure 2(a): "fair
        method rows")."""
        return [r for r in self.index if not self.index[r].is_control and self.index[r].query_scope == "all"]

    def complete_runs(self) -> List[str]:
        """Runs that rank every test query (``query_scope`` all): what ``"all"`` selects."""
        return [r for r in self.index if self.index[r].query_scope == "all"]
