"""Peer check: BM25 runs from Pyserini/Anserini (Lucene) against nclue's own BM25, on the rebuilt v1 pages.

Dev tool, never imported by ``nclue``; runs under ``.venv-bench`` (see bench/README.md for the
install). Steps (``python bench/lucene_bm25.py all`` runs them in order):

1. ``prepare``: ``nclue export collection`` (checks the rebuilt page text against the corpus'
   page counts and text_sha256) and ``nclue export topics``; then two JsonCollection variants:

   - ``tok``: every page / document's text replaced by nclue's analyzer output joined by spaces
     (:func:`nclue.retrieval.tokenize.tokenize`), indexed with ``-pretokenized`` (Lucene's
     WhitespaceAnalyzer), so that Lucene and nclue see the same terms and only the BM25
     implementation differs;
   - ``raw``: the exported text as is, indexed with Anserini's default English analyzer (Porter
     stemming, Lucene stop words): what a user gets by pointing Pyserini at ``nclue export
     collection`` without any tuning.
2. ``index``: ``python -m pyserini.index.lucene -collection JsonCollection -generator
   DefaultLuceneDocumentGenerator -threads 2 -storeDocvectors`` for pages and documents.
3. ``search``: the clean form of every query, BM25 with k1 = 0.9, b = 0.4 (``set_bm25``), through
   Anserini's ``SimpleSearcher`` (the Java class behind Pyserini's ``LuceneSearcher``), systems:

   - ``bm25_or``: document index, the query's terms as a disjunction (Anserini's bag of words:
     a repeated term is one clause boosted by its count, as nclue sums it once per occurrence);
   - ``bm25_and``: the same scoring clauses plus, per condition, a FILTER clause requiring all of
     the condition's terms (Lucene's AND; nclue's ``bm25_and``);
   - ``bm25_page_max``: page index, document score = its best page's score (nclue's
     ``page_max``); Lucene's searcher returns every matching page, Anserini's SimpleSearcher the
     best ``--page-hits`` (a query counts as exact when they yield 100 distinct documents);
   - ``bm25_page_top3``: the same page hits, document score = mean of its three best page scores
     over min(3, its page count) (nclue's ``page_top3``); Lucene searcher only (needs every page).

   Written as TREC runs (score = Lucene's float32 score, repr) under ``bench/work/lucene/``.
4. ``compare``: nclue's own BM25 on the same pages (unrounded), per system: identical top-100
   lists, mean top-100 overlap, max relative score difference on common documents, and the
   n-Clue measures of both runs (``--ties expected``, so no tie convention enters); both written
   to ``bench/results/lucene_bm25_v1.json``.
5. ``trec_eval``: pytrec_eval (pytrec-eval-terrier) on gold-only binary qrels (``nclue
   export-trec --grades gold``) against nclue's Gold-NDCG@10 and Gold Hit@10 (``--ties
   trec_eval``) for every frozen run of v1 and v2, into ``bench/results/trec_eval_gold_qrels.json``.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nclue.exports import split_page_id  # noqa: E402
from nclue.formats import write_json_atomic  # noqa: E402
from nclue.metrics import aggregate, outcomes, per_query_from_outcomes, query_facts  # noqa: E402
from nclue.release import load_release  # noqa: E402
from nclue.retrieval.bm25 import LexicalIndex  # noqa: E402
from nclue.retrieval.tokenize import tokenize  # noqa: E402
from nclue.runs import load_run  # noqa: E402

K1, B, DEPTH = 0.9, 0.4, 100
SYSTEMS = ("bm25_or", "bm25_and", "bm25_page_max", "bm25_page_top3")
MEASURES = ("nclue_score@10", "gold_hit@10", "gold_ndcg@10", "graded_ndcg@10", "auc",
            "subset_first@10")
WORK = os.path.join(ROOT, "bench", "work", "lucene")
# (run variant, index, searcher): tok = nclue's terms (pretokenized), raw = Anserini's analyzer
VARIANTS = (("tok", "tok", "lucene"), ("tok_anserini", "tok", "anserini"), ("raw", "raw", "lucene"))


def log(message):
    print(f"[lucene] {message}", file=sys.stderr, flush=True)


def nclue_cli(*argv):
    subprocess.run([sys.executable, "-m", "nclue", *argv], cwd=ROOT, check=True)


# ------------------------------------------------------------------ 1. prepare

def prepare(args):
    raw = os.path.join(WORK, "raw")
    nclue_cli("export", "collection", "--release", args.release, "--pages", args.pages,
              "--out", raw)
    nclue_cli("export", "topics", "--release", args.release, "--form", "clean",
              "--out", os.path.join(WORK, "topics.clean.tsv"))
    for unit in ("pages", "documents"):
        target = os.path.join(WORK, "tok", unit)
        os.makedirs(target, exist_ok=True)
        with open(os.path.join(raw, unit, f"{unit}.jsonl"), encoding="utf-8") as src, \
                open(os.path.join(target, f"{unit}.jsonl"), "w", encoding="utf-8") as out:
            for line in src:
                row = json.loads(line)
                out.write(json.dumps({"id": row["id"], "contents": " ".join(tokenize(row["contents"]))},
                                     ensure_ascii=False) + "\n")
    log("prepared raw/ and tok/ collections")


# ------------------------------------------------------------------ 2. index

def index(args):
    timings = {}
    for variant in ("tok", "raw"):
        for unit in ("pages", "documents"):
            out = os.path.join(WORK, "index", variant, unit)
            cmd = [sys.executable, "-m", "pyserini.index.lucene", "-collection", "JsonCollection",
                   "-input", os.path.join(WORK, variant, unit), "-index", out,
                   "-generator", "DefaultLuceneDocumentGenerator", "-threads", "2",
                   "-storeDocvectors"]
            if variant == "tok":
                cmd.append("-pretokenized")
            started = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            timings[f"{variant}/{unit}"] = round(time.perf_counter() - started, 1)
            log(f"indexed {variant}/{unit} in {timings[variant + '/' + unit]} s")
    write_json_atomic(os.path.join(WORK, "index_timings.json"), timings)


# ------------------------------------------------------------------ 3. search

class Lucene:
    """One Anserini index searched with BM25(k1, b); queries built as Lucene objects.

    ``mode="lucene"``: Lucene's own ``IndexSearcher`` with ``BM25Similarity(k1, b)``: raw float32
    scores. ``mode="anserini"``: Anserini's ``SimpleSearcher`` (behind Pyserini's
    ``LuceneSearcher``), which rounds every score to 4 decimals and breaks the resulting ties by
    docid (its ``ScoreTiesAdjusterReranker``): what a Pyserini user's run file holds.
    """

    def __init__(self, path, pretokenized, mode="lucene"):
        from pyserini.pyclass import autoclass, cast
        self.mode = mode
        simple = autoclass("io.anserini.search.SimpleSearcher")(path)
        simple.set_bm25(K1, B)
        if pretokenized:
            simple.set_analyzer(autoclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")())
        self.simple = simple
        if mode == "lucene":
            directory = autoclass("org.apache.lucene.store.FSDirectory").open(
                autoclass("java.nio.file.Paths").get(path))
            reader = cast("org.apache.lucene.index.IndexReader",
                          autoclass("org.apache.lucene.index.DirectoryReader").open(directory))
            self.index_searcher = autoclass("org.apache.lucene.search.IndexSearcher")(reader)
            self.index_searcher.setSimilarity(
                autoclass("org.apache.lucene.search.similarities.BM25Similarity")(K1, B))
        self.pretokenized = pretokenized
        self._ids = None
        self.analyzer = simple.get_analyzer()
        self.AnalyzerUtils = autoclass("io.anserini.analysis.AnalyzerUtils")
        self.Builder = autoclass("org.apache.lucene.search.BooleanQuery$Builder")
        self.Occur = autoclass("org.apache.lucene.search.BooleanClause$Occur")
        self.TermQuery = autoclass("org.apache.lucene.search.TermQuery")
        self.BoostQuery = autoclass("org.apache.lucene.search.BoostQuery")
        self.Term = autoclass("org.apache.lucene.index.Term")

    def terms(self, text):
        if self.pretokenized:
            return tokenize(text)
        return list(self.AnalyzerUtils.analyze(self.analyzer, text).toArray())

    def _or_builder(self, text):
        counts = {}
        for term in self.terms(text):
            counts[term] = counts.get(term, 0) + 1
        builder = self.Builder()
        for term in sorted(counts):
            clause = self.TermQuery(self.Term("contents", term))
            if counts[term] > 1:
                clause = self.BoostQuery(clause, float(counts[term]))
            builder.add(clause, self.Occur.SHOULD)
        return builder, bool(counts)

    def search_or(self, text, k):
        builder, any_terms = self._or_builder(text)
        if not any_terms:
            return []
        return self._run(builder.build(), k)

    def units(self):
        """Number of indexed units (Lucene's maxDoc)."""
        return self.index_searcher.getIndexReader().maxDoc() if self.mode == "lucene" else None

    def _run(self, query, k):
        if self.mode == "anserini":
            return [(hit.docid, hit.score) for hit in self.simple.search(query, k)]
        if self._ids is None:  # Lucene doc number -> collection id, read once
            self._ids = [self.index_searcher.doc(i).get("id") for i in range(self.units())]
        ids = self._ids
        return [(ids[hit.doc], hit.score) for hit in self.index_searcher.search(query, k).scoreDocs]

    def search_and(self, text, conditions, k):
        builder, any_terms = self._or_builder(text)
        if not any_terms:
            return []
        for condition in conditions:
            terms = sorted(set(self.terms(condition)))
            if not terms:
                return []  # nclue: a condition without terms matches nothing
            required = self.Builder()
            for term in terms:
                required.add(self.TermQuery(self.Term("contents", term)), self.Occur.MUST)
            builder.add(required.build(), self.Occur.FILTER)
        return self._run(builder.build(), k)


def page_max(hits, depth):
    """Document = best page, from page hits sorted by score; ties: docid ascending (nclue)."""
    best = {}
    for unit, score in hits:
        docid, _ = split_page_id(unit)
        if docid not in best or score > best[docid]:
            best[docid] = score
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))[:depth]


