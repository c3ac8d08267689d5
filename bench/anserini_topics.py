"""Peer check: nclue's exported topics round-trip through Anserini's topic readers and searcher.

Dev tool, never imported by ``nclue``; runs under a venv with Pyserini 0.22.1 (its bundled
``anserini-0.22.1-fatjar.jar``; see bench/README.md) and Java 17. Needs no page text: the
collection is made from the release's own metadata.

For each release (``--releases``, default data/example, data/v1, data/v2):

1. ``nclue export topics`` in the three formats: ``tsv`` (``qid<TAB>clean form``), ``trec``
   (``<top>`` blocks, ``<num>`` = the topic number) and ``numbers`` (``number<TAB>qid``).
2. Anserini reads them: ``TrecTopicReader`` (``-topicReader Trec``) and ``TsvStringTopicReader``
   (``-topicReader TsvString``) through ``TopicReader.getTopicsWithStringIdsFromFile...``; checked:
   the TREC keys are exactly the topic numbers of ``numbers``, each TREC title equals the TSV
   text of the same qid, and TSV keys are the qids. The old TREC form (qid in ``<num>``) is read
   too, to record what Anserini made of it.
3. A small JsonCollection from the release's metadata only (one entry per judged document; its
   contents are the conditions of the queries that judge it), indexed with Anserini's
   ``IndexCollection`` and searched with ``SearchCollection -bm25 -hits 100`` twice: from the TREC
   topics and from the TSV topics.
4. ``nclue score`` of both runs (``--json``; the TREC run with ``--topic-numbers``) must give the
   same numbers, and ``nclue import-trec --topic-numbers`` must write the TSV run's rankings.
   Without ``--topic-numbers`` the TREC run is refused as unknown qids (exit 2).

Results: ``bench/results/anserini_topics.json``. Work files: ``bench/work/anserini_topics/``.
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nclue.formats import write_json_atomic  # noqa: E402
from nclue.release import load_release  # noqa: E402

WORK = os.path.join(ROOT, "bench", "work", "anserini_topics")
RESULTS = os.path.join(ROOT, "bench", "results", "anserini_topics.json")


def log(message):
    print(f"[topics] {message}", file=sys.stderr, flush=True)


def nclue(*argv, check=True):
    return subprocess.run([sys.executable, "-m", "nclue", *argv], cwd=ROOT, check=check,
                          capture_output=True, text=True)


def jar():
    import pyserini
    folder = os.path.join(os.path.dirname(pyserini.__file__), "resources", "jars")
    return os.path.join(folder, next(n for n in os.listdir(folder) if n.endswith("fatjar.jar")))


def java(*argv):
    subprocess.run(["java", "-cp", jar(), *argv], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def read_topics(reader, path):
    """Anserini's topics ``{key: {field: text}}`` (keys as strings, as Pyserini gets them)."""
    from pyserini.pyclass import autoclass
    topics = autoclass("io.anserini.search.topicreader.TopicReader") \
        .getTopicsWithStringIdsFromFileWithTopicReaderClass(
            f"io.anserini.search.topicreader.{reader}", path)
    return {key: {field: topics.get(key).get(field) for field in topics.get(key).keySet().toArray()}
            for key in topics.keySet().toArray()}


def old_form(trec_text, numbers):
    """The TREC topics as exported before topic numbers: the qid in ``<num>``."""
    by_number = {str(n): q for n, q in numbers.items()}
    out = []
    for line in trec_text.splitlines(keepends=True):
        if line.startswith("<num> Number: "):
            line = f"<num> Number: {by_number[line.split(': ', 1)[1].strip()]}\n"
        out.append(line)
    return "".join(out)


def collection(release, folder):
    """One JsonCollection entry per judged document: the conditions of the queries judging it."""
    os.makedirs(folder, exist_ok=True)
    words = {}
    for qid in sorted(release.judgments):
        for docid in sorted(release.judgments[qid]):
            words.setdefault(docid, []).extend(release.queries[qid].conditions)
    with open(os.path.join(folder, "docs.jsonl"), "w", encoding="utf-8") as out:
        for docid in sorted(words):
            out.write(json.dumps({"id": docid, "contents": " ".join(words[docid])}) + "\n")
    return len(words)


def rankings(path):
    out = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            qid, _, docid, _, score, _ = line.split()[:6]
            out.setdefault(qid, []).append((docid, score))
    return out


