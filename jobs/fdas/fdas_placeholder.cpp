// Keeps astrosweep_fdas a library while its first sources are written (branch fdas only).
