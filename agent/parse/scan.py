"""Identifiers, declared names and call candidates of one chunk, from its token stream.

One regex splits the masked chunk into tokens (in the regex engine, not in Python); a small
state machine then walks them. Identifiers need no state, so they come from the de-duplicated
token list instead of the walk. The walk keeps only the last two links of the current dotted
chain (no list per chain): that is all a call or member candidate is made of. Rewriting the
walk as regexes over the joined tokens was tried and measured slower: each regex pass over the
text costs about as much as the walk.
"""

from __future__ import annotations

import re
import string

KEYWORDS = frozenset(
    """if elif else for while match break continue pass return class class_name extends is in as self
    signal func static const enum var onready export setget tool breakpoint preload await yield
    remote master puppet remotesync mastersync puppetsync sync slave and or not true false null
    void super when get set PI TAU INF NAN""".split()
)
TOKEN = re.compile(r"[A-Za-z_]\w*|[$%][\w/%]*|@\w*|\d[\w.]*|[.()\[\],{}]")
_DECLARES = frozenset({"var", "const", "func", "class", "signal", "enum", "class_name", "for"})
_CALLABLE_KEYWORDS = frozenset({"yield", "preload", "super"})
_NAME_START = frozenset(string.ascii_letters + "_")
_SIGILS = frozenset("$%")


def scan(masked: str) -> tuple[list[str], list[str], list[str]]:
    """(identifiers, declared names, call/member candidates) of masked code.

    A dotted chain followed by `(` is a call (`Input.is_action_pressed`, `$Sprite.play`,
    `create_timer` after `get_tree().`); a chain on a capitalised name not followed by `(` is
    a member access (`Vector2.ZERO`). The name after `func` is a declaration, not a call, and
    the parameters of `func name(...)` and of lambdas are declared names. Identifiers are the
    names in code positions, keywords excluded, in order of first use.
    """
    tokens = TOKEN.findall(masked)
    declared: list[str] = []
    calls: list[str] = []
    prev = last = ""  # the chain's last two links
    links = 0  # chain length, capped at 2
    dotted = False
    declare_next = ""
    params_depth = 0  # >0 while inside a func's parameter list
    expect_param = False
    after_func = False
    for tok in tokens:
        c = tok[0]
        if c in _NAME_START:
            if declare_next:
                declared.append(tok)
                after_func = declare_next == "func"
                declare_next = ""
                links = 0
                dotted = False
                continue
            if expect_param:
                declared.append(tok)
                expect_param = False
            if dotted and links:
                prev = last
                links = 2
            else:
                if links > 1 and prev[0].isupper():
                    calls.append(f"{prev}.{last}")
                links = 1
            last = tok
            dotted = False
            if tok in _DECLARES:
                declare_next = tok
                links = 0
                if tok == "func":
                    after_func = True  # a lambda: `func(` opens its parameters
            continue
        if c == ".":
            dotted = True
            continue
        if c == "(":
            if after_func:
                after_func = False
                declare_next = ""
                params_depth, expect_param = 1, True
                links = 0
                continue
            if links > 1:
                calls.append(f"{prev}.{last}")
            elif links and (last not in KEYWORDS or last in _CALLABLE_KEYWORDS):
                calls.append(last)
            if params_depth:
                params_depth += 1
            links = 0
            dotted = False
            continue
        if params_depth:
            if c == ")":
                params_depth -= 1
                expect_param = expect_param and params_depth > 0
            elif c == "," and params_depth == 1:
                expect_param = True
        if links > 1 and prev[0].isupper():
            calls.append(f"{prev}.{last}")
        if c in _SIGILS:
            if not dotted:  # `$Node` / `%Unique` starts a chain; after a `.` it leaves the chain as is
                last = tok
                links = 1
        else:
            links = 0
        dotted = False
        after_func = False
    if links > 1 and prev[0].isupper():
        calls.append(f"{prev}.{last}")
    identifiers = [t for t in dict.fromkeys(tokens) if t[0] in _NAME_START and t not in KEYWORDS]
    return identifiers, list(dict.fromkeys(declared)), list(dict.fromkeys(calls))


CUE_PATH = 1
"""`scan_facts` cue bit: `$`, `%` or `get_node` occurs, so node paths are worth looking for."""


def scan_facts(masked: str) -> tuple[list[str], list[str], list[str], list[str], int]:
    """`scan` plus what `facts` reads next: symbol candidates among the identifiers, and cue bits.

    Symbols are the capitalised identifiers that are not all caps (`Vector2`, not `ZERO`).
    """
    identifiers, declared, calls = scan(masked)
    symbols = [i for i in identifiers if i[0].isupper() and not i.isupper()]
    cues = CUE_PATH if "$" in masked or "%" in masked or "get_node" in masked else 0
    return identifiers, declared, calls, symbols, cues
