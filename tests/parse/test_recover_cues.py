"""`_speedups.has_recover_cues` answers what `gdscript._recover`'s pure-Python check answers."""

from __future__ import annotations

import random

import pytest

from agent.parse import speedups
from agent.parse.gdscript import _recover

C = speedups.compiled
needs_c = pytest.mark.skipif(
    C is None, reason="agent.parse._speedups is not built (no C compiler at install?)"
)


def _pure(src: bytes) -> bool:
    return b"sync" in src or b"$%" in src


@needs_c
def test_random_bytes_agree() -> None:
    rng = random.Random(11)
    alphabet = [b"s", b"y", b"n", b"c", b"$", b"%", b"\x00", b"\n", b"\r", b" "]
    alphabet += ["é".encode(), "𝔘".encode()]
    for _ in range(5000):
        src = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert C.has_recover_cues(src) == _pure(src), src


@needs_c
@pytest.mark.parametrize(
    "src",
    [
        *(b"", b"s", b"syn", b"sync", b"\x00sync", b"$", b"%$", b"$%"),
        *(b"x" * 100_000 + b"sync", b"x" * 100_000 + b"$", b"\xef\xbb\xbfsync func f():", "é$%".encode()),
    ],
)
def test_edges_agree(src: bytes) -> None:
    assert C.has_recover_cues(src) == _pure(src)


@needs_c
def test_refuses_non_bytes() -> None:
    for bad in ["sync", bytearray(b"sync"), None]:
        with pytest.raises(TypeError):
            C.has_recover_cues(bad)


def test_recover_same_with_either_path() -> None:
    for src in [b"sync func f():\n\tpass\n", b"var x = $%Foo\n", b"func f():\n\tpass\n", b""]:
        got = _recover(src)
        with speedups.pure_python():
            assert _recover(src) == got


@needs_c
def test_every_short_string_agrees() -> None:
    """All strings of up to 6 bytes over the needles' bytes and one other (the anchor-byte scan's
    neighbour checks at every position, the text's start and end included)."""
    import itertools

    for n in range(7):
        for parts in itertools.product(b"syc$%nx", repeat=n):
            src = bytes(parts)
            assert C.has_recover_cues(src) == _pure(src), src
