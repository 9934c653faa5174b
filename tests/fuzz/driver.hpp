// The differential fuzz driver shared by the libFuzzer entry point (fuzz_main.cpp) and the replay
// program (replay_main.cpp): decodes an input into operations, runs each on every target build of
// edgemem and on a plain-memory model, and aborts with a readable report on any difference.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fz {

/// Opens every target (contexts, queues). Returns false when a target cannot start.
bool init_targets() noexcept;
/// Names of the targets, e.g. "host+opencl+model".
const char* target_names() noexcept;
/// Runs one input. Returns normally when every target and the model agree; aborts otherwise.
void run_input(const std::uint8_t* data, std::size_t size) noexcept;
/// Sets the label the failure report prints (a file name in replay mode).
void set_input_label(const char* label) noexcept;
/// Operations executed by run_input since start-up.
std::uint64_t operations_run() noexcept;

}  // namespace fz
