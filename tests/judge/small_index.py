"""Small hand-made API indexes (marked complete) shared by judge tests that need no knowledge base."""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry


def idle_frame_index() -> ApiIndex:
    """Node.get_tree() -> SceneTree, whose `idle_frame` signal 4.x calls `process_frame`."""
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in (("Object", ""), ("Node", "Object"), ("SceneTree", "Object")):
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
        entries.append(ApiEntry(v, "Node", "get_tree", "method", return_type="SceneTree"))
    entries += [ApiEntry(V3, "SceneTree", "idle_frame", "signal"), ApiEntry(V4, "SceneTree", "process_frame", "signal")]
    return ApiIndex(entries, classes, complete_v4=True)
