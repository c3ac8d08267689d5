"""The direct formatting of a label version's qrels and evidence (nclue.label_audit.repair
qrels_text / evidence_text) must equal canonical JSON lines (nclue.formats.jsonl_text of the rows)
for every id, and the recorded-copy check must agree with hashing a compressed copy."""

import dataclasses
import shutil
import tempfile
import unittest
from pathlib import Path

from nclue.formats import jsonl_text
from nclue.label_audit.repair import (copy_hashes, evidence_rows, evidence_text, is_recorded_copy,
                                      qrels_rows, qrels_text)
from nclue.release import Judgment, load_release

ROOT = Path(__file__).resolve().parent.parent
ODD_IDS = ['q"1', "q\\2", "q\u00e9", "q\u2028", "q\x01", "q/3"]  # escaped or kept by JSON


def with_odd_ids(release):
    """The example release plus one subset pair per odd id (as qid and as docid)."""
    judgments = {q: dict(d) for q, d in release.judgments.items()}
    evidence = dict(release.evidence)
    qid = sorted(release.queries)[0]
    n = len(release.queries[qid].conditions)
    for odd in ODD_IDS:
        judgments.setdefault(odd, {})["d"] = Judgment(odd, "d", 1, "subset")
        judgments[qid][odd] = Judgment(qid, odd, 1, "subset", None)
        evidence[(qid, odd)] = ((1, 2),) + ((),) * (n - 1)
    return dataclasses.replace(release, judgments=judgments, evidence=evidence)


class CopyText(unittest.TestCase):
    def test_same_text_as_canonical_json(self):
        base = load_release(ROOT / "data" / "example")
        for release in (base, with_odd_ids(base)):
            self.assertEqual(qrels_text(release), jsonl_text(qrels_rows(release)))
            self.assertEqual(evidence_text(release), jsonl_text(evidence_rows(release)))

    def test_gated_subset_written_with_its_gate(self):
        base = load_release(ROOT / "data" / "example")
        qid = sorted(base.queries)[0]
        n = len(base.queries[qid].conditions)
        judgments = {q: dict(d) for q, d in base.judgments.items()}
        judgments[qid]["zz"] = Judgment(qid, "zz", n, "subset", "single_page")
        release = dataclasses.replace(base, judgments=judgments)
        line = [l for l in qrels_text(release).splitlines() if '"zz"' in l][0]
        self.assertEqual(line, f'{{"clues":{n},"docid":"zz","gate":"single_page","label":"subset","qid":"{qid}"}}')
        self.assertEqual(qrels_text(release), jsonl_text(qrels_rows(release)))

    def test_recorded_copy(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "example"
            shutil.copytree(ROOT / "data" / "example", folder)
            release = load_release(folder)
            for gz in (False, True):
                recorded = copy_hashes(release, gz)
                self.assertTrue(is_recorded_copy(release, gz, recorded))
                changed = with_odd_ids(release)
                self.assertFalse(is_recorded_copy(changed, gz, recorded))
                self.assertFalse(is_recorded_copy(release, gz, dict(recorded, qrels="0" * 64)))
                self.assertFalse(is_recorded_copy(release, gz, {"qrels": recorded["qrels"]}))
            # the files on disk are the copy: the check reads them instead of compressing
            recorded = copy_hashes(release, False)
            (folder / "qrels.jsonl").write_text(qrels_text(release) + "\n", encoding="utf-8")
            self.assertTrue(is_recorded_copy(release, False, recorded))  # by compressing again


if __name__ == "__main__":
    unittest.main()
