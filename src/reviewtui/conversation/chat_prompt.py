"""What a chat round sends: its prompt, built from the session's parts at send time (seed 002).

``ChatSession`` asks; this assembles. The system prompt and the static review context come
first (fitted once per session to a share of the window: ``static.fit_static``), then the
earlier rounds as ``packing`` lays them out under the budget the window leaves once the reply
and the tool schemas are set aside, and the question with the files it inherits and a note of
the files edited since earlier rounds. A question that cannot fit even with no history is
refused before anything is stored or sent (``check_fits``); a continuation whose unfinished
answer does not fit whole is sent the end of it (``pack_continued``).
"""

from __future__ import annotations

from reviewtui.agent.loop import AgentLoop
from reviewtui.agent.workspace import Workspace
from reviewtui.conversation.due_summaries import messages_by_round
from reviewtui.conversation.edits import edited_note, edited_since
from reviewtui.conversation.packing import PackedPrompt, pack
from reviewtui.conversation.replay import tail_round
from reviewtui.conversation.rounds import RoundContext
from reviewtui.conversation.static import StaticContext, fit_static
from reviewtui.errors import UsageError
from reviewtui.git.model import SideKind
from reviewtui.llm import LLMClient, TokenCounter
from reviewtui.sessions.records import MessageRecord, RoundRecord
from reviewtui.sessions.store import SessionStore

SYSTEM_PROMPT = """\
You are reviewtui's assistant: you help a developer review one code change. The review index \
and the diffs are below. Use the read-only tools (read_file_hunk, search_in_project, \
list_project_files, get_dependencies, get_scanner_issues, get_unit, get_bundle, \
get_tool_result) when you need more code; a tool result cut short in the history can be read \
again with get_tool_result and its ref id. Cite code as path:line. Be direct and concrete; say \
when you are not sure."""

WINDOW_ROUNDS = 6
STATIC_SHARE = 0.4  # at most this share of the context goes to the static review context
STATIC_BUDGET_SHARE = 0.6  # ... and of the tokens left for the messages of a request


class ChatPrompt:
    """The prompts of one session's rounds (``ChatSession.prompt``)."""

    def __init__(self, workspace: Workspace, store: SessionStore, session_id: str,
                 client: LLMClient, counter: TokenCounter, loop: AgentLoop) -> None:
        self.workspace = workspace
        self.store = store
        self.session_id = session_id
        self.client = client
        self.counter = counter
        self.loop = loop
        self._static: StaticContext | None = None

    def static(self) -> StaticContext:
        """The review context sent with every request: the change's stated purpose (commit
        messages, description), the index and the kept units' diffs -- whole diffs, the
        others named (``static.fit_static``)."""
        if self._static is None:
            ws = self.workspace
            window = self.client.config.context_window
            kept = {i.unit_id for i in ws.plan.plan if not i.skip_review}
            diffs = [(u.unit_id, u.location, u.diff_text()) for u in ws.loaded.units
                     if u.unit_id in kept]
            purpose = ws.intent_markdown(self.counter.count, window)
            head = "## Review index\n\n" + ws.index_markdown() + "\n\n## Diffs\n\n"
            # the stated purpose first: what does not fit is the diffs, never the purpose
            head = f"{purpose}\n\n{head}" if purpose else head
            # a share of the window, and of what the reply and the tool schemas leave of it
            # (a 4,000-token model answering in up to 1,500): the rest is the conversation's
            limit = min(int(window * STATIC_SHARE), int(self.budget() * STATIC_BUDGET_SHARE)
                        - self.counter.count(SYSTEM_PROMPT))
            self._static = fit_static(head, diffs, self.counter.count, max(0, limit))
        return self._static

    def budget(self) -> int:
        """What the window leaves for the messages: less the reply and the tool schemas sent
        with them."""
        return self.loop.budget - self.counter.count_tools(self.loop.schemas())

    def check_fits(self, question: str) -> None:
        """Refuse, before anything is stored or sent, a question that does not fit the window
        with the parts of the prompt that are never cut (the system prompt, the review context):
        sent anyway, a server refuses it, or silently drops the prompt's start."""
        budget = self.budget()
        bare = pack(system=SYSTEM_PROMPT, static_context=self.static().text, rounds=[],
                    messages_by_round={}, current=question, budget=budget,
                    count=self.counter.count)
        if not bare.overflow:
            return
        config = self.client.config
        static = bare.layer("static").tokens
        room = (f"[llm] context_window = {config.context_window:,} leaves {max(0, budget):,} "
                f"once the reply (max_output_tokens = {config.max_output_tokens:,}) and the "
                f"tool schemas ({self.loop.budget - budget:,}) are set aside")
        if static > budget:
            raise UsageError(f"the review context does not fit the model's context window: "
                             f"it takes {static:,} tokens, and {room}",
                             hint="lower [llm] max_output_tokens, or raise [llm] "
                                  "context_window if the model takes more")
        raise UsageError(f"the question does not fit the model's context window: with the "
                         f"review context it takes {bare.tokens:,} tokens, and {room}",
                         hint="shorten the question, or raise [llm] context_window if the "
                              "model takes more")

    def pack(self, question: str, context: RoundContext, ended: list[RoundRecord], *,
             replaced: dict[int, list[MessageRecord]] | None = None) -> PackedPrompt:
        """The prompt for ``question`` after the ``ended`` rounds (``replaced``: the messages
        to send for some of them instead of those stored)."""
        by_round = messages_by_round(self.store, self.session_id)
        by_round.update(replaced or {})
        return pack(system=SYSTEM_PROMPT, static_context=self.static().text, rounds=ended,
                    messages_by_round=by_round, current=question,
                    inherited_context="\n\n".join(filter(None, [
                        self._inherited(context), self._edited(ended)])),
                    budget=self.budget(), count=self.counter.count, window=WINDOW_ROUNDS)

    def pack_continued(self, question: str, context: RoundContext, ended: list[RoundRecord],
                       continues: int, packed: PackedPrompt) -> PackedPrompt:
        """A continuation whose unfinished answer does not fit the prompt whole: the packer
        let the round go to the summary layer, where the model cannot see where the answer
        stopped. Sent instead as its question and the end of its answer, in the room the
        rest of the prompt leaves (``packed`` when even that does not fit)."""
        record = next((r for r in ended if r.index == continues), None)
        if record is None:
            return packed
        rest = [r for r in ended if r.index != continues]
        without = self.pack(question, context, rest)
        room = without.budget - without.tokens - 16  # (joining pieces is not quite additive)
        cut = tail_round(record, room, self.counter.count)
        if cut is None:
            return packed
        shorter, messages = cut
        fitted = self.pack(question, context, [*rest, shorter],
                           replaced={continues: messages})
        return fitted if continues in fitted.window_rounds else packed

    @staticmethod
    def _inherited(context: RoundContext) -> str:
        if not context.inherited:
            return ""
        lines = ["Files from earlier rounds that look relevant to this question:"]
        lines += [f"- {f.path} (relevance {f.score:.2f}, round {f.from_round + 1})"
                  for f in context.inherited]
        return "\n".join(lines)

    def _edited(self, ended: list[RoundRecord]) -> str:
        """The note naming the files edited on disk since earlier rounds (a chat about the
        working tree only: a commit or a range does not change under it)."""
        change_set = self.workspace.loaded.change_set
        if change_set.new_side.kind is not SideKind.WORKTREE:
            return ""
        paths = {p for change in change_set.files for p in (change.old_path, change.new_path)
                 if p}
        return edited_note(edited_since(self.workspace.loaded.root, ended, paths))
