// Placeholder until the HDF5 layer lands (issue 4).