def page_top3(hits, depth, n_pages):
    """Document = mean of its three best page scores over min(3, its page count) (nclue's
    ``page_top3``: pages without a match score 0); ties: docid ascending."""
    pages = {}
    for unit, score in hits:
        pages.setdefault(split_page_id(unit)[0], []).append(score)
    scored = {d: math.fsum(sorted(v, reverse=True)[:3]) / min(3, n_pages[d]) for d, v in pages.items()}
    return sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:depth]


def write_trec(path, rows, tag):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for qid in sorted(rows):
            for rank, (docid, score) in enumerate(rows[qid], start=1):
                out.write(f"{qid} Q0 {docid} {rank} {score!r} {tag}\n")


def search(args):
    release = load_release(args.release)
    summary = {}
    for variant, index_name, mode in VARIANTS:
        docs = Lucene(os.path.join(WORK, "index", index_name, "documents"), index_name == "tok", mode)
        pages = Lucene(os.path.join(WORK, "index", index_name, "pages"), index_name == "tok", mode)
        n_docs = len(release.corpus)
        n_pages = {d: doc.pages for d, doc in release.corpus.items()}
        runs = {name: {} for name in SYSTEMS if mode == "lucene" or name != "bm25_page_top3"}
        inexact = 0
        started = time.perf_counter()
        for qid in sorted(release.queries):
            query = release.queries[qid]
            text = query.forms["clean"]
            # documents: ask for every document so that Lucene's own tie order never cuts a list
            runs["bm25_or"][qid] = sorted(docs.search_or(text, n_docs),
                                          key=lambda item: (-item[1], item[0]))[:DEPTH]
            runs["bm25_and"][qid] = sorted(docs.search_and(text, query.conditions, n_docs),
                                           key=lambda item: (-item[1], item[0]))[:DEPTH]
            # pages: Lucene's searcher returns every matching page (exact aggregation); Anserini's
            # SimpleSearcher the best --page-hits (exact for page max when 100 documents appear)
            limit = pages.units() or args.page_hits
            hits = pages.search_or(text, limit)
            ranked = page_max(hits, DEPTH)
            if len(ranked) < DEPTH and len(hits) == limit:
                inexact += 1
            runs["bm25_page_max"][qid] = ranked
            if mode == "lucene":
                runs["bm25_page_top3"][qid] = page_top3(hits, DEPTH, n_pages)
        seconds = time.perf_counter() - started
        for name, rows in runs.items():
            write_trec(os.path.join(WORK, "runs", f"lucene_{variant}_{name}.clean.trec"), rows,
                       f"lucene_{variant}_{name}")
        summary[variant] = {"search_s": round(seconds, 1),
                            "page_hits": "every matching page" if mode == "lucene" else args.page_hits,
                            "page_max_queries_not_exact": inexact}
        log(f"searched {variant}: {seconds:.1f} s, page_max inexact on {inexact} queries")
    write_json_atomic(os.path.join(WORK, "search_summary.json"), summary)


