/* Exits 0 when LZCNT executes as LZCNT. Some hypervisors hide the CPUID bit ("abm" in
   /proc/cpuinfo) of CPUs that have the instruction; on a CPU without it the same bytes run as
   BSR, which gives 0 for clz(1), not 31. Built with -mlzcnt by cmake/Warnings.cmake. */
int main(int argc, char** argv) {
  (void)argv;
  volatile unsigned one = (unsigned)argc; /* 1, unknown to the compiler */
  return __builtin_clz(one) == 31 && __builtin_clz(one << 20) == 11 ? 0 : 1;
}
