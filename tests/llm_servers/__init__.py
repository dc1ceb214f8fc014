"""Local OpenAI-compatible servers for tests and benches (run as scripts, in their own process)."""
