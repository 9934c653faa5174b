#include <edgemem/context.hpp>

#include "detail/live.hpp"
#include "detail/nodes.hpp"

namespace edgemem {

using detail::Backend;

namespace {

/// A context node whose native handles `open_native(info)` provides. Errc: out_of_host_memory, or open_native's.
template <class OpenNative>
Result<detail::ContextNode*> open_node(OpenNative&& open_native) noexcept {
  auto* node = detail::make_node<detail::ContextNode>();
  if (node == nullptr) return fail(Errc::out_of_host_memory, "no memory for the context");
  auto native = open_native(node->info);
  if (!native) {
    detail::destroy_node(node);
    return fail(native.error());
  }
  node->native = *native;
  detail::live_add(detail::Live::context, 1);
  return node;
}

/// The same answer on every backend for selectors no backend can satisfy. Errc: invalid_argument.
Result<void> check_selector(const DeviceSelector& s) noexcept {
  if (s.type != DeviceType::any && s.type != DeviceType::gpu && s.type != DeviceType::cpu &&
      s.type != DeviceType::accelerator)
    return fail(Errc::invalid_argument, "unknown device type");
  if (s.platform_index < -1 || s.device_index < -1)
    return fail(Errc::invalid_argument, "a device or platform index is negative (-1 means not specified)");
  return {};
}

}  // namespace

Result<Context> Context::create(const DeviceSelector& selector) noexcept {
  EDGEMEM_TRY(check_selector(selector));
  EDGEMEM_TRY_ASSIGN(detail::ContextNode* n,
                     open_node([&](DeviceInfo& info) { return Backend::context_create(selector, info); }));
  return Context(n);
}

Result<Context> Context::adopt(const Backend::NativeContext& native) noexcept {
  EDGEMEM_TRY_ASSIGN(detail::ContextNode* n,
                     open_node([&](DeviceInfo& info) { return Backend::context_adopt(native, info); }));
  return Context(n);
}

Context::Context(Context&& other) noexcept : node_(other.node_) { other.node_ = nullptr; }

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    (void)release();
    node_ = other.node_;
    other.node_ = nullptr;
  }
  return *this;
}

Context::~Context() { (void)release(); }

const DeviceInfo& Context::info() const noexcept {
  static const DeviceInfo empty{};
  return node_ != nullptr ? node_->info : empty;
}

std::size_t Context::base_align() const noexcept { return info().base_align_bytes; }

UnreportedErrors Context::unreported_errors() const noexcept {
  if (node_ == nullptr) return {};
  std::lock_guard<std::mutex> lock(node_->unreported_lock);
  return UnreportedErrors{node_->unreported_count, node_->unreported_last};
}

Backend::NativeContext Context::native() const noexcept {
  return node_ != nullptr ? node_->native : Backend::NativeContext{};
}

Result<void> Context::release() noexcept {
  detail::unref(node_);
  node_ = nullptr;
  return {};
}

}  // namespace edgemem
