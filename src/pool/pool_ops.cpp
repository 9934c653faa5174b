// FixedPool's and FrameRing's operations on the cores they keep as raw bytes (detail::PoolOps,
// detail::RingOps in fixed_pool.hpp and frame_ring.hpp): each builds, uses or destroys the core in its
// storage, whose size and alignment are checked here, at compile time, for every target.
#include <new>

#include "pool/pool_core.hpp"
#include "pool/ring_core.hpp"

namespace edgemem::detail {

namespace {

template <class Threads>
PoolCore<Threads>& pool(PoolCoreStorage<Threads>& s) noexcept {
  static_assert(sizeof(PoolCore<Threads>) <= sizeof(s.bytes), "kPoolCoreBytes is too small for the pool core");
  static_assert(alignof(PoolCore<Threads>) <= alignof(PoolCoreStorage<Threads>), "the pool core is over-aligned");
  return *std::launder(reinterpret_cast<PoolCore<Threads>*>(s.bytes));
}
template <class Threads>
const PoolCore<Threads>& pool(const PoolCoreStorage<Threads>& s) noexcept {
  return pool(const_cast<PoolCoreStorage<Threads>&>(s));
}

RingCore& ring(RingCoreStorage& s) noexcept {
  static_assert(sizeof(RingCore) <= sizeof(s.bytes), "kRingCoreBytes is too small for the ring core");
  static_assert(alignof(RingCore) <= alignof(RingCoreStorage), "the ring core is over-aligned");
  return *std::launder(reinterpret_cast<RingCore*>(s.bytes));
}
const RingCore& ring(const RingCoreStorage& s) noexcept { return ring(const_cast<RingCoreStorage&>(s)); }

/// The arena maker and buffers of `Source` (only its own arena is referenced, so an image links only
/// the sources it uses).
template <BlockSourceKind Source>
BlockSource source_of(SvmGrain grain, const Buffer* buffers) noexcept {
  if constexpr (Source == BlockSourceKind::svm) return BlockSource{&svm_arena, grain, nullptr};
  else if constexpr (Source == BlockSourceKind::exportable) return BlockSource{&exportable_arena, SvmGrain::coarse, nullptr};
  else if constexpr (Source == BlockSourceKind::given)
    return BlockSource{&buffer_arena, SvmGrain::coarse, buffers, &check_given_buffers};
  else return BlockSource{&buffer_arena, SvmGrain::coarse, nullptr};
}

}  // namespace

template <class Threads>
void PoolOps<Threads>::construct(PoolCoreStorage<Threads>& core, void* blocks, std::uint32_t* links,
                                 std::size_t capacity) noexcept {
  new (core.bytes) PoolCore<Threads>(blocks, links, capacity);
}

template <class Threads>
void PoolOps<Threads>::destroy(PoolCoreStorage<Threads>& core) noexcept {
  pool(core).~PoolCore<Threads>();
}

template <class Threads>
template <BlockSourceKind Source>
Result<void> PoolOps<Threads>::init(PoolCoreStorage<Threads>& core, const Context& ctx, Queue& q,
                                    std::size_t block_bytes, std::size_t count, Storage storage, MemFlags flags,
                                    SvmGrain grain, const Buffer* buffers) noexcept {
  return pool(core).init(ctx, q, block_bytes, count, storage, flags, source_of<Source>(grain, buffers));
}

template <class Threads>
Result<IpcHandle> PoolOps<Threads>::export_handle(const PoolCoreStorage<Threads>& core) noexcept {
  return pool(core).export_handle();
}

template <class Threads>
Result<BlockDescriptor> PoolOps<Threads>::descriptor(const PoolCoreStorage<Threads>& core,
                                                     const PooledBuffer& b) noexcept {
  return pool(core).descriptor(b);
}

template <class Threads>
Result<PooledBuffer> PoolOps<Threads>::acquire(PoolCoreStorage<Threads>& core) noexcept {
  return pool(core).acquire();
}

template <class Threads>
Result<PooledBuffer> PoolOps<Threads>::acquire_for(PoolCoreStorage<Threads>& core,
                                                   std::chrono::nanoseconds timeout) noexcept {
  return pool(core).acquire_for(timeout);
}

template <class Threads>
PoolStats PoolOps<Threads>::stats(const PoolCoreStorage<Threads>& core) noexcept {
  return pool(core).stats();
}

template <class Threads>
bool PoolOps<Threads>::owns(const PoolCoreStorage<Threads>& core, const PooledBuffer& b) noexcept {
  return pool(core).owns(b);
}

template <class Threads>
Result<void> PoolOps<Threads>::release(PoolCoreStorage<Threads>& core) noexcept {
  return pool(core).release();
}

template struct PoolOps<SingleThread>;
template struct PoolOps<ThreadSafe>;
#define EDGEMEM_POOL_INIT(T, S)                                                                              \
  template Result<void> PoolOps<T>::init<BlockSourceKind::S>(PoolCoreStorage<T>&, const Context&, Queue&,   \
                                                              std::size_t, std::size_t, Storage, MemFlags,  \
                                                              SvmGrain, const Buffer*) noexcept;
EDGEMEM_POOL_INIT(SingleThread, buffer)
EDGEMEM_POOL_INIT(SingleThread, svm)
EDGEMEM_POOL_INIT(SingleThread, exportable)
EDGEMEM_POOL_INIT(SingleThread, given)
EDGEMEM_POOL_INIT(ThreadSafe, buffer)
EDGEMEM_POOL_INIT(ThreadSafe, svm)
EDGEMEM_POOL_INIT(ThreadSafe, exportable)
EDGEMEM_POOL_INIT(ThreadSafe, given)
#undef EDGEMEM_POOL_INIT

void RingOps::construct(RingCoreStorage& core, PoolCoreStorage<ThreadSafe>& frames, PooledBuffer* fifo,
                        std::size_t capacity) noexcept {
  new (core.bytes) RingCore(pool(frames), fifo, capacity);
}

void RingOps::destroy(RingCoreStorage& core) noexcept { ring(core).~RingCore(); }

template <BlockSourceKind Source>
Result<void> RingOps::init(RingCoreStorage& core, const Context& ctx, Queue& q, std::size_t frame_bytes,
                           Overflow policy, Storage storage, MemFlags flags, const Buffer* buffers) noexcept {
  return ring(core).init(ctx, q, frame_bytes, policy, storage, flags, source_of<Source>(SvmGrain::coarse, buffers));
}
template Result<void> RingOps::init<BlockSourceKind::buffer>(RingCoreStorage&, const Context&, Queue&, std::size_t,
                                                             Overflow, Storage, MemFlags, const Buffer*) noexcept;
template Result<void> RingOps::init<BlockSourceKind::exportable>(RingCoreStorage&, const Context&, Queue&, std::size_t,
                                                                 Overflow, Storage, MemFlags, const Buffer*) noexcept;
template Result<void> RingOps::init<BlockSourceKind::given>(RingCoreStorage&, const Context&, Queue&, std::size_t,
                                                            Overflow, Storage, MemFlags, const Buffer*) noexcept;

Result<PooledBuffer> RingOps::acquire(RingCoreStorage& core) noexcept { return ring(core).acquire(); }

Result<void> RingOps::publish(RingCoreStorage& core, PooledBuffer&& frame) noexcept {
  return ring(core).publish(std::move(frame));
}

Result<PooledBuffer> RingOps::take(RingCoreStorage& core) noexcept { return ring(core).take(); }

Result<PooledBuffer> RingOps::take_for(RingCoreStorage& core, std::chrono::nanoseconds timeout) noexcept {
  return ring(core).take_for(timeout);
}

RingStats RingOps::stats(const RingCoreStorage& core) noexcept { return ring(core).stats(); }

Result<void> RingOps::release(RingCoreStorage& core) noexcept { return ring(core).release(); }

}  // namespace edgemem::detail
