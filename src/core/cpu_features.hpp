#pragma once
// What the CPU running this process offers, asked in one place by the kernels that choose a
// SIMD path at run time (Philox, the float Gram) and by the cost model that prices them. An
// x86-64-v3 build runs on CPUs with and without AVX-512, so the choice cannot be made at compile
// time.
namespace wordsens {

/// AVX2 is available (false on other architectures and compilers).
[[nodiscard]] bool cpu_has_avx2();

/// AVX-512 Foundation is available (false on other architectures and compilers).
[[nodiscard]] bool cpu_has_avx512f();

}  // namespace wordsens
