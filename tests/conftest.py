"""Fixtures shared by every test folder."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def advisor_cache(tmp_path_factory):
    """One advisor-table cache for the whole run (also what `build_runtime`, the apps and
    the `serve` processes the tests start read through DRAGON_FARKLE_ADVISOR_CACHE), so
    each Soldier table is built once, not per test or per folder."""
    folder = str(tmp_path_factory.mktemp("advisor"))
    old = os.environ.get("DRAGON_FARKLE_ADVISOR_CACHE")
    os.environ["DRAGON_FARKLE_ADVISOR_CACHE"] = folder
    yield folder
    if old is None:
        os.environ.pop("DRAGON_FARKLE_ADVISOR_CACHE", None)
    else:
        os.environ["DRAGON_FARKLE_ADVISOR_CACHE"] = old
