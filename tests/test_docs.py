"""The documentation stands alone: every relative link resolves, the front page stays short,
nothing user-facing points outside the repository, and the record format page matches the
engine (its example replays, its checkpoint keys and phases are the engine's)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
PACKAGES = ("companion", "vision", "hardware", "web", "calibration")
TEXT = {".py", ".md", ".json", ".toml", ".js", ".html", ".css", ".txt", ".cfg"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|(?:src|href)=\"([^\"]+)\"")


def unfenced(text: str) -> str:
    """The text without fenced code blocks."""
    return re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)


def prose(text: str) -> str:
    """The text without code blocks and inline code, where links are not links."""
    return re.sub(r"`[^`\n]*`", "", unfenced(text))


def slugs(page: Path) -> set[str]:
    """The anchors GitHub gives a Markdown page's headings."""
    found: set[str] = set()
    for line in unfenced(page.read_text()).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if not m:
            continue
        base = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        slug, n = base, 0
        while slug in found:
            n += 1
            slug = f"{base}-{n}"
        found.add(slug)
    return found


def relative_links(page: Path) -> list[str]:
    links = [a or b for a, b in LINK.findall(prose(page.read_text()))]
    return [x for x in links if not re.match(r"[a-z]+:", x)]


def test_the_docs_exist():
    names = {p.name for p in PAGES}
    assert {"README.md", "records.md", "playing.md", "calibration.md", "raspberry-pi.md", "api.md",
            "dice-reader.md", "advisor.md", "benchmarks.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    broken = []
    for link in relative_links(page):
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in slugs(target):
            broken.append(f"{link}: no heading #{anchor} in {target.name}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_the_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Top\n[ok](#top) [gone](missing.md) `[code](nowhere.md)`\n"
                    "<img src=\"img/x.png\">\n```\n[block](nowhere.md)\n```\n")
    assert relative_links(page) == ["#top", "missing.md", "img/x.png"]
    assert slugs(page) == {"top"}
    page.write_text("## The `Die.choices` rule, again!\n## The `Die.choices` rule, again!\n")
    assert slugs(page) == {"the-diechoices-rule-again", "the-diechoices-rule-again-1"}


def test_the_readme_is_a_front_page():
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/"
    first_block = (REPO / "README.md").read_text().split("```bash\n", 1)[1].splitlines()
    assert first_block[0].startswith("scripts/run ") and first_block[1].startswith("scripts/test ")
    assert "images/phone-page.png" in "\n".join(lines) and "images/camera-read.png" in "\n".join(lines)


def user_facing_files() -> list[Path]:
    files = [*PAGES, *(REPO / "docs").rglob("*")]
    for package in PACKAGES:
        files += [p for p in (REPO / package).rglob("*")
                  if "__pycache__" not in p.parts
                  and not p.is_relative_to(REPO / "vision" / "training")]
    return [p for p in files if p.is_file() and p.suffix in TEXT]


def test_nothing_user_facing_points_outside_the_repository():
    files = user_facing_files()
    assert len(files) > 100  # the packages were found
    outside = [f"{p.relative_to(REPO)}:{i}" for p in files
               for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1)
               if "../shared" in line or "TRANSCRIPTS.md" in line or "RULES.md" in line]
    assert not outside, "points to files a clone does not have: " + ", ".join(outside)


def records_page() -> str:
    return (REPO / "docs" / "records.md").read_text()


def test_the_record_example_replays():
    from companion.records import replay_record

    block = records_page().split("<!-- the test suite replays this record -->\n```json\n", 1)[1]
    record = json.loads(block.split("```", 1)[0])
    result = replay_record(record)
    assert result.ok, result.describe()
    assert any(s.get("illegal") for s in record["steps"]) and any("expect" in s for s in record["steps"])


def test_the_record_page_names_every_checkpoint_key_and_phase():
    from companion.rules import checkpoint, new_game
    from companion.rules.state import Phase

    table = records_page().split("## Checkpoints", 1)[1]
    documented = set(re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE))
    assert documented == set(checkpoint(new_game({"players": ["A", "B"]})))
    assert all(f"`{phase.value}`" in table for phase in Phase)


CONFLICT = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)
TOP = (*PACKAGES, "docs", "tests", "benchmarks", "scripts", ".ci")


def conflict_markers(text: str) -> list[str]:
    """The lines a merge left unresolved (`<<<<<<< ours`, `=======`, `>>>>>>> theirs`)."""
    return [m.group(0) for m in CONFLICT.finditer(text)]


def test_no_merge_left_conflict_markers():
    files = [REPO / "README.md", REPO / "pyproject.toml",
             *(p for top in TOP if (REPO / top).is_dir() for p in (REPO / top).rglob("*")
               if p.is_file() and (p.suffix in TEXT or p.parent.name == "scripts"))]
    found = [f"{p.relative_to(REPO)}: {m}" for p in files
             for m in conflict_markers(p.read_text(errors="replace"))]
    assert not found, found


def test_the_conflict_check_finds_markers():
    text = "a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> split\n"
    assert len(conflict_markers(text)) == 3
    assert conflict_markers("a heading\n=======\n") == ["======="]  # setext: not used here
    assert conflict_markers("code: x ======= y\n") == []
