#pragma once
// A cost model of a task, in floating-point operations (a Philox normal counts as
// kGenerationCost flops), turned into seconds by one effective rate calibrated against measured
// task times on the 2-core development machine (docs/PERFORMANCE.md; within ~2x of the measured
// times of raf, raf_relu, rf and drf ws tasks, see cost_model.cpp). It orders the work queue (most
// expensive first, so the long tasks do not straggle at the end) and gives the --dry-run
// prediction of the wall time.
#include <span>

#include "study/study.hpp"
#include "study/task.hpp"

namespace wordsens {

/// Flops one Philox normal counts as, Box–Muller and the pass's product included (Philox on 8
/// AVX2 lanes: about 1.9 ns a normal generated, 3 ns with rf's column-block pass; calibrated with
/// the rf points of cost_model_test.cpp).
inline constexpr double kGenerationCost = 9.0;
/// The same where the CPU has AVX-512 (Philox on 16 lanes: 1.5 ns a normal generated).
inline constexpr double kGenerationCostAvx512 = 7.5;
/// How much faster than kDenseSpeedup's dense double rate rf's single-precision word Grams (the
/// certified bound) run: the build's SIMD kernel, and the AVX-512 kernel chosen at run time
/// (bench_wordsens BM_FloatGramKernel: 72 and 129 Gflop/s at the symmetric count, against
/// BM_Dgemm's 48).
inline constexpr double kFloatGramSpeedup = 2.0;
inline constexpr double kFloatGramSpeedupAvx512 = 3.6;

/// kGenerationCost or kGenerationCostAvx512, for the CPU running this process.
[[nodiscard]] double generation_cost();
/// kFloatGramSpeedup or kFloatGramSpeedupAvx512, for the kernel this process runs.
[[nodiscard]] double float_gram_speedup();

#if defined(__AVX2__) && defined(__FMA__)
/// Sustained flops per second of one core on this code's mix of memory-bound matrix-vector work,
/// x86-64-v3 build (calibrated: cost_model.cpp).
inline constexpr double kEffectiveFlopsPerSecond = 3.2e9;
/// How much faster dense matrix–matrix products (gen's Gram, features, heads) run than that mix:
/// ≈ 40 Gflop/s (bench_wordsens BM_RfGram*, BM_Raf*Phase) against the mix's rate.
inline constexpr double kDenseSpeedup = 12.0;
/// How much faster raf's batched word-sensitivity objective runs than that mix, with both cores
/// busy (two ranks share the caches the GEMMs repack their operands through: a raf task at
/// n = 250, d = 768 takes 30–35 s alone and 50 s next to another rank). Calibrated on
/// paper_ws.ini (210 raf and raf_relu tasks) on 2 ranks: 20 min 19 s measured, 18 min 52 s
/// predicted.
inline constexpr double kBatchedSpeedup = 3.5;
/// The same for rf's batched objective (V_i read once per round of 4 points, 64 rows at a time
/// while cached): calibrated on ws rf, k = D, first word, with the bound, at n = 150, d = 768
/// (245 s), n = 50, d = 768 (44 s) and n = 150, d = 192 (8.6 s), one rank.
inline constexpr double kRfBatchedSpeedup = 3.0;
/// drf's evaluation: the first layer's k × d block of the word, then the k × k layers as GEMMs
/// over the points of a group of positions (models/drf/drf.cpp). At the mix's rate when the layers
/// come from memory, about this much faster when they stay in the last-level cache (measured on
/// 2 ranks: the default study's drf at d = 64, L = 2, k = 256 and 512, 0.52 s and 3.3 s a task
/// against 2.65 s and 19 s priced at the mix's rate; one rank: `wordsens ws --model drf --n 64
/// --d 64 --k 512 --layers 2 --positions all --max-evals 200 --trials 2 --seed 1`, 2.6 s a
/// trial, 3.7 s before the GEMMs).
inline constexpr double kCachedDrfSpeedup = 5.0;
#else
/// The same for the x86-64 (SSE2) baseline build (measured 1.4-3.2 Gflop/s on the calibration
/// tasks; dense products ≈ 15 Gflop/s).
inline constexpr double kEffectiveFlopsPerSecond = 2.5e9;
inline constexpr double kDenseSpeedup = 6.0;
inline constexpr double kBatchedSpeedup = 1.75;   // scaled like the v3 value (not measured)
inline constexpr double kRfBatchedSpeedup = 1.5;  // likewise
inline constexpr double kCachedDrfSpeedup = 5.0;  // likewise
#endif
/// drf layers up to this many bytes (8·(k·d + (L − 1)·k²)) count as cached: half the 32 MiB
/// last-level cache of the calibration machine, which two ranks share.
inline constexpr double kDrfCacheBytes = 16.0 * 1024 * 1024;

/// Number of word positions a task's estimator examines.
[[nodiscard]] Index positions_examined(const TaskSpec& task, const StudyConfig& config);

/// Expected objective evaluations of one ascent start: the ascent usually stops on its patience
/// rule well before max-evals; the typical count per model was measured (cost_model.cpp).
[[nodiscard]] double expected_evaluations_per_start(const TaskSpec& task,
                                                    const StudyConfig& config);

/// Estimated flops of one task.
[[nodiscard]] double estimated_cost(const TaskSpec& task, const StudyConfig& config);

/// Estimated seconds of one task on one core.
[[nodiscard]] double estimated_seconds(const TaskSpec& task, const StudyConfig& config);

/// Wall time of tasks of the given durations on `cores` ranks that each take the most expensive
/// remaining task when free: greedy longest-first list scheduling. The driver first hands out one
/// task of every grid point (parallel/scheduler.hpp); the last tasks are the shortest either way,
/// so the makespan is about the same.
[[nodiscard]] double predicted_wall_seconds(std::span<const double> task_seconds, int cores);

}  // namespace wordsens
