"""Loaders hold the cyclic garbage collector while they build records (nclue.formats
no_cycle_collection) and always give it back as it was, on success and on bad input."""

import gc
import tempfile
import unittest
from pathlib import Path

from nclue.errors import InputError
from nclue.formats import no_cycle_collection
from nclue.release import load_release
from nclue.runs import load_run

ROOT = Path(__file__).resolve().parent.parent


class NoCycleCollection(unittest.TestCase):
    def setUp(self):
        self.addCleanup(gc.enable if gc.isenabled() else gc.disable)

    def test_restores_the_state_it_found(self):
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            with no_cycle_collection():
                self.assertFalse(gc.isenabled())
            self.assertEqual(gc.isenabled(), enabled)
            with self.assertRaises(ValueError):
                with no_cycle_collection():
                    raise ValueError("bad input")
            self.assertEqual(gc.isenabled(), enabled)

    def test_loaders_give_it_back(self):
        gc.enable()
        release = load_release(ROOT / "data" / "example")
        self.assertTrue(gc.isenabled())
        run = next((ROOT / "data" / "example" / "runs").glob("*.jsonl*"))
        load_run(run, release)
        self.assertTrue(gc.isenabled())
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "bad.jsonl"
            bad.write_text('{"qid": "nope", "docs": [], "scores": []}\n', encoding="utf-8")
            with self.assertRaises(InputError):
                load_run(bad, release)
            self.assertTrue(gc.isenabled())
            with self.assertRaises(InputError):
                load_release(Path(tmp) / "missing")
            self.assertTrue(gc.isenabled())


if __name__ == "__main__":
    unittest.main()
