"""FC-2, the signalling protocol: frames, sequences, exchanges, credit, classes."""
