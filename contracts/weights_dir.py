"""The names in a weights directory: what the trainer writes and the freeze, the plan and
the workflow's rules read (the format itself: :mod:`engines.ntuple.storage`)."""

#: the manifest's ``format``
FORMAT = "drop7-weights-v1"
#: the manifest beside the array
MANIFEST = "manifest.json"
#: the array: n-tuple values or linear-trained weights
TABLES = "tables.npy"
