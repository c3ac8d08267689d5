"""Bad transcriptions: every malformed one ends in one line naming the file and the problem and exit
status 2 (``nclue audit-paper``), never a traceback.

The systematic test takes a valid transcription that uses every relation kind and, for every
field in it, replaces the field's value by a value of each other JSON type (and deletes it): each
variant must either load and audit, or raise :class:`~nclue.errors.InputError`; nothing else.
"""

import io
import json
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from nclue import paper_audit as pa
from nclue.cli import main
from nclue.errors import InputError
from tests.slow import slow

REPLACEMENTS = (None, True, 0, -1, 2.5, "x", [], {})


def valid_document():
    """A small transcription exercising every relation kind and every field type."""
    return {
        "schema": pa.SCHEMA, "paper": "toy", "seed": "none",
        "tables": [
            {"id": "T", "caption": "Table T", "kind": "measure",
             "columns": [{"id": "s"}, {"id": "h", "kind": "measure"}],
             "rows": [{"id": "a", "label": "A", "cells": {"s": "26.8", "h": {"s": "57.2", "kind": "measure"}},
                       "words": {"dir": "same"}},
                      {"id": "b", "label": "B", "cells": {"s": "26.8", "h": "57.2"},
                       "lists": {"sub": ["x", "y; z"]}}]},
            {"id": "U", "columns": [{"id": "s"}, {"id": "h"}],
             "rows": [{"id": "a", "label": "A", "cells": {"s": "26.8", "h": "57.2"}}]},
            {"id": "G", "columns": [{"id": "s"}],
             "rows": [{"id": "x_a", "label": "A", "group": "X", "cells": {"s": "26.8"}}]},
        ],
        "prose": [{"id": "n", "s": "1,000", "context": "1,000 queries"},
                  {"id": "two", "s": "2", "context": "two rows", "printed_word": "two"},
                  {"id": "gap", "s": "30.4", "context": "gap", "kind": "measure"}],
        "relations": [
            {"id": "eq", "kind": "equal", "got": {"sub": ["T.a.h", "T.a.s"]}, "expected": "p.gap",
             "category": "difference", "note": "n", "where": "sec. 1"},
            {"id": "cmp", "kind": "compare", "left": "T.a.s", "op": "<", "right": "T.a.h"},
            {"id": "grim", "kind": "grim", "value": "T.a.s", "n": "p.n", "scale": 100, "offset": 0,
             "kmin": 0, "kmax": 1000},
            {"id": "cnt", "kind": "count", "vars": {"x": {"value": "T.a.h", "n": 1000}, "y": {"count": 0}},
             "combine": {"x": 1, "y": 1}, "result": {"value": "T.b.h", "n": "p.n"}},
            {"id": "marked", "kind": "count_marked", "cells": ["T.a.s"], "marker": "*", "expected": 0},
            {"id": "gt", "kind": "grim_table", "table": "T", "columns": {"s": 1000}, "rows": ["a"]},
            {"id": "et", "kind": "equal_table", "a": "T", "b": "U", "rows": {"a": "a"}, "columns": {"s": "s"}},
            {"id": "same", "kind": "same", "values": ["T.a.s", {"value": "T.b.s", "scale": 1}],
             "review": "not a FAIL"},
            {"id": "st", "kind": "same_table", "a": "T", "b": "U", "rows": {"a": "a"}},
            {"id": "agg", "kind": "aggregate", "whole": "T.a.s", "parts": ["T.a.s", "T.b.s"],
             "weights": [1, {"between": [1, 2]}]},
            {"id": "tally", "kind": "tally", "expected": "p.two", "rows": "T", "exclude": []},
            {"id": "tcells", "kind": "tally", "expected": "p.two", "cells": ["T.a.s", "T.b.s"],
             "condition": {"op": ">", "than": 0}},
            {"id": "twords", "kind": "tally", "expected": 1, "words": ["T.a.dir"], "condition": {"is": "same"}},
            {"id": "titems", "kind": "tally", "expected": "p.two", "items": ["T.b.sub"]},
            {"id": "tfilled", "kind": "tally", "expected": "p.two", "filled": "T.a", "of": ["s", "h"]},
            {"id": "chains", "kind": "order", "op": "<=", "chains": [["T.a.s", "T.a.h"], {"chain": ["T.b.s", "T.b.h"]}]},
            {"id": "q", "kind": "quantified", "quantifier": "all",
             "items": {"each": {"r": ["a", "b"]}, "left": "T.{r}.s", "op": "<", "right": "T.{r}.h"}},
            {"id": "qo", "kind": "quantified", "quantifier": "only", "only": ["0"],
             "items": [{"left": "T.a.s", "op": "<", "right": "T.a.h"}]},
            {"id": "best", "kind": "quantified", "quantifier": "best", "claim": "T.a.h", "over": ["T.a.s"],
             "strict": True},
            {"id": "ord", "kind": "order", "op": "<=", "each": {"r": ["a", "b"]}, "chain": ["T.{r}.s", "T.{r}.h"]},
            {"id": "bnd", "kind": "bound", "bound": "T.a.h", "op": ">=", "over": {"each": {"r": ["a", "b"]},
                                                                               "value": "T.{r}.s"}},
            {"id": "sgn", "kind": "sign", "word": "T.a.dir", "values": ["T.a.s", "T.b.s"]},
            {"id": "sgn1", "kind": "sign", "printed": "positive", "values": ["T.a.s"]},
            {"id": "des", "kind": "design", "planned": {"mul": [2, 500]}, "reported": "p.n", "op": "=="},
            {"id": "sup", "kind": "superiority", "table": "T", "over": "rows", "better": "h", "worse": "s",
             "op": ">", "gap": {"op": ">=", "value": "p.gap"}, "exclude": {"b": "a copy of a"}},
            {"id": "supc", "kind": "superiority", "table": "T", "over": "columns", "better": "a",
             "worse": "b", "op": ">=", "gap": {"between": [0, "p.gap"], "tight": False}},
            {"id": "supg", "kind": "superiority", "table": "G", "over": "groups", "better": "a",
             "worse": 0, "columns": ["s"], "exclude": {}},
            {"id": "dist", "kind": "distinct", "distinct": "p.n", "parts": [500, 500], "partition": True},
            {"id": "dist2", "kind": "distinct", "distinct": "p.n", "parts": ["p.two", 999],
             "memberships": {"min": 1, "max": 2}},
            # count bounds from the solution up (x 572, y 428): the search stays short, since
            # the systematic test audits this document some 3,000 times
            {"id": "joint", "kind": "joint_counts", "n": "p.n", "counts": {"x": [572, "p.n"], "y": [428, 1000]},
             "sums": [{"of": ["x", "y"], "equals": "p.n"}],
             "rates": [{"value": "T.a.h", "num": ["x"], "den": {"x": 1, "y": 1}, "scale": 100}],
             "checks": [{"value": "p.gap", "expr": {"sub": [{"pct": ["x", "p.n"]}, "T.a.s"]}}]},
            {"id": "joint2", "kind": "joint_counts", "n": "p.n", "counts": ["u", "v"],
             "rates": [{"value": "T.a.s", "num": "u", "den": "p.n"}]},
            {"id": "xr", "kind": "xref", "context": "Table T", "reading": "the seed shows every part",
             "refs": ["Table T", {"ref": "Tables", "as": ["Table T"]}]},
        ],
        "parts": [{"ref": "Table T", "anchor": "Table T", "note": "its caption"}],
        "release_map": [{"value": "T.a.s", "run": "r", "measure": "nclue_score@10", "slice": "n=2"}],
        "not_transcribed": [{"id": "x", "reason": "y"}],
    }


