"""``reviewtui findings``: the findings kept for the change, and applying or undoing a fix.

The list reads the change's session (what ``review`` and the workbench kept); ``apply`` and
``undo`` call ``app.fix``, the use case the workbench's preview calls too. Nothing is sent to a
model. A fix that does not apply is one line on stderr and exit status 2; ``--dry-run`` prints
the patch on stdout even then, so it can be copied and applied by hand.
"""

from __future__ import annotations

import argparse
import json
import shlex
from typing import TYPE_CHECKING, Any, TextIO

from reviewtui.cli.selectors import selector_from_args, selector_words
from reviewtui.errors import FixError, UsageError

if TYPE_CHECKING:
    from reviewtui.git.selector import ChangeSelector
    from reviewtui.pipeline import LoadedChange
    from reviewtui.sessions import SessionStore
    from reviewtui.sessions.review_records import StoredFinding


def _fix_label(finding: StoredFinding, applied: bool) -> str:
    if finding.fix is None:
        return "-"
    if applied:
        return "applied"
    return "fix" if finding.fix.applicable else "text only"


def _listing(store: SessionStore, session_id: str,
             findings: list[StoredFinding]) -> list[tuple[StoredFinding, bool]]:
    return [(f, f.fix is not None and store.applied_fix(session_id, f.fingerprint) is not None)
            for f in findings]


def _ask_fix(args: argparse.Namespace, loaded: LoadedChange, store: SessionStore, sid: str,
             finding: StoredFinding, out: TextIO, err: TextIO) -> int:
    from reviewtui.agent.workspace import Workspace
    from reviewtui.app.fix import finding_id, patch_text, request_fix
    from reviewtui.llm import LLMClient, resolve_llm, token_counter

    if args.max_tool_rounds < 0:
        raise UsageError("--max-tool-rounds must be 0 or more")
    ws = Workspace(loaded, loaded.plan(use_llm=False, overrides=store.overrides(sid)))
    config = resolve_llm(loaded.settings.llm)
    updated, answer = request_fix(ws, LLMClient(config), token_counter(config.model), store,
                                  sid, finding, max_tool_rounds=args.max_tool_rounds)
    out.write(patch_text(updated))
    fix = updated.fix
    how = ("applies with 'reviewtui findings apply " + finding_id(updated) + "'"
           if fix is not None and fix.applicable
           else f"kept as text only: {fix.reason if fix is not None else ''}")
    why = f" ({answer.explanation})" if answer.explanation else ""
    err.write(f"findings: fix for {finding_id(updated)} {how}{why}\n")
    return 0


def _not_checked_out(exc: FixError, loaded: LoadedChange, opened: Any,
                     finding: StoredFinding) -> FixError:
    """``exc``, or -- for a pull request whose head is not what is checked out -- why the
    working tree's lines are not the reviewed ones, and how to get them. A finding with no
    fix, or a text-only one, keeps its own reason: no checkout makes it apply."""
    fix = finding.fix
    if (opened is None or loaded.change_set.new_side.rev is None or fix is None
            or not fix.applicable):
        return exc
    from reviewtui.git.runner import open_repository

    head = open_repository(loaded.root).try_resolve("HEAD")
    if head == loaded.change_set.new_side.rev:
        return exc
    return FixError(f"the working tree is not {opened.target.label}'s head "
                    f"({loaded.change_set.new_side.rev[:10]}; HEAD is "
                    f"{(head or 'unborn')[:10]}): a fix applies to the reviewed lines",
                    hint=f"check it out first: git checkout --detach {opened.target.head_ref}, "
                         "or its branch; --dry-run prints the patch")


def run_findings(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from reviewtui.agent.follow import follow_change
    from reviewtui.app.auto_review import other_auto_review
    from reviewtui.app.fix import (
        apply_fix,
        find_finding,
        finding_id,
        patch_text,
        preview_fix,
        undo_fix,
    )
    from reviewtui.app.pull_review import kept_review
    from reviewtui.cli.progress import load_change
    from reviewtui.git.selector import SelectorMode
    from reviewtui.sessions import SessionStore

    def reload(selector: ChangeSelector) -> LoadedChange:
        return load_change(args.path, selector, use_cache=not args.no_cache)

    named = selector_from_args(args)
    loaded = reload(named)
    with SessionStore() as store:
        kept = kept_review(store, loaded, getattr(args, "opened_pull", None), reload)
        if kept.session is None and named.mode is SelectorMode.AUTO:  # a fix changed which
            kept = other_auto_review(store, loaded, reload,  # change it names
                                     include_untracked=not args.no_untracked) or kept
        session, loaded = kept.session, kept.loaded
        if kept.moved:  # the pull request moved since its review
            err.write(f"findings: {kept.moved}\n")
        if session is None:
            if args.action == "list":
                if args.json:
                    out.write(json.dumps({"session_id": None, "findings": []}, indent=2) + "\n")
                else:
                    err.write("findings: no review kept for this change yet (run 'reviewtui "
                              "review' or the workbench's R)\n")
                return 0
            raise UsageError("no review kept for this change yet",
                             hint="run 'reviewtui review' or the workbench's R first")
        sid = session.session_id
        # at their lines as they are now: moved with their text, or "fixed?" when it is gone
        findings = follow_change(store, sid, loaded).findings
        if args.action == "list":
            rows = _listing(store, sid, findings)
            if args.json:
                data: list[dict[str, Any]] = [
                    {"id": finding_id(f), **f.model_dump(mode="json"), "fix_applied": applied}
                    for f, applied in rows]
                out.write(json.dumps({"session_id": sid, "findings": data}, indent=2,
                                     ensure_ascii=False) + "\n")
            else:
                for f, applied in rows:
                    removed = " (removed lines)" if f.side == "old" else ""
                    out.write(f"{finding_id(f)}  {f.label:<9} {f.severity}  "
                              f"{f.file_path}:{f.lines}{removed}  fix: "
                              f"{_fix_label(f, applied):<9}  {f.title}\n")
                if not rows:
                    err.write("findings: none kept for this change\n")
            return 0
        if args.action == "undo":
            fingerprint = find_finding(findings, args.finding).fingerprint
            undone = undo_fix(store, sid, loaded.root, findings, fingerprint)
            err.write(f"findings: undid the fix of {undone.fingerprint[:8]} on "
                      f"{undone.file_path}: its previous bytes are back\n")
            return 0
        finding = find_finding(findings, args.finding)
        if args.action == "fix":
            return _ask_fix(args, loaded, store, sid, finding, out, err)
        try:
            if args.dry_run:
                out.write(patch_text(finding))
                out.flush()
                preview_fix(loaded.root, finding)  # FixError: one line, exit 2
                fix = finding.fix
                why = f" ({fix.explanation})" if fix is not None and fix.explanation else ""
                err.write(f"findings: the fix of {finding_id(finding)} applies to "
                          f"{finding.file_path}{why} (dry run: nothing written)\n")
                return 0
            preview, after = apply_fix(store, sid, loaded.root, finding)
        except FixError as exc:
            raise _not_checked_out(exc, loaded, getattr(args, "opened_pull", None),
                                   finding) from None
        out.write(preview.diff)
        state = " · the finding is now fixed" if after.state == "fixed" else ""
        undo = shlex.join(["reviewtui", "findings", "undo", finding_id(finding),
                           *selector_words(args)])
        err.write(f"findings: applied the fix of {finding_id(finding)} to {finding.file_path}"
                  f"{state} ('{undo}' takes it back)\n")
        return 0
