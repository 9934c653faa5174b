// pool_bench's baseline on a backend without one (no driver API to allocate through).
#include "raw_alloc.hpp"

namespace pool_bench {

const RawAlloc* raw_alloc() noexcept { return nullptr; }

}  // namespace pool_bench
