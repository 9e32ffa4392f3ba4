"""The planning agent: planner_index in, a validated llm_plan out, never an exception.

Each batch is one chat request asking for structured JSON (the client falls back from a JSON
schema to JSON mode to plain text as the endpoint allows). The reply is extracted tolerantly,
repaired once by asking the model again, then validated item by item: unknown unit ids, invalid
levels and unusable requests are dropped with a reason in the report; a reply that plans none
of the batch's units is repaired like unreadable JSON (it is no verdict); a unit id the model
shortened to a unique prefix names its unit; a plan given as a
tool call's arguments instead of text is read from there. A batch that still fails
leaves its units to the rules, and the report says why. Errors that would repeat for every batch
(bad key, unknown model) stop the remaining batches.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from reviewtui.errors import (
    LLMAuthError,
    LLMCancelledError,
    LLMConnectionError,
    LLMError,
    LLMModelNotFoundError,
    LLMNotConfiguredError,
    LLMTimeoutError,
)
from reviewtui.git.intent import ChangeIntent
from reviewtui.git.intent_text import intent_budget, intent_markdown
from reviewtui.llm import ChatResult
from reviewtui.models import PlannerIndex, PlannerUnit
from reviewtui.plan.extract import Extracted, PlanParseError, extract_plan_items
from reviewtui.plan.prompt import (
    REPAIR_PROMPT,
    SYSTEM_PROMPT,
    header_json,
    make_batches,
    plan_schema,
    unit_json,
    user_message,
)
from reviewtui.plan.requests import parse_level, planner_request
from reviewtui.plan.schema import LLMPlanItem, PlannerReport, RawPlanItem

if TYPE_CHECKING:  # the client imports the openai SDK (~0.5 s): rules-only plans never need it
    from reviewtui.llm import LLMClient

_log = logging.getLogger(__name__)
# Errors of the endpoint itself: every other batch (and any later call) would fail the same way.
_FATAL = (LLMAuthError, LLMModelNotFoundError, LLMNotConfiguredError, LLMTimeoutError,
          LLMConnectionError)
_MARGIN = 300  # tokens kept free for message framing
_MIN_PREFIX = 6  # "u_" and four hex digits: a shorter unit id prefix is not taken as one


@dataclass
class _BatchResult:
    items: dict[str, LLMPlanItem] = field(default_factory=dict)
    planned: set[str] = field(default_factory=set)
    messages: list[str] = field(default_factory=list)
    failed: str | None = None
    fatal: str | None = None  # the endpoint's own failure (see _FATAL), as one line
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class PlannerOutcome:
    items: dict[str, LLMPlanItem]
    planned_ids: frozenset[str]  # units whose batch answered (these the rules do not rescue)
    report: PlannerReport


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "skip")
    return bool(value)


def _resolve_id(given: str, wanted: Mapping[str, PlannerUnit]) -> tuple[str | None, str]:
    """The batch's unit ``given`` names: its id, or a unique prefix of one in any case (models
    shorten ids as the tables and ``--unit`` do; at least ``_MIN_PREFIX`` characters); else
    None and what was wrong."""
    if given in wanted:
        return given, ""
    key = given.strip().lower()
    matches = [uid for uid in wanted if uid.startswith(key)] if len(key) >= _MIN_PREFIX else []
    if len(matches) == 1:
        return matches[0], ""
    if matches:
        return None, f"unit {given[:40]!r}: it matches {len(matches)} units"
    return None, f"unknown unit {given[:40]!r}"


def _as_list(requests: Any) -> list[Any]:
    """The item's requests: a lone request object (or type name) outside a list is one."""
    if isinstance(requests, list):
        return requests
    if isinstance(requests, dict) or (isinstance(requests, str) and requests.strip()):
        return [requests]
    return []


