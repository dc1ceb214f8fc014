"""Docs crawler: a Sphinx site (the Godot docs) -> the Markdown corpus layout that ingest reads.

Entry points: `agent.crawl.crawler.run_crawl(CrawlConfig(...)) -> CrawlReport` (sync) or `crawl(...)`
(async), and `godot-rag crawl` (agent/crawl/cli.py). Modules: `urls` (base URL rules, flat names),
`searchindex` (docnames), `fetch` (polite HTTP), `convert` (HTML -> Markdown), `corpus` (output files).
"""
