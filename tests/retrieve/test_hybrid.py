"""The hybrid retriever on the real test KB: exact whole-identifier lookup, legs, fusion, indexes."""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agent.models import RetrieverQuery
from agent.retrieve import RetrievalConfig, Retriever
from agent.retrieve.query import build_retriever_query
from agent.retrieve.terms import exact_terms, keyword_text
from tests.retrieve.helpers import gd_chunks

GODOT4_DIR = Path(__file__).parents[1] / "judge" / "data" / "godot4"


def _q(symbols=(), calls=(), text="") -> RetrieverQuery:
    return RetrieverQuery(query_text=text or " ".join([*symbols, *calls]), query_terms=[*symbols, *calls],
                          raw_chunk_text=text, symbol_candidates=list(symbols), api_call_candidates=list(calls))


def _exact(bundle):
    return [h for h in bundle.api_mapping_evidence if "exact" in h.match]


def test_exact_terms_split_dotted_calls():
    terms = exact_terms(_q(calls=["Input.is_action_pressed", "get_tree().change_scene"]))
    assert {"Input.is_action_pressed", "Input", "is_action_pressed"} <= set(terms)
    assert "get_tree().change_scene" not in terms  # not an identifier: never sent as a term


def test_keyword_text_cannot_inject_operators():
    idents, words = keyword_text(_q(symbols=["Node"], text="x").model_copy(
        update={"prompt_terms": ["!(a & b) | c:*", "<->"]}), ["Node"])
    assert set(words) <= set("abcor ") and "!" not in idents


def test_common_names_and_generic_words_stay_out_of_the_keyword_leg():
    q = _q(symbols=["Vector2", "KinematicBody2D"], calls=["Vector2.ZERO"]).model_copy(
        update={"prompt_terms": ["Godot 4", "migration", "description"]})
    idents, words = keyword_text(q, exact_terms(q), frozenset({"vector2"}))
    parts = idents.split(" or ")
    assert "KinematicBody2D" in parts and '"Vector2 ZERO"' in parts  # phrases stay: they are selective
    assert "Vector2" not in parts
    assert "migration" in words and "godot" not in words and "description" not in words


def test_common_lexemes_come_from_the_kb(retriever):
    common = retriever.common_lexemes()
    assert "node" in common  # in more than 2% of the test KB's docs chunks
    assert "kinematicbody2d" not in common and "yield" not in common
    assert retriever.common_lexemes() is common  # read once per retriever


def test_godot3_syntax_without_names_still_reaches_its_mapping(retriever):
    """`.method()` parent calls and a script's own `var velocity` have no API name to look up."""
    for code, source_api in [("func set_health(v):\n\t.set_health(v)\n", ".method()"),
                             ("var velocity = Vector2.ZERO\n", "KinematicBody2D.move_and_slide")]:
        bundle = retriever.retrieve(_q(text=code))
        assert any(h.metadata.get("source_api") == source_api for h in _exact(bundle)), code


def test_exact_lookup_is_whole_identifier(retriever):
    for name in ("Texture", "Texture2D", "KinematicBody2D"):
        hits = _exact(retriever.retrieve(_q(symbols=[name])))
        for h in hits:
            md = h.metadata
            assert md["source_api"] == name or name in md["match_terms"], (name, md["source_api"], md["match_terms"])
            assert md["status"] != "rejected"
    kin = _exact(retriever.retrieve(_q(symbols=["KinematicBody2D"])))
    assert any(h.metadata["target_api"] == "CharacterBody2D" for h in kin)
    assert not any(h.metadata["source_api"] == "KinematicBody" for h in kin)


def test_dotted_call_reaches_member_mapping_and_docs(retriever):
    bundle = retriever.retrieve(_q(calls=["Input.is_action_pressed"], text="if Input.is_action_pressed(\"jump\"):"))
    assert any(h.metadata.get("source_api") == "Input.is_action_pressed" for h in _exact(bundle))
    assert any(h.metadata.get("symbol", "").startswith("Input") for h in bundle.doc_evidence)


def test_rejected_rows_never_exact(kb_db_factory, embedder):
    from agent.storage import connection, make_pool

    settings = kb_db_factory()
    with connection(settings) as conn:
        conn.execute("UPDATE godot_rag.api_mapping SET status = 'rejected' WHERE source_api = 'KinematicBody2D'")
    pool = make_pool(settings, max_size=2)
    try:
        bundle = Retriever(settings, pool, embedder=embedder).retrieve(_q(symbols=["KinematicBody2D"]))
    finally:
        pool.close()
    assert not any(h.metadata["source_api"] == "KinematicBody2D" for h in _exact(bundle))


def test_bundle_shape_and_top_k(kb_settings, kb_pool, embedder):
    cfg = RetrievalConfig(top_k_docs=3, top_k_mappings=2, top_k_labels=1)
    chunk = gd_chunks("extends KinematicBody2D\n\nfunc _physics_process(delta):\n\tvelocity = move_and_slide(velocity)\n")[1]
    bundle = Retriever(kb_settings, kb_pool, embedder=embedder, config=cfg).retrieve(build_retriever_query("", chunk))
    assert len(bundle.doc_evidence) <= 3 and len(bundle.api_mapping_evidence) <= 2 and len(bundle.label_evidence) <= 1
    assert set(bundle.retrieval_scores) == {"exact_api_hits", "keyword_hits", "vector_hits"}
    assert bundle.retrieval_scores["vector_hits"] > 0 and bundle.retrieval_scores["keyword_hits"] > 0
    assert bundle.query_id.startswith("q-") and bundle.task_type
    for hit in bundle.all_hits():
        assert hit.match and set(hit.match) <= {"exact", "linked", "symbol", "keyword", "trigram", "vector"}
    assert {h.table for h in bundle.all_hits()} == {"docs_chunks", "api_mapping", "label_prototypes"}


