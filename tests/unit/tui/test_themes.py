"""Theme files: shipped ones load, user ones replace by name, broken ones are reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.color import Color

from reviewtui.config import data_dir, load_settings
from reviewtui.tui.themes import DEFAULT_THEME, load_theme_file, load_themes, user_themes_dir

GOOD = """\
name = "{name}"
dark = {dark}
primary = "{primary}"
background = "#101010"
variables = {{ "block-cursor-text-style" = "bold" }}
"""


def write(folder: Path, file: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_themes_load_without_problems(tmp_path: Path) -> None:
    load = load_themes(tmp_path / "none")
    assert load.problems == []
    assert load.names == ["reviewtui-dark", "reviewtui-light"]
    dark, light = load.themes
    assert dark.dark and not light.dark
    assert dark.name == DEFAULT_THEME
    assert Color.parse(dark.primary) == Color.parse("#5fafff")
    for theme in load.themes:
        theme.to_color_system()  # Textual derives every shade without complaint


def test_every_shipped_file_is_a_valid_theme() -> None:
    files = sorted(data_dir("themes").glob("*.toml"))
    assert files
    for path in files:
        assert load_theme_file(path).name == path.stem


def test_default_user_dir_follows_xdg_config_home(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    folder = tmp_path / "xdg" / "reviewtui" / "themes"
    assert user_themes_dir() == folder
    write(folder, "mine.toml", GOOD.format(name="mine", dark="true", primary="#123456"))
    load = load_themes()
    assert load.problems == []
    assert load.names == ["reviewtui-dark", "reviewtui-light", "mine"]


def test_user_theme_replaces_shipped_one_of_the_same_name(tmp_path: Path) -> None:
    write(tmp_path, "custom-dark.toml",
          GOOD.format(name="reviewtui-dark", dark="true", primary="#ff00ff"))
    load = load_themes(tmp_path)
    assert load.problems == []
    assert load.names == ["reviewtui-dark", "reviewtui-light"]  # replaced in place
    theme = load.get("reviewtui-dark")
    assert theme is not None
    assert Color.parse(theme.primary) == Color.parse("#ff00ff")
    assert theme.variables == {"block-cursor-text-style": "bold"}


@pytest.mark.parametrize(("text", "complaint"), [
    ('name = "x"\nprimary = "#12"\n', "primary: '#12' is not a colour"),
    ('name = "x"\nprimary = "#123456"\nbackground = "sky"\n', "background: 'sky' is not a colour"),
    ('primary = "#123456"\n', "name: Field required"),
    ('name = ""\nprimary = "#123456"\n', "name: String should have at least 1 character"),
    ('name = "two words"\nprimary = "#123456"\n', "name: must not contain spaces"),
    ('name = "x"\n', "primary: Field required"),
    ('name = "x"\nprimary = "#123456"\nprimay = "#000"\n', "primay: Extra inputs"),
    ('name = "x"\nprimary = "#123456"\ndark = "yes please"\n', "dark: Input should be"),
    ('name = "x"\nprimary = "#123456"\nvariables = ["a"]\n', "variables: Input should be"),
    ('name = "x"\nprimary = 5\n', "primary: Input should be a valid string"),
    ('name = "x\nprimary = "#123456"\n', "not valid TOML"),
])
def test_broken_file_is_reported_and_skipped(tmp_path: Path, text: str, complaint: str) -> None:
    path = write(tmp_path, "broken.toml", text)
    write(tmp_path, "fine.toml", GOOD.format(name="fine", dark="false", primary="#abcdef"))
    load = load_themes(tmp_path)
    assert load.names == ["reviewtui-dark", "reviewtui-light", "fine"]
    [problem] = load.problems
    assert problem.startswith(f"{path}: ")
    assert complaint in problem
    assert "\n" not in problem


def test_undecodable_and_unreadable_files_are_reported(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    tmp_path.mkdir(exist_ok=True)
    binary.write_bytes(b'name = "\xff\xfe"\nprimary = "#123456"\n')
    (tmp_path / "folder.toml").mkdir()  # not a file: ignored
    write(tmp_path, "notes.txt", "not a theme")  # not *.toml: ignored
    load = load_themes(tmp_path)
    assert load.names == ["reviewtui-dark", "reviewtui-light"]
    assert [p.split(": ", 1)[0] for p in load.problems] == [str(binary)]


def test_two_user_files_with_one_name_are_reported(tmp_path: Path) -> None:
    first = write(tmp_path, "a.toml", GOOD.format(name="same", dark="true", primary="#111111"))
    second = write(tmp_path, "b.toml", GOOD.format(name="same", dark="true", primary="#222222"))
    load = load_themes(tmp_path)
    assert load.problems == [f"{second}: theme 'same' is also defined in {first}; using this one"]
    theme = load.get("same")
    assert theme is not None
    assert Color.parse(theme.primary) == Color.parse("#222222")


def test_missing_user_dir_is_not_a_problem(tmp_path: Path) -> None:
    assert load_themes(tmp_path / "does" / "not" / "exist").problems == []


def test_choose_falls_back_to_the_default_with_a_problem(tmp_path: Path) -> None:
    load = load_themes(tmp_path)
    assert load.choose("reviewtui-light") == ("reviewtui-light", None)
    assert load.choose("nord") == ("nord", None)  # Textual's own themes are fine too
    name, problem = load.choose("reviewtui-purple")
    assert name == DEFAULT_THEME
    assert problem is not None and "unknown theme 'reviewtui-purple'" in problem


def test_settings_name_the_theme(repo_root: Path) -> None:
    assert load_settings(repo_root).tui.theme == "reviewtui-light"


@pytest.fixture
def repo_root(tmp_path: Path) -> Path:
    (tmp_path / ".reviewtui.toml").write_text('[tui]\ntheme = "reviewtui-light"\n')
    return tmp_path


async def test_loaded_themes_register_and_apply_in_textual(tmp_path: Path) -> None:
    write(tmp_path, "mine.toml", GOOD.format(name="mine", dark="false", primary="#336699"))
    load = load_themes(tmp_path)

    class ThemedApp(App[None]):
        def on_mount(self) -> None:
            for theme in load.themes:
                self.register_theme(theme)
            self.theme = "mine"

    app = ThemedApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert {"reviewtui-dark", "reviewtui-light", "mine"} <= set(app.available_themes)
        assert app.theme == "mine"
        assert app.current_theme.dark is False
        app.theme = DEFAULT_THEME
        await pilot.pause()
        assert app.current_theme.dark is True
