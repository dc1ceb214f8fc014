"""One class-reference page as the knowledge base holds it: its chunks, in document order, with their anchors.

What an agent reads when a citation is not enough (the MCP resource `godot-docs://{version}/{Class}`): the
same text the retriever searched and the judge cited, never a fresh copy of the website.
"""

from __future__ import annotations

from pydantic import BaseModel

from agent.retrieve.search import anchored_url

_PAGE_SQL = (
    "SELECT d.chunk_id, d.heading, d.content, d.source_url, d.doc_version FROM godot_rag.api_classes c"
    " JOIN godot_rag.docs_chunks d ON d.source_url = c.source_url AND d.doc_type = 'class_reference'"
    " AND (d.doc_version = '3.4') = (c.version = '3.4')"
    " WHERE c.version = %(version)s AND c.class_name = %(name)s ORDER BY d.id"
)


class PageSection(BaseModel):
    """One chunk of the page."""

    id: str
    heading: str | None
    url: str
    content: str


class ClassPage(BaseModel):
    """A class page of one version ("3.4" or "4.x")."""

    class_name: str
    version: str
    url: str
    sections: list[PageSection]

    def markdown(self) -> str:
        """The page as one markdown text: each section under its heading, with its anchored URL."""
        head = f"# {self.class_name} (Godot {self.version} class reference)\n\n{self.url}\n"
        body = [f"\n## {s.heading or self.class_name}\n\n<{s.url}>\n\n{s.content.strip()}\n" for s in self.sections]
        return head + "".join(body)


def class_page(conn, version: str, class_name: str) -> ClassPage | None:
    """The page `version` ("3.4" or "4.x") documents `class_name` on, or None when it documents no such class."""
    rows = conn.execute(_PAGE_SQL, {"version": version, "name": class_name}).fetchall()
    if not rows:
        return None
    return ClassPage(class_name=class_name, version=version, url=rows[0]["source_url"], sections=[
        PageSection(id=r["chunk_id"], heading=r["heading"], url=anchored_url(r["source_url"], r["chunk_id"]),
                    content=r["content"]) for r in rows])
