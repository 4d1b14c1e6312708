"""Learning the table's dice from the phone page: one job at a time, in the background,
its outcome told to the phones, and the reader switched to new weights."""
from __future__ import annotations

import os
import threading
from types import SimpleNamespace

import pytest

from companion.controller.learning import DiceLearning
from companion.controller.table import TableError
from vision.adapt import AdaptError


class FakeLearn:
    """Stands in for vision.adapt.learn_and_install; waits for `go` when asked to."""

    def __init__(self, installed=True, error=None, wait=False):
        self.installed, self.error = installed, error
        self.go = threading.Event()
        if not wait:
            self.go.set()
        self.calls = []

    def __call__(self, photos, dest, *, base, current, profile):
        self.calls.append((photos, dest, base, current, profile))
        assert self.go.wait(10)
        if self.error:
            raise self.error
        return SimpleNamespace(installed=self.installed, lines=["Learned from 9 photos."])


def learner(tmp_path, learn, use_new=True, changes=None):
    return DiceLearning(tmp_path / "dice-photos", tmp_path / "our-dice", base=tmp_path / "base",
                        current=lambda: tmp_path / "now", profile=lambda: "profile",
                        use_new=use_new, learn=learn,
                        on_change=(lambda: changes.append(1)) if changes is not None else
                        (lambda: None))


def test_new_weights_are_used_at_once_and_the_phones_told(tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_MODELS", "")  # taken back after the test
    changes: list[int] = []
    fake = FakeLearn(wait=True)
    job = learner(tmp_path, fake, changes=changes)
    assert job.start()
    assert job.status()["running"] and changes == [1]
    assert not job.start()  # one at a time
    fake.go.set()
    job.join(10)
    status = job.status()
    assert status["running"] is False and status["installed"] is True
    assert status["lines"][0] == "Learned from 9 photos." and "from now on" in status["lines"][-1]
    assert changes == [1, 1]
    assert os.environ["DICE_MODELS"] == str(tmp_path / "our-dice")
    assert fake.calls == [(tmp_path / "dice-photos", tmp_path / "our-dice", tmp_path / "base",
                           tmp_path / "now", "profile")]


def test_a_configured_model_folder_is_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_MODELS", "/configured")
    job = learner(tmp_path, FakeLearn(), use_new=False)
    job.start()
    job.join(10)
    assert "[camera] names other weights" in job.status()["lines"][-1]
    assert os.environ["DICE_MODELS"] == "/configured"


@pytest.mark.parametrize("error, said", [
    (AdaptError("data/dice-photos has 9 checked dice to learn from"), "9 checked dice"),
    (RuntimeError("boom"), "Learning failed: boom"),
])
def test_a_failed_job_says_why_and_can_be_run_again(tmp_path, error, said):
    job = learner(tmp_path, FakeLearn(error=error))
    job.start()
    job.join(10)
    assert job.status()["running"] is False and job.status()["installed"] is False
    assert said in job.status()["lines"][0]
    assert job.start()  # not stuck "running"
    job.join(10)


def test_the_table_starts_learning_and_shows_it(table, tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_MODELS", "")  # the job points the reader at its weights
    with pytest.raises(TableError, match="keeps no photos"):
        table.learn_dice()
    from vision.photolog import PhotoLog

    table.photos = PhotoLog(tmp_path / "dice-photos")
    fake = FakeLearn(wait=True)
    table.learning = learner(tmp_path, fake, changes=None)
    table.learning.on_change = table.refresh
    state = table.learn_dice()
    assert state["photos"]["learning"]["running"] is True
    with pytest.raises(TableError, match="already learning"):
        table.learn_dice()
    fake.go.set()
    table.learning.join(10)
    assert table.state()["photos"]["learning"]["installed"] is True
