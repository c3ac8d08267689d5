"""Does the packet's browser test catch a broken packet? Mutation check (issue 24).

Each mutation below breaks one feature of the packet's script (or style) that
tests/test_label_audit_browser.py checks. For every mutation, the repository's tracked files are
copied to a scratch folder outside the repository, the one change is applied there, and the
browser test runs in that copy (CI=true, so a missing Chromium fails instead of skipping). A
mutation is *caught* when the test fails. The unmutated copy must pass first.

    python tools/audit_packet_mutations.py          # all mutations; exit 1 if one is missed
    python tools/audit_packet_mutations.py M5 X1    # only the named ones

M1-M9 are the nine mutations of issue 24 (the browser test caught M1-M4 before the issue's fixes;
M5-M9 are the five it missed); X1-X7 break the features added for it. Needs Debian's chromium.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JS = "nclue/label_audit/assets/packet.js"
CSS = "nclue/label_audit/assets/packet.css"

#: (name, what it breaks, file, text in the file, replacement)
MUTATIONS = (
    ("M1", "a quote not found on its page passes the gate", JS,
     'if (!where) { return { ok: false, why: "not found on page " + n }; }', 'if (!where) { where = { start: 0, end: 1 }; }'),
    ("M2", "an unanswered condition does not block acceptance", JS,
     'errors.push(label + ": no answer yet.");', '/* mutated */'),
    ("M3", "a No with a ticked page or quote is accepted", JS,
     'if (ticked.length || quoted.length) {', 'if (false) {'),
    ("M4", "Next works only on an accepted item", JS,
     'function next() { go(state.current + 1); }',
     'function next() { if (!state.items[ITEMS[state.current].item].accepted) { return; } go(state.current + 1); }'),
    ("M5", "the Use selection button is not wired to clicks", JS,
     'use.addEventListener("click", function () {', 'use.addEventListener("dblclick", function () {'),
    ("M6", "Accept does not require an evaluator id", JS,
     'if (!idOk || !ID_RE.test(state.evaluator_id)) {', 'if (false) {'),
    ("M7", "a quote on an unticked page does not block acceptance", JS,
     'if (!cs.pages[n].checked) {', 'if (false) {'),
    ("M8", "a too-short quote passes the gate", JS, 'if (!nontrivial(quote)) {', 'if (false) {'),
    ("M9", "an accepted item stays accepted after an edit", JS,
     '    st.accepted = false;\n    st.accepted_at = null;\n    if (!save()) { return; }', '    if (!save()) { return; }'),
    ("X1", "no cross-tab storage listener", JS, 'window.addEventListener("storage", onStorage);', ''),
    ("X2", "a tab writes over a newer revision", JS, 'if (stored && (stored.rev | 0) !== state.rev) {', 'if (false) {'),
    ("X3", "restored work names no evaluator and warns nobody", JS,
     'else if (restored === "evaluator") { warnRestored(); }',
     'else if (restored === "evaluator") { message("Restored your work saved in this browser.", false); }'),
    ("X4", "a found quote is not marked in the page", JS,
     'pre.appendChild(el("mark", { cls: "found", text: quoted }));', 'pre.appendChild(document.createTextNode(quoted));'),
    ("X5", "page boxes 260 px high with an inner scroll bar", CSS, 'overflow: visible;\n', 'height: 260px; overflow: auto;\n'),
    ("X6", "the instructions never collapse", JS,
     'document.getElementById("instructions-box").open = state.current === 0 && accepted_count(state) === 0;',
     'document.getElementById("instructions-box").open = true;'),
    ("X7", "saved work keyed by packet only, not by evaluator", JS,
     'function storeKey(id) { return id ? PREFIX + ":evaluator:" + id : PREFIX + ":draft"; }',
     'function storeKey(id) { return PREFIX; }'),
)


def tracked_copy(folder: Path) -> None:
    """The repository's tracked files (as in the working tree) copied into ``folder``."""
    names = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in names.decode("utf-8").split("\0"):
        if name and (ROOT / name).is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)


def browser_test(folder: Path) -> tuple:
    """(exit status, first failure line) of the browser test run in ``folder``."""
    env = dict(os.environ, CI="true", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-m", "unittest", "tests.test_label_audit_browser"], cwd=folder,
                          capture_output=True, text=True, env=env, timeout=900)
    first = next((line for line in proc.stderr.splitlines()
                  if line.startswith(("AssertionError", "tests.cdp_driver.CdpError"))), "")
    return proc.returncode, first[:160]


def main(argv) -> int:
    wanted = [m for m in MUTATIONS if not argv or m[0] in argv]
    scratch = Path(tempfile.mkdtemp(prefix="nclue-mutations-"))
    try:
        base = scratch / "base"
        tracked_copy(base)
        code, first = browser_test(base)
        if code != 0:
            print(f"the unmutated copy fails the browser test: {first}", file=sys.stderr)
            return 2
        print("unmutated: passes")
        missed = 0
        for name, what, path, old, new in wanted:
            folder = scratch / name
            shutil.copytree(base, folder)
            text = (folder / path).read_text(encoding="utf-8")
            if text.count(old) != 1:
                print(f"{name}: the text to mutate occurs {text.count(old)} times in {path} (update this tool)",
                      file=sys.stderr)
                return 2
            (folder / path).write_text(text.replace(old, new), encoding="utf-8")
            code, first = browser_test(folder)
            missed += int(code == 0)
            print(f"{name} {'caught' if code else 'MISSED'}: {what}" + (f" ({first})" if first else ""), flush=True)
            shutil.rmtree(folder)
        print(f"{len(wanted) - missed} of {len(wanted)} mutations caught")
        return 1 if missed else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
