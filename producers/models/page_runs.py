"""Page-level model runs of v1 from page scores: joint query and condition-wise decomposition.

Shared by every page-scoring model producer (``score_minilm.py``: dense MiniLM;
``splade_runs.py``: learned-sparse SPLADE-tiny). A model supplies a ``PageCollection`` (its page
vectors) and one vector per query text; the runs are then built the same way for every model
(n-Clue paper, supplement 2; depth 100):

* ``<prefix>_joint_{best,top3}.{form}``: the query form encoded once; document score = best page
  (page MaxSim analogue) or mean of the 3 best pages.
* ``<prefix>_cond_{min,product,hmean}_{best,top3}.{form}``: each condition encoded separately
  (raw form: the bare condition text; clean and natural forms: the quoted condition, as the
  clean form renders it, so natural = clean by construction: the natural entries of
  runs/index.json point at the clean files), one list per condition over *every* document,
  combined with ``nclue.retrieval.decomposition.combine(lists, how, "minmax")`` (min-max
  normalisation per condition list, documents with combined score 0 not ranked), top 100,
  ties docid ascending.
"""

import time
from typing import Callable, Dict, List, Sequence

import numpy as np

from common import DEPTH, PAGES_TOP_DOCS, RUNS_DIR, log, record_runs, sha256_file, write_run_rows
from dense_lib import AGGREGATIONS, PageCollection, joint_row, ranked_row

from nclue.release import quote_condition, render_forms
from nclue.retrieval.controls import mask_condition
from nclue.retrieval.decomposition import combine, rank_items

COMBINERS = ("min", "product", "hmean")


def condition_text(condition: str, form: str) -> str:
    return condition if form == "raw" else quote_condition(condition)


def all_query_texts(queries, forms=("clean", "raw", "natural"), dec_forms=("clean", "raw", "natural")):
    """Every text a page-run producer encodes (one fixed list, so every producer reuses one cache)."""
    texts = []
    for q in queries.values():
        texts += [q.forms[f] for f in forms]
        texts += [condition_text(c, f) for f in dec_forms for c in q.conditions]
    return texts


def write_joint_runs(coll: PageCollection, vec: Dict[str, np.ndarray], queries, forms: Sequence[str],
                     prefix: str, entry: Callable[..., dict], entries: List[dict]) -> None:
    """Joint-query runs (best page and top-3 pages) of every form in ``forms``."""
    qids = sorted(queries)
    for form in forms:
        S = coll.page_scores(np.stack([vec[queries[qid].forms[form]] for qid in qids]))
        for agg in AGGREGATIONS:
            t = time.time()
            rows = [joint_row(coll, qid, None, agg, DEPTH, S[:, i]) for i, qid in enumerate(qids)]
            run_id = f"{prefix}_joint_{agg}.{form}"
            sha = write_run_rows(run_id, rows)
            op = "page MaxSim (best page)" if agg == "best" else "top-3 page average"
            base = None if agg == "best" else f"{prefix}_joint_best.{form}"
            block = "representation" if form == "clean" else "query forms"
            entries.append(entry(run_id, sha, op, base, form,
                                 {"query": f"{form} form, encoded once", "page_aggregation": agg},
                                 block))
            log("%s written (%.1f s)" % (run_id, time.time() - t))
            record_runs(entries)


def condition_lists(coll: PageCollection, score_columns, agg: str):
    """One ``{docid: score}`` list over every document (and its page matrix) per condition,
    from the conditions' precomputed page-score columns."""
    lists, mats = [], []
    for column in score_columns:
        m = coll.page_matrix(None, column)
        s = coll.doc_scores(m, agg)
        mats.append(m)
        lists.append({coll.docs[j]: float(s[j]) for j in range(len(coll.docs))})
    return lists, mats


