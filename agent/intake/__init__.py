"""intake package."""
