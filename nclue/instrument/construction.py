"""The whole construction: build inputs -> inventory -> queries -> qrels, evidence, families.

n-Clue paper, supplement 1.1 and 11: for each query, construction enumerates every document of
the union over conditions of {d : P0(d, c_i) nonempty} and emits its exact nonzero clue count;
zero rows are omitted.  A gold has every page set nonempty, an empty all-condition intersection
and a distinct-page assignment (:mod:`.gates`); an all-condition document failing a gate is a
subset carrying the gate it failed.  Queries whose gold sets are equal form one *exact-gold-set
family* (the resampling unit of sec. 3.4).

Query ids are ``<prefix>NNNN`` in a seeded random order; each query's conditions appear in a
seeded random order.  Forms (sec. 6 of the supplement, deterministic forms): ``clean`` quotes
each condition and joins with "; "; ``natural`` is "Find the document that discusses "X" and
"Y"." (three: "X", "Y", and "Z"); ``raw`` joins the bare conditions with ", ".
"""

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import NclueError
from ..release import render_forms
from . import enumeration, gates
from .config import ConstructionConfig
from .inputs import BuildInput
from .inventory import Inventory, build_inventory


@dataclass(frozen=True)
class Query:
    qid: str
    cids: Tuple[str, ...]
    names: Tuple[str, ...]
    forms: Dict[str, str]


@dataclass(frozen=True)
class Qrel:
    qid: str
    docid: str
    clues: int
    label: str
    gate: Optional[str]
    pages: Tuple[Tuple[int, ...], ...]  # support pages per condition, in query order


@dataclass(frozen=True)
class Construction:
    config: ConstructionConfig
    inventory: Inventory
    queries: Tuple[Query, ...]
    qrels: Tuple[Qrel, ...]  # sorted by (qid, docid)
    families: Tuple[Tuple[str, Tuple[str, ...], Tuple[str, ...]], ...]  # (family, qids, golds)
    extra: Dict[str, Tuple[Query, ...]]  # "val", "train"
    candidates: Dict[str, int]  # number of candidates per condition count


def judge_pair(inventory: Inventory, cids: Sequence[str], docid: str,
               page_gates: bool) -> Optional[gates.Judgment]:
    return gates.judge(inventory.page_sets(cids, docid), page_gates)


def qrels_for(inventory: Inventory, qid: str, cids: Sequence[str], page_gates: bool) -> List[Qrel]:
    """Every document holding at least one condition, with its exact clue count and label."""
    union = sorted(set().union(*[inventory.support[c] for c in cids]))
    rows = []
    for docid in union:
        page_sets = inventory.page_sets(cids, docid)
        judgment = gates.judge(page_sets, page_gates)
        rows.append(Qrel(qid, docid, judgment.clues, judgment.label, judgment.gate,
                         tuple(tuple(p) for p in page_sets)))
    return rows


def _make_queries(chosen: List[enumeration.Candidate], inventory: Inventory, prefix: str,
                  rng: random.Random) -> List[Query]:
    names = {c.cid: c.name for c in inventory.conditions}
    order = list(chosen)
    rng.shuffle(order)
    width = max(4, len(str(max(len(order) - 1, 0))))
    queries = []
    for index, cand in enumerate(order):
        cids = list(cand.cids)
        rng.shuffle(cids)
        shown = tuple(names[c] for c in cids)
        queries.append(Query(f"{prefix}{index:0{width}d}", tuple(cids), shown, render_forms(shown)))
    return queries


def families_of(queries: Sequence[Query], qrels: Sequence[Qrel]):
    """Exact-gold-set families, numbered in order of their first query id."""
    golds: Dict[str, List[str]] = defaultdict(list)
    for row in qrels:
        if row.label == "gold":
            golds[row.qid].append(row.docid)
    groups: Dict[Tuple[str, ...], List[str]] = defaultdict(list)
    for query in sorted(queries, key=lambda q: q.qid):
        groups[tuple(sorted(golds[query.qid]))].append(query.qid)
    ordered = sorted(groups.items(), key=lambda item: item[1][0])
    width = max(4, len(str(max(len(ordered) - 1, 0))))
    prefix = queries[0].qid.rsplit("_", 1)[0] + "_" if queries and "_" in queries[0].qid else ""
    return tuple((f"{prefix}f{i:0{width}d}", tuple(qids), gold_set)
                 for i, (gold_set, qids) in enumerate(ordered))


def construct(inputs: BuildInput, config: ConstructionConfig) -> Construction:
    """Run the construction (deterministic for fixed inputs and configuration)."""
    inventory = build_inventory(inputs, config)

    def is_gold(cids, docid):
        judgment = judge_pair(inventory, cids, docid, config.page_gates)
        return judgment is not None and judgment.label == "gold"

    pairs = enumeration.enumerate_candidates(inventory, 2, config.max_holders, is_gold)
    triples = (enumeration.enumerate_candidates(inventory, 3, config.max_holders, is_gold)
               if config.three_fraction > 0 else [])
    rng = random.Random(config.seed)
    n3 = int(config.n_queries * config.three_fraction + 0.5)
    chosen = enumeration.select_test(pairs, triples, config.n_queries - n3, n3,
                                     config.max_gold_per_doc, config.max_queries_per_condition, rng)
    if config.n_queries and not chosen:
        raise NclueError(f"no rare conjunction found among {len(inventory.conditions)} conditions "
                         f"({len(pairs)} + {len(triples)} candidates); lower min_df or raise "
                         f"max_holders")
    queries = _make_queries(chosen, inventory, config.prefix(), rng)
    qrels: List[Qrel] = []
    for query in queries:
        qrels.extend(qrels_for(inventory, query.qid, query.cids, config.page_gates))
    extra_sets = enumeration.select_extra(pairs, triples, chosen,
                                          (("val", config.n_val), ("train", config.n_train)),
                                          config.three_fraction, rng)
    extra = {name: tuple(_make_queries(cands, inventory, f"{config.prefix()}{name}_", rng))
             for name, cands in extra_sets.items()}
    return Construction(config=config, inventory=inventory, queries=tuple(queries),
                        qrels=tuple(sorted(qrels, key=lambda r: (r.qid, r.docid))),
                        families=families_of(queries, qrels), extra=extra,
                        candidates={"2": len(pairs), "3": len(triples)})
