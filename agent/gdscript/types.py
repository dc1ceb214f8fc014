"""A GDScript expression's type, per engine version, with "not resolved" as a value of its own.

Godot 3.4 and 4.x disagree on some types (`get_packet()` is a PoolByteArray in one and a
PackedByteArray in the other), so a type has one side per version; an empty side means that
version's type is unknown. `UNKNOWN` (both sides empty) is what every rule must expect: a use on
an unknown receiver proves nothing about the receiver's class.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.apiindex import V3, V4, per_version_type, type_in


@dataclass(frozen=True)
class GdType:
    """An engine class, builtin or project class per version ('' = unknown in that version)."""

    v3: str = ""
    v4: str = ""
    user: bool = False
    """A project class (`class_name`, an inner class, a script by path): its members are the project's."""
    open: bool = False
    """Named by the project's code or scenes (`var c: Control`, `-> Control`, a scene's node type), not returned
    by the engine: the object may be a project script extending the class, with members of its own."""
    guessed: bool = False
    """Read off a node's name (`$Timer` that no scene types): likely, never proof that a member is missing."""

    @classmethod
    def of(cls, name: str | None, *, user: bool = False, open: bool = False, guessed: bool = False) -> GdType:
        """The same type in both versions (a per-version name `A|B` is split)."""
        if not name:
            return UNKNOWN
        return cls(type_in(V3, name), type_in(V4, name), user, open, guessed)

    @property
    def known(self) -> bool:
        return bool(self.v3 or self.v4)

    def side(self, version: str) -> str:
        return self.v3 if version == V3 else self.v4

    @property
    def encoded(self) -> str | None:
        """The one-string form the receiver code reads (`apiindex.per_version_type`), or None if unknown."""
        if not (self.v3 and self.v4):
            return None
        return per_version_type(self.v3, self.v4)


UNKNOWN = GdType()
