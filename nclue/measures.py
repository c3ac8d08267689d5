"""Measures as values: one registry of every per-query measure nclue reports.

A *measure definition* (:class:`MeasureDef`) says what a measure is: its key, its printed title,
whether it takes a rank cutoff, its one-line definition, the paper section or table it follows,
its denominator (which queries count) and the per-query function that computes it. A *measure*
(:class:`Measure`) is a definition's key with its parameter, ``nclue_score@10`` or ``auc``, in
the style of ir_measures: it is parsed from and printed to that canonical name, and the name is
what per-query vectors, tables and claims are keyed by.

Every part of the package that names a measure asks a :class:`MeasureRegistry` for it
(:data:`REGISTRY` is the built-in one): scoring (:mod:`nclue.metrics`), ``nclue score`` /
``nclue compare --measure``, the scorecard columns, findings, inference tables and the README's
definitions table (:func:`definitions_markdown`, checked by a test). A registry is immutable;
:meth:`MeasureRegistry.with_measure` returns an extended copy, so a new measure is added in one
place (see ``docs/ARCHITECTURE.md``).

Sources: the n-Clue paper (*Do Current Retrievers Cover All the Evidence?*, arXiv 2607.24165)
and *Multi³IR: A Benchmark for Multi-perspective Multi-domain Multi-modal Information
Retrieval* (code and data: github.com/seokwon99/Multi3IR; the paper gives no arXiv id).
"""

import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, Iterable, Iterator, Mapping, Optional, Tuple

from .errors import InputError

DEFAULT_K = 10

NCLUE = "n-Clue (arXiv 2607.24165)"
MULTI3IR = "Multi³IR"  # the paper gives no arXiv id; see the module docstring

#: Which queries a measure's mean is taken over, by denominator code.
DENOMINATORS: Mapping[str, str] = {
    "all": "every query of the release",
    "gold_and_subset": "queries with at least one gold and one judged subset",
    "gold_hit": "queries with a top-k gold (conditional)",
    "page_scored": "every query; page-scored runs only",
    "with_gold": "queries with at least one gold",
}

#: What a measure needs besides a ranking and the qrels.
NEEDS = ("ranking", "pages", "perspectives", "judgments", "sources")

_NAME = re.compile(r"^([a-z][a-z0-9_]*)(?:@([0-9]+))?$")
_ALIAS = re.compile(r"^(gold:)?([A-Za-z][A-Za-z_]*?)(?:([@._])([0-9]+))?$")

#: How a measure's per-query values are computed from one order of a ranking (the
#: ``computation`` of :class:`MeasureDef`; :mod:`nclue.tie_contract` implements each).
COMPUTATIONS: Mapping[str, str] = {
    "outcome": "its per-query function of the query's outcome record (nclue.query_outcomes)",
    "hard_coverage": "HC@k of the query's perspectives (nclue.coverage, Multi³IR eq. 5)",
    "coverage": "nclue.coverage, from inputs a release scorer does not hold (judgments, document "
                "sources) or per perspective; `nclue coverage` and the Multi³IR tables",
}

#: How a measure's exact expectation over uniformly random orders within tie groups (the tie
#: rule ``expected``) is computed (the ``expectation`` of :class:`MeasureDef`; ``None``: it is
#: not, and ``--ties expected`` refuses the measure). :mod:`nclue.tie_contract` implements each
#: and ``tests/test_tie_contract.py`` checks every registered measure against enumeration.
EXPECTATIONS: Mapping[str, str] = {
    "outcome_fields": "its per-query function of the expected outcome record, whose fields hold "
                      "exact expectations (nclue.ties): exact for a function affine in them",
    "first_ranks": "its per-query function summed over the exact joint law of the first-gold and "
                   "first-subset ranks over tie orders (nclue.ties.first_rank_law): exact for a "
                   "function of those ranks (plus an affine function of the other fields)",
    "hard_coverage": "the mean over perspectives of the exact probability that a supporting "
                     "document reaches the top k (nclue.ties.expected_hard_coverage)",
}


