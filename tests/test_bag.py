"""nclue archive: a deterministic BagIt bag (RFC 8493) of the release, verified, and
reproduce.py working inside the extracted payload.

The bags are made of a small repository (tests/small_repo.py: the example release, its reference
files, the paper audit and the code, plus a README), not of this one: the code paths are the same,
while a bag of the whole repository (about 89 MB, hashed, written and read several times) would
cost most of the suite's time. reproduce.py's own coverage check keeps every file of this
repository listed, which is what ``nclue archive`` requires of it."""

import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from nclue.bag import enclosing_bag, make_bag, verify_bag, verify_enclosing_bag
from nclue.cli import main as cli_main
from nclue.errors import InputError
from nclue.integrity import write_integrity_files
from tests.slow import slow
from tests.small_repo import small_repository

ROOT = Path(__file__).resolve().parent.parent


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@slow
class TarBag(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp())
        cls.root = small_repository(cls.tmp / "repo")
        (cls.root / "README.md").write_text("# A small repository\n", encoding="utf-8")
        write_integrity_files(cls.root)
        cls.tar = cls.tmp / "nclue-v1.tar"
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            cls.code = cli_main(["archive", "--root", str(cls.root), "--out", str(cls.tar)])
        cls.stderr = err.getvalue()
        cls.extracted = cls.tmp / "x"
        with tarfile.open(cls.tar) as tar:
            cls.members = tar.getmembers()
            tar.extractall(cls.extracted)
        cls.bag = cls.extracted / "nclue-v1"
        cls.folder = cls.tmp / "folder" / "nclue-v1"
        make_bag(cls.root, str(cls.folder))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_layout(self):
        self.assertEqual(self.code, 0, self.stderr)
        top = sorted(p.name for p in self.bag.iterdir())
        self.assertEqual(top, ["bag-info.txt", "bagit.txt", "data", "manifest-sha256.txt",
                               "tagmanifest-sha256.txt"])
        self.assertEqual((self.bag / "bagit.txt").read_text(),
                         "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
        for name in ("reproduce.py", "SHA256SUMS", "README.md", "nclue/cli.py",
                     "data/example/queries.jsonl"):
            self.assertTrue((self.bag / "data" / name).is_file(), name)
        self.assertFalse(list((self.bag / "data").rglob("__pycache__")))

    def test_manifests_hold_for_every_file(self):
        payload = sorted(p.relative_to(self.bag).as_posix()
                         for p in (self.bag / "data").rglob("*") if p.is_file())
        lines = (self.bag / "manifest-sha256.txt").read_text().splitlines()
        listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in lines}
        self.assertEqual(sorted(listed), payload)
        for rel in payload[:: max(1, len(payload) // 25)]:  # a spread sample, by hashlib itself
            self.assertEqual(listed[rel], sha256(self.bag / rel))
        tags = dict(line.split("  ")[::-1] for line in
                    (self.bag / "tagmanifest-sha256.txt").read_text().splitlines())
        self.assertEqual(sorted(tags), ["bag-info.txt", "bagit.txt", "manifest-sha256.txt"])
        for name, digest in tags.items():
            self.assertEqual(digest, sha256(self.bag / name))
        octets = sum((self.bag / rel).stat().st_size for rel in payload)
        self.assertIn(f"Payload-Oxum: {octets}.{len(payload)}\n",
                      (self.bag / "bag-info.txt").read_text())

    def test_tar_is_deterministic(self):
        names = [m.name for m in self.members]
        self.assertEqual(names, sorted(names))
        self.assertEqual({(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in self.members},
                         {(0, 0, 0, "", "")})
        self.assertEqual({m.mode for m in self.members if m.isfile()}, {0o644})
        again = self.tmp / "again" / "nclue-v1.tar"
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            self.assertEqual(cli_main(["archive", "--root", str(self.root), "--out", str(again)]), 0)
        self.assertTrue(again.read_bytes() == self.tar.read_bytes(), "two archives differ")

    def test_folder_bag_equals_the_tar(self):
        self.assertEqual(verify_bag(self.folder).problems, ())
        for rel in ("manifest-sha256.txt", "tagmanifest-sha256.txt", "bag-info.txt", "bagit.txt"):
            self.assertEqual((self.folder / rel).read_bytes(), (self.bag / rel).read_bytes())
        self.assertEqual([p.name for p in self.folder.parent.iterdir()], ["nclue-v1"])

    def test_verify_bag_and_its_failures(self):
        check = verify_bag(self.bag)
        self.assertEqual(check.problems, ())
        payload = [p for p in (self.bag / "data").rglob("*") if p.is_file()]
        self.assertEqual(check.checked, len(payload) + 3)  # every payload file + 3 tag files
        copy = self.folder  # the folder bag, tampered last (tests run in name order)
        target = copy / "data" / "data" / "example" / "qrels.jsonl"
        target.write_text(target.read_text().replace('"clues":2', '"clues":1', 1))
        (copy / "data" / "extra.txt").write_text("not listed\n")
        problems = verify_bag(copy).problems
        self.assertIn("data/data/example/qrels.jsonl: sha256 differs from manifest-sha256.txt",
                      problems)
        self.assertIn("data/extra.txt: in the payload but not in manifest-sha256.txt", problems)
        self.assertTrue(any("Payload-Oxum" in p for p in problems))

    def test_reproduce_runs_inside_the_extracted_payload(self):
        payload = self.bag  # in place: a run rewrites identical bytes, so the bag stays valid
        proc = subprocess.run([sys.executable, "-I", "-S", "reproduce.py", "--release", "example"],
                              cwd=payload / "data", capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout, r" verified, 0 failed")
        self.assertFalse(list((payload / "data").rglob("__pycache__")))  # no unlisted payload
        self.assertEqual(enclosing_bag(payload / "data"), payload.resolve())
        self.assertEqual(verify_enclosing_bag(payload / "data").problems, ())
        self.assertIsNone(verify_enclosing_bag(ROOT))


@slow
class FolderBag(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_refusals(self):
        (self.tmp / "full").mkdir()
        (self.tmp / "full" / "a").write_text("x")
        with self.assertRaises(InputError):
            make_bag(ROOT, str(self.tmp / "full"))
        with self.assertRaises(InputError):  # inside the payload it archives
            make_bag(ROOT, str(ROOT / "data" / "bag.tar"))
        self.assertFalse((ROOT / "data" / "bag.tar").exists())
        clone = self.tmp / "clone"
        clone.mkdir()
        for name in ("reproduce.py", "SHA256SUMS"):
            shutil.copy(ROOT / name, clone / name)
        (clone / "nclue").mkdir()
        (clone / "data").mkdir()
        (clone / "data" / "link").symlink_to("/etc/passwd")
        with self.assertRaises(InputError) as caught:
            make_bag(clone, str(self.tmp / "c.tar"))
        self.assertIn("symbolic link", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