# ------------------------------------------------------------------ 4. compare

def lucene_length(length):
    """A unit length as Lucene stores it: one byte, ``SmallFloat.intToByte4`` then ``byte4ToInt``
    (org.apache.lucene.util.SmallFloat; BM25Similarity decodes norms with this table)."""
    free = 24  # NUM_FREE_VALUES = 255 - longToInt4(Integer.MAX_VALUE) = 255 - 231
    if length < free:
        return length
    value = length - free
    bits = value.bit_length()
    if bits < 4:
        encoded = value
    else:
        shift = bits - 4
        encoded = ((value >> shift) & 0x07) | ((shift + 1) << 3)
    # decode
    low, shift = encoded & 0x07, (encoded >> 3) - 1
    return free + (low if shift == -1 else (low | 0x08) << shift)


def _lucene_norm_impacts(level, raw, lengths, k1, b, tie_rank):
    """nclue's impact index with Lucene's lossy lengths in the length norm (avgdl stays exact:
    Lucene takes it from sumTotalTermFreq / docCount)."""
    from array import array
    from nclue.retrieval.index import InvertedIndex, lucene_idf
    nonempty = sum(1 for length in lengths if length > 0)
    avgdl = sum(lengths) / nonempty if nonempty else 1.0
    norm = [k1 * (1.0 - b + b * lucene_length(length) / avgdl) for length in lengths]
    postings = {}
    for term in sorted(raw):
        units, tfs = raw[term]
        idf = lucene_idf(nonempty, len(units))
        postings[term] = (units, array("d", [idf * tf / (tf + norm[unit]) for unit, tf in zip(units, tfs)]))
    return InvertedIndex(level, lengths, postings, nonempty, avgdl, k1, b, tie_rank)


