"""Error types. Every problem with user input is an :class:`InputError` naming file, line and problem."""

from typing import Optional

#: characters of a value shown in an error line; longer values are cut (with their length)
CLIP = 80
#: an error line's problem text longer than this is cut too (a last guard against huge values)
PROBLEM_LIMIT = 1000


def clip(value: object, limit: int = CLIP) -> str:
    """``repr`` of ``value`` for an error line, cut to its first ``limit`` characters.

    A 50 MB docid must not be echoed whole: ``'abcd...'... (52428800 characters)``.
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    text = repr(value)
    if len(text) > limit:
        return f"{text[:limit]}... ({len(text):,} characters)"
    return text


class NclueError(Exception):
    """Base class for every error nclue raises on purpose."""


class InputError(NclueError):
    """Bad input: rendered as one line ``FILE:LINE: problem`` (line omitted when not applicable)."""

    def __init__(self, path: object, problem: str, line: Optional[int] = None) -> None:
        self.path = str(path)
        self.line = line
        problem = problem.replace("\r", "\\r").replace("\n", "\\n")  # always one line
        if len(problem) > PROBLEM_LIMIT:
            problem = f"{problem[:PROBLEM_LIMIT // 4]}... ({len(problem):,} characters)"
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # picklable (problem text and line kept as given)
        return (InputError, (self.path, self.problem, self.line))


class VerificationError(NclueError):
    """A recomputed value or a checksum does not match what a release states."""