def test_explain_uses_the_indexes(retriever):
    chunk = gd_chunks("extends KinematicBody2D\n\nfunc _physics_process(delta):\n"
                      "\tvelocity = move_and_slide(velocity)\n\tif Input.is_action_pressed(\"ui_left\"):\n\t\tpass\n")[1]
    query = build_retriever_query("", chunk)
    statement, _, _ = retriever.statement(query)
    plan = retriever.explain(query)
    assert "$" not in plan.split("Order By:")[0][:0]  # the vector is a bound parameter (no literal in SQL text)
    for index in ("docs_chunks_search_tsv_gin", "api_mapping_search_tsv_gin", "docs_chunks_search_text_trgm",
                  "api_mapping_source_api", "docs_chunks_api_symbols_gin"):
        assert index in plan, index
    # The vector leg's pool comes from the HNSW index or, where the planner prefers it on a small fresh KB,
    # from a scan; either way it is re-ranked exactly (score, then id), so the plan is not pinned here.
    assert "%(qv)s" in statement.as_string(None)


def test_thread_safe_and_latency(retriever):
    queries = []
    for path in sorted(GODOT4_DIR.glob("*.gd"))[:4]:
        queries += [build_retriever_query("", c) for c in gd_chunks(path.read_text(), path.name)]
    queries = queries[:40]
    sequential = [retriever.retrieve(q) for q in queries]
    timings, sql_ms = [], []
    for q in queries:
        t0 = time.perf_counter()
        retriever.retrieve(q)
        timings.append((time.perf_counter() - t0) * 1000)
        sql_ms.append(retriever.last_timings["sql_ms"])
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(retriever.retrieve, queries))
    assert [b.ids() for b in parallel] == [b.ids() for b in sequential]
    p50 = statistics.median(timings)
    p95 = sorted(timings)[int(len(timings) * 0.95) - 1]
    sql_ms.sort()
    print(f"\nretrieval over {len(timings)} chunks (test KB, shared 2-core machine): p50 {p50:.1f} ms, "
          f"p95 {p95:.1f} ms; SQL alone p50 {statistics.median(sql_ms):.1f} ms, "
          f"p95 {sql_ms[int(len(sql_ms) * 0.95) - 1]:.1f} ms")
    t0 = time.perf_counter()
    retriever.retrieve_many(queries)
    print(f"retrieve_many (batched embeddings): {(time.perf_counter() - t0) * 1000 / len(queries):.1f} ms/chunk")



def test_exact_rows_past_top_k_come_in_the_exact_legs_order():
    """`d.empty()`: the converter's `empty` row (the exact leg's first) is kept though the index's derived
    `PoolXArray.empty` rows, also found by the vector leg, outscore it in the fusion."""
    from agent.settings import Settings

    def row(leg, i, source):
        return {"leg": leg, "table_name": "api_mapping", "id": i, "title": source, "content": source,
                "metadata": {"source_api": source}, "documented": None}

    derived = [f"Pool{n}Array.empty" for n in ("Byte", "Int", "Real", "String", "Vector2", "Color")]
    derived += [f"Other{n}.empty" for n in range(9)]
    rows = [row("exact", "m:empty", "empty")] + [row("exact", f"m:{d}", d) for d in derived]
    rows += [row("vector", f"m:{d}", d) for d in derived]
    retriever = Retriever(Settings(), None, embedder=object(), config=RetrievalConfig(top_k_mappings=6))
    bundle = retriever._fuse(_q(calls=["d.empty"], text="d.empty()"), rows, ["empty"])
    kept = [h.metadata["source_api"] for h in bundle.api_mapping_evidence]
    assert len(kept) == 12 and "empty" in kept


def test_members_used_on_typed_receivers_bring_their_pages(retriever):
    """`var dirs = []` ... `dirs.append(...)`, `var v: Vector2` ... `v.normalized()`: the chunk names no class,
    its declarations do; the pages of exactly those members come back (past top_k if need be)."""
    from agent.retrieve.query import receiver_members

    code = ("extends Node2D\n\nvar v: Vector2\n\nfunc f():\n\tvar dirs = []\n\tdirs.append(v.normalized())\n"
            "\tprint(dirs.size())\n")
    chunk = gd_chunks(code)[-1]
    assert receiver_members(chunk) == ["Array.append", "Vector2.normalized", "Array.size"]
    bundle = retriever.retrieve(build_retriever_query("Is this Godot 4?", chunk))
    assert "Vector2.normalized" in {h.metadata.get("symbol") for h in bundle.doc_evidence}


def test_a_godot_3_constructor_looks_up_what_replaces_it():
    """`String(5)` and `Basis(Vector3(...))` name no API; their replacements' pages are looked up exactly."""
    code = "extends Node\n\nfunc f(x):\n\tprint(String(5))\n\tvar b = Basis(Vector3(x, 0, 0))\n"
    terms = exact_terms(build_retriever_query("Is this Godot 4?", gd_chunks(code)[-1]))
    assert "@GlobalScope.str" in terms and "Basis.from_euler" in terms
    plain = exact_terms(build_retriever_query("Is this Godot 4?", gd_chunks("extends Node\n\nfunc f():\n\tString()\n")[-1]))
    assert "@GlobalScope.str" not in plain
