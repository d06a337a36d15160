"""Fair dDsS expectimax over the public state, its leaves and its benchmark."""
