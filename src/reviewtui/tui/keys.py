"""The workbench's key map as data: action name -> keys, with a description for footer and help.

Kept apart from the app so that the defaults, the footer, the help screen and the user's
``[tui.keys]`` overrides all read one table, and so that a typo in the configuration
(``next_unti = "x"``, ``quit = "ctlr+q"``) is an error naming the action or the key instead of a
binding that silently never fires.

Keys use Textual's names: a comma-separated list such as ``"j,down"``; modifiers joined with
``+`` (``"ctrl+n"``); single characters may be written as themselves (``"["``, ``"?"``, ``"/"``)
and are normalised to Textual's names (``left_square_bracket``, ``question_mark``, ``slash``).
A comma itself is written ``comma``, a space ``space``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from textual.binding import Binding
from textual.keys import KEY_NAME_REPLACEMENTS, KEY_TO_UNICODE_NAME, REPLACED_KEYS, format_key

from reviewtui.errors import ConfigError


class KeyAction(NamedTuple):
    """One bindable action: shown in the footer?, what it does, its default keys."""

    show: bool
    description: str
    keys: str


#: Every action the workbench binds, in the order the help screen lists them.
ACTIONS: Mapping[str, KeyAction] = {
    "next_unit": KeyAction(False, "next unit", "j,down"),
    "prev_unit": KeyAction(False, "previous unit", "k,up"),
    "next_file": KeyAction(False, "next file", "n"),
    "prev_file": KeyAction(False, "previous file", "p"),
    "level_1": KeyAction(False, "level: diff only", "1"),
    "level_2": KeyAction(False, "level: function", "2"),
    "level_3": KeyAction(False, "level: file context", "3"),
    "level_4": KeyAction(False, "level: full file", "4"),
    "lower_level": KeyAction(False, "lower the level", "["),
    "raise_level": KeyAction(False, "raise the level", "]"),
    "edit_requests": KeyAction(True, "requests", "e"),
    "toggle_skip": KeyAction(True, "skip", "s"),
    "toggle_reviewed": KeyAction(True, "reviewed", "space"),
    "filter": KeyAction(True, "filter", "slash"),
    "sort": KeyAction(False, "sort", "o"),
    "build_bundles": KeyAction(True, "bundles", "b"),
    "run_scanners": KeyAction(False, "run scanners", "S"),
    "run_planner": KeyAction(True, "plan", "P"),
    "review": KeyAction(True, "review", "R"),
    "toggle_chat": KeyAction(True, "chat", "c"),
    "learn": KeyAction(False, "learn rules", "L"),
    "zoom": KeyAction(True, "zoom the focused pane (table, detail or chat), and back",
                      "z,ctrl+o"),
    "next_finding": KeyAction(True, "next open finding", "f"),
    "prev_finding": KeyAction(False, "previous open finding", "F"),
    "accept_finding": KeyAction(True, "accept the finding (again: reopen)", "a"),
    "accept_with_comment": KeyAction(False, "accept the finding as a comment of yours", "A"),
    "dismiss_finding": KeyAction(True, "dismiss the finding, with a reason (again: reopen)",
                                 "x"),
    "fix_finding": KeyAction(True, "fix: preview the finding's fix (in the preview: a applies "
                             "it, u undoes it, y copies the patch, r asks again), or ask the "
                             "model for one (also /fix in the chat)", "ctrl+f"),
    "undo_fix": KeyAction(True, "undo the fix applied to the finding (its file's exact "
                          "previous bytes)", "u"),
    "comment": KeyAction(True, "comment on lines of the unit (new, edit, delete)", "m"),
    "verdict": KeyAction(False, "verdict: approve, request changes, comment", "V"),
    "export_review": KeyAction(True, "export the review (Markdown, JSON, SARIF, rdjson)", "X"),
    "open_editor": KeyAction(False, "open the unit's file in $VISUAL / $EDITOR", "ctrl+e"),
    "edit_description": KeyAction(False, "write the change's description (what it is for) "
                                  "in $VISUAL / $EDITOR", "i"),
    "toggle_intent": KeyAction(False, "show the change's whole stated purpose, and back", "I"),
    "refresh": KeyAction(True, "collect the change again (keeps every decision)", "r"),
    "help": KeyAction(True, "help", "question_mark"),
    "quit": KeyAction(True, "quit", "q"),
}

#: The footer: actions shown under one label (``1234 level``), and shorter labels than the help's.
FOOTER_GROUPS = {"next_unit": "move", "prev_unit": "move", "next_file": "file",
                 "prev_file": "file", "level_1": "level", "level_2": "level",
                 "level_3": "level", "level_4": "level", "lower_level": "±level",
                 "raise_level": "±level", "next_finding": "finding", "prev_finding": "finding"}
FOOTER_LABELS = {"run_scanners": "scan", "toggle_reviewed": "done", "edit_requests": "reqs",
                 "build_bundles": "bundle", "zoom": "zoom", "next_finding": "finding",
                 "accept_finding": "accept", "dismiss_finding": "dismiss",
                 "comment": "comment", "export_review": "export", "refresh": "refresh",
                 "verdict": "verdict", "open_editor": "edit", "fix_finding": "fix",
                 "undo_fix": "undo fix"}
# The footer's order: what a newcomer needs first (a narrow terminal cuts the end; ? lists all).
FOOTER_ORDER = ("help", "quit", "toggle_chat", "review", "run_planner", "build_bundles", "filter",
                "toggle_reviewed", "toggle_skip", "edit_requests", "accept_finding",
                "dismiss_finding", "fix_finding", "undo_fix", "comment", "export_review",
                "refresh", "zoom",
                "sort", "run_scanners")

#: Keys the workbench handles besides ``ACTIONS`` (Textual's, or Escape's own handler; not
#: rebindable), listed in the help after them.
FIXED_KEYS: tuple[tuple[str, str], ...] = (
    ("escape", "stop a running planner, review or chat answer at once; else leave the filter "
               "or the chat input, or restore a zoomed pane"),
    ("ctrl+c", "stop a running planner, review or chat answer at once (with none running: "
               "how to quit)"),
    ("tab,shift+tab", "next pane / previous pane"),
    ("ctrl+p", "command palette: every action by name"),
)

#: The default key map, action -> keys (as written in ``ACTIONS``).
DEFAULT_KEYS: Mapping[str, str] = {name: action.keys for name, action in ACTIONS.items()}

#: Keys Textual itself binds ahead of the app's bindings: an action bound to one would never
#: run. The value is what Textual does with the key, and the action allowed to name it anyway.
RESERVED_KEYS: Mapping[str, tuple[str, str | None]] = {
    "ctrl+q": ("quits", "quit"),
    "ctrl+c": ("copies text", None),
    "ctrl+p": ("opens the command palette", None),
    "tab": ("moves the focus", None),
    "shift+tab": ("moves the focus", None),
}

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})

#: Keys that are not characters (Textual's names); characters are checked with ``unicodedata``.
NAMED_KEYS = frozenset(
    {
        "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "insert", "delete",
        "backspace", "tab", "enter", "escape", "space",
        *(f"f{number}" for number in range(1, 25)),
    }
)

# Names Textual never reports for a key press, mapped to the ones it does.
_ALIASES = {"return": "enter", "esc": "escape"}


def _character_name(character: str) -> str:
    """Textual's key name for one printable character: ``[`` -> ``left_square_bracket``."""
    if character.isalnum():
        return character
    name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    return KEY_NAME_REPLACEMENTS.get(name, name)


