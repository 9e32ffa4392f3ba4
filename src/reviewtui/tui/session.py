"""The workbench's link to the core: session store, model, review agent and chat engine.

No Textual here. The store is opened lazily and a broken or busy store never stops triage: the
problem is reported once and decisions stay in memory. Every persisted decision that changed
is also appended to the evidence log, the input of ``reviewtui rules learn``. The chat is the
``SessionChat`` mixin's (``tui.session_chat``), the fixes ``SessionFixes``' (``tui.session_fixes``),
the findings, comments and verdict ``SessionReview``'s (``tui.session_review``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reviewtui.errors import StoreError
from reviewtui.llm import NOT_CONFIGURED_HINT, resolve_llm, token_counter
from reviewtui.pipeline import LoadedChange
from reviewtui.plan import FusedPlan, OverrideSet
from reviewtui.plan.evidence import override_records
from reviewtui.sessions.marks import ReviewMarks, commit_time
from reviewtui.sessions.store import SessionStore
from reviewtui.tui.held_decisions import HeldDecisions
from reviewtui.tui.session_chat import SessionChat
from reviewtui.tui.session_fixes import SessionFixes, client_for, workspace_for
from reviewtui.tui.session_review import SessionReview, write_in_session

if TYPE_CHECKING:  # the agent, the chat and the model client load when first used
    from reviewtui.agent.findings import ReviewResult
    from reviewtui.conversation.engine import ChatSession
    from reviewtui.units import ReviewUnit


@dataclass(frozen=True)
class Reviewed:
    """A finished review: the agent's result, what keeping its findings did, and the units it
    reviewed as it read them (a unit's id names its text: a refresh meanwhile may have
    replaced them, see ``tui.review_versions``)."""

    result: ReviewResult
    kept: str
    units: tuple[ReviewUnit, ...]


@dataclass(frozen=True)
class Refreshed:
    """The change collected again, with the plan carried over to it. The person's overrides
    are not: they are carried when the workbench adopts it (``carry``), so that a decision
    made while the refresh ran is not undone by the ones it started with."""

    loaded: LoadedChange
    plan: FusedPlan
    notes: list[str]
    planned_from: FusedPlan  # the plan it carried (the planner may have answered since)


class TuiSession(SessionFixes, SessionChat, SessionReview):
    def __init__(self, loaded: LoadedChange, store_path: Path | None = None, *,
                 description: str | None = None,
                 description_source: str = "--description") -> None:
        self.loaded = loaded
        self.config = resolve_llm(loaded.settings.llm)
        self._store_path = store_path
        self._store: SessionStore | None = None
        self._store_problem: str | None = None
        self._session_id: str | None = None
        self._chat: ChatSession | None = None
        self._lock = threading.Lock()
        self._recorded = OverrideSet()  # the overrides last logged as evidence
        self._followed = False  # the findings and comments followed to the lines as read
        self._held = HeldDecisions()  # what a save compares with: it writes only the changes
        self.repo_key = str(loaded.root)
        self.change_key = loaded.change_set.key  # what `reviewtui ask` uses too
        # The stated purpose, gathered once per change: --description wins, else the one
        # written here (``i``) and kept in the session, else the [review] description setting.
        self._given = (description, description_source)
        self.loaded = loaded.with_intent(description, stored=self.description(),
                                         source=description_source)

    # --- store ----------------------------------------------------------------------------

    def store(self) -> SessionStore | None:
        if self._store is None and self._store_problem is None:
            try:
                self._store = SessionStore(self._store_path)
            except StoreError as error:
                self._store_problem = str(error)
        return self._store

    def _session(self, create: bool) -> str | None:
        store = self.store()
        if store is None:
            return None
        if self._session_id is None:
            found = store.latest_session(self.repo_key, self.change_key)
            if found is None and create:
                cs = self.loaded.change_set
                found = store.create_session(
                    self.repo_key, self.change_key,
                    f"{cs.mode}: {cs.old_side.describe()} -> {cs.new_side.describe()}",
                    model=self.config.model)
            self._session_id = found.session_id if found else None
        return self._session_id

    def description(self) -> str | None:
        """The description the person wrote in the workbench for this change, if any."""
        store = self.store()
        try:
            return (store.change_description(self.repo_key, self.change_key)
                    if store is not None else None)
        except StoreError:
            return None

    def set_description(self, text: str) -> str | None:
        """Keep ``text`` as the change's description and gather the intent again with it
        (the chat starts its static context again); a problem comes back as one line."""
        problem = write_in_session(self, lambda s, sid: s.set_description(sid, text))
        self.loaded = self.loaded.with_intent(None, stored=text)
        self._chat = None
        return problem

    def overrides(self, kept: OverrideSet | None = None) -> OverrideSet:
        """The person's decisions on this change -- or, on a change never decided on, their
        latest ones on the same units elsewhere in the repository: committing the working
        tree's change makes it another change (``commit:`` instead of ``all:``), and the
        levels and skips chosen on it were lost (reviewed marks, kept by content, were not).
        ``kept``: the decisions to go on with when the store cannot say (they are in memory
        only: a refresh that became another change keeps them)."""
        sid = self._session(create=False)
        store = self.store()
        found: OverrideSet | None = kept if store is None else None
        if store is not None:
            try:
                found = store.saved_overrides(sid) if sid else None
                if found is None:
                    found = store.overrides_of_units(
                        self.repo_key, [u.unit_id for u in self.loaded.units])
            except StoreError:
                found = None
        found = found or OverrideSet()
        self._recorded = found  # carried over: already in the evidence log
        self._held.read_overrides(found)
        return found

    def overrides_now(self, mine: OverrideSet) -> OverrideSet:
        """The change's decisions as stored now -- other workbenches' on this change among
        them -- once ``mine`` (this one's) are all written; else ``mine``, so that nothing this
        one decided is dropped for a store that did not take it."""
        with self._lock:
            store = self.store()
            sid = self._session(create=False)
            if store is None or not sid or self._held.moves or self._held.overrides != mine:
                return mine
            try:
                found = store.saved_overrides(sid)
            except StoreError:
                return mine
            if found is None:
                return mine
            self._recorded = found  # the others' decisions are in the log already (theirs)
            self._held.read_overrides(found)
            return found

    def marks(self) -> ReviewMarks:
        """The repository's reviewed marks as stored now, as this change sees them."""
        store = self.store()
        loaded = self.loaded
        try:  # the marks of the change's files: no other is ever matched
            found = store.review_marks(self.repo_key, {u.file_path for u in loaded.units}
                                       ) if store is not None else []
        except StoreError:
            found = []
        marks = ReviewMarks(found, version_time=lambda: commit_time(
            loaded.repo, loaded.change_set.new_side))
        self._held.read_marks(marks)
        return marks

    def save(self, overrides: OverrideSet, marks: ReviewMarks | None = None) -> str | None:
        """Persist what the person decided in this process since the last save: each unit's
        override that changed, each mark made or taken back (``marks``: all this process holds;
        None: leave the marks alone). Decisions other processes wrote are left as they are.
        Returns a one-line problem (shown once) instead of raising."""
        with self._lock:
            store = self.store()
            if store is None:
                problem, self._store_problem = self._store_problem, "reported"
                return problem if problem != "reported" else None
            try:
                sid = self._session(create=True)
                assert sid is not None
                self._held.write_overrides(store, sid, overrides)
                if marks is not None:
                    self._held.write_marks(store, self.repo_key, marks)
            except StoreError as error:
                return str(error)
            return self._record_evidence(overrides)

    def _record_evidence(self, overrides: OverrideSet) -> str | None:
        """The person's changed decisions, as evidence for ``reviewtui rules learn``."""
        log = self.loaded.conflict_log()
        if log is None:
            return None
        facts = {uid: fact for uid in {*overrides.units, *self._recorded.units}
                 if (fact := self.loaded.facts(uid)) is not None}
        try:  # only what changed since the last save: no need to read the log (a key press)
            log.append(override_records(facts, self._recorded, overrides), only_new=False)
        except OSError as error:
            return f"decision saved, but not logged for learning: {error.strerror}"
        self._recorded = overrides
        return None

    # --- model ----------------------------------------------------------------------------

    def model_configured(self) -> bool:
        return self.config.configured

    @staticmethod
    def not_configured_hint() -> str:
        return NOT_CONFIGURED_HINT

    def review(self, plan: FusedPlan, unit_ids: Sequence[str], *,
               cancel: threading.Event | None = None) -> Reviewed:
        """Run the review agent and keep its findings in this change's session, as findings
        about the text it read: a refresh may adopt a newer change while it runs, and the
        findings are then followed to it by the caller (``follow_findings``), not attached to
        the new lines as if they had been read."""
        from reviewtui.agent.record import record_review
        from reviewtui.agent.review import Reviewer

        loaded = self.loaded  # the change as this review reads it, to its end
        client = client_for(self.config)
        workspace = workspace_for(loaded, plan)
        wanted = set(unit_ids)
        for path in sorted({u.file_path for u in loaded.units if u.unit_id in wanted}):
            # each reviewed file's text read now and kept: the findings' lines are hashed and
            # fingerprinted on what the model read, not on what the file holds when it answers
            workspace.line_text(path, 1)
        reviewer = Reviewer(workspace, client, token_counter(self.config.model))
        result = reviewer.review(unit_ids, cancel=cancel)
        left_out = {u.unit_id for u in result.not_reviewed}
        read = tuple(u for u in loaded.units if u.unit_id in wanted - left_out)
        with self._lock:
            store = self.store()
            try:
                sid = self._session(create=True) if store is not None else None
                if store is None or sid is None:
                    return Reviewed(result, f"findings not kept: {self._store_problem}", read)
                merged = record_review(store, sid, result, loaded.units,
                                       [u for u in unit_ids if u not in left_out],
                                       workspace.side_line)
            except StoreError as error:
                return Reviewed(result, f"findings not kept: {error}", read)
        return Reviewed(result, f"{merged.new} new, {merged.seen_again} seen before, "
                                f"{merged.reopened} back, {merged.gone} gone", read)

    def refresh(self, plan: FusedPlan) -> Refreshed:
        """Collect the change again (a worker thread may call this): only the files edited
        since are diffed and scored again; ``plan``'s decisions follow their units; findings
        and comments follow their lines' text, and findings whose text is gone become
        "fixed?". Nothing is switched over until ``adopt``, and the person's overrides are
        carried then (``carry``), as they are at that moment."""
        loaded = self.loaded
        fresh = loaded.refresh()
        notes: list[str] = []
        # Another change (a commit, a checkout): its findings are another session's, and this
        # one's are about a change that did not move -- none of them is followed, and the
        # plan goes only to the units that are the same (a unit id pins its content).
        same = fresh.change_set.key == loaded.change_set.key
        followed = self.follow_findings(fresh) if same else None
        if followed is not None:
            moved = f", {followed.moved} followed their lines" if followed.moved else ""
            notes.append(followed.problem
                         or f"{followed.lost} findings on changed lines (fixed?){moved}")
        return Refreshed(fresh, fresh.replan(plan, loaded.units, follow=same), notes, plan)

    def carry(self, overrides: OverrideSet, fresh: LoadedChange
              ) -> tuple[OverrideSet, dict[str, str]]:
        """``overrides`` (the person's decisions on the change worked on now) moved to the
        units of ``fresh``, the change collected again, and how (old unit id -> new, for the
        decided units that were edited): called on the workbench's thread when it adopts
        ``fresh``, with the decisions as they are then -- those made while the refresh ran
        included."""
        from reviewtui.plan.overrides import carried_ids, moved_overrides

        moves = carried_ids(overrides, self.loaded.units, fresh.units)
        return moved_overrides(overrides, moves), moves

    def adopt(self, fresh: LoadedChange, carried: OverrideSet | None = None,
              moves: dict[str, str] | None = None) -> LoadedChange | None:
        """Work on ``fresh`` from now on (the chat reopens its session on the new change).

        ``carried``: the person's overrides as a refresh moved them to the new unit ids — the
        same decisions, not new ones, so they are not evidence for learning again; ``moves``
        (old id -> new) is how, written by the next ``save`` as moves of what is stored (a
        decision another process took back meanwhile is not written again).

        A refresh that found another change (the same selector after a commit, a checkout or a
        reset: the branch's commits instead of the working tree) switches to that change as
        opening it would: its session (found, or created with the first write), its stated
        purpose gathered again (its commits, its branch, its description); the person's
        decisions then come from ``overrides``. Returns the change worked on before in that
        case, else None."""
        before = self.loaded
        with self._lock:  # a review's worker may be writing its findings
            self.loaded = fresh
            self._chat = None
            if carried is not None:
                self._recorded = carried
            if fresh.change_set.key == self.change_key:
                if moves:
                    self._held.moved(moves)
                return None
            self.change_key = fresh.change_set.key
            self._session_id = None
        description, source = self._given
        self.loaded = fresh.with_intent(description, stored=self.description(), source=source)
        return before
