"""parse package."""