def validate_items(raw_items: Sequence[Any], wanted: Mapping[str, PlannerUnit],
                   result: _BatchResult) -> None:
    """Turn raw reply items into ``LLMPlanItem``s, logging every drop."""
    for raw in raw_items:
        try:
            item = RawPlanItem.model_validate(raw)
        except ValidationError:
            result.messages.append(f"dropped a plan item without a unit_id: {str(raw)[:80]}")
            continue
        unit_id, wrong = _resolve_id(item.unit_id, wanted)
        if unit_id is None:
            result.messages.append(f"dropped the plan item for {wrong}")
            continue
        item.unit_id = unit_id
        if item.unit_id in result.items:
            result.messages.append(f"{item.unit_id}: duplicate plan item ignored")
            continue
        level = parse_level(item.llm_context_level)
        if level is None and item.llm_context_level is not None:
            result.messages.append(
                f"{item.unit_id}: invalid level {str(item.llm_context_level)[:40]!r} ignored")
        requests = []
        raw_requests = _as_list(item.extra_requests)
        for raw_request in raw_requests:
            request, problem = planner_request(raw_request)
            if request is None:
                result.messages.append(f"{item.unit_id}: request dropped: {problem}")
            else:
                requests.append(request)
        reason = item.reason if isinstance(item.reason, str) else ""
        unrelated = _bool(item.unrelated) and item.unrelated != "skip"
        why = item.unrelated_reason if isinstance(item.unrelated_reason, str) else ""
        if isinstance(item.unrelated, str) and not why and item.unrelated.strip().lower() not in (
                "true", "yes", "1", "false", "no", "0", ""):
            unrelated, why = True, item.unrelated  # a reason given in place of the flag
        result.items[item.unit_id] = LLMPlanItem(
            unit_id=item.unit_id, llm_context_level=level, extra_requests=requests,
            skip_review=_bool(item.skip_review), reason=reason.strip()[:500],
            unrelated=unrelated,
            unrelated_reason=(why.strip()[:300] or "not part of the stated purpose")
            if unrelated else "")


def _reply_text(reply: ChatResult, label: str, result: _BatchResult) -> str:
    """The reply's text; with no text but a tool call (endpoints that deliver structured
    output as a function call), the call's arguments -- else it would read as an empty reply."""
    if reply.content.strip() or not reply.tool_calls:
        return reply.content
    call = reply.tool_calls[0]
    result.messages.append(f"{label}: the plan was taken from the model's tool call "
                           f"{call.name[:40]!r}")
    return call.arguments


def _usable(text: str | None, wanted: Mapping[str, PlannerUnit],
            result: _BatchResult) -> Extracted:
    """The reply's plan, validated into ``result``; ``PlanParseError`` when it plans none of
    ``wanted`` (an empty list, only unknown ids): that is no verdict on the batch's units, and
    taken as one every low-risk unit would be dropped as "not in the LLM plan"."""
    extracted = extract_plan_items(text)
    validate_items(extracted.items, wanted, result)
    if wanted and not result.items:
        what = (f"{len(extracted.items)} items, none for a unit id given" if extracted.items
                else "an empty list")
        raise PlanParseError(f"the plan has no item for any of the {len(wanted)} units given "
                             f"({what})")
    return extracted


