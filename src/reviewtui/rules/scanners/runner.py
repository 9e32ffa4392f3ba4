"""``run_scanners``: run the configured external tools over the changed files, in parallel.

For every tool that applies to at least one target (by the target's language, or ``any``): skip
it with a reason when it is disabled, not installed or lacks local configuration; answer what the
cache knows; hand the rest to the adapter's plan and run the resulting processes on a thread
pool, each with the tool's timeout. Tool trouble never raises: it lands in ``failed`` with a
one-line reason. Nothing is printed and nothing is written inside the repository.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from reviewtui.rules.scanners.base import (
    Adapter,
    Finding,
    Invocation,
    OutputError,
    SkipTool,
    ToolContext,
    ToolOutput,
    first_line,
)
from reviewtui.rules.scanners.cache import ScanCache, cache_key, content_digest
from reviewtui.rules.scanners.config import ANY_LANGUAGE, ScannerToolConfig, merge_config
from reviewtui.rules.scanners.execute import (
    ToolStartError,
    ToolTimeout,
    executable_stamp,
    find_executable,
    run_process,
    scanner_env,
    tool_version,
)
from reviewtui.rules.scanners.model import (
    SEVERITIES,
    ScannerIssue,
    ScanReport,
    ScanTarget,
    normalise_severity,
)
from reviewtui.rules.scanners.registry import ADAPTERS
from reviewtui.rules.scanners.workspace import Scratch, check_relative, resolve_reported

_BINARY_PROBE = 8192
_MAX_CONFIG_FILES = 1000
_PARSE_ERRORS = (OutputError, ValueError, LookupError, TypeError, AttributeError, RecursionError)

Group = tuple[ScannerToolConfig, list[ScanTarget]]


@dataclass(frozen=True, slots=True)
class _Outcome:
    issues: dict[str, list[ScannerIssue]] = field(default_factory=dict)
    error: str | None = None


@dataclass(slots=True)
class _Job:
    tool: str
    keys: dict[str, str] = field(default_factory=dict)  # target path -> cache key
    runs: list[Future[_Outcome]] = field(default_factory=list)
    error: str | None = None


def _unique(targets: Sequence[ScanTarget]) -> list[ScanTarget]:
    """Valid, distinct, non-binary targets (the first one wins for a repeated path)."""
    seen: set[str] = set()
    kept = []
    for target in targets:
        check_relative(target.path)
        if target.path in seen or b"\0" in target.content[:_BINARY_PROBE]:
            continue
        seen.add(target.path)
        kept.append(target)
    return kept


def _assign(config: Mapping[str, Mapping[str, ScannerToolConfig]],
            targets: Sequence[ScanTarget], tools: Collection[str] | None) -> dict[str, list[Group]]:
    """tool -> groups of targets sharing one enabled configuration; [] when all are disabled.

    A file's own language overrides an ``any`` entry for the same tool."""
    wanted = None if tools is None else set(tools)
    per_tool: dict[str, dict[tuple[float, tuple[str, ...]], Group]] = {}
    for target in targets:
        languages = [ANY_LANGUAGE]
        if target.language and target.language != ANY_LANGUAGE:
            languages.append(target.language)
        chosen: dict[str, ScannerToolConfig] = {}
        for language in languages:
            for tool, tool_config in config.get(language, {}).items():
                if wanted is None or tool in wanted:
                    chosen[tool] = tool_config
        for tool, tool_config in chosen.items():
            groups = per_tool.setdefault(tool, {})
            if tool_config.enabled:
                key = (tool_config.timeout, tuple(tool_config.extra_args))
                groups.setdefault(key, (tool_config, []))[1].append(target)
    return {tool: list(groups.values()) for tool, groups in per_tool.items()}


def config_fingerprint(root: Path, names: Sequence[str], setup: Path | None) -> str:
    """A hash of the tool's local configuration files, so that editing them invalidates."""
    files = [root / name for name in names]
    if setup is not None:
        if setup.is_dir():
            files += sorted(p for p in setup.rglob("*") if p.is_file())[:_MAX_CONFIG_FILES]
        else:
            files.append(setup)
    digest = hashlib.sha256()
    for file in files:
        try:
            data = file.read_bytes()
        except OSError:
            continue
        digest.update(os.path.relpath(file, root).encode() + b"\0")
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _detail(text: str) -> str:
    """The telling line of an error output: the first, or a Python traceback's last."""
    if "Traceback (most recent call last)" in text:
        return first_line(text.rstrip().rsplit("\n", 1)[-1])
    return first_line(text)


def _crash(output: ToolOutput) -> str:
    code = output.returncode
    reason = f"killed by signal {-code}" if code < 0 else f"crashed with exit code {code}"
    detail = _detail(output.stderr) or _detail(output.stdout)
    return f"{reason}: {detail}" if detail else reason


def _attribute(tool: str, run: Invocation, findings: Sequence[Finding]) -> _Outcome:
    per_target: dict[str, dict[ScannerIssue, None]] = {path: {} for path in run.targets}
    for finding in findings:
        if run.stdin is not None:
            path: str | None = run.targets[0]
        else:
            path = resolve_reported(finding.path, cwd=run.cwd, bases=run.bases,
                                    paths=run.paths, targets=run.targets)
        if path is None or path not in per_target:
            continue
        severity = finding.severity
        if severity not in SEVERITIES:
            severity = normalise_severity(severity)
        issue = ScannerIssue(path, max(1, finding.line), max(1, finding.column), severity,
                             finding.message.strip(), finding.rule_id, tool)
        per_target[path][issue] = None
    return _Outcome({path: list(found) for path, found in per_target.items()})


