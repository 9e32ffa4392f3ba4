"""``e``: edit a unit's extra requests -- add or remove types, with the symbol or keyword.

Returns the new request list (or None when cancelled). Every request is a row of its own (a
unit changing ``login`` and ``logout`` has ``search_callers`` for each: keyed by type, all but
the last were dropped on saving), and each type that takes a symbol or keyword has one more,
empty row to add another. ``callers`` needs a symbol and ``search`` a keyword; the ``search_*``
hints take an optional symbol (empty: the unit's own definitions). Validation runs through the
same pydantic union the plan uses, so whatever the modal accepts, the scheduler can execute.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import TypeAdapter, ValidationError
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Label

from reviewtui.models import ExtraRequest
from reviewtui.tui.screens.form_modal import FormModal

TYPES: tuple[tuple[str, str], ...] = (
    ("previous_version", ""), ("callers", "symbol (required)"),
    ("search", "keyword (required)"), ("search_callers", "symbol (optional)"),
    ("search_config_usage", "config key (optional)"),
    ("search_implementations", "interface (optional)"),
    ("search_model_usage", "model (optional)"), ("search_class_methods", "class (optional)"),
    ("scanner_issues", ""),
)
_ADAPTER: TypeAdapter[ExtraRequest] = TypeAdapter(ExtraRequest)


def _detail(request: ExtraRequest) -> str:
    return getattr(request, "symbol", None) or getattr(request, "keyword", None) or ""


Row = tuple[str, bool, str]
"""One row of the form: the request type, ticked?, its symbol or keyword."""


def build_requests(rows: Sequence[Row]) -> list[ExtraRequest]:
    """The typed requests of the ticked rows (each once); ``ValueError`` names what is
    missing."""
    requests: list[ExtraRequest] = []
    for kind, ticked, text in rows:
        if not ticked:
            continue
        detail = text.strip()
        data: dict[str, str | None] = {"type": kind}
        if kind == "search":
            data["keyword"] = detail
        elif kind != "previous_version" and kind != "scanner_issues":
            data["symbol"] = detail or None
        if kind in ("callers", "search") and not detail:
            raise ValueError(f"{kind} needs a {'symbol' if kind == 'callers' else 'keyword'}")
        if "\n" in detail or "\0" in detail:
            raise ValueError(f"{kind}: one line of text, please")
        try:
            request = _ADAPTER.validate_python(data)
        except ValidationError as exc:
            raise ValueError(f"{kind}: {exc.errors()[0]['msg']}") from None
        if request not in requests:
            requests.append(request)
    return requests


def form_rows(current: Sequence[ExtraRequest]) -> list[Row]:
    """The rows the form starts with: every current request ticked, in the order of
    ``TYPES``; then, for a type that takes a symbol or keyword, an empty row to add one (a
    type without any request has just that row)."""
    rows: list[Row] = []
    for kind, hint in TYPES:
        mine = [r for r in current if r.type == kind]
        rows += [(kind, True, _detail(r)) for r in mine]
        if not mine or hint:
            rows.append((kind, False, ""))
    return rows


class RequestsModal(FormModal[list[ExtraRequest]]):
    """Tick request types, fill in symbols/keywords, save with ctrl+s or the button.

    The first row of a type has the ids ``check-TYPE`` and ``detail-TYPE``; the next ones
    ``check-TYPE-2``, ``detail-TYPE-2``…"""

    def __init__(self, unit_label: str, current: Sequence[ExtraRequest]) -> None:
        super().__init__()
        self.unit_label = unit_label
        self.rows = form_rows(current)
        self._ids: list[tuple[str, str]] = []  # (type, the row's id suffix), in row order

    def compose(self) -> ComposeResult:
        hints = dict(TYPES)
        seen: dict[str, int] = {}
        with Vertical(id="requests-dialog"):
            yield Label(f"Extra requests for {self.unit_label}", id="requests-title",
                        markup=False)
            with VerticalScroll(id="requests-rows"), Grid(id="requests-grid"):
                for kind, ticked, text in self.rows:
                    seen[kind] = seen.get(kind, 0) + 1
                    suffix = kind if seen[kind] == 1 else f"{kind}-{seen[kind]}"
                    self._ids.append((kind, suffix))
                    yield Checkbox(kind, ticked, id=f"check-{suffix}")
                    hint = hints[kind]
                    if hint:
                        placeholder = hint if seen[kind] == 1 else f"another: {hint}"
                        yield Input(text, placeholder=placeholder, id=f"detail-{suffix}")
                    else:
                        yield Label("")
            yield Label("", id="requests-error", markup=False)
            with Horizontal(id="requests-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_input_changed(self, event: Input.Changed) -> None:
        suffix = (event.input.id or "").removeprefix("detail-")
        if event.value.strip():
            self.query_one(f"#check-{suffix}", Checkbox).value = True

    def _collect(self) -> list[ExtraRequest]:
        hints = dict(TYPES)
        rows: list[Row] = []
        for kind, suffix in self._ids:
            ticked = self.query_one(f"#check-{suffix}", Checkbox).value
            text = self.query_one(f"#detail-{suffix}", Input).value if hints[kind] else ""
            rows.append((kind, ticked, text))
        return build_requests(rows)

    def form_result(self) -> list[ExtraRequest] | None:
        try:
            return self._collect()
        except ValueError as problem:
            self.query_one("#requests-error", Label).update(f"✗ {problem}")
            return None