def combined_row(coll: PageCollection, qid: str, lists, mats, how: str, doc_pos) -> dict:
    """Run row of one query: ``combine(lists, how, "minmax")``, documents with combined score 0
    not ranked, top 100; pages = each condition's best page of the top-10 documents."""
    combined = {d: v for d, v in combine(lists, how, "minmax").items() if v > 0}
    ranked = rank_items(combined, DEPTH)
    pages = {}
    for d, _ in ranked[:PAGES_TOP_DOCS]:
        best = {}
        for m in mats:
            p, v = coll.top_pages(m, doc_pos[d], 1)[0]
            best[p] = max(best.get(p, v), v)
        pages[d] = sorted(best.items(), key=lambda x: (-x[1], x[0]))
    return ranked_row(qid, [d for d, _ in ranked], [v for _, v in ranked], pages)


def write_condition_runs(coll: PageCollection, vec: Dict[str, np.ndarray], queries,
                         dec_forms: Sequence[str], top3_dec_forms: Sequence[str], prefix: str,
                         label: str, entry: Callable[..., dict], entries: List[dict]) -> None:
    """Condition-wise runs (min, product, harmonic mean of min-max normalised condition lists)."""
    qids = sorted(queries)
    doc_pos = {d: j for j, d in enumerate(coll.docs)}
    for form in dec_forms:
        ctexts = sorted({condition_text(c, form) for q in queries.values() for c in q.conditions})
        col = {x: i for i, x in enumerate(ctexts)}
        S = coll.page_scores(np.stack([vec[x] for x in ctexts]))
        for agg in (AGGREGATIONS if form in top3_dec_forms else ("best",)):
            rows = {how: [] for how in COMBINERS}
            t = time.time()
            for qid in qids:
                lists, mats = condition_lists(
                    coll, [S[:, col[condition_text(c, form)]] for c in queries[qid].conditions], agg)
                for how in COMBINERS:
                    rows[how].append(combined_row(coll, qid, lists, mats, how, doc_pos))
            for how in COMBINERS:
                run_id = f"{prefix}_cond_{how}_{agg}.{form}"
                sha = write_run_rows(run_id, rows[how])
                operation = f"condition lists ({label} {agg} page) + {how}"
                base = f"{prefix}_joint_{agg}.{form}"
                config = {"page_aggregation": agg, "combiner": how, "normalization": "minmax",
                          "list_depth": "all documents",
                          "rule": "nclue.retrieval.decomposition.combine"}
                if form == "natural" and condition_text("x", "natural") == condition_text("x", "clean"):
                    # identical to the clean run by construction (same condition texts):
                    # the index entry points at the clean file instead of a duplicate
                    clean = RUNS_DIR / f"{prefix}_cond_{how}_{agg}.clean.jsonl.gz"
                    if clean.exists() and sha256_file(clean) == sha:
                        (RUNS_DIR / f"{run_id}.jsonl.gz").unlink()
                        entries.append(dict(entry(
                            run_id, sha, operation, base, form,
                            dict(config, conditions="quoted (clean rendering): the same run as clean"),
                            "query forms"), file=clean.name))
                        log("%s = %s (same file)" % (run_id, clean.name))
                        continue
                entries.append(entry(
                    run_id, sha, operation, base, form,
                    dict(config, conditions="bare text" if form == "raw" else "quoted (clean rendering)"),
                    "composition" if form == "clean" else "query forms"))
                log("%s written (%.1f s)" % (run_id, time.time() - t))
            record_runs(entries)


# ---------------------------------------------------------------------------------------------
# Condition masking (n-Clue paper, supplement Table S5a; issue 14): drop c_j, render the masked
# query again, run the unchanged system.

MASK_DROPS = (1, 2, 3)
MASK_SYSTEMS = ("joint_best", "cond_hmean_best")


def masked_input(query, drop: int, form: str = "clean"):
    """(query text, conditions) after masking ``c_drop`` -- the rule of ``nclue retrieve --drop``
    (``nclue/commands/retrieve.py``, ``query_input``): ``nclue.retrieval.controls.mask_condition``,
    then the release's own renderer; a query with fewer than ``drop`` conditions is unchanged
    (its row equals the unmasked run's); a one-condition remainder is rendered alone
    (clean ``"X"``, natural ``Find the document that discusses "X".``)."""
    masked = mask_condition(query.conditions, drop)
    if masked == tuple(query.conditions):
        return query.forms[form], masked
    if form == "raw":
        raise ValueError("masking is defined for the clean and natural forms here")
    if len(masked) == 1:
        rendered = {"clean": f'"{masked[0]}"',
                    "natural": f'Find the document that discusses "{masked[0]}".'}
    else:
        rendered = render_forms(masked)
    return rendered[form], masked