@dataclass(frozen=True)
class Alias:
    """A name another tool gives a measure, and the registry measure it means exactly.

    ``tool`` is ``ir_measures`` or ``trec_eval``; ``separators`` the ways that tool writes a
    cutoff (``nDCG@10``; ``ndcg_cut.10`` on trec_eval's command line, ``ndcg_cut_10`` in its
    output); ``gold``: on the gold-only binary qrels (``nclue export-trec --grades gold``,
    written with a ``gold:`` prefix) rather than the graded ones (grade = clue count).
    ``target`` is the registry key it means with a cutoff (None: no cutoff form is an alias);
    ``uncut`` the reason the name without a cutoff is refused (None: it takes no cutoff and
    maps to ``target``, which then has none either).
    """

    tool: str
    name: str
    separators: str
    gold: bool
    target: Optional[str]
    uncut: Optional[str]


_WHOLE = ("without a cutoff is NDCG over the whole ranking, which nclue does not compute; give a "
          "cutoff, e.g. {name}{sep}10")
_REQUIRED = "requires a cutoff, e.g. {name}{sep}10"
_CUTS = ("without a cutoff reports every default cutoff (5, 10, 15, 20, 30, 100, 200, 500, 1000); "
         "give one, e.g. {name}{sep}10")
_SUCCESS_CUTS = "without a cutoff reports cutoffs 1, 5 and 10; give one, e.g. {name}{sep}10"
_NDCG = ("takes no cutoff: it is NDCG over the whole ranking, which nclue does not compute; "
         "trec_eval's ndcg_cut.k is {target}@k")

#: ir_measures / trec_eval names that mean exactly a registry measure (equal under ``--ties
#: trec_eval``: both tools break score ties by docid descending). On the release's graded qrels
#: (grade = clue count) ``nDCG@10`` / ``ndcg_cut.10`` are graded NDCG@10; on the gold-only
#: binary qrels (``gold:`` prefix) they are Gold-NDCG@10 and ``Success@10`` / ``success.10``
#: Gold Hit@10. ``tests/test_measures.py`` checks each against ir_measures' and trec_eval's
#: documented definitions.
ALIASES: Tuple[Alias, ...] = tuple(
    Alias(tool, name, seps, gold, target,
          uncut.format(name=("gold:" if gold else "") + name, sep=seps[0],
                       target="gold_ndcg" if gold else "graded_ndcg"))
    for tool, name, seps, gold, target, uncut in (
        ("ir_measures", "nDCG", "@", False, "graded_ndcg", _WHOLE),
        ("ir_measures", "NDCG", "@", False, "graded_ndcg", _WHOLE),
        ("ir_measures", "nDCG", "@", True, "gold_ndcg", _WHOLE),
        ("ir_measures", "NDCG", "@", True, "gold_ndcg", _WHOLE),
        ("ir_measures", "Success", "@", True, "gold_hit", _REQUIRED),
        ("trec_eval", "ndcg_cut", "._", False, "graded_ndcg", _CUTS),
        ("trec_eval", "ndcg_cut", "._", True, "gold_ndcg", _CUTS),
        ("trec_eval", "success", "._", True, "gold_hit", _SUCCESS_CUTS),
        ("trec_eval", "ndcg", "._", False, None, _NDCG),
        ("trec_eval", "ndcg", "._", True, None, _NDCG),
    ))

#: trec_eval's measure families among the aliases, in the order trec_eval prints them (its
#: measure table, ``measures.c``): ``trec_eval -q`` prints, per query, ``ndcg_cut_<k>`` before
#: ``success_<k>``, each family's cutoffs ascending.
TREC_EVAL_FAMILIES: Tuple[str, ...] = ("ndcg_cut", "success")

#: Names of other tools' measures that nclue has no exact equivalent of, with the reason.
NO_EQUIVALENT: Mapping[str, str] = {
    "Success": "on graded qrels a judged subset counts as a success; gold:Success@k is Gold Hit@k",
    "success": "on graded qrels a judged subset counts as a success; gold:success.k is Gold Hit@k",
    "P": "precision is not an n-Clue measure", "R": "recall is not an n-Clue measure",
    "AP": "average precision is not an n-Clue measure", "MAP": "not an n-Clue measure",
    "RR": "reciprocal rank is not an n-Clue measure", "MRR": "not an n-Clue measure",
    "Judged": "not an n-Clue measure", "Bpref": "not an n-Clue measure",
    "ERR": "not an n-Clue measure", "RBP": "not an n-Clue measure",
}


