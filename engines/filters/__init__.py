"""Root filters: rules that refuse some of a search's legal root columns (docs/search.md)."""
