"""`gc_paused` never leaves the collector off: nested, overlapping threads, exceptions."""

from __future__ import annotations

import gc
import threading

import pytest

from agent.parse import chunk_file
from agent.parse.gcpause import gc_paused
from tests.parse.helpers import source


def test_pauses_and_restores():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause did not own it
    assert gc.isenabled()


def test_restores_after_exception():
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_leaves_a_deliberately_disabled_collector_off():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_threads_leave_it_on():
    """Owner exits while a second thread is still inside its own (non-owning) pause."""
    inside, release = threading.Event(), threading.Event()

    def second() -> None:
        with gc_paused():
            inside.set()
            release.wait(5)

    with gc_paused():
        t = threading.Thread(target=second)
        t.start()
        assert inside.wait(5)
    assert gc.isenabled()  # the owner turned it back on though the other pause is still open
    release.set()
    t.join(5)
    assert gc.isenabled()


def test_many_threads_chunking():
    text = "extends Node\nfunc f():\n\tpass\n" * 20
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(30):
                chunk_file(source("t.gd", text))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    assert gc.isenabled()


def test_chunk_project_pauses_once_for_the_whole_project(monkeypatch):
    """Every file of a project is chunked with the collector off, and it is on again after."""
    import agent.parse as parse
    from agent.models import Expansion

    seen: list[bool] = []
    real = parse._chunks

    def spy(file, first_order):
        seen.append(gc.isenabled())
        return real(file, first_order)

    monkeypatch.setattr(parse, "_chunks", spy)
    files = [source(f"f{i}.gd", f"extends Node\nfunc f{i}():\n\tpass\n") for i in range(3)]
    chunks = parse.chunk_project(Expansion(files=files, expanded_text="", line_map=[]), project_id="p")
    assert seen == [False, False, False]
    assert [c.chunk_order for c in chunks] == list(range(len(chunks)))
    assert gc.isenabled()