def _is_character_name(name: str) -> bool:
    """``left_square_bracket``, ``slash``, ``question_mark``: the name of a printable character."""
    original = REPLACED_KEYS.get(name, name)
    unicode_name = KEY_TO_UNICODE_NAME.get(original, original.replace("_", " ").upper())
    try:
        character = unicodedata.lookup(unicode_name)
    except KeyError:
        return False
    return character.isprintable() and not character.isspace() and not character.isalnum()


def normalize_key(key: str) -> str:
    """One key in Textual's spelling; ``ValueError`` with the reason when it is not a key."""
    text = key.strip()
    if not text:
        raise ValueError("empty key")
    if text == "+":
        return "plus"
    *modifiers, last = text.split("+")
    mods = [m.strip().lower() for m in modifiers]
    for modifier in mods:
        if modifier not in MODIFIERS:
            raise ValueError(f"unknown modifier {modifier!r} in {text!r}")
    if len(set(mods)) != len(mods):
        raise ValueError(f"repeated modifier in {text!r}")
    last = last.strip()
    if len(last) == 1:
        if not last.isprintable() or last.isspace():
            raise ValueError(f"{text!r} is not a key (write 'space' for the space bar)")
        name = _character_name(last)
    else:
        name = last.lower()
        name = _ALIASES.get(name, KEY_NAME_REPLACEMENTS.get(name, name))
        if name not in NAMED_KEYS and not _is_character_name(name):
            raise ValueError(f"unknown key {last!r}")
    return "+".join([*mods, name])


