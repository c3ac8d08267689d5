"""``nclue archive --out nclue-v1.tar``: a BagIt bag (RFC 8493) of the repository's release."""

import argparse
import json
import sys
from pathlib import Path

from ..errors import VerificationError

DESCRIPTION = """\
Write a BagIt bag (RFC 8493: bagit.txt, bag-info.txt, manifest-sha256.txt,
tagmanifest-sha256.txt, payload under data/) of this repository's release: everything
`python reproduce.py` needs and verifies (nclue/, reproduce.py, tests/, tools/, producers/,
data/, reference_metrics/, audit/, provenance/, claims/, docs/, README.md, DATASHEET.md, LICENSE, CITATION.cff, pyproject.toml,
MANIFEST.json, SHA256SUMS; hidden files and __pycache__ left out, symbolic links refused).
OUT ending in .tar (or .tar.gz / .tgz) is a deterministic tar (sorted entries, mtime 0, uid/gid 0,
mode 0644/0755, PAX format); any other OUT is a folder (new or empty). Before writing, SHA256SUMS
is checked, and every release file must be listed in it: a bag is only made of a release whose
files verify. Inside the extracted bag, `cd <name>/data && python reproduce.py` regenerates and
verifies everything; any BagIt tool (e.g. `bagit.py --validate <name>`) checks the bag."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "archive", help="write a BagIt bag (RFC 8493) of the repository's release",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, metavar="OUT",
                        help="nclue-v1.tar (or .tar.gz/.tgz) for a tar, else a folder; the bag's "
                             "folder name is OUT's name without the tar suffix")
    parser.add_argument("--root", default=".", help="repository root (default: current folder)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=run_archive)


def run_archive(args) -> int:
    from ..bag import check_target, make_bag
    from ..errors import InputError
    from ..integrity import verify_manifest_coverage, verify_sha256sums

    root = Path(args.root)
    if not (root / "SHA256SUMS").is_file():
        raise InputError(root / "SHA256SUMS", "missing: not a repository root with a release")
    check_target(root, args.out)
    checked, problems = verify_sha256sums(root)
    problems += verify_manifest_coverage(root)
    if problems:
        for problem in problems:
            print(f"FAIL {problem}", file=sys.stderr)
        raise VerificationError(f"{len(problems)} integrity problems: fix them (or cut the "
                                "release with reproduce.py --freeze) before archiving")
    print(f"nclue archive: SHA256SUMS verified ({checked} files); writing {args.out}",
          file=sys.stderr)
    summary = make_bag(root, args.out)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        digest = f", sha256 {summary['sha256']}" if "sha256" in summary else ""
        print(f"bag {summary['bag']}: {summary['payload_files']} payload files, "
              f"{summary['payload_bytes']:,} bytes, written to {summary['out']}{digest}")
    return 0
