"""``nclue audit``: the offline label audit (n-Clue paper, supplement sec. 10), step by step.

See :mod:`nclue.label_audit` and docs/AUDIT.md. Every step reads explicit files and writes new
ones (atomically); the released qrels are never modified.
"""

import argparse
import sys
import time
from typing import Any, Dict, List, Sequence

from ..claims import format_fixed
from ..errors import InputError
from ..formats import dumps_canonical, write_bytes_atomic
from ..release import load_release
from ..label_audit.challenge import MEASURES as CONTRAST_MEASURES
from ..measures import REGISTRY
from ..table import Table

DESCRIPTION = """\
Offline label audit of a release (n-Clue paper, supplement sec. 10; docs/AUDIT.md).

  1. sample      draw a stratified, seeded sample of judged pairs -> a blinded spec.json
                 (what evaluators see) and a separate key.json (labels, construction pages,
                 strata, routes, controls) that records the repair policy fixed now
  2. packet      render the spec as ONE self-contained HTML file from the rebuilt page text
                 (no network; no labels, grades, construction pages or routes in it)
  3. (evaluators judge in the browser and export one JSON file each)
  4. import      re-validate every export against the packet (structure, page pool, every
                 quote re-located by offsets and sha256); agreement statistics (Table S8)
                 with Wilson intervals over the distinct response streams; writes the record
  5. adjudicate  the policy's queued conditions -> an expanded-page (6-9 pages) stage, with
                 its pool composition (Table S10) and held-out recall check; then packet,
                 judge, import again
     review      the non-unanimous polled conditions -> an administrative review sheet
  6. repair      apply the pre-specified policy mechanically -> data/<release>/repairs/<id>.jsonl
                 + lineage; both page gates re-checked on every gold; transition tables;
                 the conditions left undecided listed
  7. impact      every frozen run before / after the repair, largest change, Spearman rho;
                 a named contrast with its paired p-values on both label versions
  8. challenge   every judged subset whose promotion could reduce a named frozen contrast at
                 top k, with blinded neutral controls -> a stage like step 1 (6-9 pages)
     tiebreak    the challenge's split conditions -> a tie-break stage (same pages)

Identical exports are one response stream in every stage. Every input is refused as an output.
Bad input: one line naming the file and the problem, exit status 2."""


def _table_markdown(table: Table) -> str:
    decimals = table.decimals()
    lines = [f"### {table.title}", "", "| | " + " | ".join(c.header for c in table.columns) + " |",
             "| --- |" + " --- |" * len(table.columns)]
    for key, label, values in table.rows:
        cells = []
        for column in table.columns:
            value = values.get(column.key)
            cells.append("" if value is None else format_fixed(value, decimals[(table.table_id, key, column.key)]))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def _tables_json(tables: Sequence[Table]) -> List[Dict[str, Any]]:
    return [{"id": t.table_id, "title": t.title, "columns": [c.key for c in t.columns],
             "rows": [{"row": k, "label": label, "cells": {c: v for c, v in vals.items() if v is not None}}
                      for k, label, vals in t.rows]} for t in tables]


def _emit(args: argparse.Namespace, tables: Sequence[Table], extra: Dict[str, Any]) -> None:
    if args.json:
        sys.stdout.write(dumps_canonical({**extra, "tables": _tables_json(tables)}, indent=2) + "\n")
    else:
        for key, value in extra.items():
            if not isinstance(value, (dict, list)):
                print(f"{key}: {value}")
        for table in tables:
            print()
            sys.stdout.write(_table_markdown(table))


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _at_least(option: str, value: int, minimum: int) -> None:
    """A numeric option below its minimum is one line naming the option (exit status 2)."""
    if value < minimum:
        raise InputError(option, f"must be at least {minimum}, got {value}")


def _text_paths(args: argparse.Namespace, release_dir) -> tuple:
    """(rubric file, page text file) a stage reads: the options, else the release's defaults."""
    from ..label_audit.pagetext import default_pages_path
    from ..label_audit.rubric import default_rubric_path
    return args.rubric or default_rubric_path(release_dir), args.pages or default_pages_path(release_dir)


def _policy_path(args: argparse.Namespace):
    from ..label_audit.policy import DEFAULT_POLICY
    return args.policy or DEFAULT_POLICY


def _stage_inputs(args: argparse.Namespace, *more) -> List[Any]:
    """Every input of a stage-writing step: the release folder (all its files), the rubric, the
    page text, the policy and ``more`` (records); none may be written over."""
    return [args.release, *_text_paths(args, args.release), _policy_path(args), *more]


def _check_stage_out(args: argparse.Namespace, inputs: Sequence[Any]) -> None:
    """Refuse, before anything is computed, a stage folder that is an input or whose spec.json /
    key.json would overwrite an input (:mod:`nclue.outputs`)."""
    from ..label_audit.spec import STAGE_FILES
    from ..outputs import check_output, check_output_dir
    folder = check_output_dir(args.out, inputs, what="stage folder")
    for name in STAGE_FILES:
        check_output(folder / name, inputs, allow_stdout=False)


