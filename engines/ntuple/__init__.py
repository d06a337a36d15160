"""N-tuple value functions: layouts A-E as data, numba value kernels, weight files."""
