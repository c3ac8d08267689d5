"""The Python API: load a release, load a run (a file or an in-memory mapping), score, compare.

    import nclue
    release = nclue.load_release("data/example")
    run = nclue.load_run("data/example/runs/example_lexical.jsonl.gz", release)
    result = nclue.score(release, run)              # every outcome measure at k = 10
    result["nclue_score@10"]                        # 50.0 (percentage points)
    result.per_query["nclue_score@10"]["q1"]        # 1 (query q1 succeeds)
    result.to_dict()                                # plain JSON-able dict
    other = nclue.run_from_mapping({"q1": {"d01": 2.0, "d02": 1.0}}, release, run_id="mine")
    table = nclue.compare(release, [run, other], measures=["nclue_score", "gold_hit"])
    print(table.to_markdown())                      # or .to_latex(), .to_dict()

This module is the stable surface: the functions above and the records they return
(:class:`ScoreResult`, :class:`Comparison`). Everything else is importable but may change.
Measures are named as the registry names them (:mod:`nclue.measures`), with the ir_measures-style
aliases that mean exactly the same thing (:data:`nclue.measures.ALIASES`). Each measure is
computed under the tie rule its run was loaded with, as its tie contract says
(:mod:`nclue.tie_contract`); :class:`ScoreResult` and :class:`Comparison` name the rule and count
the queries whose n-Clue or Gold Hit outcome a tie decides (``tie_decided_queries``).
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import InputError
from .formats import PathLike
from .inference import DEFAULT_DRAWS, DEFAULT_SEED, Resampler, holm
from .measures import DEFAULT_K, REGISTRY, Measure, MeasureRegistry, count_key
from .metrics import QueryFacts, aggregate, query_facts
from .release import Release, gold_families
from .release import load_release as _load_release
from .runs import TIE_RULES, Ranking, Run, load_run as _load_run, order_by_score
from .table import Column, Table
from .tie_contract import Scorer, decided_queries

#: Significance level of the marks in :func:`compare` (after Holm across the whole table).
ALPHA = 0.05


def load_release(folder: PathLike) -> Release:
    """Load and cross-validate a release folder (``data/v1`` ...)."""
    return _load_release(folder)


def load_run(path: PathLike, release: Optional[Release] = None, ties: str = "input",
             run_id: Optional[str] = None) -> Run:
    """Load a JSONL(.gz) or TREC run file, validated against ``release`` when given."""
    return _load_run(path, release, ties=ties, run_id=run_id)


RankingInput = Union[Mapping[str, float], Sequence[Tuple[str, float]]]


def run_from_mapping(rankings: Mapping[str, RankingInput], release: Optional[Release] = None,
                     ties: str = "input", run_id: str = "run") -> Run:
    """A run from memory: ``{qid: {docid: score}}`` or ``{qid: [(docid, score), ...]}``.

    Documents are re-sorted by descending score with the tie rule (``input``: the mapping's or
    list's order, as a file's line order); a repeated document, a non-finite score, or (with
    ``release``) an unknown query or document is an InputError naming the query.
    """
    if ties not in TIE_RULES:
        raise InputError("ties", f"unknown tie rule {ties!r}; expected one of {', '.join(TIE_RULES)}")
    out: Dict[str, Ranking] = {}
    for qid in rankings:
        if not isinstance(qid, str):
            raise InputError(run_id, f"query id {qid!r} is not a string")
        if release is not None and qid not in release.queries:
            raise InputError(run_id, f"unknown qid {qid!r}")
        items = rankings[qid]
        pairs = list(items.items()) if isinstance(items, Mapping) else list(items)
        docs: List[str] = []
        scores: List[float] = []
        for pair in pairs:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[0], str)):
                raise InputError(run_id, f"query {qid!r}: expected (docid, score) pairs")
            docid, score = pair
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise InputError(run_id, f"query {qid!r}: score of {docid!r} must be a finite number")
            if release is not None and docid not in release.corpus:
                raise InputError(run_id, f"query {qid!r}: unknown docid {docid!r}")
            docs.append(docid)
            scores.append(float(score))
        if len(set(docs)) != len(docs):
            raise InputError(run_id, f"query {qid!r} ranks a document twice")
        ordered_docs, ordered_scores = order_by_score(docs, scores, ties)
        out[qid] = Ranking(qid, tuple(ordered_docs), tuple(ordered_scores))
    return Run(run_id, out, ties)


def _measures(names: Optional[Iterable[str]], k: int, registry: MeasureRegistry) -> Tuple[Measure, ...]:
    if names is None:
        return registry.outcome_measures(k)
    return tuple(registry.parse(name, default_k=k, where="measures") for name in names)


def per_query_vectors(release: Release, run: Run, measures: Sequence[Measure],
                      registry: MeasureRegistry = REGISTRY,
                      facts: Optional[Mapping[str, QueryFacts]] = None) -> Dict[str, Dict[str, float]]:
    """``{measure name: {qid: value}}`` for the requested measures under the run's tie rule
    (outcome measures and hard coverage; :class:`nclue.tie_contract.Scorer`); a page measure of
    a run without page scores is absent. ``facts``: the release's
    :func:`nclue.metrics.query_facts`, when the caller has them already."""
    scorer = Scorer(release, registry, facts)
    by_cutoff: Dict[int, Mapping[str, Dict[str, float]]] = {}

    def outcome_vectors(k: int) -> Mapping[str, Dict[str, float]]:
        if k not in by_cutoff:
            by_cutoff[k] = scorer.outcome_vectors(run, k)
        return by_cutoff[k]

    out: Dict[str, Dict[str, float]] = {}
    for measure in measures:
        vector = scorer.vector(run, measure, "measures", outcome_vectors, DEFAULT_K)
        if vector is not None:
            out[measure.name] = vector
    return out


@dataclass(frozen=True)
class ScoreResult:
    """One run scored on one release: aggregates (points) and per-query vectors ([0, 1])."""

    run_id: str
    release: str
    ties: str
    queries: int
    aggregates: Mapping[str, float]
    per_query: Mapping[str, Mapping[str, float]]
    counts: Mapping[str, int]  # queries in the denominator of each conditional measure
    tie_decided_queries: int = 0  # queries whose n-Clue or Gold Hit outcome at k a tie decides
    k: int = DEFAULT_K

    def __getitem__(self, name: str) -> float:
        return self.aggregates[name]

    def to_dict(self) -> Dict[str, Any]:
        return {"run": self.run_id, "release": self.release, "ties": self.ties,
                "tie_decided_queries": self.tie_decided_queries, "k": self.k,
                "queries": self.queries, "aggregates": dict(self.aggregates),
                "counts": dict(self.counts),
                "per_query": {m: dict(v) for m, v in self.per_query.items()}}


def score(release: Release, run: Run, measures: Optional[Iterable[str]] = None,
          k: int = DEFAULT_K, registry: MeasureRegistry = REGISTRY,
          facts: Optional[Mapping[str, QueryFacts]] = None) -> ScoreResult:
    """Score ``run`` on ``release``: every outcome measure at ``k`` unless ``measures`` names
    some (registry names or aliases; a bare key takes ``k``). ``facts``: as for
    :func:`per_query_vectors`."""
    chosen = _measures(measures, k, registry)
    facts = facts if facts is not None else query_facts(release)
    vectors = per_query_vectors(release, run, chosen, registry, facts)
    totals = aggregate(vectors, None, registry) if vectors else {"queries": len(release.queries)}
    aggregates = {m.name: totals[m.name] for m in chosen if m.name in totals}
    counts = {m.name: totals[count_key(m)] for m in chosen if count_key(m) in totals}
    return ScoreResult(run.run_id, release.name, run.tie_rule, len(release.queries), aggregates,
                       vectors, counts, len(decided_queries(facts, run, k)), k)


@dataclass(frozen=True)
class PairTest:
    """The family sign-flip test of ``better`` against ``worse`` on one measure."""

    measure: str
    better: str
    worse: str
    delta: float      # better - worse, points
    p: float          # two-sided, +1 corrected
    p_holm: float     # Holm-adjusted across every pair and measure of the comparison


@dataclass(frozen=True)
class Comparison:
    """N runs on one release: a table of aggregates with significance marks (ranx style: a
    superscript letter for each run the cell's run is significantly better than)."""

    release: str
    runs: Tuple[str, ...]
    measures: Tuple[str, ...]
    scores: Mapping[Tuple[str, str], float]     # (run, measure) -> points
    tests: Tuple[PairTest, ...]
    seed: int
    draws: int
    alpha: float
    ties: str = "input"
    tie_decided: Mapping[str, int] = None  # type: ignore[assignment]  # run -> tie-decided queries
    k: int = DEFAULT_K

    def letter(self, run_id: str) -> str:
        return chr(ord("a") + self.runs.index(run_id)) if len(self.runs) <= 26 else str(self.runs.index(run_id))

    def marks(self) -> Dict[Tuple[str, str], str]:
        """(run, measure) -> the letters of the runs it beats at ``alpha`` after Holm."""
        out: Dict[Tuple[str, str], str] = {}
        for t in self.tests:
            if t.p_holm < self.alpha and t.delta > 0:
                out[(t.better, t.measure)] = out.get((t.better, t.measure), "") + self.letter(t.worse)
        return {key: "".join(sorted(value)) for key, value in out.items()}

    def table(self) -> Table:
        columns = tuple(Column(m, REGISTRY.header(REGISTRY.parse(m)), 1) for m in self.measures)
        rows = tuple((r, f"({self.letter(r)}) {r}", {m: self.scores.get((r, m)) for m in self.measures})
                     for r in self.runs)
        note = (f"Percentage points. A superscript names each run this one is significantly better "
                f"than: two-sided family sign-flip test ({self.draws} draws, seed {self.seed}), Holm "
                f"across all {len(self.tests)} pairs x measures, alpha {self.alpha}. "
                f"{self.decided_sentence()}")
        return Table("comparison", f"Comparison on {self.release}", columns, rows, note, self.ties)

    def decided_sentence(self) -> str:
        """Per run, the queries whose n-Clue or Gold Hit outcome a tie decides (the table's
        note; the tie rule is printed after it, :attr:`nclue.table.Table.printed_note`)."""
        decided = ", ".join(f"({self.letter(r)}) {(self.tie_decided or {}).get(r, 0)}"
                            for r in self.runs)
        return f"Queries whose n-Clue or Gold Hit outcome at k={self.k} a tie decides: {decided}."

    def document(self):
        from .report.document import Document, TableBlock
        marks = tuple((run, measure, text) for (run, measure), text in sorted(self.marks().items()))
        return Document(f"nclue compare: {self.release}", (TableBlock(self.table(), marks),))

    def to_markdown(self) -> str:
        from .report.markdown import render_markdown
        return render_markdown(self.document())

    def to_latex(self) -> str:
        from .report.latex import render_latex
        return render_latex(self.document())

    def to_dict(self) -> Dict[str, Any]:
        return {"release": self.release, "runs": list(self.runs), "measures": list(self.measures),
                "scores": {r: {m: self.scores[(r, m)] for m in self.measures if (r, m) in self.scores}
                           for r in self.runs},
                "tests": [{"measure": t.measure, "better": t.better, "worse": t.worse,
                           "delta": t.delta, "p": t.p, "p_holm": t.p_holm} for t in self.tests],
                "marks": {f"{r} {m}": v for (r, m), v in sorted(self.marks().items())},
                "seed": self.seed, "draws": self.draws, "alpha": self.alpha,
                "ties": self.ties, "k": self.k,
                "tie_decided_queries": {r: (self.tie_decided or {}).get(r, 0) for r in self.runs}}


def compare(release: Release, runs: Sequence[Run], measures: Optional[Iterable[str]] = None,
            k: int = DEFAULT_K, seed: int = DEFAULT_SEED, draws: int = DEFAULT_DRAWS,
            alpha: float = ALPHA, registry: MeasureRegistry = REGISTRY) -> Comparison:
    """Every pair of ``runs`` on every measure (default n-Clue Score@k and Gold Hit@k): the
    paired difference and its two-sided family sign-flip p (exact-gold-set families, n-Clue
    paper sec. 3.4), Holm-corrected across the whole table. Measures must be defined on every
    query (a paired test compares the same queries)."""
    if len(runs) < 2:
        raise InputError("runs", "compare needs at least two runs")
    ids = [r.run_id for r in runs]
    if len(set(ids)) != len(ids):
        raise InputError("runs", f"two runs share the id {sorted(i for i in ids if ids.count(i) > 1)[0]!r}")
    rules = sorted({r.tie_rule for r in runs})
    if len(rules) > 1:
        raise InputError("runs", f"runs loaded under different tie rules ({', '.join(rules)}); "
                                 "compare them under one")
    chosen = _measures(measures or ("nclue_score", "gold_hit"), k, registry)
    for measure in chosen:
        if registry.definition(measure).conditional:
            raise InputError("measures", f"{measure.name!r} is not defined on every query; a "
                                         "paired test needs the same queries on both sides")
    facts = query_facts(release)
    vectors = {r.run_id: per_query_vectors(release, r, chosen, registry, facts) for r in runs}
    decided = {r.run_id: len(decided_queries(facts, r, k)) for r in runs}
    families = gold_families(release)
    scores: Dict[Tuple[str, str], float] = {}
    raw: Dict[Tuple[str, str, str], Tuple[float, float]] = {}
    for measure in chosen:
        resampler = Resampler(sorted(release.queries), families, seed=seed)
        for run_id in ids:
            vector = vectors[run_id][measure.name]
            scores[(run_id, measure.name)] = 100.0 * math.fsum(vector.values()) / len(vector)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                test = resampler.flip_test(vectors[b][measure.name], vectors[a][measure.name],
                                           draws=draws)
                raw[(measure.name, a, b)] = (100.0 * test.delta, test.p)  # a - b
    adjusted = holm({key: p for key, (_, p) in raw.items()})
    tests = []
    for (measure, a, b), (delta, p) in raw.items():
        better, worse = (a, b) if delta >= 0 else (b, a)
        tests.append(PairTest(measure, better, worse, abs(delta), p, adjusted[(measure, a, b)]))
    return Comparison(release.name, tuple(ids), tuple(m.name for m in chosen), scores,
                      tuple(tests), seed, draws, alpha, rules[0], decided, k)