def _rubrics_and_pages(args: argparse.Namespace, release, docids):
    from ..label_audit.pagetext import load_pages
    from ..label_audit.rubric import load_rubrics, query_condition_ids
    rubric_path, pages_path = _text_paths(args, release.path)
    rubrics = load_rubrics(rubric_path)
    condition_ids = query_condition_ids(release, rubrics)
    _progress(f"reading page text of {len(docids)} documents from {pages_path}")
    pages = load_pages(pages_path, docids, {d: doc.pages for d, doc in release.corpus.items()})
    return rubrics, condition_ids, pages


def _policy(args: argparse.Namespace):
    from ..label_audit.policy import load_policy
    return load_policy(_policy_path(args))


# ------------------------------------------------------------------------------------------------
# sample / challenge / adjudicate: stages
# ------------------------------------------------------------------------------------------------

def _write_stage(args: argparse.Namespace, spec, key, extra: Dict[str, Any], tables: Sequence[Table],
                 size: int, inputs: Sequence[Any]) -> int:
    from ..label_audit.spec import write_stage
    short = [len(c.pages) for it in spec.items for c in it.conditions if len(c.pages) < size]
    if short:
        _progress(f"warning: {len(short)} asked condition(s) show fewer than the {size} pages asked for "
                  f"(their documents are shorter; fewest {min(short)})")
    from ..label_audit.pool_check import pool_table
    spec_path, key_path, key = write_stage(args.out, spec, key, inputs)
    tables = list(tables) + [pool_table(key)]
    conditions = sum(len(it.conditions) for it in spec.items)
    contexts = sum(len(c.pages) for it in spec.items for c in it.conditions)
    _emit(args, tables, {**extra, "packet_id": spec.packet_id, "items": len(spec.items),
                         "asked_conditions": conditions, "page_contexts": contexts,
                         "spec": str(spec_path), "key": str(key_path), "spec_sha256": key.spec_sha256})
    _progress(f"wrote {spec_path} (blinded, give to the packet step) and {key_path} (administrator "
              "key: keep it away from evaluators)")
    return 0


def run_sample(args: argparse.Namespace) -> int:
    from ..label_audit.pools import FIRST_PASS_ORDER, FIRST_PASS_PAGES
    from ..label_audit.sampling import draw_sample, sample_table_rows, stratum_label
    from ..label_audit.spec import StagePair, build_stage
    from ..table import Column
    _at_least("--n", args.n, 1)
    inputs = _stage_inputs(args)
    _check_stage_out(args, inputs)
    release = load_release(args.release)
    policy = _policy(args)
    pairs = draw_sample(release, args.n, args.seed)
    _sample_warnings(release, args.n, pairs)
    rubrics, condition_ids, pages = _rubrics_and_pages(args, release, {p.docid for p in pairs})
    stage_pairs = [StagePair(p.qid, p.docid, "sample", stratum_label(p.stratum),
                             tuple(range(len(release.queries[p.qid].conditions))), {}, {}) for p in pairs]
    packet_id = args.id or f"{release.name}-first-s{args.seed}"
    spec, key = build_stage(release, rubrics, condition_ids, pages, stage_pairs, "first_pass", "stratified",
                            packet_id, args.seed, FIRST_PASS_PAGES, FIRST_PASS_ORDER, policy.ref())
    rows = tuple((r[0], r[0], {"pairs": r[1], "gold": r[2], "subset": r[3]}) for r in sample_table_rows(release, pairs))
    table = Table("audit_sample", f"Stratified audit sample of {release.name}, seed {args.seed} (Table S7 shape)",
                  (Column("pairs", "pairs", 0), Column("gold", "pre-gold", 0), Column("subset", "pre-subset", 0)),
                  rows, note="Counts describe the sampled packet, not the population distribution of qrels.")
    return _write_stage(args, spec, key, {"release": release.name, "seed": args.seed}, [table],
                        FIRST_PASS_PAGES, inputs)


