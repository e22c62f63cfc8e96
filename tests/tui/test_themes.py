"""Themes: a dark default, built-ins, Textual's own, and user YAML files in `$HERMES_HOME/themes/`."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import load_config
from tests.support.tui_support import MODEL_CONFIG, make_app, make_home
from themes.builtin import BUILTIN_THEMES, DEFAULT_THEME
from themes.user import ThemeFileError, load_theme_file, load_user_themes, theme_from_mapping
from widgets.transcript_blocks import NoticeBlock

NIGHT_OWL = 'name: night-owl\ndark: true\nprimary: "#82aaff"\nbackground: "#011627"\nforeground: "#d6deeb"\n'


def write_theme(name: str, text: str) -> Path:
    home = make_home()
    home.themes.mkdir(exist_ok=True)
    path = home.themes / name
    path.write_text(text, encoding="utf-8")
    return path


def test_builtin_themes_are_dark_and_the_default_is_one_of_them() -> None:
    names = [t.name for t in BUILTIN_THEMES]
    assert DEFAULT_THEME == "hws-dark" and DEFAULT_THEME in names and len(names) >= 4
    assert all(theme.dark for theme in BUILTIN_THEMES)


async def test_the_app_opens_on_the_dark_default_with_textuals_themes_available() -> None:
    app = make_app()
    async with app.run_test():
        assert app.theme == "hws-dark" and app.current_theme.dark
        assert {"nord", "dracula", "textual-dark", "ansi-dark", "hws-midnight"} <= set(app.available_themes)


async def test_a_user_theme_file_is_loaded_and_chosen_in_config() -> None:
    write_theme("night-owl.yaml", NIGHT_OWL)
    app = make_app(MODEL_CONFIG + "display:\n  theme: night-owl\n")
    async with app.run_test():
        assert app.theme == "night-owl"
        assert app.current_theme.background == "#011627"
        assert app.startup_warnings == []


async def test_an_unknown_theme_in_config_falls_back_with_a_warning() -> None:
    app = make_app(MODEL_CONFIG + "display:\n  theme: sunshine\n")
    async with app.run_test():
        assert app.theme == "hws-dark"
        assert any("display.theme 'sunshine'" in w for w in app.startup_warnings)


async def test_slash_theme_switches_and_explains_unknown_names() -> None:
    app = make_app(MODEL_CONFIG)
    async with app.run_test() as pilot:
        app.main_screen.prompt.set_text("/theme nord")
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "nord"
        app.main_screen.prompt.set_text("/theme nope")
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "nord"
        notices = [b.text for b in app.main_screen.transcript.query(NoticeBlock)]
        assert any(n.startswith("No theme 'nope'. Themes:") and "hws-dark" in n for n in notices)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("primary: [oops\n", "broken.yaml line 2"),
        ("dark: true\n", "needs at least a `primary`"),
        ('primary: "not-a-colour"\n', "is not a colour"),
        ("- a\n- b\n", "must be a mapping"),
        ('name: "bad name!"\nprimary: red\n', "theme name"),
        ("primary: red\nluminosity_spread: 7\n", "between"),
    ],
)
def test_bad_theme_files_are_skipped_with_a_sentence(text: str, message: str) -> None:
    path = write_theme("broken.yaml", text)
    with pytest.raises(ThemeFileError, match=message.replace("`", ".").replace("[", r"\[")):
        load_theme_file(path)
    loaded = load_user_themes(path.parent)
    assert loaded.themes == [] and len(loaded.warnings) == 1 and str(path) in loaded.warnings[0]


def test_non_utf8_and_unknown_keys() -> None:
    path = write_theme("latin.yaml", "")
    path.write_bytes(b"primary: \xff\n")
    with pytest.raises(ThemeFileError, match="not UTF-8"):
        load_theme_file(path)
    theme, warnings = theme_from_mapping({"primary": "#123456", "sparkle": 1}, "x.yaml", "x")
    assert theme.name == "x" and warnings == ["x.yaml: unknown theme key `sparkle` is ignored."]


async def test_a_broken_theme_file_never_stops_the_app() -> None:
    write_theme("a-broken.yaml", "primary: [oops\n")
    write_theme("night-owl.yaml", NIGHT_OWL)
    app = make_app(MODEL_CONFIG)
    async with app.run_test():
        assert "night-owl" in app.available_themes
        assert any("a-broken.yaml line" in w for w in app.startup_warnings)


def test_a_theme_file_linking_out_of_the_home_is_skipped(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(NIGHT_OWL, encoding="utf-8")
    home = make_home()
    home.themes.mkdir(exist_ok=True)
    (home.themes / "link.yaml").symlink_to(outside)
    loaded = load_user_themes(home.themes, home.root)
    assert loaded.themes == [] and "outside the home" in loaded.warnings[0]


async def test_a_theme_picked_in_the_picker_is_kept() -> None:
    """The picker (/theme alone, ctrl+p) said nothing, and the theme was gone at the next start; a
    theme chosen any way is now kept in config.yaml (tests/tui/test_tui_kept_settings.py: the file)."""
    notices: list[str] = []
    app = make_app(MODEL_CONFIG)
    async with app.run_test() as pilot:
        original = app.notify
        app.notify = lambda message, **kw: (notices.append(str(message)), original(message, **kw))[1]  # type: ignore[method-assign]
        app.main_screen.prompt.set_text("/theme")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*"nord")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.theme == "nord"
        assert any(n.startswith("Theme nord kept: display.theme in") for n in notices), notices
        app.main_screen.prompt.set_text("/theme nord")  # the theme in use: nothing to write or say
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        assert app.theme == "nord" and len(notices) == 1, notices
        assert load_config(app.home.root).display.theme == "nord"
