"""TC-TD(0) training of n-tuple tables and linear-trained weights, with its CLI and bench."""