def nclue_runs(args, release, lucene_norms=False):
    """nclue's own BM25 (unrounded) for the same systems and the clean form; ``lucene_norms``
    swaps in Lucene's one-byte document lengths (to tell the norm encoding from anything else)."""
    import nclue.retrieval.index as index_module
    started = time.perf_counter()
    original = index_module._impact_index
    if lucene_norms:
        index_module._impact_index = _lucene_norm_impacts
    try:
        index = LexicalIndex.from_file(args.pages, K1, B, keep_docs=release.corpus)
    finally:
        index_module._impact_index = original
    build = time.perf_counter() - started
    runs = {name: {} for name in SYSTEMS}
    for qid in sorted(release.queries):
        query = release.queries[qid]
        text = query.forms["clean"]
        runs["bm25_or"][qid] = [(h.docid, h.score) for h in index.bm25_or(text, DEPTH)]
        runs["bm25_and"][qid] = [(h.docid, h.score) for h in index.bm25_and(text, query.conditions, DEPTH)]
        runs["bm25_page_max"][qid] = [(h.docid, h.score) for h in index.page_max(text, DEPTH)]
        runs["bm25_page_top3"][qid] = [(h.docid, h.score) for h in index.page_top3(text, DEPTH)]
    log(f"nclue BM25: index {build:.1f} s")
    return runs


