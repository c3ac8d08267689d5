"""Error types. Every problem with user input is an :class:`InputError` naming file, line and problem."""

from typing import Optional


class NclueError(Exception):
    """Base class for every error nclue raises on purpose."""


class InputError(NclueError):
    """Bad input: rendered as one line ``FILE:LINE: problem`` (line omitted when not applicable)."""

    def __init__(self, path: object, problem: str, line: Optional[int] = None) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):  # picklable, so a worker process (reproduce --jobs) can raise it
        return (InputError, (self.path, self.problem, self.line))


class VerificationError(NclueError):
    """A recomputed value or a checksum does not match what a release states."""
