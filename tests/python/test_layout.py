"""The house keeps its shape: the core's folders are stages, each using only the stages
before it (their order is the library's source list in CMakeLists.txt), private headers are
never under the installed prefix, and the newcomer's questions in docs/architecture.md are
each answered by one file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def stage_order() -> list[str]:
    """The stages in the order the library lists its sources."""
    text = (ROOT / "CMakeLists.txt").read_text()
    listing = text[text.index("add_library(clusterscore STATIC") :].split(")", 1)[0]
    order: list[str] = []
    for source in re.findall(r"src/(\w+)/\w+\.cpp", listing):
        if source not in order:
            order.append(source)
    return order


def test_every_source_is_in_a_stage_the_library_lists() -> None:
    order = stage_order()
    folders = sorted(p.name for p in SRC.iterdir() if p.is_dir())
    assert sorted(order) == folders, "a folder of src/ is not in the library's source list"
    assert not list(SRC.glob("*.cpp")) and not list(SRC.glob("*.h")), "a file outside a stage"
    listed = set(re.findall(r"src/\w+/\w+\.cpp", (ROOT / "CMakeLists.txt").read_text()))
    on_disk = {str(p.relative_to(ROOT)) for p in SRC.glob("*/*.cpp")}
    assert on_disk == listed


def test_includes_run_down_the_stages_only() -> None:
    order = stage_order()
    installed = {p.name for p in (ROOT / "include" / "clusterscore").glob("*.h")}
    upward = []
    for path in sorted(SRC.glob("*/*")):
        own = order.index(path.parent.name)
        for target in INCLUDE.findall(path.read_text()):
            folder, _, name = target.partition("/")
            if folder == "clusterscore":
                assert name in installed, f"{path.relative_to(ROOT)}: {target} is not installed"
                continue
            assert folder in order, f"{path.relative_to(ROOT)}: {target} is not under a stage"
            assert (SRC / target).exists(), f"{path.relative_to(ROOT)}: {target} does not exist"
            if order.index(folder) > own:
                upward.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not upward, "includes running back up the stages:\n" + "\n".join(upward)


def test_a_newcomers_questions_each_have_one_file() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text[text.index("## A newcomer's questions") :].split("\n## ", 1)[0]
    answers = re.findall(r"^\| (.+\?) \| `([^`]+)` \|", section, re.M)
    questions = [q for q, _ in answers]
    for asked in ("where is precision computed", "where are the intervals",
                  "where does Spark hand over to the core", "where is a weight checked",
                  "where would a new metric go"):  # fmt: skip
        assert any(asked.lower() in q.lower() for q in questions), asked
    for question, path in answers:
        assert (ROOT / path).is_file(), f"{question}: {path} does not exist"