def paths(obj, prefix=()):
    """Every (path, value) inside a JSON document, outermost first."""
    yield prefix, obj
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from paths(value, prefix + (index,))


def replaced(doc, path, value, delete=False):
    out = json.loads(json.dumps(doc))  # a deep copy
    target = out
    for step in path[:-1]:
        target = target[step]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


def audit_document(doc):
    """Validate, audit and report a document held in memory (named ``toy.json`` in errors)."""
    tr = pa.transcription_from_document(doc, "toy.json")
    results = pa.audit(tr)
    pa.report_markdown(tr, results)
    pa.verdicts_document(tr, results)


@slow
class Systematic(unittest.TestCase):
    def test_valid_document_audits(self):
        tr = pa.transcription_from_document(valid_document(), "toy.json")
        kinds = {r.kind for r in pa.audit(tr)}
        self.assertEqual(kinds, set(pa.KINDS))  # every relation kind is exercised

    def test_every_field_of_every_type(self):
        doc = valid_document()
        unexpected = []
        tried = 0
        for where, original in list(paths(doc)):
            if not where:
                continue
            variants = [(v, False) for v in REPLACEMENTS if v != original or type(v) is not type(original)]
            if isinstance(where[-1], str):
                variants.append((None, True))
            for value, delete in variants:
                tried += 1
                try:
                    audit_document(replaced(doc, where, value, delete))
                except InputError as exc:
                    if "toy.json" not in str(exc) or "\n" in str(exc):
                        unexpected.append(f"{where} -> {value!r}: unclear message {exc}")
                except Exception as exc:  # noqa: BLE001 -- the point of the test
                    unexpected.append(f"{'/'.join(map(str, where))} -> "
                                      f"{'deleted' if delete else repr(value)}: {type(exc).__name__}: {exc}")
        self.assertGreater(tried, 1000)
        self.assertEqual(unexpected, [])


    def test_an_unknown_field_anywhere_is_refused(self):
        # a misspelt field ("weight" for "weights") would otherwise silently change the check
        doc = valid_document()
        accepted = []
        for where, obj in list(paths(doc)):
            if not isinstance(obj, dict):
                continue
            target = json.loads(json.dumps(doc))
            node = target
            for step in where:
                node = node[step]
            node["zz_misspelt"] = 1
            try:
                audit_document(target)
            except InputError as exc:
                self.assertIn("toy.json", str(exc))
                continue
            accepted.append("/".join(map(str, where)) or "(document)")
        self.assertEqual(accepted, [])


