"""Croissant metadata (nclue.croissant): file hashes, coverage, record sets, committed files fresh.

Expected hashes are recomputed here with hashlib; the covered file list is derived from the folder.
mlcroissant's own validation is a dev check (bench/croissant_check.sh, bench/results/).
"""

import hashlib
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from nclue.croissant import CONFORMS_TO, metadata, metadata_text, stale
from tests.slow import slow

ROOT = Path(__file__).resolve().parent.parent
_REGENERATED = {}


def regenerated(release: str) -> str:
    """``metadata_text`` of data/<release>, made once per test run (v1's takes about 2 s) and
    shared by the freshness test and the field test."""
    if release not in _REGENERATED:
        _REGENERATED[release] = metadata_text(ROOT / "data" / release)
    return _REGENERATED[release]


class Metadata(unittest.TestCase):
    def test_example_file_objects(self):
        folder = ROOT / "data" / "example"
        meta = metadata(folder)
        self.assertEqual(meta["conformsTo"], CONFORMS_TO)
        objects = {d["@id"]: d for d in meta["distribution"] if d["@type"] == "cr:FileObject"}
        # every file of the folder except the two report artefacts
        expected = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        expected -= {"claims.json", "report.json"}
        self.assertEqual(set(objects), expected)
        for name, obj in objects.items():
            data = (folder / name).read_bytes()
            self.assertEqual(obj["sha256"], hashlib.sha256(data).hexdigest(), name)
            self.assertEqual(obj["contentSize"], f"{len(data)} B")
            self.assertEqual(obj["contentUrl"], name)

    def test_record_sets_reference_declared_files(self):
        meta = metadata(ROOT / "data" / "example")
        ids = {d["@id"] for d in meta["distribution"]}
        names = [r["name"] for r in meta["recordSet"]]
        self.assertEqual(names, ["queries", "qrels", "corpus", "evidence", "pages", "runs"])
        for record in meta["recordSet"]:
            for field in record["field"]:
                source = field["source"]
                ref = source.get("fileObject", source.get("fileSet"))["@id"]
                self.assertIn(ref, ids, field["@id"])
                self.assertTrue(field["@id"].startswith(record["name"] + "/"))

    @slow
    def test_committed_metadata_is_fresh(self):
        for release in ("v1", "v2"):   # what stale() compares (tested below), text shared
            committed = (ROOT / "data" / release / "croissant.json").read_text(encoding="utf-8")
            self.assertTrue(committed == regenerated(release), f"{release}: croissant.json is stale")

    def test_stale_is_detected(self):
        with tempfile.TemporaryDirectory() as tmp:
            rel = Path(tmp) / "example"
            shutil.copytree(ROOT / "data" / "example", rel)
            self.assertIn("missing", stale(rel))
            (rel / "croissant.json").write_text(metadata_text(rel))
            self.assertIsNone(stale(rel))
            with (rel / "queries.jsonl").open("a") as handle:
                handle.write("\n")  # a blank line: same records, other bytes, other sha256
            self.assertIn("stale", stale(rel))
            json.loads((rel / "croissant.json").read_text())  # still valid JSON


if __name__ == "__main__":
    unittest.main()


class EveryFieldDescribed(unittest.TestCase):
    """Issue 26: Croissant describes every field of every shipped JSON-lines file (runs aside,
    which have their own record set), read here from the files themselves."""

    def test_every_key_of_every_jsonl_file_has_a_field(self):
        self.check_releases("example")

    @slow
    def test_every_key_of_every_jsonl_file_of_v1_and_v2_has_a_field(self):
        self.check_releases("v1", "v2")   # whole releases: every line of every file is read

    def check_releases(self, *releases):
        import gzip
        import json as _json
        root = Path(__file__).resolve().parents[1] / "data"
        for release in releases:
            folder = root / release
            described = {}
            for record_set in _json.loads(regenerated(release))["recordSet"]:
                for field in record_set["field"]:
                    source = field["source"].get("fileObject", {}).get("@id")
                    described.setdefault(source, set()).add(field["source"]["extract"].get("column"))
            files = [p for p in sorted(folder.rglob("*.jsonl*")) if "runs" not in p.relative_to(folder).parts]
            self.assertTrue(files)
            for path in files:
                name = path.relative_to(folder).as_posix()
                opener = gzip.open if name.endswith(".gz") else open
                keys = set()
                with opener(path, "rt", encoding="utf-8") as handle:
                    for line in handle:
                        keys.update(_json.loads(line))
                self.assertIn(name, described, f"{release}: {name} has no record set")
                self.assertEqual(keys - described[name], set(), f"{release}: {name}")
