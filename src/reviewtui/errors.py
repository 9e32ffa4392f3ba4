"""One error hierarchy for everything the user can get wrong.

Core code raises these and never prints; the CLI (and later the TUI) turns them into a single
line on stderr and an exit code. Anything that is *not* a ``ReviewTuiError`` is a bug.
"""

from __future__ import annotations


class ReviewTuiError(Exception):
    """Base class: ``str(err)`` is a complete, user-facing one-line message."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class RepositoryError(ReviewTuiError):
    """The repository cannot be used: missing, not a repo, no commits, shallow, broken."""


class NotARepositoryError(RepositoryError):
    pass


class PathNotFoundError(RepositoryError):
    pass


class EmptyRepositoryError(RepositoryError):
    pass


class RefError(ReviewTuiError):
    """A revision the user named does not resolve."""


class NoMergeBaseError(RefError):
    pass


class GitCommandError(ReviewTuiError):
    """git itself failed in a way we did not anticipate; carries git's own message."""


class PatchError(ReviewTuiError):
    """A patch file that cannot be read or parsed."""


class ConfigError(ReviewTuiError):
    """A configuration file or rule pack that does not validate; names the file and key."""


class UsageError(ReviewTuiError):
    """Conflicting or invalid command-line options."""