def _execute(adapter: Adapter, run: Invocation, timeout: float,
             env: Mapping[str, str]) -> _Outcome:
    try:
        output = run_process(run.argv, cwd=run.cwd, stdin=run.stdin, timeout=timeout, env=env)
    except ToolTimeout:
        return _Outcome(error=f"timeout after {timeout:g}s")
    except ToolStartError as exc:
        return _Outcome(error=f"could not start: {exc}")
    allowed = adapter.ok_returncodes
    if allowed is not None and output.returncode not in allowed:
        return _Outcome(error=_crash(output))
    try:
        return _attribute(adapter.name, run, adapter.parse(output))
    except _PARSE_ERRORS as exc:  # includes printed paths that are not paths (NUL bytes)
        if output.returncode != 0:
            return _Outcome(error=_crash(output))
        return _Outcome(error=f"unparseable output: {first_line(str(exc)) or type(exc).__name__}")


def _preflight(tool: str, groups: Sequence[Group],
               root: Path) -> tuple[Adapter, str, Path | None] | str:
    """The adapter, executable and local configuration, or the reason to skip the tool."""
    if not groups:
        return "disabled"
    adapter = ADAPTERS.get(tool)
    if adapter is None:
        return "unknown tool"
    try:
        setup = adapter.setup(root)
    except SkipTool as exc:
        return str(exc)
    executable = find_executable(adapter, root)
    if executable is None:
        return "not installed"
    return adapter, executable, setup


class _Session:
    """One ``run_scanners`` call: answers from the cache, processes in flight, results."""

    def __init__(self, root: Path, cache: ScanCache, scratch: Scratch,
                 pool: ThreadPoolExecutor) -> None:
        self.root, self.cache, self.scratch, self.pool = root, cache, scratch, pool
        self.env = scanner_env()
        self.issues: list[ScannerIssue] = []
        self.cached = 0
        self.jobs: list[_Job] = []

    def start(self, tool: str, groups: Sequence[Group]) -> str | None:
        """Answer from the cache and submit the rest; the skip reason when the tool can't run."""
        prepared = _preflight(tool, groups, self.root)
        if isinstance(prepared, str):
            return prepared
        adapter, executable, setup = prepared
        version = ""
        if adapter.version_args is not None:
            version = tool_version(executable, adapter.version_args, cwd=self.root, env=self.env)
        identity = f"{executable_stamp(executable)}|{version}"
        fingerprint = config_fingerprint(self.root, adapter.config_files, setup)
        for tool_config, group in groups:
            job = _Job(tool)
            self.jobs.append(job)
            misses = []
            for target in group:
                key = cache_key(tool=tool, identity=identity, args=tool_config.extra_args,
                                config=fingerprint, path=target.path,
                                digest=content_digest(target.content))
                hit = self.cache.get(key, tool=tool, path=target.path)
                if hit is None:
                    job.keys[target.path] = key
                    misses.append(target)
                else:
                    self.issues.extend(hit)
                    self.cached += 1
            if misses:
                ctx = ToolContext(self.root, executable, version, tool_config, setup)
                self._submit(job, adapter, ctx, misses)
        return None

    def _submit(self, job: _Job, adapter: Adapter, ctx: ToolContext,
                targets: Sequence[ScanTarget]) -> None:
        try:
            runs = adapter.plan(ctx, targets, self.scratch)
        except OSError as exc:
            job.error = f"could not prepare the files: {exc.strerror or exc}"
            return
        job.runs = [self.pool.submit(_execute, adapter, run, ctx.config.timeout, self.env)
                    for run in runs]

    def collect(self) -> dict[str, str]:
        """Wait for every process, keep and cache the results; tool -> first failure."""
        failed: dict[str, str] = {}
        for job in self.jobs:
            if job.error is not None:
                failed.setdefault(job.tool, job.error)
            for future in job.runs:
                outcome = future.result()
                if outcome.error is not None:
                    failed.setdefault(job.tool, outcome.error)
                for path, found in outcome.issues.items():
                    self.issues.extend(found)
                    self.cache.put(job.keys[path], found)
        return failed


def run_scanners(
    root: Path,
    targets: Sequence[ScanTarget],
    config: Mapping[str, Mapping[str, ScannerToolConfig]] | None = None,
    *,
    cache_dir: Path | None = None,
    max_workers: int = 4,
    tools: Collection[str] | None = None,
) -> ScanReport:
    """Scan ``targets`` (their ``content``, not the disk) with every applicable tool.

    ``config`` is merged over ``DEFAULT_SCANNER_CONFIG``; ``tools`` restricts the run to those
    tool names; ``cache_dir=None`` disables the cache. Raises only ``ValueError`` for a target
    path that is not repo-relative.
    """
    root = Path(root)
    assignments = _assign(merge_config(config), _unique(targets), tools)
    skipped: dict[str, str] = {}
    with Scratch() as scratch, ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
        session = _Session(root, ScanCache(cache_dir), scratch, pool)
        for tool in sorted(assignments):
            reason = session.start(tool, assignments[tool])
            if reason is not None:
                skipped[tool] = reason
        failed = session.collect()
    ran = tuple(sorted({job.tool for job in session.jobs} - failed.keys()))
    return ScanReport(issues=tuple(sorted(set(session.issues))), ran=ran, skipped=skipped,
                      failed=dict(sorted(failed.items())), cached=session.cached)
