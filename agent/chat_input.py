"""Split a chat message into what the user asks (the prompt) and what they want analysed.

Chat front doors (web UI, Discord) get free text: a question, code in ``` fences or pasted bare,
or a link. The prompt never reaches the parser; the code never becomes the prompt.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*```[^\n]*\n.*?^[ \t]*```[ \t]*$", re.M | re.S)
_LINK = re.compile(r"(?:[a-z][a-z0-9+.-]*://|git@|www\.)[^\s<>()]+", re.I)
_CODE_START = re.compile(
    r"^\s*(?:extends\b|func\b|static\s+func\b|var\b|const\b|signal\b|class_name\b|class\b|enum\b|tool\b|export\b"
    r"|onready\b|remote\b|puppet\b|master\b|@\w+|#|\[|config_version\s*=|return\b|if\b|for\b|while\b|match\b|yield\b)"
    r"|^\t|^ {2,}\S|[;{}]\s*$|\w+\s*[:+\-*/]?=\s*\S|\w+\.\w+\s*\(|\w+\(.*\)\s*$"
)


def split_link(text: str) -> tuple[str | None, str]:
    """A link the user sent as the target (not one inside code), and the rest as the prompt."""
    if _FENCE.search(text) or any(_CODE_START.search(line) for line in text.splitlines() if line.strip()):
        return None, text
    m = _LINK.search(text)
    if not m:
        return None, text
    url = m.group(0).rstrip(".,;:!?'\"")
    rest = (text[: m.start()] + text[m.end():]).strip()
    return url, rest


def has_code(text: str) -> bool:
    """True when the message holds something to analyse: a fence or at least one code-looking line.

    "hello, can you help me port my game?" has none: it is a question, never parsed as code.
    """
    return bool(_FENCE.search(text)) or any(_CODE_START.search(line) for line in text.splitlines() if line.strip())


def split_prompt_and_code(text: str) -> tuple[str, str]:
    """(prompt, code). Fenced blocks are the code and the prose around them the prompt;
    unfenced, leading prose lines before the first code-looking line are the prompt.
    Text with no code at all is analysed as-is (it will be judged, e.g. as non-Godot noise).
    """
    text = text.strip("\n")
    fences = list(_FENCE.finditer(text))
    if fences:
        code = "\n\n".join(m.group(0) for m in fences)
        prompt = _FENCE.sub(" ", text)
        return " ".join(prompt.split()), code
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() and _CODE_START.search(line):
            prompt = " ".join(" ".join(lines[:i]).split())
            return prompt, "\n".join(lines[i:])
    return "", text
