// How the core maps its big arrays (4 MiB and more: the per-item and hash-table arrays).
#pragma once

namespace clusterscore {

// true: memory new to the process is asked to use transparent huge pages (2 MiB). They
// cut the TLB misses of random access into big arrays, so calls that reuse the arrays the
// core keeps (the second call of a process, and later) run faster. false (the default):
// the system's page policy (Linux's transparent_hugepage setting, usually "madvise": 4 KiB
// pages), which is cheaper where memory new to the process is dear, as on virtual
// machines whose host backs it only when first touched: there the first call of a process
// (every command-line run) is much faster. docs/performance.md has the figures. Applies
// to memory mapped from then on; blocks already kept for reuse keep their pages. Not to be
// changed while a computation runs. Results never depend on it.
void set_huge_pages(bool on) noexcept;

// Whether memory new to the process is asked to use huge pages.
bool huge_pages() noexcept;

// Hands the big arrays kept for reuse back to the operating system; returns their bytes.
// Not to be called while a computation runs.
unsigned long long release_memory();

}  // namespace clusterscore
