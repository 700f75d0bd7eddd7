"""The documentation stays true: every relative link in the README and docs/ resolves,
docs/python.md is what the docstrings say, the extension's type stub is what nanobind's
stubgen makes of the built module, and nothing points outside the repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code is not a link
    text = re.sub(r"`[^`]*`", "", text)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    for target in _relative_links(page):
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{page.name}: link to {target} does not resolve"
        assert ROOT in path.parents or path == ROOT, f"{page.name}: {target} leaves the repo"


def test_the_link_check_can_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[x](missing.md) and [y](https://example.org) `[z](code.md)`")
    assert _relative_links(page) == ["missing.md"]


def test_docs_and_code_cite_nothing_outside_the_repository():
    sources = [*PAGES, *(ROOT / "python").rglob("*.py"), *(ROOT / "src").rglob("*.*")]
    sources += [*(ROOT / "include").rglob("*.h"), *(ROOT / "python" / "src").glob("*.cpp")]
    for f in sources:
        text = f.read_text()
        assert "SPEC.md" not in text and "../shared" not in text, f


def test_readme_is_a_guide_not_a_diary():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    assert not re.search(r"\bsession \d+", text, re.I)


def test_python_reference_matches_the_docstrings():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "python_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_extension_stub_matches_the_built_module(tmp_path):
    out = tmp_path / "_core.pyi"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nanobind.stubgen",
            "-q",
            "-m",
            "clusterscore._core",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    committed = (ROOT / "python" / "clusterscore" / "_core.pyi").read_text()
    assert out.read_text() == committed, (
        "python/clusterscore/_core.pyi is stale: regenerate it with"
        " python -m nanobind.stubgen -m clusterscore._core -o python/clusterscore/_core.pyi"
    )