def agreement(ours, theirs):
    identical = 0
    overlaps = []
    max_rel = 0.0
    rel_diffs = []
    for qid in sorted(set(ours) | set(theirs)):
        a, b = ours.get(qid, []), theirs.get(qid, [])
        if [d for d, _ in a] == [d for d, _ in b]:
            identical += 1
        da, db = dict(a), dict(b)
        common = set(da) & set(db)
        denominator = max(len(a), len(b))
        overlaps.append(len(common) / denominator if denominator else 1.0)
        for docid in common:
            rel = abs(da[docid] - db[docid]) / max(abs(da[docid]), 1e-300)
            rel_diffs.append(rel)
            max_rel = max(max_rel, rel)
    return {"queries": len(overlaps), "identical_top100": identical,
            "mean_top100_overlap": statistics.fmean(overlaps),
            "min_top100_overlap": min(overlaps),
            "queries_overlap_below_0.9": sum(1 for o in overlaps if o < 0.9),
            "max_rel_score_diff": max_rel,
            "median_rel_score_diff": statistics.median(rel_diffs) if rel_diffs else 0.0}


def measures_of(release, facts, path, ties):
    run = load_run(path, release, ties=ties)
    scores = aggregate(per_query_from_outcomes(outcomes(release, run, 10, facts), 10))
    return {m: scores[m] for m in MEASURES}


def compare(args):
    release = load_release(args.release)
    facts = query_facts(release)
    ours = nclue_runs(args, release)
    ours_lossy = nclue_runs(args, release, lucene_norms=True)
    results = {"release": release.name, "k1": K1, "b": B, "depth": DEPTH, "form": "clean",
               "systems": {}}
    for name in SYSTEMS:
        ours_path = os.path.join(WORK, "runs", f"nclue_{name}.clean.trec")
        write_trec(ours_path, ours[name], f"nclue_{name}")
        lossy_path = os.path.join(WORK, "runs", f"nclue_lucene_norms_{name}.clean.trec")
        write_trec(lossy_path, ours_lossy[name], f"nclue_lucene_norms_{name}")
        entry = {"nclue": {t: measures_of(release, facts, ours_path, t) for t in ("expected", "input")}}
        frozen = os.path.join(ROOT, args.release, "runs", f"{name}.clean.jsonl.gz")
        if os.path.exists(frozen):
            entry["nclue_frozen_run"] = measures_of(release, facts, frozen, "expected")
        for variant, _, _ in VARIANTS:
            path = os.path.join(WORK, "runs", f"lucene_{variant}_{name}.clean.trec")
            if not os.path.exists(path):
                continue  # page top-3 needs every page score: not from SimpleSearcher
            theirs = {}
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    qid, _, docid, _, score, _ = line.split()
                    theirs.setdefault(qid, []).append((docid, float(score)))
            entry[f"lucene_{variant}"] = {
                "agreement_with_nclue": agreement(ours[name], theirs),
                "agreement_with_nclue_lucene_norms": agreement(ours_lossy[name], theirs),
                "measures": {t: measures_of(release, facts, path, t) for t in ("expected", "input")}}
        results["systems"][name] = entry
        log(f"compared {name}")
    for extra in ("index_timings.json", "search_summary.json"):
        path = os.path.join(WORK, extra)
        if os.path.exists(path):
            results[extra[:-5]] = json.load(open(path))
    results["versions"] = versions()
    write_json_atomic(os.path.join(ROOT, "bench", "results", f"lucene_bm25_{release.name}.json"), results)
    log("wrote bench/results/lucene_bm25_%s.json" % release.name)