def normalize_keys(keys: str) -> str:
    """A comma-separated key list in Textual's spelling, duplicates removed."""
    if not keys.strip():
        raise ValueError("no keys given")
    normalized: list[str] = []
    for part in keys.split(","):
        key = normalize_key(part)
        if key not in normalized:
            normalized.append(key)
    return ",".join(normalized)


def resolve_keys(overrides: Mapping[str, str]) -> dict[str, str]:
    """The key map with the user's overrides applied: action -> normalised keys.

    An override replaces the action's keys (it does not add to them). Raises ``ConfigError`` for
    an unknown action, a key Textual cannot name, one key bound to two actions, or a key Textual
    keeps for itself (``RESERVED_KEYS``) — in the last two cases a binding would silently
    never run.
    """
    unknown = sorted(set(overrides) - set(ACTIONS))
    if unknown:
        known = ", ".join(ACTIONS)
        raise ConfigError(f"tui.keys: unknown action {unknown[0]!r}", hint=f"known: {known}")
    resolved: dict[str, str] = {}
    for action, default in DEFAULT_KEYS.items():
        keys = overrides.get(action, default)
        if not isinstance(keys, str):
            raise ConfigError(f"tui.keys.{action}: keys must be a string like \"j,down\"")
        try:
            resolved[action] = normalize_keys(keys)
        except ValueError as exc:
            raise ConfigError(f"tui.keys.{action}: {exc}") from None
    owner: dict[str, str] = {}
    for action, keys in resolved.items():
        for key in keys.split(","):
            if key in RESERVED_KEYS and RESERVED_KEYS[key][1] != action:
                raise ConfigError(f"tui.keys.{action}: {key!r} is reserved: Textual "
                                  f"{RESERVED_KEYS[key][0]} with it")
            if key in owner:
                first, second = sorted((owner[key], action))
                raise ConfigError(f"tui.keys: {key!r} is bound to both {first} and {second}")
            owner[key] = action
    return resolved


def key_display(key: str) -> str:
    """One key as it is typed, for the help: ``left_square_bracket`` -> ``[``, ``slash`` ->
    ``/``, ``escape`` -> ``esc``, ``ctrl+o`` stays ``ctrl+o``."""
    *modifiers, last = key.split("+")
    return "+".join([*modifiers, format_key(last)])


def help_rows(bound: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """The help's rows: every action with the keys ``bound`` to it (action -> Textual's key
    names), as typed, in the order of ``ACTIONS``; then ``FIXED_KEYS``."""
    rows = [(", ".join(key_display(k) for k in bound[action]), entry.description)
            for action, entry in ACTIONS.items() if bound.get(action)]
    rows += [(", ".join(key_display(k) for k in keys.split(",")), description)
             for keys, description in FIXED_KEYS]
    return rows


def footer_bindings(keys: Mapping[str, str]) -> list[Binding]:
    """One binding per key of the key map ``keys`` (action -> normalised keys), in the
    footer's order. The footer shows the first key of the actions marked ``show`` and of the
    grouped ones (``1234 level``); every other key is bound all the same, and ``?`` and the
    command palette list them all."""
    # Single keys first in FOOTER_ORDER, grouped ones last (a group followed by a single
    # key loses the space between them in Textual's compact footer).
    rank = {action: n for n, action in enumerate(FOOTER_ORDER)}
    ordered = sorted(keys.items(), key=lambda pair: (
        pair[0] in FOOTER_GROUPS, rank.get(pair[0], len(rank))))
    bindings: list[Binding] = []
    for action, action_keys in ordered:
        group = FOOTER_GROUPS.get(action)
        for n, key in enumerate(action_keys.split(",")):
            label = FOOTER_LABELS.get(action, ACTIONS[action][1])
            shown = n == 0 and (ACTIONS[action].show or group is not None)
            bindings.append(Binding(key, action, label, show=shown,
                                    group=Binding.Group(group) if group else None))
    return bindings