def _possessive(tool: str) -> str:
    return f"{tool}'" if tool.endswith("s") else f"{tool}'s"


def find_alias(gold: bool, name: str) -> Optional[Alias]:
    """The alias ``name`` (with or without the ``gold:`` prefix), or None."""
    return next((a for a in ALIASES if a.gold == gold and a.name == name), None)


def trec_eval_name(text: str, default_k: Optional[int] = None) -> Optional[Tuple[int, int, str]]:
    """trec_eval's printed name of a measure asked for by its trec_eval name, else None.

    ``ndcg_cut.10`` / ``gold:ndcg_cut.10`` -> ``ndcg_cut_10``; ``gold:success.5`` -> ``success_5``
    (``trec_eval -m ndcg_cut.10 -q`` prints ``ndcg_cut_10``). A bare family gives None: an alias
    takes no default cutoff (:meth:`MeasureRegistry.parse` refuses it with the reason);
    ``default_k`` is accepted for the callers' signature. Returned as ``(family index, cutoff,
    name)``, so that sorting gives trec_eval's print order (:data:`TREC_EVAL_FAMILIES`). Registry
    names and ir_measures names (``nDCG@10``) give None.
    """
    found = _ALIAS.match(text) if isinstance(text, str) else None
    if found is None or found.group(2) not in TREC_EVAL_FAMILIES:
        return None
    gold, family, sep, k_text = (bool(found.group(1)), found.group(2), found.group(3),
                                 found.group(4))
    alias = find_alias(gold, family)
    if alias is None or alias.target is None or k_text is None or sep not in alias.separators:
        return None
    k = int(k_text)
    if k < 1:
        return None
    return TREC_EVAL_FAMILIES.index(family), k, f"{family}_{k}"


@dataclass(frozen=True)
class MeasureDef:
    """The definition of one measure family (its cutoff is a parameter of :class:`Measure`).

    ``per_query`` maps one :class:`nclue.metrics.QueryOutcome` to the query's value in [0, 1],
    or ``None`` where the query is outside the denominator; it is ``None`` for measures computed
    elsewhere (the coverage measures of :mod:`nclue.coverage`).

    The measure's tie contract (:mod:`nclue.tie_contract`): ``computation`` (a key of
    :data:`COMPUTATIONS`) says how its per-query values come from one order of a ranking, used
    under the tie rules ``input`` and ``trec_eval``; ``expectation`` (a key of
    :data:`EXPECTATIONS`, or None) how its exact expectation over tie orders is computed under
    ``expected``. A measure without an ``expectation`` is refused under ``expected``, never
    approximated.
    """

    key: str
    title: str
    cutoff: bool
    definition: str
    citation: str
    denominator: str = "all"
    needs: str = "ranking"
    per_query: Optional[Callable[[Any], Optional[float]]] = None
    scorecard: bool = False
    aliases: Tuple[str, ...] = ()
    computation: str = "outcome"
    expectation: Optional[str] = None

    def __post_init__(self) -> None:
        if not re.match(r"^[a-z][a-z0-9_]*$", self.key):
            raise ValueError(f"measure key {self.key!r}: lower-case letters, digits and '_'")
        if self.computation not in COMPUTATIONS:
            raise ValueError(f"measure {self.key!r}: unknown computation {self.computation!r}")
        if (self.per_query is not None) != (self.computation == "outcome"):
            raise ValueError(f"measure {self.key!r}: a per-query function is exactly the "
                             "'outcome' computation")
        if self.expectation is not None and self.expectation not in EXPECTATIONS:
            raise ValueError(f"measure {self.key!r}: unknown expectation {self.expectation!r}")
        outcome_kinds = ("outcome_fields", "first_ranks")
        if self.expectation is not None and (self.computation == "outcome") != (
                self.expectation in outcome_kinds):
            raise ValueError(f"measure {self.key!r}: expectation {self.expectation!r} does not "
                             f"fit computation {self.computation!r}")
        if self.expectation == "hard_coverage" and self.computation != "hard_coverage":
            raise ValueError(f"measure {self.key!r}: expectation 'hard_coverage' is HC's")
        if self.denominator not in DENOMINATORS:
            raise ValueError(f"measure {self.key!r}: unknown denominator {self.denominator!r}")
        if self.needs not in NEEDS:
            raise ValueError(f"measure {self.key!r}: unknown need {self.needs!r}")

    @property
    def conditional(self) -> bool:
        """True when the mean is not over every query, so outputs also state its query count."""
        return self.denominator != "all"


