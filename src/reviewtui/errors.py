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


class LLMError(ReviewTuiError):
    """The LLM endpoint could not give a usable answer; ``status`` is the HTTP status if any."""

    def __init__(self, message: str, *, hint: str | None = None,
                 status: int | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class LLMNotConfiguredError(LLMError):
    """No model is configured; the message says how to configure one."""


class LLMAuthError(LLMError):
    """The endpoint rejected the API key (HTTP 401/403)."""


class LLMModelNotFoundError(LLMError):
    """The endpoint does not know the model (HTTP 404)."""


class LLMTimeoutError(LLMError):
    """No answer within the configured timeout, after the retries."""


class LLMRateLimitError(LLMError):
    """HTTP 429 after the retries, or an exhausted quota."""


class LLMServerError(LLMError):
    """HTTP 5xx after the retries."""


class LLMConnectionError(LLMError):
    """The endpoint cannot be reached (refused, DNS, TLS, broken connection)."""


class LLMBadRequestError(LLMError):
    """Any other 4xx: the endpoint refused the request; carries its message, shortened."""


class LLMResponseError(LLMError):
    """The endpoint answered, but the answer is malformed or empty."""


class LLMTruncatedError(LLMResponseError):
    """The model stopped at its output token limit (``finish_reason: "length"``): what it
    said is kept, marked incomplete. Its own exit status, so that a script can go on with
    ``reviewtui ask --continue``."""

    exit_code = 3


class LLMCancelledError(LLMError):
    """The caller cancelled the request."""


class StoreError(ReviewTuiError):
    """The session store cannot be opened or written: not a store, too new, busy, disk full."""


class CommentGoneError(StoreError):
    """A comment edited under an id the session no longer has (another workbench deleted
    it): the text may be saved as a new comment instead of being lost."""


class RoundClaimedError(ReviewTuiError):
    """An unfinished answer another run already goes on with (``ask --continue`` twice at
    once): only one continuation of a round is let through."""


class ReviewError(ReviewTuiError):
    """The review agent produced nothing usable (every batch failed)."""


class LearningError(ReviewTuiError):
    """The self-learning step cannot use its evidence or write what was decided: an unknown
    or unready candidate, an unreadable rejections file, an unwritable ``.reviewtui/``."""


class EvalError(ReviewTuiError):
    """The repository's history cannot be evaluated: shallow, no bug fixes, nothing to rank."""


class FixError(ReviewTuiError):
    """A finding's fix cannot be applied or undone: no fix, text only, the working tree moved
    on, a path outside the repository, a link, a read-only file, nothing to undo."""


class ForgeError(ReviewTuiError):
    """A pull/merge request cannot be read or the review cannot be published: a URL or a
    remote that names no forge, no token, an API that answers with an error. The message
    names the token's source (``GH_TOKEN``, ``gh auth token``...), never the token."""

    def __init__(self, message: str, *, hint: str | None = None,
                 status: int | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class ForgeAuthError(ForgeError):
    """No token, or the forge rejected it (HTTP 401)."""


class ForgeNotFoundError(ForgeError):
    """The repository or the pull/merge request does not exist (or the token cannot see it)."""


class ForgeRateLimitError(ForgeError):
    """Still rate limited (HTTP 403/429) after the bounded waits."""


class ForgeValidationError(ForgeError):
    """The forge refused what was sent (HTTP 422), e.g. a line comment outside the diff."""


def not_utf8(exc: UnicodeDecodeError) -> str:
    """Where a file stops being UTF-8, for a person: ``byte 0xe9 at line 1``."""
    data = exc.object
    if not isinstance(data, bytes):
        return exc.reason
    line = data.count(b"\n", 0, exc.start) + 1
    return f"byte 0x{data[exc.start:exc.start + 1].hex()} at line {line}"
