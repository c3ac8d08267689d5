"""The retrieval systems of the n-Clue capability matrix, as a registry of named records.

Each :class:`System` names one method (the ``--method`` of ``nclue retrieve``), its matrix
family and block, the operation it performs (recorded in ``runs/index.json``), whether it is
privileged (reads construction facts: an oracle or floor, never a fair method), which inputs it
reads besides the queries, and the small function that ranks the documents of one query
(n-Clue paper, sec. 3.3 and supplement 2). :data:`SYSTEMS` lists them all.
"""

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ..errors import InputError
from ..release import Query, Release
from . import controls, decomposition, fusion, sdr
from .bm25 import Hit, LexicalIndex


class RetrievalContext:
    """One release, its page index (None for systems that read no page text), the ranking depth
    and per-release caches shared by the systems."""

    def __init__(self, release: Release, index: Optional[LexicalIndex], depth: int) -> None:
        self.release = release
        self.index = index
        self.depth = depth
        self._prior: Optional[List[Hit]] = None
        self._evidence: Optional[Dict[str, Dict[str, Any]]] = None

    def need_index(self) -> LexicalIndex:
        if self.index is None:
            raise InputError("--pages", "this system needs the page text (--pages)")
        return self.index

    def prior(self) -> List[Hit]:
        """The query-independent condition-frequency prior ranking (computed once)."""
        if self._prior is None:
            index = self.need_index()
            every = [c for q in self.release.queries.values() for c in q.conditions]
            self._prior = controls.prior_ranking(
                index, controls.condition_frequency_prior(index, every), self.depth)
        return self._prior

    def evidence_of(self, qid: str) -> Mapping[str, Any]:
        """Stored evidence pages of one query's judged documents (grouped once)."""
        if self._evidence is None:
            grouped: Dict[str, Dict[str, Any]] = {}
            for (q, docid), pages in self.release.evidence.items():
                grouped.setdefault(q, {})[docid] = pages
            self._evidence = grouped
        return self._evidence.get(qid, {})


Ranker = Callable[[RetrievalContext, Query, str, Tuple[str, ...]], List[Hit]]


@dataclass(frozen=True)
class System:
    """One method of the matrix (see the module docstring)."""

    name: str
    family: str
    block: str
    operation: str
    rank: Ranker
    privileged: bool = False
    reads: Tuple[str, ...] = ("pages",)  # inputs besides the queries
    configuration: Callable[[int], Dict[str, Any]] = lambda depth: {}  # recorded extras

    @property
    def uses_bm25(self) -> bool:
        return "pages" in self.reads


# --- rankers: (context, query, query text of the form, its conditions) -> hits, best first ---

def bm25_or(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    return ctx.need_index().bm25_or(text, ctx.depth)


def bm25_and(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    return ctx.need_index().bm25_and(text, conds, ctx.depth)


def page_max(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    return ctx.need_index().page_max(text, ctx.depth)


def page_top3(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    return ctx.need_index().page_top3(text, ctx.depth)


def condition_wise(how: str, level: str) -> Ranker:
    """Condition lists (document or best-page BM25) combined by ``how`` (min/product/hmean)."""
    def rank(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
        return decomposition.bm25_condition_wise(ctx.need_index(), conds, how, level=level,
                                                 depth=ctx.depth)
    return rank


def condition_round_robin(ctx: RetrievalContext, query: Query, text: str,
                          conds: Tuple[str, ...]) -> List[Hit]:
    index = ctx.need_index()
    lists = [[hit.docid for hit in index.bm25_or(condition, ctx.depth)] for condition in conds]
    return [Hit(docid, score) for docid, score in fusion.round_robin(lists, ctx.depth)]


def distinct_page_sdr(ctx: RetrievalContext, query: Query, text: str,
                      conds: Tuple[str, ...]) -> List[Hit]:
    return sdr.bm25_sdr(ctx.need_index(), conds, ctx.depth)


def single_page_floor(ctx: RetrievalContext, query: Query, text: str,
                      conds: Tuple[str, ...]) -> List[Hit]:
    return controls.single_page_floor(ctx.need_index(), text, conds, ctx.depth)


def condition_prior(ctx: RetrievalContext, query: Query, text: str,
                    conds: Tuple[str, ...]) -> List[Hit]:
    return ctx.prior()


def fact_oracle(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    judged = {docid: (j.clues, j.is_gold)
              for docid, j in ctx.release.judgments.get(query.qid, {}).items()}
    return controls.fact_oracle(judged, ctx.depth)


def fact_floor(ctx: RetrievalContext, query: Query, text: str, conds: Tuple[str, ...]) -> List[Hit]:
    return controls.single_page_fact_floor(ctx.evidence_of(query.qid), ctx.depth)


def _combined(depth: int) -> Dict[str, Any]:
    return {"normalization": "max", "condition_list_depth": "all matching",
            "unranked": "documents missing a condition (combined score 0)"}


def _round_robin(depth: int) -> Dict[str, Any]:
    return {"condition_list_depth": depth, "combination": "round robin, skip duplicates"}


_NAMES = {"min": "min", "product": "product", "hmean": "harmonic mean"}

SYSTEMS: Mapping[str, System] = {s.name: s for s in (
    System("bm25-or", "lexical", "representation", "joint OR query (document BM25)", bm25_or),
    System("bm25-and", "lexical", "representation", "joint AND query (document BM25)", bm25_and),
    System("bm25-page-max", "lexical", "representation", "best page (page MaxSim analogue)", page_max),
    System("bm25-page-top3", "lexical", "representation", "average three page scores", page_top3),
    *(System(f"bm25-cond-{how}", "lexical", "composition",
             f"condition lists (document BM25) + {_NAMES[how]}", condition_wise(how, "doc"),
             configuration=_combined) for how in ("min", "product", "hmean")),
    *(System(f"bm25-pagecond-{how}", "lexical", "composition",
             f"condition lists (best-page BM25) + {_NAMES[how]}", condition_wise(how, "page"),
             configuration=_combined) for how in ("min", "product", "hmean")),
    System("bm25-cond-rr", "lexical", "composition",
           "condition lists (document BM25) + round robin (Multi3IR eq. 4)", condition_round_robin,
           configuration=_round_robin),
    System("bm25-sdr", "lexical", "composition", "condition lists + distinct pages (SDR)",
           distinct_page_sdr),
    System("single-page-floor", "control", "controls", "all conditions on one page (floor)",
           single_page_floor),
    System("cond-prior", "control", "controls", "query-independent condition-frequency prior",
           condition_prior),
    System("oracle", "control", "controls", "PRIVILEGED construction-fact oracle (reads qrels)",
           fact_oracle, privileged=True, reads=("qrels",)),
    System("single-page-floor-facts", "control", "controls",
           "PRIVILEGED all conditions on one stored evidence page (reads evidence)", fact_floor,
           privileged=True, reads=("evidence",)),
)}


def system(name: str, where: Any = "--method") -> System:
    """The system called ``name``; an InputError naming ``where`` when there is none."""
    if name not in SYSTEMS:
        raise InputError(where, f"unknown method {name!r}; expected one of {', '.join(SYSTEMS)}")
    return SYSTEMS[name]