def masked_texts(queries, drops=MASK_DROPS, form: str = "clean"):
    """Every text the masked runs encode (joint texts and quoted condition texts)."""
    texts = set()
    for q in queries.values():
        for drop in drops:
            text, conds = masked_input(q, drop, form)
            texts.add(text)
            texts.update(condition_text(c, form) for c in conds)
    return sorted(texts)


def write_masked_runs(coll: PageCollection, vec: Dict[str, np.ndarray], queries, prefix: str,
                      entry: Callable[..., dict], entries: List[dict], drops=MASK_DROPS,
                      systems=MASK_SYSTEMS, form: str = "clean") -> None:
    """``<prefix>_joint_best_drop_c{j}.clean`` and ``<prefix>_cond_hmean_best_drop_c{j}.clean``.

    Named and indexed like the BM25 masking controls (``bm25_or_drop_c1.clean``: family
    ``control``, block ``controls``, ``configuration.drop_condition``). Every query of the release
    is in every file (as for BM25): a query with fewer than j conditions keeps its unmasked
    ranking, so drop c3 is meaningful on the 3-condition queries only and is to be evaluated on
    them (Table S5a: "c3 uses the three-condition queries"); the entry says so in
    ``configuration.evaluate_on``."""
    qids = sorted(queries)
    doc_pos = {d: j for j, d in enumerate(coll.docs)}
    three = sum(1 for q in queries.values() if len(q.conditions) >= 3)
    for drop in drops:
        inputs = {qid: masked_input(queries[qid], drop, form) for qid in qids}
        for system in systems:
            t = time.time()
            if system == "joint_best":
                S = coll.page_scores(np.stack([vec[inputs[qid][0]] for qid in qids]))
                rows = [joint_row(coll, qid, None, "best", DEPTH, S[:, i])
                        for i, qid in enumerate(qids)]
                operation = "page MaxSim (best page), joint query"
                config = {"query": f"{form} form of the masked conditions, encoded once",
                          "page_aggregation": "best"}
            elif system == "cond_hmean_best":
                ctexts = sorted({condition_text(c, form) for qid in qids for c in inputs[qid][1]})
                col = {x: i for i, x in enumerate(ctexts)}
                S = coll.page_scores(np.stack([vec[x] for x in ctexts]))
                rows = []
                for qid in qids:
                    lists, mats = condition_lists(
                        coll, [S[:, col[condition_text(c, form)]] for c in inputs[qid][1]], "best")
                    rows.append(combined_row(coll, qid, lists, mats, "hmean", doc_pos))
                operation = "condition lists (best page) + hmean"
                config = {"page_aggregation": "best", "combiner": "hmean",
                          "normalization": "minmax", "list_depth": "all documents",
                          "rule": "nclue.retrieval.decomposition.combine",
                          "conditions": "quoted (clean rendering) of the masked conditions"}
            else:
                raise ValueError(system)
            base = f"{prefix}_{system}.{form}"
            run_id = f"{prefix}_{system}_drop_c{drop}.{form}"
            sha = write_run_rows(run_id, rows)
            config = dict(config, drop_condition=drop,
                          masking="nclue.retrieval.controls.mask_condition, masked query "
                                  "rendered again (as nclue retrieve --drop)",
                          evaluate_on=("all queries" if drop <= 2 else
                                       f"the {three} queries with 3 conditions (2-condition "
                                       "queries keep their unmasked ranking)"))
            e = entry(run_id, sha, f"{operation}; condition c{drop} masked", base, form, config,
                      "controls")
            e["family"] = "control"
            entries.append(e)
            log("%s written (%.1f s)" % (run_id, time.time() - t))
        record_runs(entries)
