"""The one GDScript lexer: every view keeps the text's length and line breaks, and each masks what it says."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent.judge import lexer as judge_lexer
from agent.parse import _name_suffix
from agent.parse.lexer import identifiers, lex

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


def test_views_of_a_line() -> None:
    text = 'var n = $Body/Sprite.name + %Label.text + "yield(x)" # setget\n'
    out = lex(text)
    assert out.masked == 'var n = $           .name + %     .text + "        "         \n'
    assert out.code == 'var n = $Body/Sprite.name + %Label.text + "        "         \n'
    assert out.no_comments == 'var n = $Body/Sprite.name + %Label.text + "yield(x)"         \n'
    assert out.strings == [("", "yield(x)", 42)] and out.comments == ["# setget"]
    assert identifiers(out.masked) == ["var", "n", "name", "text"]


@pytest.mark.parametrize(
    ("text", "strings"),
    [
        ('&"sig" ^"Path" r"C:\\" x', [("&", "sig", 1), ("^", "Path", 8), ("r", "C:\\", 16)]),
        ('"a\\"b" "open\nnext', [("", 'a\\"b', 0), ("", "open", 7)]),
        ('"""one\n"two"\n""" \'\'\'x\'\'\'', [("", 'one\n"two"\n', 0), ("", "x", 17)]),
        ('$"quoted/path" ', [("", "quoted/path", 1)]),
        ('"\\', [("", "\\", 0)]),
    ],
)
def test_string_forms(text: str, strings: list[tuple[str, str, int]]) -> None:
    out = lex(text)
    assert out.strings == strings
    assert len(out.masked) == len(out.code) == len(out.no_comments) == len(text)


def test_modulo_is_not_a_node_path_and_comment_char_is_a_choice() -> None:
    assert lex("a = b%c").masked == "a = b%c"
    assert lex("a = (%Unique)").masked == "a = (%      )"
    scene = lex('[node name="A"] ; note # not one\n', comment_char=";")
    assert scene.masked == '[node name=" "]                 \n'


def test_every_view_keeps_offsets_on_random_and_fixture_text() -> None:
    rng = random.Random(3)
    parts = ['"', "'", '"""', "\\", "\n", "#", "$", "%", "&", "r", "a", " ", "/", "é", ")", "Node", "$A/b"]
    texts = ["".join(rng.choice(parts) for _ in range(rng.randint(0, 40))) for _ in range(3000)]
    texts += [p.read_text() for p in sorted(FIXTURES.rglob("*.gd"))]
    for text in texts:
        out = lex(text)
        for view in (out.masked, out.code, out.no_comments):
            assert len(view) == len(text) and [i for i, c in enumerate(view) if c == "\n"] == [
                i for i, c in enumerate(text) if c == "\n"
            ]
        for prefix, content, start in out.strings:
            quote = 3 if text.startswith(text[start] * 3, start) else 1
            assert text.startswith(content, start + quote) and text[start - len(prefix) : start] == prefix


def test_judge_reads_the_same_lexer() -> None:
    assert judge_lexer.lex is lex and judge_lexer.identifiers is identifiers


@pytest.mark.parametrize(
    "path",
    ["a.gd", "dir/b.GD", "x/.gitignore", "x/y.", "a/b/", "a/.", "a/..", "", ".", "//c.tscn", "a//b.c.d",
     "p.q/r", "icon.png.import", "x/.hidden.gd", "..gd", "a/./b.gd"],
)
def test_name_suffix_matches_pathlib(path: str) -> None:
    from pathlib import PurePosixPath

    assert _name_suffix(path) == (PurePosixPath(path).name, PurePosixPath(path).suffix)
