// CUDA backend: loading the driver (libcuda.so.1) at run time, error translation, the current context.
#include <dlfcn.h>

#include "contract/loaded_api.hpp"
#include "cu.hpp"

namespace edgemem::backend::cu {

namespace {

#define EDGEMEM_CUDA_STR2_(x) #x
#define EDGEMEM_CUDA_STR_(x) EDGEMEM_CUDA_STR2_(x)

using Loaded = contract::LoadedApi<Driver>;

Loaded load_once() noexcept {
  Loaded l;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    l.error = Error{Errc::unsupported, 0,
                    "CUDA backend: the NVIDIA driver library libcuda.so.1 could not be loaded (no NVIDIA driver "
                    "installed, or not on the loader's path)"};
    return l;
  }
  // Never closed: the driver's error names (cuGetErrorName) and every handle live as long as the process.
#define EDGEMEM_CUDA_LOOKUP_(fn)                                                                        \
  l.api.fn = reinterpret_cast<decltype(l.api.fn)>(dlsym(lib, EDGEMEM_CUDA_STR_(fn)));          \
  if (l.api.fn == nullptr) {                                                                       \
    l.error = Error{Errc::unsupported, 0,                                                              \
                    "CUDA backend: libcuda.so.1 lacks " EDGEMEM_CUDA_STR_(fn) " (the driver is older than CUDA 12.2)"}; \
    return l;                                                                                         \
  }
  EDGEMEM_CUDA_ENTRY_POINTS(EDGEMEM_CUDA_LOOKUP_)
#undef EDGEMEM_CUDA_LOOKUP_
  const CUresult init = l.api.cuInit(0);
  if (init != CUDA_SUCCESS && init != CUDA_ERROR_NO_DEVICE) {
    l.error = Error{Errc::unsupported, static_cast<std::int32_t>(init),
                    "CUDA backend: cuInit failed (the driver is installed but not usable: Error::native holds the CUresult)"};
    return l;
  }
  l.ok = true;
  return l;
}

const Loaded& loaded() noexcept { return contract::loaded<Driver, load_once>(); }

constexpr contract::ErrcOf<CUresult> kMap[] = {
    {CUDA_ERROR_OUT_OF_MEMORY, Errc::out_of_device_memory},
    {CUDA_ERROR_INVALID_VALUE, Errc::invalid_argument},
    {CUDA_ERROR_INVALID_HANDLE, Errc::invalid_argument},
    {CUDA_ERROR_INVALID_CONTEXT, Errc::invalid_argument},
    {CUDA_ERROR_INVALID_DEVICE, Errc::invalid_argument},
    {CUDA_ERROR_NOT_SUPPORTED, Errc::unsupported},
    {CUDA_ERROR_NO_DEVICE, Errc::unsupported},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, Errc::overlap},
};

}  // namespace

Result<const Driver*> load() noexcept { return contract::api_or_error(loaded()); }

const Driver& driver() noexcept { return loaded().api; }

Error to_error(CUresult status) noexcept {
  const Errc code = contract::errc_of(status, kMap);
  const char* name = nullptr;
  if (loaded().ok && driver().cuGetErrorName(status, &name) != CUDA_SUCCESS) name = nullptr;
  return Error{code, static_cast<std::int32_t>(status), name != nullptr ? name : "CUDA driver error (Error::native holds the CUresult)"};
}

void Bound::restore() noexcept {
  if (restore_ != nullptr) (void)driver().cuCtxSetCurrent(restore_);
  restore_ = nullptr;
}

Result<Bound> bind(CUcontext ctx) noexcept {
  CUcontext current = nullptr;
  EDGEMEM_TRY(check(driver().cuCtxGetCurrent(&current)));
  Bound b;
  if (current == ctx) return b;
  EDGEMEM_TRY(check(driver().cuCtxSetCurrent(ctx)));
  b.restore_ = current;
  return b;
}

}  // namespace edgemem::backend::cu
