"""crawl package."""
