"""nclue's build backend: PEP 517 / PEP 660 hooks in the standard library only.

``pyproject.toml`` names this module (``backend-path = ["tools/build_backend"]``) and requires
nothing, so ``pip install .`` needs no download: it installs offline (``pip install --no-index .``)
in a fresh virtual environment whatever setuptools and wheel it has, or none (Python 3.12's venv
ships neither; 3.11's setuptools 65.5 knows no SPDX license string and cannot build a wheel
without the separate ``wheel`` package).

It builds one pure-Python package: every file under ``nclue/`` (modules and the packet's assets;
no ``__pycache__``), metadata from ``pyproject.toml``'s ``[project]`` table (Core Metadata 2.4,
PEP 639 ``License-Expression`` and ``License-File``), the console scripts, and a ``RECORD``.
The sdist holds the package, ``pyproject.toml``, this backend, the license files and the readme
(docs/PACKAGE.md says the distribution is the package only). Archives are deterministic: sorted
members, fixed timestamps (``SOURCE_DATE_EPOCH`` when set), fixed modes.

``pyproject.toml`` is read with :mod:`tomllib` where there is one (Python >= 3.11) and otherwise
with :func:`read_toml`, a reader of the TOML subset the file uses (tables, strings, arrays and
inline tables; ``tests/test_packaging.py`` checks that both readers agree).
"""

import base64
import gzip
import hashlib
import io
import json
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = "nclue"
BACKEND = "tools/build_backend/nclue_build.py"
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


# ------------------------------------------------------------------ pyproject.toml

class _Reader:
    """A reader of the TOML subset nclue's pyproject.toml uses (see the module docstring)."""

    _BARE = re.compile(r"[A-Za-z0-9_-]+")

    def __init__(self, text):
        self.text, self.at = text, 0

    def error(self, what):
        line = self.text.count("\n", 0, self.at) + 1
        return ValueError(f"pyproject.toml:{line}: {what} (nclue_build reads a TOML subset)")

    def skip(self, newlines=True):
        while self.at < len(self.text):
            ch = self.text[self.at]
            if ch == "#":
                end = self.text.find("\n", self.at)
                self.at = len(self.text) if end < 0 else end
            elif ch in " \t\r" or (newlines and ch == "\n"):
                self.at += 1
            else:
                return

    def peek(self):
        return self.text[self.at] if self.at < len(self.text) else ""

    def expect(self, ch):
        if self.peek() != ch:
            raise self.error(f"expected {ch!r}")
        self.at += 1

    def string(self):
        if self.text.startswith('"""', self.at) or self.peek() == "'":
            raise self.error("only basic one-line strings are supported")
        match = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(self.text, self.at)
        if match is None:
            raise self.error("unterminated string")
        self.at = match.end()
        return json.loads(match.group(0))

    def key(self):
        if self.peek() == '"':
            return self.string()
        match = self._BARE.match(self.text, self.at)
        if match is None:
            raise self.error("expected a key")
        self.at = match.end()
        return match.group(0)

    def dotted_key(self):
        parts = [self.key()]
        while self.peek() == ".":
            self.at += 1
            parts.append(self.key())
        return parts

    def value(self):
        ch = self.peek()
        if ch == '"':
            return self.string()
        if ch == "[":
            self.at += 1
            items = []
            while True:
                self.skip()
                if self.peek() == "]":
                    self.at += 1
                    return items
                items.append(self.value())
                self.skip()
                if self.peek() == ",":
                    self.at += 1
                elif self.peek() != "]":
                    raise self.error("expected ',' or ']'")
        if ch == "{":
            self.at += 1
            table = {}
            self.skip(newlines=False)
            while self.peek() != "}":
                name = self.key()
                self.skip(newlines=False)
                self.expect("=")
                self.skip(newlines=False)
                table[name] = self.value()
                self.skip(newlines=False)
                if self.peek() == ",":
                    self.at += 1
                    self.skip(newlines=False)
            self.at += 1
            return table
        for word, result in (("true", True), ("false", False)):
            if self.text.startswith(word, self.at):
                self.at += len(word)
                return result
        raise self.error("unsupported value")

    def document(self):
        root, table = {}, None
        table = root
        while True:
            self.skip()
            if self.at >= len(self.text):
                return root
            if self.peek() == "[":
                self.at += 1
                table = root
                for part in self.dotted_key():
                    table = table.setdefault(part, {})
                self.expect("]")
                continue
            parts = self.dotted_key()
            self.skip(newlines=False)
            self.expect("=")
            self.skip(newlines=False)
            target = table
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            if parts[-1] in target:
                raise self.error(f"key {parts[-1]!r} defined twice")
            target[parts[-1]] = self.value()
            self.skip(newlines=False)
            if self.peek() not in ("\n", ""):
                raise self.error("expected the end of the line")


def read_toml(text):
    """Parse the TOML subset of nclue's pyproject.toml (tomllib's result on that file)."""
    return _Reader(text).document()