def _sample_warnings(release, n: int, pairs) -> None:
    """Warn when the sample cannot have the size or the half-gold balance asked for
    (:mod:`nclue.label_audit.sampling`: a short half passes its shortfall to the other)."""
    judged = sum(len(d) for d in release.judgments.values())
    if len(pairs) < n:
        _progress(f"warning: asked for {n} pairs; the release judges {judged}: every judged pair is sampled")
    golds = sum(1 for d in release.judgments.values() for j in d.values() if j.is_gold)
    got_gold = sum(1 for p in pairs if p.stratum[2] == "gold")
    for got, want, have, what in ((got_gold, n // 2, golds, "pre-gold"),
                                  (len(pairs) - got_gold, n - n // 2, judged - golds, "pre-subset")):
        if got < want:
            _progress(f"warning: {got} {what} pairs instead of {want} (the release has {have})")


def run_challenge(args: argparse.Namespace) -> int:
    from ..label_audit.challenge import contrast_record, select
    from ..label_audit.impact import runs_of
    from ..label_audit.pools import EXPANDED_PAGES, FIRST_PASS_ORDER
    from ..label_audit.spec import StagePair, build_stage
    from ..label_audit.sampling import stratum_label, stratum_of
    _at_least("--k", args.k, 1)
    _at_least("--controls", args.controls, 0)
    inputs = _stage_inputs(args)
    _check_stage_out(args, inputs)
    release = load_release(args.release)
    policy = _policy(args)
    runs = runs_of(args.release, release, [args.base, args.variant])
    value, targets, controls = select(release, runs[args.base], runs[args.variant], args.k, args.measure,
                                      args.controls, args.seed)
    if not targets:
        raise InputError(args.release, f"no judged subset in the top {args.k} of {args.base} or "
                                       f"{args.variant} can reduce the contrast")
    if len(controls) < args.controls:
        _progress(f"warning: asked for {args.controls} controls; only {len(controls)} judged subsets leave the "
                  "contrast unchanged")
    docids = {c.docid for c in targets + controls}
    rubrics, condition_ids, pages = _rubrics_and_pages(args, release, docids)
    stage_pairs = []
    for role, group in (("target", targets), ("control", controls)):
        for c in group:
            j = release.judgments[c.qid][c.docid]
            stage_pairs.append(StagePair(c.qid, c.docid, role, stratum_label(stratum_of(release, j)),
                                         tuple(range(len(release.queries[c.qid].conditions))), {}, {}))
    packet_id = args.id or f"{release.name}-challenge-s{args.seed}"
    record = contrast_record(runs[args.base], runs[args.variant], args.k, args.measure, value, targets,
                             controls, args.seed)
    spec, key = build_stage(release, rubrics, condition_ids, pages, stage_pairs, "first_pass", "challenge",
                            packet_id, args.seed, EXPANDED_PAGES, FIRST_PASS_ORDER, policy.ref(), contrast=record)
    return _write_stage(args, spec, key, {"release": release.name, "contrast_points": round(value, 6),
                                          "targets": len(targets),
                                          "controls": len(controls)}, [], EXPANDED_PAGES, inputs)


def run_adjudicate(args: argparse.Namespace, tie_break: bool = False) -> int:
    from ..label_audit.adjudication import adjudication_pairs
    from ..label_audit.pool_check import held_out_recall, recall_table
    from ..label_audit.pools import EXPANDED_ORDER, EXPANDED_PAGES, TIE_BREAK_ORDER
    from ..label_audit.policy import check_recorded
    from ..label_audit.record import read_record
    from ..label_audit.repair import queued, tie_break_queued
    from ..label_audit.spec import build_stage, check_release
    inputs = _stage_inputs(args, args.record)
    _check_stage_out(args, inputs)
    release = load_release(args.release)
    first = read_record(args.record)
    policy = _policy(args)
    check_recorded(policy, first.policy, args.record)
    check_release(first.release_files, release, args.record)
    queue = tie_break_queued(first, policy) if tie_break else queued(first, policy)
    if not queue:
        _progress(f"nothing to {'tie-break' if tie_break else 'adjudicate'}: no condition is left open")
        _emit(args, [], {"queued_pairs": 0, "queued_conditions": 0})
        return 0
    pairs = adjudication_pairs(first, queue)
    rubrics, condition_ids, pages = _rubrics_and_pages(args, release, {p.docid for p in pairs})
    stage = "tie_break" if tie_break else "adjudication"
    packet_id = args.id or f"{first.packet_id}-{stage.replace('_', '-')}"
    seed = args.seed if args.seed is not None else 0
    parent = {"record_sha256": first.sha256, "packet_id": first.packet_id, "key_sha256": first.key_sha256}
    spec, key = build_stage(release, rubrics, condition_ids, pages, pairs, stage, first.design,
                            packet_id, seed, EXPANDED_PAGES, TIE_BREAK_ORDER if tie_break else EXPANDED_ORDER,
                            first.policy, contrast=first.contrast, parent=parent)
    tables = [] if tie_break else [recall_table(held_out_recall(first, key, queue, policy, rubrics, pages),
                                                packet_id)]
    return _write_stage(args, spec, key, {"queued_pairs": len(queue),
                                          "queued_conditions": sum(len(v) for v in queue.values())},
                        tables, EXPANDED_PAGES, inputs)


def run_tie_break(args: argparse.Namespace) -> int:
    return run_adjudicate(args, tie_break=True)


# ------------------------------------------------------------------------------------------------
# packet / import
# ------------------------------------------------------------------------------------------------

def run_packet(args: argparse.Namespace) -> int:
    from ..label_audit.packet import build_packet
    from ..label_audit.packet_html import render_html
    from ..label_audit.pagetext import load_pages
    from ..label_audit.spec import read_spec
    from ..outputs import check_output
    inputs = [args.spec, args.pages]
    check_output(args.out, inputs, allow_stdout=False, what="packet")
    started = time.perf_counter()
    spec = read_spec(args.spec)
    docids = {it.docid for it in spec.items}
    _progress(f"reading page text of {len(docids)} documents from {args.pages}")
    pages = load_pages(args.pages, docids)
    read_s = time.perf_counter() - started
    packet = build_packet(spec, pages)
    html = render_html(packet).encode("utf-8")
    write_bytes_atomic(args.out, html, inputs)
    total = time.perf_counter() - started
    contexts = sum(len(c.pages) for it in packet.items for c in it.conditions)
    distinct = sum(len(p) for p in packet.pages.values())
    _emit(args, [], {"packet": str(args.out), "packet_id": packet.packet_id, "packet_sha256": packet.sha256,
                     "items": len(packet.items), "asked_conditions": sum(len(it.conditions) for it in packet.items),
                     "page_contexts": contexts, "distinct_pages": distinct, "bytes": len(html),
                     "seconds_reading_pages": round(read_s, 2), "seconds_total": round(total, 2)})
    _progress(f"wrote {args.out}: {len(html):,} bytes in {total:.1f} s (it holds page text: keep it in "
              "build/, never commit it)")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from ..label_audit.agreement_stats import stage_tables
    from ..label_audit.exports import read_exports, identical_streams
    from ..label_audit.packet import read_packet_html
    from ..label_audit.policy import check_recorded
    from ..label_audit.record import build_record, check_key_matches_packet, write_record
    from ..label_audit.spec import read_key
    from ..outputs import check_output
    inputs = [args.key, args.packet, _policy_path(args), *args.exports]
    if args.out:
        check_output(args.out, inputs, allow_stdout=False, what="judged record")
    key, key_sha = read_key(args.key)
    packet = read_packet_html(args.packet)
    check_key_matches_packet(key, packet, args.key)
    policy = _policy(args)
    check_recorded(policy, key.policy, args.key)
    exports = read_exports(args.exports, packet)
    for a, b in identical_streams(exports):
        _progress(f"warning: the exports of {a} and {b} are identical at every decision, page and quote "
                  "(one response stream, not two; the repair refuses them as two streams)")
    record = build_record(key, key_sha, packet, exports)
    extra: Dict[str, Any] = {"packet_id": key.packet_id, "stage": key.stage, "packet_sha256": packet.sha256,
                             "exports": len(exports)}
    if args.out:
        extra["record"] = str(args.out)
        extra["record_sha256"] = write_record(args.out, record, inputs)
    _emit(args, stage_tables(record), extra)
    _progress(f"{len(exports)} export(s) valid: every quote re-located in the packet's page text")
    return 0


# ------------------------------------------------------------------------------------------------
# repair / impact
# ------------------------------------------------------------------------------------------------

def run_repair(args: argparse.Namespace) -> int:
    from ..label_audit.policy import check_recorded
    from ..label_audit.record import read_record
    from ..label_audit.repair import (apply_repair, collapsed_streams, copy_hashes, decide, gold_gate_problems,
                                      golds_counted, gzipped_qrels, load_label_version, read_repair,
                                      repair_paths, repair_rows, write_copy, write_repair)
    from ..label_audit.spec import check_release
    from ..label_audit.transitions import (flagged_conditions, flagged_table, grade_transition_table,
                                           label_transition_table, role_table, stratum_table)
    from ..formats import jsonl_text, sha256_bytes
    from ..outputs import check_output_dir
    inputs = [args.release, _policy_path(args), args.record, *(args.adjudication or []),
              *([args.review] if args.review else [])]
    if args.write_copy:
        check_output_dir(args.write_copy, inputs, what="repaired copy folder")
    release = load_release(args.release)
    policy = _policy(args)
    first = read_record(args.record)
    adjudications = [read_record(p) for p in args.adjudication or []]
    for path, record in [(args.record, first)] + list(zip(args.adjudication or [], adjudications)):
        check_recorded(policy, record.policy, path)
        check_release(record.release_files, release, path)
    base = release
    for earlier in args.after or []:
        base, _ = load_label_version(base, earlier)
    rows_path, lineage_path = repair_paths(args.release, args.id)
    if (rows_path.exists() or lineage_path.exists()) and not (args.force or args.dry_run):
        raise InputError(rows_path, "a repair with this id exists (repairs are release artefacts; "
                                    "choose a new id or pass --force)")
    review = None
    if args.review:
        from ..label_audit.review import read_review, review_items, review_table
        items = review_items(first, adjudications, policy)
        review = read_review(args.review, items, first, adjudications)
    outcomes = decide(first, adjudications, policy, review.departures if review else None)
    collapsed = collapsed_streams(first, adjudications, policy)
    for c in collapsed:
        _progress(f"warning: {c.stage} {c.packet_id}: the responses of {c.collapsed} are identical to those of "
                  f"{c.into} at every decision, page and quote; counted once (one response stream)")
    flagged = flagged_conditions(outcomes)
    retained = sum(1 for _, c in flagged if c.decision.status == "retained")
    pending = len(flagged) - retained
    if retained:
        _progress(f"warning: {retained} adjudicated condition(s) without a decision (a tie or too few agreeing "
                  "responses) keep the construction decision; listed in the table of undecided conditions")
    if pending:
        _progress(f"warning: {pending} queued condition(s) have no adjudication response yet (pending) and keep "
                  "the construction decision; listed in the table of undecided conditions")
    rows = repair_rows(outcomes)
    data = jsonl_text(rows).encode("utf-8")
    parsed = [dict(r, line=i + 1, before=_pair(r["before"]), after=_pair(r["after"])) for i, r in enumerate(rows)]
    repaired = apply_repair(base, parsed, rows_path)
    problems = gold_gate_problems(repaired, first.page_gates)
    golds, subsets, zero_gold = golds_counted(repaired)
    gz = gzipped_qrels(release)
    lineage = {
        "format": "nclue-audit-repair", "version": 1, "id": args.id, "release": release.name,
        "after": list(args.after or []), "compression": "gzip" if gz else "none",
        "policy": policy.ref(), "repair_sha256": sha256_bytes(data),
        "base": copy_hashes(base, gz), "result": copy_hashes(repaired, gz),
        "records": [{"stage": r.stage, "design": r.design, "packet_id": r.packet_id, "record_sha256": r.sha256,
                     "key_sha256": r.key_sha256, "packet_sha256": r.packet_sha256,
                     "evaluators": [{"id": e["id"], "export_sha256": e["export_sha256"]} for e in r.evaluators]}
                    for r in [first] + adjudications],
        "audited_pairs": len(outcomes), "changed_pairs": len(rows),
        "collapsed_streams": [c.to_json() for c in collapsed],
        "review": None if review is None else {"sha256": review.sha256, "checked": review.checked,
                                               "departures": len(review.departures)},
        "undecided_conditions": {"retained": retained, "pending": pending},
        "gates": {"golds_checked": golds, "failures": len(problems), "page_gates": first.page_gates},
        "result_counts": {"golds": golds, "subsets": subsets, "queries_without_gold": zero_gold},
    }
    if problems:
        raise InputError(rows_path, f"{len(problems)} gold(s) of the repaired copy fail a page gate, e.g. "
                                    f"{problems[0]}; nothing written")
    if not args.dry_run:
        write_repair(rows_path, lineage_path, rows, lineage)
        check = apply_repair(base, read_repair(rows_path, base), rows_path)
        if copy_hashes(check, gz) != lineage["result"]:
            raise InputError(rows_path, "re-reading the repair file does not reproduce the repaired copy")
        if args.write_copy:
            write_copy(release, repaired, args.write_copy, lineage, inputs)
            _progress(f"wrote the repaired label version to {args.write_copy}")
    tables = [grade_transition_table(outcomes), label_transition_table(outcomes, len(problems), golds, zero_gold),
              stratum_table(outcomes), flagged_table(outcomes)]
    if review is not None:
        tables.append(review_table(items, review))
    if any(r.stage == "tie_break" for r in adjudications):
        from ..label_audit.agreement_stats import tie_break_table
        tables.append(tie_break_table(first, adjudications, policy))
    if first.design == "challenge":
        tables.append(role_table(outcomes))
    _emit(args, tables, {"repair": "(dry run: not written)" if args.dry_run else str(rows_path),
                         "lineage": "" if args.dry_run else str(lineage_path), "changed_pairs": len(rows),
                         "audited_pairs": len(outcomes)})
    return 0


def run_sample_pages(args: argparse.Namespace) -> int:
    """The page text of exactly the pages a sample shows, with licenses (air-gapped audits)."""
    from pathlib import Path
    from ..formats import gzip_bytes, jsonl_text
    from ..label_audit.sample_pages import build_bundle, bundle_problems
    from ..outputs import check_output
    build = Path(args.input)
    out = Path(args.out)
    pages_out, docs_out = out / "pages.jsonl.gz", out / "documents.json"
    inputs = [args.spec, build / "pages.jsonl.gz", build / "documents.jsonl", build / "outlines.jsonl"]
    for target in (pages_out, docs_out):
        check_output(target, inputs, allow_stdout=False, what="sample pages")
    rows, docs = build_bundle(args.spec, build / "pages.jsonl.gz", build / "documents.jsonl",
                              build / "outlines.jsonl", args.sources)
    write_bytes_atomic(pages_out, gzip_bytes(jsonl_text(rows).encode("utf-8")), inputs)
    write_bytes_atomic(docs_out, (dumps_canonical(docs, indent=2) + "\n").encode("utf-8"), inputs)
    problems = bundle_problems(args.spec, pages_out, docs_out)
    if problems:
        raise InputError(pages_out, problems[0])
    shown = sum(1 for r in rows if "text" in r)
    _emit(args, [], {"pages": str(pages_out), "documents": str(docs_out), "shown_pages": shown,
                     "margin_pages": len(rows) - shown, "documents_count": len(docs["documents"]),
                     "bytes": pages_out.stat().st_size + docs_out.stat().st_size})
    return 0


def run_support_rule(args: argparse.Namespace) -> int:
    """A pre-specified support rule applied to every judged pair -> a rule repair (P0 -> P1)."""
    from ..formats import jsonl_text, read_json, sha256_bytes, sha256_file
    from ..instrument.inputs import read_build
    from ..instrument.support_rule import Establisher, condition_defs, load_rule
    from ..label_audit.repair import (apply_repair, copy_hashes, gold_gate_problems, golds_counted,
                                      gzipped_qrels, read_repair, remove_queries, repair_paths, write_repair)
    from ..label_audit.support_repair import apply_rule, rule_rows, summary
    from ..label_audit.transitions import grade_transition_table, label_transition_table
    rule = load_rule(args.rule)
    release = load_release(args.release)
    record = read_json(args.construction)
    if not isinstance(record, dict) or record.get("release") != release.name:
        raise InputError(args.construction, f"not the construction record of release {release.name!r}")
    page_gates = bool((record.get("config") or {}).get("page_gates", True))
    _progress(f"reading the page text of {args.input}")
    inputs = read_build(args.input)
    establisher = Establisher(inputs, condition_defs(record), rule)
    _progress(f"applying rule {rule.id} to every judged pair of {release.name}")
    outcomes = apply_rule(release, establisher, page_gates)
    rows = rule_rows(outcomes, release, rule.id)
    stats = summary(outcomes, release)
    repair_id = args.id or rule.id
    rows_path, lineage_path = repair_paths(args.release, repair_id, gz=True)
    if (rows_path.exists() or lineage_path.exists()) and not (args.force or args.dry_run):
        raise InputError(rows_path, "a repair with this id exists (choose a new id or pass --force)")
    data = jsonl_text(rows).encode("utf-8")
    parsed = [dict(r, line=i + 1, before=_pair(r["before"]), after=_pair(r["after"])) for i, r in enumerate(rows)]
    repaired = apply_repair(release, parsed, rows_path)
    problems = gold_gate_problems(repaired, page_gates)
    if problems:
        raise InputError(rows_path, f"{len(problems)} gold(s) fail a page gate, e.g. {problems[0]}; nothing written")
    golds, subsets, zero_gold = golds_counted(repaired)
    gz = gzipped_qrels(release)
    removed = stats["queries_without_gold"]
    kept = remove_queries(repaired, removed, lineage_path)
    lineage = {
        "format": "nclue-audit-repair", "version": 1, "id": repair_id, "release": release.name,
        "after": [], "compression": "gzip" if gz else "none", "kind": "support_rule",
        "rule": {"id": rule.id, "date": rule.date, "file": str(args.rule), "sha256": sha256_file(args.rule),
                 "description": rule.description},
        "inputs": {"build_files_sha256": dict(sorted(inputs.file_sha256.items())),
                   "construction_sha256": sha256_file(args.construction)},
        "repair_sha256": sha256_bytes(data), "base": copy_hashes(release, gz), "result": copy_hashes(repaired, gz),
        "audited_pairs": len(outcomes), "changed_pairs": len(rows),
        "gates": {"golds_checked": golds, "failures": 0, "page_gates": page_gates},
        "result_counts": {"golds": golds, "subsets": subsets, "queries_without_gold": zero_gold,
                          "queries_kept": len(kept.queries)},
        "removal_policy": "queries left without a gold leave the label version (support rule, removal policy)",
        "removed_queries": removed,
        "summary": {k: v for k, v in stats.items() if k != "queries_without_gold"},
    }
    if not args.dry_run:
        write_repair(rows_path, lineage_path, rows, lineage)
        check = apply_repair(release, read_repair(rows_path, release), rows_path)
        if copy_hashes(check, gz) != lineage["result"]:
            raise InputError(rows_path, "re-reading the repair file does not reproduce the repaired copy")
    _emit(args, [grade_transition_table(outcomes), label_transition_table(outcomes, 0, golds, zero_gold)],
          {"repair": "(dry run: not written)" if args.dry_run else str(rows_path),
           "lineage": "" if args.dry_run else str(lineage_path), "changed_pairs": len(rows),
           "pairs": len(outcomes), "golds": golds, "queries_removed": len(removed)})


def run_review(args: argparse.Namespace) -> int:
    from ..label_audit.policy import check_recorded
    from ..label_audit.record import read_record
    from ..label_audit.review import review_items, review_sheet
    from ..label_audit.spec import check_release
    from ..outputs import check_output
    from ..table import Column
    inputs = [args.release, _policy_path(args), args.record, *args.adjudication]
    check_output(args.out, inputs, allow_stdout=False, what="review sheet")
    release = load_release(args.release)
    policy = _policy(args)
    first = read_record(args.record)
    polls = [read_record(p) for p in args.adjudication]
    for path, record in [(args.record, first)] + list(zip(args.adjudication, polls)):
        check_recorded(policy, record.policy, path)
        check_release(record.release_files, release, path)
    items = review_items(first, polls, policy)
    sheet = review_sheet(items, first, polls, policy)
    write_bytes_atomic(args.out, (dumps_canonical(sheet, indent=1) + "\n").encode("utf-8"), inputs)
    rows = tuple((f"{i.qid}|{i.docid}|{i.index}",
                  f"{i.qid} / {i.docid} condition {i.index + 1} ({i.condition_id}): rule "
                  f"{'positive' if i.positive else 'negative'} ({i.rule})",
                  {"yes": i.yes, "no": i.no, "quoted": len(i.quoted_pages)}) for i in items)
    table = Table("audit_review_sheet", "Non-unanimous polled conditions to review (sec. 10.4)",
                  (Column("yes", "yes responses", 0), Column("no", "no responses", 0),
                   Column("quoted", "pages quoted validly", 0)), rows)
    _emit(args, [table], {"review_sheet": str(args.out), "conditions": len(items)})
    _progress(f"wrote {args.out}: fill in decision (confirm / positive / negative) and a reason for every "
              "departure, then pass it to repair --review")
    return 0


def _pair(obj):
    if obj is None:
        return None
    return (obj["clues"], obj["label"], obj["gate"]), tuple(tuple(p) for p in obj["pages"])


def run_impact(args: argparse.Namespace) -> int:
    from ..label_audit.impact import contrast_table, impact_tables, runs_of
    from ..label_audit.repair import load_label_version
    _at_least("--k", args.k, 1)
    release = load_release(args.release)
    repaired, lineage = load_label_version(release, args.repair)
    base = release
    for earlier in lineage.get("after") or []:
        base, _ = load_label_version(base, earlier)
    runs = runs_of(args.release, release, args.runs)
    _progress(f"scoring {len(runs)} frozen runs on {release.name} and on repair {args.repair}")
    tables = list(impact_tables(base, repaired, runs, args.k, f"repair {args.repair}"))
    if args.contrast:
        base_id, variant_id = args.contrast
        pair = runs_of(args.release, release, [base_id, variant_id])
        measure = REGISTRY.parse(args.measure, args.k, "--measure").name
        tables.append(contrast_table(base, repaired, pair[base_id], pair[variant_id], args.k, measure,
                                     f"repair {args.repair}"))
    _emit(args, tables, {"release": release.name, "repair": args.repair, "runs": len(runs)})
    return 0


# ------------------------------------------------------------------------------------------------
# parser
# ------------------------------------------------------------------------------------------------

def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("audit", help="offline label audit: sample, packet, import, adjudicate, "
                                                 "repair, impact, challenge",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="audit_step", metavar="STEP")
    parser.set_defaults(func=lambda args: (parser.print_help(sys.stderr), 2)[1])

    def common(p: argparse.ArgumentParser, release: bool = True, text: bool = False, policy: bool = True) -> None:
        if release:
            p.add_argument("--release", required=True, metavar="DIR", help="release folder, e.g. data/v1")
        if text:
            p.add_argument("--pages", metavar="FILE", help="page text (default: <release>/pages.jsonl, else "
                                                           "build/<release>/pages.jsonl.gz)")
            p.add_argument("--rubric", metavar="FILE", help="condition rubrics (default: <release>/rubric.json, "
                                                            "else provenance/construction_<release>.json)")
        if policy:
            p.add_argument("--policy", metavar="FILE", help="repair policy (default: "
                                                            "audit/label_audit/repair_policy_v1.json)")
        p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")

    p = steps.add_parser("sample", help="stratified seeded sample -> blinded spec + administrator key",
                         description="Draw a stratified (source x conditions x grade), seeded sample of judged "
                                     "pairs; about half pre-gold. Writes OUT/spec.json (blinded) and OUT/key.json "
                                     "(administrator; records the repair policy's sha256 now).")
    common(p, text=True)
    p.add_argument("--n", type=int, default=300, help="pairs (default 300, as the paper)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--id", metavar="PACKET_ID", help="packet id (default <release>-first-s<seed>)")
    p.set_defaults(func=run_sample)

    p = steps.add_parser("packet", help="render a spec as one self-contained HTML file",
                         description="Render OUT.html from a spec and the page text only: one file, all text, "
                                     "style and script inline, no network; never labels, grades, construction "
                                     "pages or routes. It holds third-party text: build it into build/.")
    p.add_argument("--spec", required=True, metavar="FILE")
    p.add_argument("--pages", required=True, metavar="FILE", help="e.g. build/v1/pages.jsonl.gz")
    p.add_argument("--out", required=True, metavar="FILE.html")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_packet)

    p = steps.add_parser("import", help="re-validate exports against the packet; agreement tables",
                         description="Re-validate every export against the packet (structure, page pool, every "
                                     "quote re-located by offsets and sha256); print the Table S8/S9/S11 "
                                     "statistics with Wilson intervals; --out writes the judged record.")
    common(p, release=False)
    p.add_argument("--key", required=True, metavar="KEY.json")
    p.add_argument("--packet", required=True, metavar="PACKET.html")
    p.add_argument("--out", metavar="RECORD.json", help="write the judged record (no page text)")
    p.add_argument("exports", nargs="+", metavar="EXPORT.json")
    p.set_defaults(func=run_import)

    p = steps.add_parser("adjudicate", help="queued conditions -> expanded-page (6-9 pages) stage",
                         description="Apply the first-pass rules of the repair policy to a judged record; every "
                                     "split and every consensus decrease becomes an expanded-page item (6-9 "
                                     "pages, only the queued conditions asked). Writes OUT/spec.json, OUT/key.json.")
    common(p, text=True)
    p.add_argument("--record", required=True, metavar="FIRST.json", help="first-pass judged record")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--id", metavar="PACKET_ID")
    p.add_argument("--seed", type=int, default=None, help="item order seed (default 0)")
    p.set_defaults(func=run_adjudicate)

    p = steps.add_parser("tiebreak", help="challenge splits -> a tie-break stage for one fresh evaluator",
                         description="For a challenge first pass (shown on six to nine pages): every condition "
                                     "the two response streams split on becomes a tie-break item showing the same "
                                     "pages (supplement sec. 10.5). Its record is passed to repair with "
                                     "--adjudication; the policy's adjudication rule then counts the two "
                                     "first-pass responses and the tie-break responses together. Writes "
                                     "OUT/spec.json, OUT/key.json.")
    common(p, text=True)
    p.add_argument("--record", required=True, metavar="FIRST.json", help="challenge first-pass judged record")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--id", metavar="PACKET_ID")
    p.add_argument("--seed", type=int, default=None, help="item order seed (default 0)")
    p.set_defaults(func=run_tie_break)

    p = steps.add_parser("review", help="non-unanimous polled conditions -> an administrative review sheet",
                         description="List every condition a poll decided or left undecided without unanimity "
                                     "(supplement sec. 10.4) in a review sheet; the administrator fills in "
                                     "confirm / positive / negative and a reason for each departure, and "
                                     "repair --review applies it (not a vote; never in an agreement statistic).")
    common(p)
    p.add_argument("--record", required=True, metavar="FIRST.json", help="first-pass judged record")
    p.add_argument("--adjudication", nargs="+", required=True, metavar="ADJ.json",
                   help="adjudication (or tie-break) judged record(s)")
    p.add_argument("--out", required=True, metavar="SHEET.json")
    p.set_defaults(func=run_review)

    p = steps.add_parser("repair", help="apply the policy -> data/<release>/repairs/<id>.jsonl + lineage",
                         description="Apply the pre-specified policy mechanically to the judged records; write "
                                     "the changed pairs as a repair file and its lineage (the released qrels are "
                                     "not touched); re-check both page gates on every gold of the repaired copy; "
                                     "print the exact transition tables.")
    common(p)
    p.add_argument("--record", required=True, metavar="FIRST.json", help="first-pass judged record")
    p.add_argument("--adjudication", nargs="*", metavar="ADJ.json",
                   help="adjudication judged record(s), or the challenge's tie-break record(s)")
    p.add_argument("--id", required=True, help="repair id, e.g. audit-2027-01")
    p.add_argument("--after", nargs="*", metavar="ID", help="earlier repairs this one applies after")
    p.add_argument("--dry-run", action="store_true", help="compute and print, write nothing")
    p.add_argument("--write-copy", metavar="DIR", help="also write the repaired label version as a release folder")
    p.add_argument("--force", action="store_true", help="overwrite a repair with the same id")
    p.add_argument("--review", metavar="SHEET.json", help="the filled administrative review sheet "
                                                          "(nclue audit review)")
    p.set_defaults(func=run_repair)

    p = steps.add_parser("sample-pages", help="the page text of exactly the pages a sample shows, with each "
                                              "document's license (for air-gapped packets)",
                         description="Write <out>/pages.jsonl.gz (shown pages, plus the margin lines of "
                                     "their neighbours) and <out>/documents.json (page counts, outlines, "
                                     "licenses, attribution) for one sample's spec.json, from the rebuilt "
                                     "page text and the unpacked Debian packages.")
    p.add_argument("--spec", required=True, help="the sample's spec.json")
    p.add_argument("--input", required=True, help="the rebuilt page-text folder (build/v1)")
    p.add_argument("--sources", required=True, help="the unpacked packages (build/sources/v1)")
    p.add_argument("--out", required=True, help="the sample's folder (beside spec.json)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run_sample_pages)

    p = steps.add_parser("support-rule", help="apply a pre-specified support rule to every judged pair -> "
                                              "a rule repair (P0 -> P1), from the rebuilt page text",
                         description="Apply a support rule (audit/label_audit/support_rule_P1.md) to every "
                                     "judged pair of a release: each condition keeps only the pages that "
                                     "establish it; pairs are judged again; writes "
                                     "data/<release>/repairs/<id>.jsonl.gz and <id>.lineage.json.")
    p.add_argument("--release", required=True, help="the release folder (data/v1)")
    p.add_argument("--input", required=True, help="the rebuilt page-text folder (build/v1)")
    p.add_argument("--construction", required=True, help="the construction record (provenance/construction_v1.json)")
    p.add_argument("--rule", required=True, help="the rule's parameters (audit/label_audit/support_rule_P1.json)")
    p.add_argument("--id", help="repair id (default: the rule's id)")
    p.add_argument("--force", action="store_true", help="replace an existing repair with this id")
    p.add_argument("--dry-run", action="store_true", help="compute and print, write nothing")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.set_defaults(func=run_support_rule)

    p = steps.add_parser("impact", help="every frozen run before/after a repair (Table S14 analogue)",
                         description="Score every frozen run on the released and the repaired label version: "
                                     "each measure before/after, the largest change, Spearman rho of the runs' "
                                     "values, the largest rank movement.")
    common(p, policy=False)
    p.add_argument("--repair", required=True, metavar="ID")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--runs", nargs="*", metavar="RUN", help="only these run ids (default: all)")
    p.add_argument("--contrast", nargs=2, metavar=("BASE", "VARIANT"), help="also a named contrast")
    p.add_argument("--measure", default="gold_ndcg", help="contrast measure, e.g. gold_ndcg or nclue_score@10 "
                                                          "(default gold_ndcg at --k)")
    p.set_defaults(func=run_impact)

    p = steps.add_parser("challenge", help="retrieval-conditioned challenge of a frozen contrast",
                         description="Select every judged subset in the top k of BASE or VARIANT whose promotion "
                                     "to gold would move the contrast (VARIANT - BASE on MEASURE) toward zero, "
                                     "plus blinded neutral controls; write a 6-9-page stage (spec + key) judged "
                                     "and imported like the sample.")
    common(p, text=True)
    p.add_argument("--base", required=True, metavar="RUN")
    p.add_argument("--variant", required=True, metavar="RUN")
    p.add_argument("--measure", default="gold_ndcg", choices=CONTRAST_MEASURES,
                   help="per-query measure of the contrast (default gold_ndcg, as the paper)")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--controls", type=int, default=25, help="neutral controls (default 25, as the paper)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--id", metavar="PACKET_ID")
    p.set_defaults(func=run_challenge)
