// Counts every malloc-family and operator new call made by the process while counting is on, by
// interposing those functions in the test executable (glibc: forwards to __libc_*). Not for use
// under sanitizers, which interpose the same functions.
#pragma once
#include <cstddef>

namespace edgemem_test {

/// Starts counting allocation calls (resets the count).
void start_counting() noexcept;
/// Stops counting and returns the number of allocation calls seen since start_counting().
std::size_t stop_counting() noexcept;

}  // namespace edgemem_test
