"""Batch analysis: many targets, one durable queue job per target, any number of worker processes.

`targets` says what a target is and names its run; `store` keeps batches and their items;
`queue` is the procrastinate app (tasks, retries, stalled-job recovery); `jobs` is what one job
does (resolve, then analyze or resume through `AnalysisService`); `ratelimit` spaces GitHub
fetches across workers; `corpus` exports the classified corpus; `cli` holds the batch commands (`export corpus` is graph/cli's, beside `export`).
"""
