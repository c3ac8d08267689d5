"""The "Air-gapped quick start" of docs/AUDIT.md, run as written in a copy with no build/ folder
(issue 24): it builds the v1 and v2 packets of the pre-registered samples from the shipped page
text alone, and a judged export of the v1 packet imports against the shipped key."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from nclue.label_audit.packet import read_packet_html
from nclue.label_audit.spec import read_key

from tests.audit_fixtures import construction_answers, export
from tests.slow import slow

ROOT = Path(__file__).resolve().parents[1]


def quick_start_block() -> str:
    text = (ROOT / "docs" / "AUDIT.md").read_text(encoding="utf-8")
    section = text.split("## Air-gapped quick start", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


@slow
class AirGappedQuickStart(unittest.TestCase):
    def test_block_builds_both_packets_and_an_export_imports(self):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            # with its bytecode caches, so that each command does not compile nclue again
            shutil.copytree(ROOT / "nclue", work / "nclue")
            shutil.copytree(ROOT / "audit" / "label_audit", work / "audit" / "label_audit")
            self.assertFalse((work / "build").exists())
            env = dict(os.environ, PYTHONPATH=str(work), PYTHONDONTWRITEBYTECODE="1")
            block = quick_start_block().replace("python ", f"{sys.executable} ")
            done = subprocess.run(["bash", "-e", "-c", block], cwd=work, env=env, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr[-2000:])
            for release, items in (("v1", 300), ("v2", 200)):
                packet = read_packet_html(work / "build" / "audit" / f"{release}-first.html")
                self.assertEqual(len(packet.items), items)
            key_path = work / "audit" / "label_audit" / "samples" / "v1-first" / "key.json"
            key, _ = read_key(key_path)
            packet = read_packet_html(work / "build" / "audit" / "v1-first.html")
            exported = work / "A.json"
            # a made-up export (FIXTURE: no one judged anything) answering every asked condition "no"
            answers = {item: {index: [] for index in conds} for item, conds in construction_answers(key).items()}
            exported.write_text(json.dumps(export(packet, "FIXTURE-A", answers)))
            record = work / "record.json"
            done = subprocess.run([sys.executable, "-m", "nclue", "audit", "import", "--key", str(key_path),
                                   "--packet", str(work / "build" / "audit" / "v1-first.html"), str(exported),
                                   "--out", str(record)], cwd=work, env=env, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr[-2000:])
            self.assertEqual(json.loads(record.read_text())["stage"], "first_pass")


if __name__ == "__main__":
    unittest.main()