@dataclass(frozen=True, order=True)
class Measure:
    """A measure with its parameter: ``Measure("nclue_score", 10)`` is ``nclue_score@10``."""

    key: str
    k: Optional[int] = None

    @property
    def name(self) -> str:
        return self.key if self.k is None else f"{self.key}@{self.k}"

    def __str__(self) -> str:
        return self.name

    def at(self, k: int) -> "Measure":
        """The same measure at another cutoff."""
        return replace(self, k=k)


def source_coverage_name(field: str, k: int) -> str:
    """The name of knowledge-source coverage over one document attribute (Multi³IR Table 6:
    ``modality_coverage@5``, ``domain_coverage@5``; ``source_coverage@k`` for the release's
    ``source`` field)."""
    if not re.match(r"^[a-z][a-z0-9_]*$", field):
        raise ValueError(f"source field {field!r}: lower-case letters, digits and '_'")
    return f"{field}_coverage@{k}"


def count_key(measure: Measure) -> str:
    """The key of a conditional measure's query count (``auc_queries``) in aggregates/tables."""
    return f"{measure.name}_queries"


def interval_keys(measure: Measure) -> Tuple[str, str]:
    """The keys of a measure's interval bounds in a table: ``hc@10_lo``, ``hc@10_hi``."""
    return f"{measure.name}_lo", f"{measure.name}_hi"


def se_key(measure: Measure) -> str:
    """The key of the Monte Carlo SE of a measure's interval bounds in a table: ``hc@10_se``."""
    return f"{measure.name}_se"


def cutoff_key(statistic: str, measure: Measure) -> str:
    """The key of a statistic of a measure in a table whose columns share one measure family and
    differ by cutoff: ``delta@10``, ``p@10`` (of ``hc@10``); ``@5`` for the bare cutoff."""
    if measure.k is None:
        raise ValueError(f"measure {measure.name!r} has no cutoff")
    return f"{statistic}@{measure.k}"


