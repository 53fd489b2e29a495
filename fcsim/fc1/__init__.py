"""FC-1, the transmission protocol: the 8b/10b code and ordered sets."""
