"""Safe output files: the one place where nclue writes a file (every ``--out`` goes through here).

Rules (issue 17; a demanding user's expectations where the issue is silent):

- ``-`` means standard output, explicitly (write ``./-`` for a file named "-").
- A target that already exists must be a regular file. A directory, a device (``/dev/full``), a
  FIFO, a socket or a symbolic link (``/dev/stdout`` is one) is refused; a symbolic link is never
  followed, so a link cannot redirect a write elsewhere.
- A target that is one of the command's own input files (same device and inode, so hard links
  and symbolic links to an input count too) is refused: nclue never overwrites its input.
- A target file without any write permission bit, or a folder that cannot be written (no write
  bit, or ``os.access`` says no), is refused; permission bits are read directly, so the refusal
  holds for root too.
- Bytes go to a temporary file in the target's folder, named
  ``.<name>.nclue-<pid>-<random>.tmp``, which is renamed over the target (``os.replace``) only
  when complete. Any failure, including a full disk (ENOSPC), a quota or a file-size limit,
  removes the temporary file and raises one :class:`~nclue.errors.InputError` line: there is
  never a partial output file. An existing target keeps its permission bits; a new one is 0644.
- The pid in a temporary name lets a later run tell a live writer's file from one left by a
  killed run: :func:`clean_stale_temporaries` removes those whose process no longer exists (and
  reports, without removing, temporaries named by older nclue versions, which carry no pid).
  Every write cleans its own target folder this way.

Refusals are raised before anything is computed when a command checks its targets up front
with :func:`check_output` / :func:`check_output_dir`, and again (type only) when writing.
"""

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, List, Optional, Set, Tuple, Union

from .errors import InputError

PathLike = Union[str, "os.PathLike[str]"]
STDOUT = "-"
#: ``.<target name>.nclue-<pid>-<mkstemp random part>.tmp``
TEMP_PATTERN = re.compile(r"^\.(?P<name>.+)\.nclue-(?P<pid>\d+)-[A-Za-z0-9_]+\.tmp$")
#: temporaries of nclue before this module (``.<name>.<8 random chars>.tmp``): no pid, so they are
#: only reported, never removed (a live writer of an older version may own one)
LEGACY_TEMP_PATTERN = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
_NAME_LIMIT = 120  # characters of the target name kept in a temporary name (255-byte file names)


def _stderr(line: str) -> None:
    print(f"nclue: {line}", file=sys.stderr, flush=True)


def is_stdout(path: PathLike) -> bool:
    """True for the explicit standard-output target ``-``."""
    return str(path) == STDOUT


def _kind(mode: int) -> Optional[str]:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link (never followed; give the real path)"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _identities(paths: Iterable[PathLike]) -> Set[Tuple[int, int]]:
    """(device, inode) of every input file; a folder stands for every file under it."""
    found: Set[Tuple[int, int]] = set()
    for path in paths:
        if path is None or is_stdout(path):
            continue
        try:
            info = os.stat(path)  # an input given through a link is its target
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            for folder, _, names in os.walk(path):
                for name in names:
                    try:
                        inner = os.stat(os.path.join(folder, name))
                    except OSError:
                        continue
                    found.add((inner.st_dev, inner.st_ino))
        found.add((info.st_dev, info.st_ino))
    return found


def _folder_writable(folder: Path) -> Optional[str]:
    """Why ``folder`` cannot take a new file, or None."""
    try:
        info = os.stat(folder)
    except OSError as exc:
        return f"cannot use folder {folder}: {exc.strerror}"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a folder"
    if not (info.st_mode & 0o222) or not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable"
    return None


def check_output(path: PathLike, inputs: Iterable[PathLike] = (), *,
                 allow_stdout: bool = True, what: str = "output") -> None:
    """Refuse an unsafe output target (see the module docstring) with one InputError line.

    ``inputs``: the command's input files or folders; the target may not be one of them.
    A missing parent folder is fine (it is created when writing) unless an existing ancestor
    is not a writable folder.
    """
    if is_stdout(path):
        if not allow_stdout:
            raise InputError(STDOUT, f"this {what} cannot go to standard output; give a path")
        return
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise InputError(path, f"{what} must name a file")
    try:
        info: Optional[os.stat_result] = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(path, f"cannot use as {what}: {exc.strerror}") from None
    if info is not None:
        kind = _kind(info.st_mode)
        if kind is not None:
            hint = "; use --out - for standard output" if stat.S_ISLNK(info.st_mode) or \
                stat.S_ISCHR(info.st_mode) else ""
            raise InputError(path, f"refusing to write {what}: it is {kind}{hint}")
        if (info.st_dev, info.st_ino) in _identities(inputs):
            raise InputError(path, f"refusing to write {what} over an input file of this command")
        if not info.st_mode & 0o222:
            raise InputError(path, f"refusing to write {what}: the file is read-only")
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the nearest existing ancestor must accept the new folders
    problem = _folder_writable(folder)
    if problem is not None:
        raise InputError(path, f"cannot write {what}: {problem}")