class MeasureRegistry:
    """An immutable, ordered collection of measure definitions (report order)."""

    def __init__(self, definitions: Iterable[MeasureDef]) -> None:
        self._defs: Dict[str, MeasureDef] = {}
        for definition in definitions:
            if definition.key in self._defs:
                raise ValueError(f"measure {definition.key!r} is defined twice")
            self._defs[definition.key] = definition

    def __iter__(self) -> Iterator[MeasureDef]:
        return iter(tuple(self._defs.values()))

    def __contains__(self, key: object) -> bool:
        return key in self._defs

    def with_measure(self, definition: MeasureDef) -> "MeasureRegistry":
        """A copy of this registry with one more definition (appended in report order)."""
        return MeasureRegistry(list(self._defs.values()) + [definition])

    def definition(self, measure: "Measure | str") -> MeasureDef:
        key = measure.key if isinstance(measure, Measure) else str(measure)
        if key not in self._defs:
            raise KeyError(f"unknown measure {key!r}")
        return self._defs[key]

    def measure(self, key: str, k: Optional[int] = None) -> Measure:
        """The measure ``key`` at cutoff ``k`` (ignored for uncut measures such as ``auc``)."""
        definition = self.definition(key)
        if definition.cutoff:
            if k is None or isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise ValueError(f"measure {key!r} needs a positive cutoff")
            return Measure(key, k)
        return Measure(key)

    def parse(self, text: str, default_k: Optional[int] = None, where: Any = "measure") -> Measure:
        """Parse a canonical name (``nclue_score@10``, ``auc``) or a bare key with ``default_k``.

        Unknown keys, a cutoff on an uncut measure and a missing cutoff are InputErrors naming
        ``where`` (a file or an option).
        """
        match = _NAME.match(text) if isinstance(text, str) else None
        if match is None or match.group(1) not in self._defs:
            found = _ALIAS.match(text) if isinstance(text, str) else None
            if found is not None:
                gold, name, sep, k_text = (bool(found.group(1)), found.group(2), found.group(3),
                                           found.group(4))
                alias = find_alias(gold, name)
                if alias is not None:
                    return self._alias(alias, text, sep, k_text, where)
                if name in NO_EQUIVALENT:
                    raise InputError(where, f"{text!r} has no exact nclue equivalent "
                                            f"({NO_EQUIVALENT[name]})")
        if match is None:
            raise InputError(where, f"{text!r} is not a measure name (e.g. nclue_score@10, auc)")
        key, k_text = match.group(1), match.group(2)
        if key not in self._defs:
            raise InputError(where, f"unknown measure {key!r}; known: {', '.join(self._defs)}")
        definition = self._defs[key]
        if not definition.cutoff:
            if k_text is not None:
                raise InputError(where, f"measure {key!r} takes no cutoff, got {text!r}")
            return Measure(key)
        k = int(k_text) if k_text is not None else default_k
        if k is None or k < 1:
            raise InputError(where, f"measure {key!r} needs a cutoff >= 1, e.g. {key}@10")
        return Measure(key, k)

    def _alias(self, alias: Alias, text: str, sep: Optional[str], k_text: Optional[str],
               where: Any) -> Measure:
        """The registry measure an alias means exactly, or a refusal naming the reason (an alias
        never takes a default cutoff: ``nDCG`` is not ``nDCG@10``)."""
        if k_text is None:
            if alias.uncut is not None:
                raise InputError(where, f"{text!r}: {_possessive(alias.tool)} {alias.name} "
                                        f"{alias.uncut}")
            return self.parse(str(alias.target), None, where)
        if alias.target is None:
            raise InputError(where, f"{text!r} has no exact nclue equivalent "
                                    f"({_possessive(alias.tool)} {alias.name} {alias.uncut})")
        if sep not in alias.separators:
            raise InputError(where, f"{text!r}: {alias.tool} writes the cutoff as "
                                    f"{alias.name}{alias.separators[0]}{k_text}")
        return self.parse(f"{alias.target}@{k_text}", None, where)

    def header(self, measure: Measure) -> str:
        """The column header of a measure: its title with the cutoff (``n-Clue Score@10``)."""
        title = self.definition(measure).title
        return title if measure.k is None else f"{title}@{measure.k}"

    def outcome_measures(self, k: int) -> Tuple[Measure, ...]:
        """Measures computed from per-query outcomes (:mod:`nclue.metrics`), in report order."""
        return tuple(self.measure(d.key, k) for d in self if d.per_query is not None)

    def scorecard(self, k: int) -> Tuple[Measure, ...]:
        """The scorecard's columns (Table 3 analogue), in report order."""
        return tuple(self.measure(d.key, k) for d in self if d.scorecard)


# --- per-query functions of :class:`nclue.metrics.QueryOutcome` (sec. 3.1, Tables 3-4, S5b) ---

def _nclue(o: Any) -> float:
    return o.nclue


def _gold_hit(o: Any) -> float:
    return o.gold_hit


def _gold_ndcg(o: Any) -> float:
    return o.gold_ndcg


def _graded_ndcg(o: Any) -> float:
    return o.graded_ndcg


def _auc(o: Any) -> Optional[float]:
    return o.auc


def _subset_first(o: Any) -> float:
    return o.subset_first


def _no_gold(o: Any) -> float:
    return 1 - o.gold_hit


def _gold_support(o: Any) -> Optional[float]:
    return o.gold_support


def _condition_coverage(o: Any) -> Optional[float]:
    return o.condition_coverage


def _full_coverage(o: Any) -> Optional[float]:
    return o.full_coverage


FIELDS = "outcome_fields"  # the expectation of every built-in outcome measure

