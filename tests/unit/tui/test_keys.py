"""The key map: defaults, the user's overrides, and errors that name the action or the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from reviewtui.config import Settings, load_settings, user_config_path
from reviewtui.errors import ConfigError
from reviewtui.tui.keys import ACTIONS, DEFAULT_KEYS, normalize_key, resolve_keys

BRIEF_DEFAULTS = {
    "next_unit": "j,down", "prev_unit": "k,up", "next_file": "n", "prev_file": "p",
    "level_1": "1", "level_2": "2", "level_3": "3", "level_4": "4",
    "lower_level": "[", "raise_level": "]", "edit_requests": "e", "toggle_skip": "s",
    "toggle_reviewed": "space", "filter": "slash", "sort": "o", "build_bundles": "b",
    "run_scanners": "S", "run_planner": "P", "review": "R", "toggle_chat": "c", "zoom": "z,ctrl+o",
    "help": "question_mark", "quit": "q", "learn": "L",
    "next_finding": "f", "prev_finding": "F", "accept_finding": "a", "accept_with_comment": "A",
    "dismiss_finding": "x", "fix_finding": "ctrl+f", "undo_fix": "u", "comment": "m",
    "verdict": "V", "export_review": "X",
    "open_editor": "ctrl+e", "refresh": "r",
    "edit_description": "i", "toggle_intent": "I",  # the change's stated purpose
}


def test_default_key_map() -> None:
    assert dict(DEFAULT_KEYS) == BRIEF_DEFAULTS
    for action in ACTIONS.values():
        assert action.description and action.description == action.description.strip()
        assert action.show in (True, False)
        assert ACTIONS["quit"][0] is True and ACTIONS["quit"][1] == "quit"  # tuple access


def test_resolved_defaults_use_textual_names() -> None:
    keys = resolve_keys({})
    assert list(keys) == list(ACTIONS)
    assert keys["lower_level"] == "left_square_bracket"
    assert keys["raise_level"] == "right_square_bracket"
    assert keys["next_unit"] == "j,down"
    assert keys["run_scanners"] == "S"  # case matters: S is not s
    assert keys["toggle_skip"] == "s"


def test_override_replaces_the_actions_keys() -> None:
    keys = resolve_keys({"next_unit": "ctrl+n", "filter": "/,g"})
    assert keys["next_unit"] == "ctrl+n"
    assert keys["filter"] == "slash,g"
    assert keys["prev_unit"] == "k,up"


def test_unknown_action_is_named() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_keys({"next_unti": "x"})
    assert "unknown action 'next_unti'" in str(info.value)
    assert "next_unit" in str(info.value)  # the hint lists the known actions


@pytest.mark.parametrize(("keys", "complaint"), [
    ("ctlr+q", "unknown modifier 'ctlr'"),
    ("foo", "unknown key 'foo'"),
    ("", "no keys given"),
    ("a,,b", "empty key"),
    ("ctrl+ctrl+a", "repeated modifier"),
    ("\t", "no keys given"),
])
def test_bad_key_names_the_action_and_the_key(keys: str, complaint: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_keys({"quit": keys})
    assert str(info.value).startswith("tui.keys.quit: ")
    assert complaint in str(info.value)


def test_non_string_keys_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"tui\.keys\.quit: keys must be a string"):
        resolve_keys({"quit": ["q"]})  # type: ignore[dict-item]


def test_keys_textual_keeps_for_itself_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"tui.keys.help: 'tab' is reserved: Textual moves"):
        resolve_keys({"help": "h,tab"})
    with pytest.raises(ConfigError, match=r"'ctrl\+q' is reserved: Textual quits with it"):
        resolve_keys({"review": "ctrl+q"})
    assert resolve_keys({"quit": "q,ctrl+q"})["quit"] == "q,ctrl+q"  # same meaning: fine


def test_one_key_for_two_actions_is_a_conflict() -> None:
    with pytest.raises(ConfigError, match="'n' is bound to both next_file and next_unit"):
        resolve_keys({"next_unit": "n"})
    # moving the other action away resolves it
    assert resolve_keys({"next_unit": "n", "next_file": "N"})["next_unit"] == "n"


@pytest.mark.parametrize(("written", "textual"), [
    ("[", "left_square_bracket"), ("?", "question_mark"), ("/", "slash"), ("-", "minus"),
    ("+", "plus"), ("hyphen_minus", "minus"), ("solidus", "slash"), ("Ctrl+Down", "ctrl+down"),
    ("shift+tab", "shift+tab"), ("return", "enter"), ("esc", "escape"), ("F5", "f5"),
    ("comma", "comma"), ("full_stop", "full_stop"), ("less_than_sign", "less_than_sign"),
    ("alt+x", "alt+x"), ("G", "G"), ("7", "7"),
])
def test_key_spellings(written: str, textual: str) -> None:
    assert normalize_key(written) == textual


def test_settings_carry_theme_and_keys(tmp_path: Path) -> None:
    (tmp_path / ".reviewtui.toml").write_text(
        '[tui]\ntheme = "reviewtui-light"\n\n[tui.keys]\nnext_unit = "ctrl+n"\n')
    settings = load_settings(tmp_path)
    assert settings.tui.theme == "reviewtui-light"
    assert settings.tui.keys == {"next_unit": "ctrl+n"}
    assert resolve_keys(settings.tui.keys)["next_unit"] == "ctrl+n"
    assert settings.units == Settings().units  # the other sections are untouched


def test_tui_defaults_and_user_file_merge(tmp_path: Path) -> None:
    assert Settings().tui.theme == "reviewtui-dark"
    assert Settings().tui.keys == {}
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('[tui.keys]\nquit = "ctrl+q"\nhelp = "h"\n')
    (tmp_path / ".reviewtui.toml").write_text('[tui.keys]\nhelp = "f1"\n')
    settings = load_settings(tmp_path)
    assert settings.tui.keys == {"quit": "ctrl+q", "help": "f1"}  # merged key by key
    assert settings.tui.theme == "reviewtui-dark"


@pytest.mark.parametrize(("text", "complaint"), [
    ('[tui]\ncolour = "x"\n', "tui.colour: Extra inputs are not permitted"),
    ('[tui]\ntheme = ""\n', "tui.theme: String should have at least 1 character"),
    ("[tui.keys]\nquit = 1\n", "tui.keys.quit: Input should be a valid string"),
])
def test_tui_section_errors_name_the_key(tmp_path: Path, text: str, complaint: str) -> None:
    (tmp_path / ".reviewtui.toml").write_text(text)
    with pytest.raises(ConfigError, match=complaint):
        load_settings(tmp_path)


async def test_resolved_keys_fire_their_actions_in_textual() -> None:
    """Every resolved key, pressed in a real Textual app, runs the action it is bound to."""
    keys = resolve_keys({"next_unit": "ctrl+n,j", "quit": "ctrl+x"})
    fired: list[str] = []

    class KeyApp(App[None]):
        def on_mount(self) -> None:
            for action, bound in keys.items():
                self.bind(bound, f"record('{action}')", description=ACTIONS[action].description)

        def action_record(self, action: str) -> None:
            fired.append(action)

    app = KeyApp()
    async with app.run_test() as pilot:
        expected: list[str] = []
        for action, bound in keys.items():
            for key in bound.split(","):
                await pilot.press(key)
                expected.append(action)
        await pilot.pause()
    assert fired == expected