def check_output_dir(path: PathLike, inputs: Iterable[PathLike] = (), *,
                     what: str = "output folder") -> Path:
    """Check a folder that a command will write files into; returns it as a Path.

    Refused: ``-``, an existing non-folder, a symbolic link, an input folder of the command, or
    a place that cannot be written. Nothing is created here (the writes create missing folders),
    so a command that fails later leaves no empty folder behind.
    """
    if is_stdout(path):
        raise InputError(STDOUT, f"the {what} cannot be standard output; give a folder")
    folder = Path(path)
    if str(path) == "":
        raise InputError(path, f"{what} must name a folder")
    try:
        info: Optional[os.stat_result] = os.lstat(folder)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(path, f"cannot use as {what}: {exc.strerror}") from None
    existing = folder
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise InputError(path, f"refusing to write into {what}: it is a symbolic link "
                                   "(never followed; give the real path)")
        if not stat.S_ISDIR(info.st_mode):
            raise InputError(path, f"refusing to use as {what}: it is "
                                   f"{_kind(info.st_mode) or 'a file'}")
        if (info.st_dev, info.st_ino) in {(s.st_dev, s.st_ino) for s in _stats(inputs)}:
            raise InputError(path, f"refusing to write into {what}: it is an input of this command")
    else:
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
    problem = _folder_writable(existing)
    if problem is not None:
        raise InputError(path, f"cannot write into {what}: {problem}")
    return folder


def _stats(paths: Iterable[PathLike]) -> List[os.stat_result]:
    out = []
    for path in paths:
        if path is None or is_stdout(path):
            continue
        try:
            out.append(os.stat(path))
        except OSError:
            continue
    return out


def _write_all(handle: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = handle.write(view)
        if written is None:  # a non-blocking stream that took nothing; retry
            continue
        view = view[written:]


def _write_error(path: PathLike, exc: OSError, what: str) -> InputError:
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) and not is_stdout(path) \
            and path != "<stdout>":
        reason += f" (nothing was written to {path})"
    return InputError(path, f"cannot write {what}: {reason}")


def write_stdout(data: bytes) -> None:
    """Write bytes to standard output; a write error (``> /dev/full``) is one InputError line.

    After a failure standard output is pointed at the null device, so that the interpreter's
    own flush at exit does not fail a second time.
    """
    try:
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a text stream (tests capture stdout in a StringIO)
            sys.stdout.write(data.decode("utf-8"))
        else:
            _write_all(buffer, data)
            buffer.flush()
    except BrokenPipeError:
        silence_stdout()
        raise
    except OSError as exc:
        silence_stdout()
        raise _write_error("<stdout>", exc, "standard output") from None


def silence_stdout() -> None:
    """Point file descriptor 1 at the null device (after a failed or broken standard output)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


@contextlib.contextmanager
def open_output(path: PathLike, inputs: Iterable[PathLike] = (), *, what: str = "output",
                report: Callable[[str], None] = _stderr) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through: a temporary file renamed over ``path`` on success.

    On any exception (including KeyboardInterrupt) the temporary file is removed and ``path`` is
    untouched; an OSError while writing becomes an InputError. ``-`` is refused here (use
    :func:`write_output`, which streams nothing and so can write standard output).
    """
    check_output(path, inputs, allow_stdout=False, what=what)
    target = Path(path)
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(path, f"cannot create folder {folder}: {exc.strerror}") from None
    clean_stale_temporaries([folder], report=report)
    try:
        mode = stat.S_IMODE(os.lstat(target).st_mode)
    except OSError:
        mode = 0o644  # released files are world-readable (mkstemp creates 0600)
    try:
        handle, temp_name = tempfile.mkstemp(
            prefix=f".{target.name[:_NAME_LIMIT]}.nclue-{os.getpid()}-", suffix=".tmp",
            dir=str(folder))
    except OSError as exc:
        raise _write_error(path, exc, what) from None
    try:
        with os.fdopen(handle, "wb") as out:
            yield out
        os.chmod(temp_name, mode)
        info = os.lstat(target) if os.path.lexists(target) else None
        if info is not None and _kind(info.st_mode) is not None:  # replaced while we wrote
            raise InputError(path, f"refusing to write {what}: it is now {_kind(info.st_mode)}")
        os.replace(temp_name, target)
    except OSError as exc:
        _unlink_quietly(temp_name)
        raise _write_error(path, exc, what) from None
    except BaseException:
        _unlink_quietly(temp_name)
        raise


