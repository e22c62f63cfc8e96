"""Tier 1: the index keeps every name, fits its token budget, favours used skills, and reports cuts."""

from __future__ import annotations

import json
import os

import pytest

from bench.skill_corpus import write_library
from engine.skills.index import CLOSING, HEADING
from engine.skills.library import SkillLibrary
from engine.text import tokens
from tests.support.skills_support import open_library, skill_text, write_skill


def test_format_has_hermes_heading_categories_and_closing_line() -> None:
    library = open_library()
    write_skill(library.home.skills, "devops/docker-build", skill_text("docker-build", "Build images fast."))
    write_skill(library.home.skills, "pdf", skill_text("pdf", "Read and fill PDFs."))
    (library.home.skills / "devops" / "DESCRIPTION.md").write_text("---\ndescription: Containers.\n---\n")
    text = library.index().text
    assert text.startswith(HEADING + "\n")
    assert text.endswith(CLOSING)
    assert "<available_skills>\n" in text and "\n</available_skills>\n" in text
    assert "  - pdf: Read and fill PDFs." in text  # no category: listed at the top level
    assert "  devops: Containers.\n    - docker-build: Build images fast." in text
    assert "skill_view(name)" in text and "skill_manage(action='patch')" in text


def test_no_skills_means_no_index() -> None:
    index = open_library().index()
    assert index.text == "" and index.tokens == 0


@pytest.mark.parametrize("count", [50, 200, 500])
def test_the_budget_holds_and_every_name_is_kept(count: int) -> None:
    library = open_library()
    names = write_library(library.home.skills, count, body_lines=3)
    index = library.index()
    assert index.tokens == tokens.count(index.text)
    assert index.tokens <= 2000
    assert index.count("hidden") == 0
    for name in names:
        assert name in index.text
    if count == 50:
        assert index.count("name") == 0  # at 50 skills every one gets a description


def test_a_small_budget_folds_the_least_used_names_into_counts_and_says_so() -> None:
    library = open_library()
    write_library(library.home.skills, 120, body_lines=1)
    index = library.index(budget=500)
    assert index.tokens <= 500
    assert 0 < index.count("hidden") < 120
    assert "more: skills_list(category='" in index.text
    assert "folded into counts" in index.summary()


def test_a_tiny_budget_still_holds_with_one_line_pointing_to_skills_list() -> None:
    library = open_library()
    write_library(library.home.skills, 120, body_lines=1)
    for budget in (250, 100):
        index = library.index(budget=budget)
        assert index.tokens <= budget
        assert "(120 skills in 25 categories: call skills_list() to see them)" in index.text


def test_most_used_skills_get_their_descriptions_first() -> None:
    library = open_library()
    names = write_library(library.home.skills, 200, body_lines=1)
    favourite = names[-1]
    usage = {favourite: {"use_count": 40, "last_used_at": "2026-11-01T10:00:00+00:00"}}
    (library.home.skills / ".usage.json").write_text(json.dumps(usage), encoding="utf-8")
    index = library.index(budget=1200)
    entry = index.entry(favourite)
    assert entry is not None and entry.shown in ("full", "cut")
    assert index.count("name") > 0  # others had to give way


def test_cut_descriptions_end_with_an_ellipsis_and_a_note_explains_it() -> None:
    library = open_library()
    long = "Handles a very particular workflow " + "with many careful steps " * 30
    for i in range(30):
        write_skill(library.home.skills, f"cat/skill-{i:02d}", skill_text(f"skill-{i:02d}", long))
    index = library.index()
    assert index.count("cut") == 30
    assert "…" in index.text and "Descriptions ending in … are cut short" in index.text
    assert index.summary().startswith("Skills index: 30 skills in ")


def test_the_index_is_rebuilt_only_when_a_skill_file_changes() -> None:
    library = open_library()
    write_skill(library.home.skills, "alpha", skill_text("alpha", "First version."))
    first = library.index()
    assert library.index() is first  # nothing changed: the same object
    again = SkillLibrary(library.home, library.config).index()
    assert again is first
    path = library.home.skills / "alpha" / "SKILL.md"
    path.write_text(skill_text("alpha", "Second version, a little longer."), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    rebuilt = library.index()
    assert rebuilt is not first and "Second version" in rebuilt.text


def test_the_index_text_is_byte_stable_for_the_same_inputs() -> None:
    library = open_library()
    write_library(library.home.skills, 80, body_lines=1)
    first = library.index().text
    SkillLibrary._rendered.clear()
    assert library.index().text == first


def test_index_token_budget_comes_from_config() -> None:
    library = open_library("skills:\n  index_token_budget: 400\n")
    write_library(library.home.skills, 60, body_lines=1)
    index = library.index()
    assert index.budget == 400 and index.tokens <= 400
