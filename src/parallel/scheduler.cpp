// Placeholder until the MPI layer lands (issue 4).