def versions():
    from importlib.metadata import version
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    return {"pyserini": version("pyserini"), "anserini_jar": "anserini-0.22.1-fatjar.jar (in the "
            "pyserini wheel)", "pyjnius": version("pyjnius"), "java": java,
            "pytrec_eval_terrier": version("pytrec-eval-terrier")}


# ------------------------------------------------------------------ 5. trec_eval

def trec_eval_check(args):
    import pytrec_eval
    out = {"measures": {"gold_ndcg@10": "ndcg_cut_10", "gold_hit@10": "success_10"},
           "qrels": "nclue export-trec --grades gold", "nclue_ties": "trec_eval", "releases": {}}
    for release_dir in args.releases:
        release = load_release(release_dir)
        facts = query_facts(release)
        qrels_path = os.path.join(WORK, f"gold_qrels_{release.name}.txt")
        os.makedirs(WORK, exist_ok=True)
        nclue_cli("export-trec", "--release", release_dir, "--grades", "gold", "--out", qrels_path)
        qrels = {}
        with open(qrels_path) as handle:
            for line in handle:
                qid, _, docid, grade = line.split()
                qrels.setdefault(qid, {})[docid] = int(grade)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "success.10"})
        index = json.load(open(os.path.join(release_dir, "runs", "index.json")))["runs"]
        worst = {"gold_ndcg@10": 0.0, "gold_hit@10": 0.0}
        per_run = {}
        for entry in index:
            path = os.path.join(release_dir, "runs", entry["file"])
            run = load_run(path, release, ties="trec_eval")
            scores = aggregate(per_query_from_outcomes(outcomes(release, run, 10, facts), 10))
            peer_run = {qid: {d: s for d, s in zip(r.docs, r.scores)} for qid, r in run.rankings.items()}
            peer = evaluator.evaluate(peer_run)
            # trec_eval -c: a qrels query absent from the run scores 0
            ndcg = 100 * math.fsum(peer.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels) / len(qrels)
            hit = 100 * math.fsum(peer.get(q, {}).get("success_10", 0.0) for q in qrels) / len(qrels)
            diffs = {"gold_ndcg@10": abs(ndcg - scores["gold_ndcg@10"]),
                     "gold_hit@10": abs(hit - scores["gold_hit@10"])}
            per_run[entry["id"]] = {"nclue": {m: scores[m] for m in diffs},
                                    "pytrec_eval": {"gold_ndcg@10": ndcg, "gold_hit@10": hit}}
            for m in diffs:
                worst[m] = max(worst[m], diffs[m])
        out["releases"][release.name] = {"runs": len(per_run), "queries": len(qrels),
                                         "max_abs_diff_points": worst, "per_run": per_run}
        log(f"{release.name}: {len(per_run)} runs, max |diff| {worst}")
    out["versions"] = versions()
    write_json_atomic(os.path.join(ROOT, "bench", "results", "trec_eval_gold_qrels.json"), out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("prepare", "index", "search", "compare", "trec_eval", "all"))
    parser.add_argument("--release", default="data/v1")
    parser.add_argument("--pages", default="build/v1/pages.jsonl.gz")
    parser.add_argument("--page-hits", type=int, default=3000)
    parser.add_argument("--releases", nargs="+", default=["data/v1", "data/v2"])
    args = parser.parse_args()
    steps = {"prepare": prepare, "index": index, "search": search, "compare": compare,
             "trec_eval": trec_eval_check}
    for name in (steps if args.step == "all" else [args.step]):
        steps[name](args)


if __name__ == "__main__":
    main()
