"""FC-4 mappings: upper-layer protocols carried in FC-2 sequences."""
