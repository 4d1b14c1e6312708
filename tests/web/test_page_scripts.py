"""The phone page's scripts, one job each (issue 24, "rooms with one job"): plain <script>
files sharing one global scope, so the page must load every one of them, the shared helpers
first, and no two may declare the same name (the later one would silently replace the other)."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import web

STATIC = Path(web.__file__).parent / "static"
TOP_LEVEL = re.compile(r"^(?:function\s+([\w$]+)|var\s+(.*))", re.MULTILINE)
NESTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\{[^}]*\}|\([^)]*\)')


def page_scripts(client) -> list[str]:
    html = client.get("/").get_data(as_text=True)
    return re.findall(r'<script src="/static/([^"]+)"></script>', html)


def declared(js: str) -> list[str]:
    """The names a script declares at its top level (functions, and each name of a var)."""
    names = []
    for func, var in TOP_LEVEL.findall(js):
        if func:
            names.append(func)
        else:  # `var a = 1, b = [...]`: the names before each `=` outside brackets and strings
            names += re.findall(r"(?:^|,\s*)([\w$]+)\s*=", NESTED.sub("", var))
    return names


def test_the_page_loads_every_script_once_with_the_helpers_first(client):
    loaded = page_scripts(client)
    assert loaded[0] == "app.js", loaded
    assert sorted(loaded) == sorted(p.name for p in STATIC.glob("*.js")), loaded
    assert len(set(loaded)) == len(loaded), loaded
    for name in loaded:
        assert client.get(f"/static/{name}").status_code == 200, name


def test_no_two_scripts_declare_the_same_name():
    owners: dict[str, list[str]] = {}
    for js in sorted(STATIC.glob("*.js")):
        for name in declared(js.read_text()):
            owners.setdefault(name, []).append(js.name)
    twice = {name: files for name, files in owners.items() if len(files) > 1}
    assert not twice, twice
    assert {"S", "joined", "h", "post", "render", "start", "renderCalib"} <= owners.keys()


def test_declared_finds_functions_and_every_var_name():
    js = ('function a(x) {}\nvar b = 1, c = [1, 2], d = {e: 3};\n  var inner = 4;\n'
          'var f = ", x = 1", g = h(1, y = 2);\nvar k = {l: 1,\n  m = 2};\n')
    assert Counter(declared(js)) == Counter(["a", "b", "c", "d", "f", "g", "k"])


def test_each_script_has_one_job_and_stays_short():
    """The house style's modules under about 400 lines, for the page's scripts too."""
    for js in STATIC.glob("*.js"):
        lines = js.read_text().count("\n")
        assert lines <= 400, f"{js.name} has {lines} lines: split it by job"
        assert js.read_text().lstrip().startswith("/*"), f"{js.name} should say what it does"
