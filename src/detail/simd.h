// Loops dominated by compensated sums are compiled twice, for AVX2 and for the baseline,
// and the loader picks one for the machine (GNU ifunc): the build needs no -march flag.
// Both give the same bits: lanes do the same IEEE operations, and neither may fuse a
// multiply and an add (AVX2 alone has no FMA, and the library builds with
// -ffp-contract=off).
#pragma once

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
// flatten: everything the function calls is inlined into each clone, so it is all
// compiled for that clone's instruction set.
#define CLUSTERSCORE_SIMD_CLONES [[gnu::flatten, gnu::target_clones("avx2", "default")]]
#else
#define CLUSTERSCORE_SIMD_CLONES
#endif