def check_release(release_dir):
    name = os.path.basename(os.path.normpath(release_dir))
    work = os.path.join(WORK, name)
    os.makedirs(work, exist_ok=True)
    release = load_release(release_dir, evidence=False)
    paths = {fmt: os.path.join(work, f"topics.{fmt}") for fmt in ("tsv", "trec", "numbers")}
    for fmt, path in paths.items():
        nclue("export", "topics", "--release", release_dir, "--format", fmt, "--out", path)
    numbers = {}
    with open(paths["numbers"], encoding="utf-8") as handle:
        for line in handle:
            number, qid = line.rstrip("\n").split("\t")
            numbers[number] = qid
    tsv_text = {}
    with open(paths["tsv"], encoding="utf-8") as handle:
        for line in handle:
            qid, text = line.rstrip("\n").split("\t")
            tsv_text[qid] = text
    trec = read_topics("TrecTopicReader", paths["trec"])
    tsv = read_topics("TsvStringTopicReader", paths["tsv"])
    result = {"queries": len(release.queries),
              "trec_keys_are_topic_numbers": sorted(trec) == sorted(numbers),
              "trec_titles_equal_tsv": all(trec[n]["title"] == tsv_text[q] for n, q in numbers.items()),
              "tsv_keys_are_qids": sorted(tsv) == sorted(release.queries),
              "topic_numbers": f"{min(numbers, key=int)}..{max(numbers, key=int)}"}
    with open(paths["trec"], encoding="utf-8") as handle:
        old_path = os.path.join(work, "topics.old.trec")
        with open(old_path, "w", encoding="utf-8") as out:
            out.write(old_form(handle.read(), numbers))
    old = sorted(read_topics("TrecTopicReader", old_path), key=int)
    first = sorted(release.queries)[0]
    result["old_form"] = {"keys": len(old), "first_qid": first, "first_key": old[0],
                          "keys_are_qids": set(old) == set(release.queries)}
    result["collection_entries"] = collection(release, os.path.join(work, "collection"))
    index = os.path.join(work, "index")
    started = time.perf_counter()
    java("io.anserini.index.IndexCollection", "-collection", "JsonCollection",
         "-input", os.path.join(work, "collection"), "-index", index,
         "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1", "-storeDocvectors")
    result["index_s"] = round(time.perf_counter() - started, 1)
    runs = {}
    for fmt, reader in (("trec", "Trec"), ("tsv", "TsvString")):
        runs[fmt] = os.path.join(work, f"run.{fmt}.txt")
        java("io.anserini.search.SearchCollection", "-index", index, "-topics", paths[fmt],
             "-topicreader", reader, "-output", runs[fmt], "-bm25", "-hits", "100")
    by_number, by_qid = rankings(runs["trec"]), rankings(runs["tsv"])
    result["run_qids_are_topic_numbers"] = set(by_number) <= set(numbers)
    result["same_rankings"] = {numbers[n]: r for n, r in by_number.items()} == by_qid
    plain = nclue("score", runs["trec"], "--release", release_dir, "--json", check=False)
    result["trec_run_without_topic_numbers"] = {"exit": plain.returncode,
                                                "stderr": plain.stderr.strip().replace(ROOT + os.sep, "")}
    scored = {}
    for fmt, extra in (("trec", ["--topic-numbers"]), ("tsv", [])):
        out = nclue("score", runs[fmt], "--release", release_dir, "--json", *extra)
        scored[fmt] = {k: v for k, v in json.loads(out.stdout).items() if k != "run"}
    result["nclue_score_equal"] = scored["trec"] == scored["tsv"]
    result["nclue_score@10"] = scored["tsv"].get("nclue_score@10")
    imported = os.path.join(work, "run.trec.jsonl")
    nclue("import-trec", runs["trec"], "--release", release_dir, "--topic-numbers",
          "--out", imported)
    with open(imported, encoding="utf-8") as handle:
        rows = {row["qid"]: row["docs"] for row in map(json.loads, handle)}
    result["import_trec_equal"] = rows == {q: [d for d, _ in r] for q, r in by_qid.items()}
    checks = ("trec_keys_are_topic_numbers", "trec_titles_equal_tsv", "tsv_keys_are_qids",
              "run_qids_are_topic_numbers", "same_rankings", "nclue_score_equal",
              "import_trec_equal")
    result["ok"] = all(result[c] for c in checks) and plain.returncode == 2
    log(f"{name}: {'ok' if result['ok'] else 'FAILED'} "
        f"({result['queries']} topics, numbers {result['topic_numbers']})")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", nargs="+", default=["data/example", "data/v1", "data/v2"])
    args = parser.parse_args()
    out = subprocess.run(["java", "-version"], capture_output=True, text=True)
    from importlib.metadata import version
    results = {"java": out.stderr.splitlines()[0], "pyserini": version("pyserini"),
               "anserini_jar": os.path.basename(jar()), "releases": {}}
    for release in args.releases:
        results["releases"][os.path.basename(os.path.normpath(release))] = check_release(
            os.path.join(ROOT, release) if not os.path.isabs(release) else release)
    write_json_atomic(RESULTS, results)
    log(f"wrote {RESULTS}")
    return 0 if all(r["ok"] for r in results["releases"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