def write_output(path: PathLike, data: bytes, inputs: Iterable[PathLike] = (), *,
                 what: str = "output", report: Callable[[str], None] = _stderr) -> None:
    """Write ``data`` to ``path`` safely (module rules), or to standard output for ``-``."""
    if is_stdout(path):
        write_stdout(data)
        return
    with open_output(path, inputs, what=what, report=report) as out:
        _write_all(out, data)


def _unlink_quietly(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (POSIX ``kill(pid, 0)``); assumed alive where unknown."""
    if pid == os.getpid():
        return True
    if os.name != "posix":
        return True  # os.kill would terminate the process on Windows: never guess
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def stale_temporaries(folders: Iterable[PathLike], recursive: bool = False
                      ) -> Tuple[List[Path], List[Path]]:
    """(removable, legacy): temporaries of dead nclue processes, and pid-less older ones."""
    removable: List[Path] = []
    legacy: List[Path] = []
    for base in folders:
        base_path = Path(base)
        if not base_path.is_dir():
            continue
        if recursive:
            walker: Iterable[Tuple[str, List[str], List[str]]] = os.walk(base_path)
        else:
            walker = [(str(base_path), [], _names(base_path))]
        for folder, dirs, names in walker:
            temps = [d for d in dirs if TEMP_PATTERN.match(d) or LEGACY_TEMP_PATTERN.match(d)]
            dirs[:] = sorted(d for d in dirs if d not in temps and d not in ("__pycache__", ".git")
                             and not d.startswith(".venv")
                             and not os.path.islink(os.path.join(folder, d)))
            for name in sorted(names + temps):
                if not name.startswith("."):
                    continue
                match = TEMP_PATTERN.match(name)
                path = Path(folder) / name
                if match is not None:
                    if not _process_alive(int(match.group("pid"))):
                        removable.append(path)
                elif LEGACY_TEMP_PATTERN.match(name):
                    legacy.append(path)
    return removable, legacy


def _names(folder: Path) -> List[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def clean_stale_temporaries(folders: Iterable[PathLike], recursive: bool = False,
                            report: Callable[[str], None] = _stderr,
                            remove: bool = True) -> List[str]:
    """Remove temporaries left by killed nclue runs in ``folders``; return one line per file.

    A temporary whose writer is gone is removed ("removed stale temporary ..."); one that cannot
    be removed (a read-only copy), that has no pid (older nclue), or every one when ``remove``
    is false (``reproduce.py`` verifying, which writes nothing) is only reported. Each line is
    also passed to ``report``.
    """
    removable, legacy = stale_temporaries(folders, recursive)
    lines = []
    for path in removable:
        pid = TEMP_PATTERN.match(path.name).group("pid")
        if not remove:
            lines.append(f"stale temporary file {path} (its writer, process {pid}, is gone); "
                         "run reproduce.py --write or remove it")
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            lines.append(f"removed stale temporary file {path} (its writer, process {pid}, "
                         "is gone)")
        except FileNotFoundError:
            continue  # another run removed it first
        except OSError as exc:
            lines.append(f"stale temporary file {path} (process {pid} is gone) could not be "
                         f"removed: {exc.strerror}")
    for path in legacy:
        lines.append(f"stale temporary file {path} from an older nclue (no process id); "
                     "remove it by hand if no nclue is running")
    for line in lines:
        report(line)
    return lines


#: folders of a repository checkout searched (recursively) for stale temporaries; the root
#: itself is searched without descending
REPOSITORY_FOLDERS = ("data", "reference_metrics", "audit", "provenance", "claims", "docs")


def clean_repository_temporaries(root: PathLike, report: Callable[[str], None] = _stderr,
                                 remove: bool = True) -> List[str]:
    """:func:`clean_stale_temporaries` over a repository checkout (``reproduce.py`` runs it
    first): the root folder, and every folder under :data:`REPOSITORY_FOLDERS`."""
    base = Path(root)
    lines = clean_stale_temporaries([base], recursive=False, report=report, remove=remove)
    lines += clean_stale_temporaries([base / name for name in REPOSITORY_FOLDERS],
                                     recursive=True, report=report, remove=remove)
    return lines