BUILTIN: Tuple[MeasureDef, ...] = (
    MeasureDef("nclue_score", "n-Clue Score", True,
               "100/|Q| · Σ 1[r_G ≤ k ∧ r_G < r_S]; r_G / r_S = rank of the first gold / first "
               "judged subset (∞ if none retrieved)",
               f"{NCLUE}, sec. 3.1", per_query=_nclue, scorecard=True, expectation=FIELDS),
    MeasureDef("gold_hit", "Gold Hit", True, "a gold in the top k",
               f"{NCLUE}, sec. 3.1", per_query=_gold_hit, scorecard=True, expectation=FIELDS),
    MeasureDef("gold_ndcg", "Gold-NDCG", True,
               "binary gain on golds, 1/log2(rank+1), ideal from the query's gold count",
               f"{NCLUE}, sec. 3.1", per_query=_gold_ndcg, scorecard=True, expectation=FIELDS),
    MeasureDef("graded_ndcg", "graded NDCG", True,
               "gain = clue count (trec_eval's linear gain), log2 discount, ideal from every "
               "judged document; equals trec_eval `ndcg_cut.k` under `--ties trec_eval`",
               f"{NCLUE}, sec. 3.1", per_query=_graded_ndcg, scorecard=True, expectation=FIELDS),
    MeasureDef("auc", "AUC", False,
               "per query, share of (gold, subset) pairs with the gold ranked higher; "
               "unretrieved documents tie at ∞ (a pair of two unretrieved counts ½)",
               f"{NCLUE}, sec. 3.1", denominator="gold_and_subset", per_query=_auc,
               scorecard=True, expectation=FIELDS),
    MeasureDef("complete_first", "Complete first", True,
               "the n-Clue event: a top-k gold before every judged subset (outcome 1 of 3)",
               f"{NCLUE}, Table 4", per_query=_nclue, expectation=FIELDS),
    MeasureDef("subset_first", "Subset first", True,
               "a top-k gold, but a judged subset ranked before it (outcome 2 of 3)",
               f"{NCLUE}, Table 4", per_query=_subset_first, expectation=FIELDS),
    MeasureDef("no_gold", "No gold", True,
               "no gold in the top k (outcome 3 of 3; the three outcomes sum to 100)",
               f"{NCLUE}, Table 4", per_query=_no_gold, expectation=FIELDS),
    MeasureDef("gold_support", "Gold+Support", True,
               "some top-k gold's three highest-scoring distinct pages intersect the stored "
               "support of every condition", f"{NCLUE}, sec. 4.4, Table S5b",
               denominator="page_scored", needs="pages", per_query=_gold_support,
               expectation=FIELDS),
    MeasureDef("condition_coverage", "Cond. coverage", True,
               "share of conditions whose support some top-k gold's three surfaced pages "
               "intersect", f"{NCLUE}, Table 8", denominator="gold_hit", needs="pages",
               per_query=_condition_coverage, expectation=FIELDS),
    MeasureDef("full_coverage", "Full coverage", True,
               "one top-k gold's three surfaced pages cover every condition",
               f"{NCLUE}, Table 8", denominator="gold_hit", needs="pages",
               per_query=_full_coverage, expectation=FIELDS),
    MeasureDef("hc", "HC", True,
               "hard perspective coverage: share of a query's conditions (perspectives) that "
               "some top-k document supports", f"{MULTI3IR}, eq. 5", needs="perspectives",
               computation="hard_coverage", expectation="hard_coverage"),
    MeasureDef("sc", "SC", True,
               "soft coverage: share of perspectives a top-k document is judged to fully "
               "support", f"{MULTI3IR}, eq. 6", needs="judgments", computation="coverage"),
    MeasureDef("unjudged", "Unjudged", True,
               "count of (perspective, top-k document) pairs without a judgment (SC@k's gaps)",
               f"{MULTI3IR}, eq. 6", needs="judgments", computation="coverage"),
    MeasureDef("source_coverage", "Source coverage", True,
               "share of the distinct sources among a query's gold documents that the top k "
               "covers", f"{MULTI3IR}, Table 6", denominator="with_gold", needs="sources",
               computation="coverage"),
    MeasureDef("perspective_hit", "Hit", True,
               "per perspective: some top-k document supports it (Figure 4 ranks a query's "
               "perspectives by it; their mean over the query is HC@k)",
               f"{MULTI3IR}, sec. 4.1, Figure 4", needs="perspectives", computation="coverage"),
)

REGISTRY = MeasureRegistry(BUILTIN)


def definitions_markdown(registry: MeasureRegistry = REGISTRY) -> str:
    """The README's definitions table, generated from the registry (a test checks the README)."""
    lines = ["| measure | definition | over | source |", "| --- | --- | --- | --- |"]
    for d in registry:
        name = f"`{d.key}@k`" if d.cutoff else f"`{d.key}`"
        definition = d.definition.replace("|", "\\|")
        lines.append(f"| {name} ({d.title}) | {definition} | {DENOMINATORS[d.denominator]} "
                     f"| {d.citation} |")
    return "\n".join(lines) + "\n"
