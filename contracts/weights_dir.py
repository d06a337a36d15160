"""The names in a weights directory: what the trainer writes and the freeze, the plan and
the workflow's rules read (the format itself: :mod:`engines.ntuple.storage`)."""

#: the manifest's ``format`` of a directory whose array is stored compressed (checkpoints)
FORMAT = "drop7-weights-v2"
#: the manifest's ``format`` of a directory whose array is a plain ``.npy`` file (frozen
#: weights, and checkpoints written before compression)
FORMAT_RAW = "drop7-weights-v1"
#: the manifest beside the array
MANIFEST = "manifest.json"
#: the array as a plain ``.npy`` file: frozen n-tuple values or linear-trained weights
TABLES = "tables.npy"
#: the suffix of an array file stored as one zstd frame of its ``.npy`` bytes
PACKED_SUFFIX = ".zst"
#: the array as a zstd stream of the ``.npy`` file's bytes: a checkpoint's
PACKED = TABLES + PACKED_SUFFIX
