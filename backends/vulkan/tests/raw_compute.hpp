// A compute pipeline built with the raw Vulkan API on an edgemem context, for the interop tests: the
// `add` shader (shaders/add.comp, compiled by glslc at build time) dispatched on an edgemem buffer's
// native() range, submitted in a Queue's order with vulkan_queue_submit.
#pragma once
#include <dlfcn.h>

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "conformance/test_helpers.hpp"

namespace emt {

/// The SPIR-V words of shaders/add.comp.
inline const std::uint32_t kAddSpirv[] =
#include "add.spv.inc"
    ;

/// Device-level entry points the tests use, through the loader opened at run time (as the backend does).
struct RawVk {
#define EMT_VK_FNS(X)                                                                                      \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout)                        \
  X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)                   \
  X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool)  \
  X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) X(vkCreateCommandPool) X(vkDestroyCommandPool)   \
  X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdPipelineBarrier)      \
  X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch)                  \
  X(vkWaitSemaphores)
#define EMT_VK_DECLARE(name) PFN_##name name = nullptr;
  EMT_VK_FNS(EMT_VK_DECLARE)
#undef EMT_VK_DECLARE
  explicit RawVk(VkDevice device) {
    static const auto proc = [] {
      void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
      return lib != nullptr ? reinterpret_cast<PFN_vkGetDeviceProcAddr>(dlsym(lib, "vkGetDeviceProcAddr")) : nullptr;
    }();
    const bool loaded = proc != nullptr;
    REQUIRE(loaded);
#define EMT_VK_LOAD(name)                                          \
  name = reinterpret_cast<PFN_##name>(proc(device, #name));        \
  REQUIRE_MESSAGE((name != nullptr), #name " is missing");
    EMT_VK_FNS(EMT_VK_LOAD)
#undef EMT_VK_LOAD
  }
};

/// `add` on a context's device. enqueue() records one dispatch (with its barriers) and submits it with
/// vulkan_queue_submit, not waiting; every command buffer and descriptor set is kept until destruction,
/// which waits for every value it submitted.
class RawAdd {
 public:
  explicit RawAdd(const edgemem::Context& ctx)
      : device_(reinterpret_cast<VkDevice>(ctx.native().device)), vk_(device_) {
    VkShaderModuleCreateInfo module{};
    module.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module.codeSize = sizeof kAddSpirv;
    module.pCode = kAddSpirv;
    REQUIRE(vk_.vkCreateShaderModule(device_, &module, nullptr, &shader_) == VK_SUCCESS);
    VkDescriptorSetLayoutBinding binding{};
    binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    binding.descriptorCount = 1;
    binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutCreateInfo set{};
    set.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    set.bindingCount = 1;
    set.pBindings = &binding;
    REQUIRE(vk_.vkCreateDescriptorSetLayout(device_, &set, nullptr, &set_layout_) == VK_SUCCESS);
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
    VkPipelineLayoutCreateInfo layout{};
    layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout.setLayoutCount = 1;
    layout.pSetLayouts = &set_layout_;
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &push;
    REQUIRE(vk_.vkCreatePipelineLayout(device_, &layout, nullptr, &layout_) == VK_SUCCESS);
    VkComputePipelineCreateInfo pipeline{};
    pipeline.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline.stage.module = shader_;
    pipeline.stage.pName = "main";
    pipeline.layout = layout_;
    REQUIRE(vk_.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline, nullptr, &pipeline_) == VK_SUCCESS);
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kMaxDispatches};
    VkDescriptorPoolCreateInfo pool{};
    pool.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pool.maxSets = kMaxDispatches;
    pool.poolSizeCount = 1;
    pool.pPoolSizes = &size;
    REQUIRE(vk_.vkCreateDescriptorPool(device_, &pool, nullptr, &descriptors_) == VK_SUCCESS);
    VkCommandPoolCreateInfo commands{};
    commands.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    commands.queueFamilyIndex = ctx.native().queue_family;
    REQUIRE(vk_.vkCreateCommandPool(device_, &commands, nullptr, &commands_) == VK_SUCCESS);
  }
  RawAdd(const RawAdd&) = delete;
  RawAdd& operator=(const RawAdd&) = delete;
  ~RawAdd() {
    finish();
    vk_.vkDestroyCommandPool(device_, commands_, nullptr);
    vk_.vkDestroyDescriptorPool(device_, descriptors_, nullptr);
    vk_.vkDestroyPipeline(device_, pipeline_, nullptr);
    vk_.vkDestroyPipelineLayout(device_, layout_, nullptr);
    vk_.vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    vk_.vkDestroyShaderModule(device_, shader_, nullptr);
  }

  /// Adds `value` to each 32-bit word of `mem` (its whole range), as q's next command; not waited for.
  void enqueue(const edgemem::NativeQueue& q, const edgemem::NativeMem& mem, std::uint32_t value) {
    REQUIRE(submitted_.size() < kMaxDispatches);
    VkDescriptorSetAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    alloc.descriptorPool = descriptors_;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &set_layout_;
    VkDescriptorSet set = VK_NULL_HANDLE;
    REQUIRE(vk_.vkAllocateDescriptorSets(device_, &alloc, &set) == VK_SUCCESS);
    VkDescriptorBufferInfo range{reinterpret_cast<VkBuffer>(mem.buffer), mem.offset, mem.size};
    VkWriteDescriptorSet write{};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = set;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &range;
    vk_.vkUpdateDescriptorSets(device_, 1, &write, 0, nullptr);
    VkCommandBufferAllocateInfo cb_info{};
    cb_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cb_info.commandPool = commands_;
    cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cb_info.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    REQUIRE(vk_.vkAllocateCommandBuffers(device_, &cb_info, &cb) == VK_SUCCESS);
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    REQUIRE(vk_.vkBeginCommandBuffer(cb, &begin) == VK_SUCCESS);
    barrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    vk_.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
    vk_.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
    const std::uint32_t push[2] = {static_cast<std::uint32_t>(mem.size / 4), value};
    vk_.vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    const std::uint64_t groups = (mem.size / 4 + 63) / 64;
    vk_.vkCmdDispatch(cb, static_cast<std::uint32_t>(groups < 4096 ? groups : 4096), 1, 1);  // the shader loops
    barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
            VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    REQUIRE(vk_.vkEndCommandBuffer(cb) == VK_SUCCESS);
    auto value_of = edgemem::vulkan_queue_submit(q, cb);
    REQUIRE_MESSAGE(static_cast<bool>(value_of), "vulkan_queue_submit -> " << describe(value_of));
    submitted_.push_back(Submitted{reinterpret_cast<VkSemaphore>(q.timeline), *value_of});
  }

  /// Waits on the host for every dispatch submitted so far.
  void finish() {
    for (const Submitted& s : submitted_) {
      VkSemaphoreWaitInfo info{};
      info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
      info.semaphoreCount = 1;
      info.pSemaphores = &s.semaphore;
      info.pValues = &s.value;
      CHECK(vk_.vkWaitSemaphores(device_, &info, UINT64_MAX) == VK_SUCCESS);
    }
  }

 private:
  static constexpr std::uint32_t kMaxDispatches = 256;
  struct Submitted {
    VkSemaphore semaphore;
    std::uint64_t value;
  };
  void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
               VkAccessFlags dst_access) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    vk_.vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
  }

  VkDevice device_;
  RawVk vk_;
  VkShaderModule shader_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  VkCommandPool commands_ = VK_NULL_HANDLE;
  std::vector<Submitted> submitted_;
};

}  // namespace emt