class Planner:
    """Plans a change with one LLM client; safe to call from a worker thread."""

    def __init__(self, client: LLMClient, count: Callable[[str], int], *,
                 max_workers: int = 4, cancel: threading.Event | None = None) -> None:
        self.client = client
        self.count = count
        self.max_workers = max_workers
        self.cancel = cancel  # set: every request stops at once, ``plan`` raises

    def _chat(self, messages: list[dict[str, str]], result: _BatchResult) -> ChatResult:
        reply = self.client.chat(messages, json_schema=plan_schema(), schema_name="llm_plan",
                                 cancel=self.cancel)
        if reply.usage is not None:
            result.prompt_tokens += reply.usage.prompt_tokens
            result.completion_tokens += reply.usage.completion_tokens
        return reply

    def _run_batch(self, header: str, units: list[PlannerUnit], number: int,
                   total: int, intent: str = "") -> _BatchResult:
        result = _BatchResult()
        wanted = {u.unit_id: u for u in units}
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": user_message(
                        header, [unit_json(u) for u in units], number, total, intent)}]
        label = f"batch {number}/{total}" if total > 1 else "plan"
        try:
            text = _reply_text(self._chat(messages, result), label, result)
            try:
                extracted = _usable(text, wanted, result)
            except PlanParseError as problem:
                result.messages.append(f"{label}: {problem}; asked the model to repair it")
                messages += [{"role": "assistant", "content": text[:6000]},
                             {"role": "user", "content": REPAIR_PROMPT.format(problem=problem)}]
                text = _reply_text(self._chat(messages, result), label, result)
                extracted = _usable(text, wanted, result)
        except PlanParseError as problem:
            result.failed = f"{label}: no usable plan after one repair attempt ({problem})"
            return result
        except LLMCancelledError:
            raise  # the person stopped planning: no plan, not a failed batch
        except LLMError as error:
            result.failed = f"{label}: {error}"
            result.fatal = str(error) if isinstance(error, _FATAL) else None
            return result
        if extracted.note:
            result.messages.append(f"{label}: {extracted.note}")
        if extracted.how == "salvaged":
            result.planned = set(result.items)
        else:
            result.planned = set(wanted)
        return result

    def purpose(self, intent: ChangeIntent | None) -> str:
        """The stated purpose as every batch carries it (within ``intent_budget``)."""
        if intent is None:
            return ""
        return intent_markdown(intent, self.count,
                               intent_budget(self.client.config.context_window))

    def plan(self, index: PlannerIndex, intent: ChangeIntent | None = None) -> PlannerOutcome:
        """Plan ``index``; every batch also carries the change's stated purpose (``intent``,
        within ``intent_budget`` of the context window) so the model can mark units that
        have nothing to do with it."""
        config = self.client.config
        header = header_json(index)
        purpose = self.purpose(intent)
        fixed = (self.count(SYSTEM_PROMPT) + self.count(header) + self.count(purpose)
                 + _MARGIN)
        input_budget = max(500, config.context_window - config.max_output_tokens - fixed)
        batches = make_batches(index.units, self.count, input_budget=input_budget,
                               output_budget=config.max_output_tokens)
        total = len(batches)
        results: list[_BatchResult] = []
        if batches:
            # The first batch runs alone: an error that would repeat (a bad key) stops here.
            results.append(self._run_batch(header, batches[0], 1, total, purpose))
            if not results[0].fatal and total > 1:
                # ...and one that comes later (the endpoint went away) stops the batches not
                # sent yet: each would wait out its own timeout (54 batches, 54 timeouts).
                halted = threading.Event()

                def run(number: int, units: list[PlannerUnit]) -> _BatchResult | None:
                    if halted.is_set():
                        return None
                    result = self._run_batch(header, units, number, total, purpose)
                    if result.fatal:
                        halted.set()
                    return result

                with ThreadPoolExecutor(max_workers=min(self.max_workers, total - 1)) as pool:
                    results += [r for r in pool.map(lambda pair: run(*pair),
                                                    list(enumerate(batches[1:], start=2)))
                                if r is not None]
        return self._outcome(results, total, config.model)

    def _outcome(self, results: list[_BatchResult], total: int,
                 model: str | None) -> PlannerOutcome:
        items: dict[str, LLMPlanItem] = {}
        planned: set[str] = set()
        messages: list[str] = []
        failed = 0
        for result in results:
            items.update(result.items)
            planned |= result.planned
            messages += result.messages
            if result.failed:
                failed += 1
                messages.append(result.failed + "; its units fall back to the rules")
        skipped = total - len(results)
        if skipped:
            failed += skipped
            messages.append(f"{skipped} remaining batches not sent after that error")
        for message in messages:
            _log.info("planner: %s", message)
        status: Literal["ok", "partial", "failed"] = (
            "ok" if not failed else "failed" if failed == total else "partial")
        report = PlannerReport(
            status=status, model=model, batches=total, failed_batches=failed,
            messages=messages, endpoint_error=next((r.fatal for r in results if r.fatal), None),
            prompt_tokens=sum(r.prompt_tokens for r in results),
            completion_tokens=sum(r.completion_tokens for r in results))
        return PlannerOutcome(items, frozenset(planned), report)
