"""State reducers, kept in one place so every merge rule of the graph is visible at once."""

from __future__ import annotations


def merge_dicts(left: dict[str, str] | None, right: dict[str, str] | None) -> dict[str, str]:
    """Union of two dicts, right wins: per-chunk failure reasons accumulate across windows."""
    return {**(left or {}), **(right or {})}
