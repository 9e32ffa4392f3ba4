"""``e``: edit a unit's extra requests -- add or remove types, with the symbol or keyword.

Returns the new request list (or None when cancelled). ``callers`` needs a symbol and
``search`` a keyword; the ``search_*`` hints take an optional symbol (empty: the unit's own
definitions). Validation runs through the same pydantic union the plan uses, so whatever the
modal accepts, the scheduler can execute.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import TypeAdapter, ValidationError
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
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


def build_requests(checked: dict[str, bool], details: dict[str, str]) -> list[ExtraRequest]:
    """The typed requests for the ticked boxes; ``ValueError`` names what is missing."""
    requests: list[ExtraRequest] = []
    for kind, _ in TYPES:
        if not checked.get(kind):
            continue
        detail = details.get(kind, "").strip()
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
            requests.append(_ADAPTER.validate_python(data))
        except ValidationError as exc:
            raise ValueError(f"{kind}: {exc.errors()[0]['msg']}") from None
    return requests


class RequestsModal(FormModal[list[ExtraRequest]]):
    """Tick request types, fill in symbols/keywords, save with ctrl+s or the button."""

    def __init__(self, unit_label: str, current: Sequence[ExtraRequest]) -> None:
        super().__init__()
        self.unit_label = unit_label
        self.current: dict[str, str] = {r.type: _detail(r) for r in current}

    def compose(self) -> ComposeResult:
        with Vertical(id="requests-dialog"):
            yield Label(f"Extra requests for {self.unit_label}", id="requests-title",
                        markup=False)
            with Grid(id="requests-grid"):
                for kind, hint in TYPES:
                    yield Checkbox(kind, kind in self.current, id=f"check-{kind}")
                    if hint:
                        yield Input(self.current.get(kind, ""), placeholder=hint,
                                    id=f"detail-{kind}")
                    else:
                        yield Label("")
            yield Label("", id="requests-error", markup=False)
            with Horizontal(id="requests-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_input_changed(self, event: Input.Changed) -> None:
        kind = (event.input.id or "").removeprefix("detail-")
        if event.value.strip():
            self.query_one(f"#check-{kind}", Checkbox).value = True

    def _collect(self) -> list[ExtraRequest]:
        checked = {k: self.query_one(f"#check-{k}", Checkbox).value for k, _ in TYPES}
        details = {k: self.query_one(f"#detail-{k}", Input).value for k, hint in TYPES if hint}
        return build_requests(checked, details)

    def form_result(self) -> list[ExtraRequest] | None:
        try:
            return self._collect()
        except ValueError as problem:
            self.query_one("#requests-error", Label).update(f"✗ {problem}")
            return None