def pyproject(root=ROOT):
    """``pyproject.toml`` as a dict (tomllib where available, else :func:`read_toml`)."""
    text = (Path(root) / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return read_toml(text)
    return tomllib.loads(text)


# ------------------------------------------------------------------ metadata

def _project(root=ROOT):
    project = pyproject(root)["project"]
    if not re.match(r"^[a-z][a-z0-9]*$", project["name"]):
        raise ValueError(f"project name {project['name']!r}: nclue_build expects a plain name")
    return project


def metadata_text(root=ROOT):
    """Core Metadata 2.4 (``METADATA`` / ``PKG-INFO``) from ``[project]``."""
    project = _project(root)
    lines = ["Metadata-Version: 2.4", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if project.get("keywords"):
        lines.append(f"Keywords: {','.join(project['keywords'])}")
    for author in project.get("authors", []):
        if "email" in author:
            lines.append(f"Author-email: {author['name']} <{author['email']}>")
        else:
            lines.append(f"Author: {author['name']}")
    license_ = project.get("license")
    if isinstance(license_, str):
        lines.append(f"License-Expression: {license_}")
    elif isinstance(license_, dict) and "text" in license_:
        lines.append(f"License: {license_['text']}")
    for name in project.get("license-files", []):
        lines.append(f"License-File: {name}")
    for classifier in project.get("classifiers", []):
        lines.append(f"Classifier: {classifier}")
    for label, url in project.get("urls", {}).items():
        lines.append(f"Project-URL: {label}, {url}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    for requirement in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {requirement}")
    body = ""
    readme = project.get("readme")
    if readme:
        if not (isinstance(readme, str) and readme.endswith(".md")):
            raise ValueError("nclue_build expects readme = a Markdown file name")
        lines.append("Description-Content-Type: text/markdown")
        body = (Path(root) / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body


def _entry_points(project):
    scripts = project.get("scripts", {})
    if not scripts:
        return ""
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def _dist_info(project):
    return f"{project['name']}-{project['version']}.dist-info"


def _package_files(root=ROOT):
    """``(archive name, path)`` of every file of the package, sorted; no caches."""
    base = Path(root) / PACKAGE
    found = []
    for path in base.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            found.append((path.relative_to(root).as_posix(), path))
    return sorted(found)


def _epoch():
    value = os.environ.get("SOURCE_DATE_EPOCH")
    return max(int(value), 315532800) if value and value.isdigit() else 315532800  # 1980-01-01


# ------------------------------------------------------------------ archives

def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(directory, members, project):
    """Write ``{name}-{version}-py3-none-any.whl`` with ``members`` [(name, bytes)] + RECORD."""
    dist_info = _dist_info(project)
    filename = f"{project['name']}-{project['version']}-py3-none-any.whl"
    stamp = time.gmtime(_epoch())[:6]
    records = [_record_line(name, data) for name, data in members]
    records.append(f"{dist_info}/RECORD,,")
    members = list(members) + [(f"{dist_info}/RECORD", ("\n".join(records) + "\n").encode())]
    with zipfile.ZipFile(Path(directory) / filename, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return filename


def _wheel_members(project, editable_root=None, root=ROOT):
    dist_info = _dist_info(project)
    members = []
    if editable_root is None:
        members += [(name, path.read_bytes()) for name, path in _package_files(root)]
    else:
        members.append((f"__editable__.{project['name']}.pth",
                        (str(Path(editable_root).resolve()) + "\n").encode()))
    members.append((f"{dist_info}/METADATA", metadata_text(root).encode("utf-8")))
    members.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: nclue_build\n"
                                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    entry_points = _entry_points(project)
    if entry_points:
        members.append((f"{dist_info}/entry_points.txt", entry_points.encode()))
    for name in project.get("license-files", []):
        members.append((f"{dist_info}/licenses/{name}", (Path(root) / name).read_bytes()))
    return members


def sdist_files(root=ROOT):
    """``(name inside the sdist folder, path)``: the package, pyproject.toml, this backend, the
    license files and the readme."""
    project = _project(root)
    names = ["pyproject.toml", BACKEND, *project.get("license-files", [])]
    if project.get("readme"):
        names.append(project["readme"])
    files = [(name, Path(root) / name) for name in names] + _package_files(root)
    return sorted(set(files))


# ------------------------------------------------------------------ PEP 517 / 660 hooks

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    return _write_wheel(wheel_directory, _wheel_members(project), project)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose ``.pth`` puts the source tree on ``sys.path`` (``pip install -e .``)."""
    project = _project()
    return _write_wheel(wheel_directory, _wheel_members(project, editable_root=ROOT), project)


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{project['name']}-{project['version']}"
    filename = f"{base}.tar.gz"
    epoch = _epoch()
    members = [(f"{base}/{name}", path.read_bytes()) for name, path in sdist_files()]
    members.append((f"{base}/PKG-INFO", metadata_text().encode("utf-8")))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), epoch, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            archive.addfile(info, io.BytesIO(data))
    with open(Path(sdist_directory) / filename, "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=epoch) as packed:
            packed.write(raw.getvalue())
    return filename
