"""Shared setup of the label-audit tests: the example's first-pass and adjudication stages.

Everything is built from data/example/ (its own page text and rubric) into a temporary folder;
the judgments are FIXTURES (tests/audit_fixtures.py), never shipped.
"""

import json
from pathlib import Path
from typing import Dict, List

from nclue.label_audit.exports import read_exports
from nclue.label_audit.packet import build_packet, read_packet_html
from nclue.label_audit.packet_html import render_html
from nclue.label_audit.pagetext import load_pages
from nclue.label_audit.policy import load_policy
from nclue.label_audit.pools import EXPANDED_ORDER, EXPANDED_PAGES, FIRST_PASS_ORDER, FIRST_PASS_PAGES
from nclue.label_audit.record import build_record, read_record, write_record
from nclue.label_audit.repair import queued
from nclue.label_audit.adjudication import adjudication_pairs
from nclue.label_audit.rubric import load_rubrics, query_condition_ids
from nclue.label_audit.sampling import draw_sample, stratum_label
from nclue.label_audit.spec import StagePair, build_stage, read_key, read_spec, write_stage
from nclue.release import load_release
from tests import audit_fixtures as fx

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "data" / "example"
SEED = 3


def example_inputs():
    release = load_release(EXAMPLE)
    rubrics = load_rubrics(EXAMPLE / "rubric.json")
    pages = load_pages(EXAMPLE / "pages.jsonl", None, {d: doc.pages for d, doc in release.corpus.items()})
    return release, rubrics, query_condition_ids(release, rubrics), pages


def first_stage(folder: Path, n: int = 300, seed: int = SEED):
    """Sample (every pair when n >= 24), write spec/key and the packet HTML; returns
    (key, key_sha256, packet, html path)."""
    release, rubrics, cids, pages = example_inputs()
    pairs = draw_sample(release, n, seed)
    stage = [StagePair(p.qid, p.docid, "sample", stratum_label(p.stratum),
                       tuple(range(len(release.queries[p.qid].conditions))), {}, {}) for p in pairs]
    spec, key = build_stage(release, rubrics, cids, pages, stage, "first_pass", "stratified",
                            f"example-first-s{seed}", seed, FIRST_PASS_PAGES, FIRST_PASS_ORDER,
                            load_policy().ref())
    spec_path, key_path, _ = write_stage(folder / "first", spec, key)
    packet = build_packet(read_spec(spec_path), pages)
    html = folder / "first.html"
    html.write_text(render_html(packet), encoding="utf-8")
    key, key_sha = read_key(key_path)
    return key, key_sha, read_packet_html(html), html


def scenario_first(key) -> Dict[str, Dict[str, Dict[int, List[int]]]]:
    """The first-pass fixture answers (see tests/test_label_audit_workflow.py for the hand counts)."""
    a, e = fx.construction_answers(key), fx.construction_answers(key)

    def answer(qid: str, docid: str, index: int, a_pages: List[int], e_pages: List[int]) -> None:
        item = fx.item_of(key, qid, docid)
        a[item][index], e[item][index] = a_pages, e_pages

    answer("q1", "d02", 1, [5], [5])   # both: TikZ on p5 (a promotion)
    answer("q3", "d01", 0, [8], [8])   # both: Index on p8, beamer's page (fails the single-page gate)
    answer("q2", "d06", 1, [3], [])    # split on PGF
    answer("q4", "d11", 1, [], [])     # consensus decrease (TikZ, construction p6)
    answer("q5", "d11", 1, [], [])     # consensus decrease (fontspec, construction p12)
    answer("q5", "d12", 1, [], [])     # consensus decrease (fontspec, construction p20)
    answer("q1", "d01", 1, [5], [6])   # same answer, another construction page
    return {"FIXTURE-A": a, "FIXTURE-E": e}


def write_exports(folder: Path, packet, answers: Dict[str, Dict[str, Dict[int, List[int]]]],
                  accepted=None) -> List[Path]:
    paths = []
    for evaluator, per_item in answers.items():
        path = folder / f"{evaluator}.json"
        path.write_text(json.dumps(fx.export(packet, evaluator, per_item,
                                             (accepted or {}).get(evaluator))), encoding="utf-8")
        paths.append(path)
    return paths


def first_record(folder: Path):
    key, key_sha, packet, html = first_stage(folder)
    paths = write_exports(folder, packet, scenario_first(key))
    record = build_record(key, key_sha, packet, read_exports(paths, packet))
    write_record(folder / "first.record.json", record)
    return read_record(folder / "first.record.json"), key, packet, html


def adjudication_stage(folder: Path, first):
    release, rubrics, cids, pages = example_inputs()
    pairs = adjudication_pairs(first, queued(first, load_policy()))
    parent = {"record_sha256": first.sha256, "packet_id": first.packet_id, "key_sha256": first.key_sha256}
    spec, key = build_stage(release, rubrics, cids, pages, pairs, "adjudication", "stratified",
                            f"{first.packet_id}-adjudication", 0, EXPANDED_PAGES, EXPANDED_ORDER,
                            first.policy, parent=parent)
    spec_path, key_path, _ = write_stage(folder / "adj", spec, key)
    packet = build_packet(read_spec(spec_path), pages)
    html = folder / "adj.html"
    html.write_text(render_html(packet), encoding="utf-8")
    key, key_sha = read_key(key_path)
    return key, key_sha, read_packet_html(html), html


def scenario_adjudication(key):
    item = lambda q, d: fx.item_of(key, q, d)  # noqa: E731
    f = {"FIXTURE-F1": {}, "FIXTURE-F2": {}, "FIXTURE-F3": {}}
    f["FIXTURE-F1"][item("q2", "d06")] = {1: [3]}
    f["FIXTURE-F2"][item("q2", "d06")] = {1: [3]}
    f["FIXTURE-F3"][item("q2", "d06")] = {1: []}
    f["FIXTURE-F1"][item("q4", "d11")] = {1: []}
    f["FIXTURE-F2"][item("q4", "d11")] = {1: []}
    f["FIXTURE-F3"][item("q4", "d11")] = {1: [6]}
    for name in f:
        f[name][item("q5", "d11")] = {1: []}
    f["FIXTURE-F1"][item("q5", "d12")] = {1: [20]}
    f["FIXTURE-F2"][item("q5", "d12")] = {1: []}
    return f   # FIXTURE-F3 leaves q5/d12 unjudged
