"""Players and games: policy strings, whole-game loops, the sharded paired runner."""