class CommandLine(unittest.TestCase):
    def run_cli(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bad.json"
            path.write_text(text, encoding="utf-8")
            err, out = io.StringIO(), io.StringIO()
            with redirect_stderr(err), redirect_stdout(out):
                code = main(["audit-paper", str(path), "--write-verdicts", str(Path(tmp) / "v.json")])
            self.assertFalse((Path(tmp) / "v.json").exists())  # no half-written output
            return code, err.getvalue()

    def test_wrongly_typed_fields_exit_2_with_one_line(self):
        doc = valid_document()
        at = {rel["id"]: i for i, rel in enumerate(doc["relations"])}
        cases = {
            "cells": replaced(doc, ("tables", 0, "rows", 0, "cells"), ["26.8"]),
            "printed number": replaced(doc, ("prose", 0, "s"), 1000),
            "columns": replaced(doc, ("tables", 0, "columns"), "s, h"),
            "relation": replaced(doc, ("relations", at["eq"]), "eq"),
            "op": replaced(doc, ("relations", at["cmp"], "op"), 3),
            "n": replaced(doc, ("relations", at["grim"], "n"), "1000"),
            "values": replaced(doc, ("relations", at["same"], "values"), "T.a.s"),
            "weights": replaced(doc, ("relations", at["agg"], "weights"), [1]),
            "each": replaced(doc, ("relations", at["q"], "items", "each"), {"r": "a"}),
            "quantifier": replaced(doc, ("relations", at["q"], "quantifier"), "most"),
            "word": replaced(doc, ("relations", at["sgn"], "word"), ["same"]),
            "review": replaced(doc, ("relations", at["same"], "review"), 5),
            "lists": replaced(doc, ("tables", 0, "rows", 1, "lists", "sub"), "x; y"),
            "misspelt field": replaced(doc, ("relations", at["agg"], "weight"), [1, 1]),
            "misspelt table field": replaced(doc, ("tables", 0, "colums"), []),
            "unknown column in a bulk relation": replaced(doc, ("relations", at["gt"], "columns", "hh"), 1000),
            "malformed JSON": None,
        }
        for name, bad in cases.items():
            with self.subTest(name):
                code, err = self.run_cli("{not json" if bad is None else json.dumps(bad))
                self.assertEqual(code, 2)
                lines = [line for line in err.splitlines() if line.startswith("nclue:")]
                self.assertEqual(len(lines), 1, err)
                self.assertIn("bad.json", lines[0])
                self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
