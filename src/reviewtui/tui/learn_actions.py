"""``L``: the self-learning loop in the workbench -- candidates, accept, reject, re-score.

Reading the evidence, writing the learned rule and scoring the change again run in a thread
worker; the table is re-scored as soon as a candidate is accepted (the planner's answers, if
any, are fused again with the new rule levels; the person's overrides stay on top).
The learning stage (evidence mining, the TOML writer) loads when ``L`` is first pressed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from reviewtui.errors import ReviewTuiError
from reviewtui.tui.base import WorkbenchBase

if TYPE_CHECKING:
    from reviewtui.pipeline import LoadedChange
    from reviewtui.plan import FusedPlan
    from reviewtui.rules.learning import LearnReport


class LearnActions(WorkbenchBase):
    def action_learn(self) -> None:
        if self.loaded.repo is None:
            self.notify("a patch outside a repository has no evidence log",
                        title="nothing to learn from", severity="warning")
            return
        self.set_status("reading the evidence…")
        self._learn_worker(None)

    def _decide(self, candidate_id: str, accepting: bool) -> None:
        self.set_status(f"{'accepting' if accepting else 'rejecting'} {candidate_id}…")
        self._learn_worker((candidate_id, accepting))

    @work(thread=True, exclusive=True, group="learning")
    def _learn_worker(self, decision: tuple[str, bool] | None) -> None:
        from reviewtui.plan import fuse_again
        from reviewtui.rules import load_rule_pack
        from reviewtui.rules.learning import accept, learn, reject
        from reviewtui.rules.learning.rejections import rejections_path
        from reviewtui.rules.learning.text import accepted_text, rejected_text

        loaded, repo = self.loaded, self.loaded.repo
        assert repo is not None
        rescored: tuple[LoadedChange, FusedPlan] | None = None
        note = None
        try:
            pack = load_rule_pack(repo.root).pack
            if decision is not None and decision[1]:
                done = accept(repo.root, repo.common_dir, pack, decision[0])
                note = accepted_text(done, repo.root).replace("\n ", ";")
                again = loaded.rescored()
                rescored = again, fuse_again(self.triage.plan, again.review_index())
                pack = again.rule_pack.pack
            elif decision is not None:
                rejection = reject(repo.root, repo.common_dir, pack, decision[0])
                note = rejected_text(rejection, rejections_path(repo.common_dir), repo.root)
            report = learn(repo.root, repo.common_dir, pack)
        except ReviewTuiError as error:
            self.call_from_thread(self._learn_failed, str(error))
            return
        self.call_from_thread(self._learned, report, note, rescored)

    def _learn_failed(self, error: str) -> None:
        self.notify(error, title="learning", severity="error")
        self.set_status("")

    def _learned(self, report: LearnReport, note: str | None,
                 rescored: tuple[LoadedChange, FusedPlan] | None) -> None:
        from reviewtui.tui.screens.learn import LearnScreen

        ready = sum(c.status == "ready" for c in report.candidates)
        status = f"{ready} ready candidate{'s' if ready != 1 else ''}"
        if note is not None:
            status = note.split(":", 1)[0]  # "accepted c_1a2b3c4d" / "rejected c_... at 4 ..."
        if rescored is not None:
            changed = self._rescore(*rescored)
            status += f"; {changed} unit{'s' if changed != 1 else ''} re-scored"
        self.set_status(status)
        repo = self.loaded.repo
        assert repo is not None
        if isinstance(self.screen, LearnScreen):
            self.screen.show(report, note)
        else:
            self.push_screen(LearnScreen(report, repo.root, self._decide))

    def _rescore(self, loaded: LoadedChange, plan: FusedPlan) -> int:
        """Show ``loaded``'s rule scores and ``plan``; how many units' rule level changed."""
        from reviewtui.tui.triage import Triage

        before = self.loaded.suggestions
        changed = sum(1 for uid, s in loaded.suggestions.items()
                      if uid not in before or before[uid].context_level is not s.context_level)
        self.loaded = loaded
        self.session.adopt(loaded)
        if [u.unit_id for u in loaded.units] == [u.unit_id for u in self.triage.units]:
            self.triage.set_plan(plan)
        else:  # other units (the tagging changed too): keep the person's decisions
            fresh = Triage(loaded.units, plan, self.triage.overrides, self.triage.marks,
                           self.triage.findings, reasons=loaded.priority_reasons)
            fresh.sort_key = self.triage.sort_key
            self.triage = fresh
        self.bundles.clear()
        self.refresh_rows()
        return changed
