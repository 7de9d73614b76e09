#include "core/cpu_features.hpp"

namespace wordsens {

#if defined(__x86_64__) && defined(__GNUC__)
// libgcc's check also asks the operating system whether it saves the wider registers.
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}

bool cpu_has_avx512f() {
  static const bool has = __builtin_cpu_supports("avx512f") != 0;
  return has;
}
#else
bool cpu_has_avx2() { return false; }
bool cpu_has_avx512f() { return false; }
#endif

}  // namespace wordsens
