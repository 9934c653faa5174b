// The cl_int -> Errc table: every status the context, device, queue, memory and event entry points
// (and the rest of the core API, for completeness) can return, each with a static message.
#include "cl_error.hpp"

namespace edgemem::backend::cl {

namespace {

struct Entry {
  cl_int status;
  Errc code;
  const char* message;
};

constexpr Errc kArg = Errc::invalid_argument;
constexpr Errc kFail = Errc::backend_failure;
constexpr Errc kUnsup = Errc::unsupported;

// Codes -69..-72 are OpenCL 2.0+ and not declared for CL_TARGET_OPENCL_VERSION 120, hence literals.
constexpr Entry kTable[] = {
    {CL_DEVICE_NOT_FOUND, kUnsup, "CL_DEVICE_NOT_FOUND: no OpenCL device of the requested type"},
    {CL_DEVICE_NOT_AVAILABLE, kUnsup, "CL_DEVICE_NOT_AVAILABLE: the OpenCL device is not available"},
    {CL_COMPILER_NOT_AVAILABLE, kUnsup, "CL_COMPILER_NOT_AVAILABLE: the device has no compiler"},
    {CL_MEM_OBJECT_ALLOCATION_FAILURE, Errc::out_of_device_memory,
     "CL_MEM_OBJECT_ALLOCATION_FAILURE: the device could not allocate the memory object"},
    {CL_OUT_OF_RESOURCES, Errc::out_of_device_memory, "CL_OUT_OF_RESOURCES: the device is out of resources"},
    {CL_OUT_OF_HOST_MEMORY, Errc::out_of_host_memory, "CL_OUT_OF_HOST_MEMORY: the OpenCL driver is out of host memory"},
    {CL_PROFILING_INFO_NOT_AVAILABLE, kUnsup, "CL_PROFILING_INFO_NOT_AVAILABLE: no profiling information"},
    {CL_MEM_COPY_OVERLAP, Errc::overlap, "CL_MEM_COPY_OVERLAP: copy source and destination overlap"},
    {CL_IMAGE_FORMAT_MISMATCH, kArg, "CL_IMAGE_FORMAT_MISMATCH: images use different formats"},
    {CL_IMAGE_FORMAT_NOT_SUPPORTED, kUnsup, "CL_IMAGE_FORMAT_NOT_SUPPORTED: image format not supported"},
    {CL_BUILD_PROGRAM_FAILURE, kFail, "CL_BUILD_PROGRAM_FAILURE: program build failed"},
    {CL_MAP_FAILURE, kFail, "CL_MAP_FAILURE: the driver could not map the memory object"},
    {CL_MISALIGNED_SUB_BUFFER_OFFSET, Errc::misaligned,
     "CL_MISALIGNED_SUB_BUFFER_OFFSET: sub-buffer origin is not aligned to the device base alignment"},
    {CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, kFail,
     "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: a command in the wait list failed"},
    {CL_COMPILE_PROGRAM_FAILURE, kFail, "CL_COMPILE_PROGRAM_FAILURE: program compilation failed"},
    {CL_LINKER_NOT_AVAILABLE, kUnsup, "CL_LINKER_NOT_AVAILABLE: the device has no linker"},
    {CL_LINK_PROGRAM_FAILURE, kFail, "CL_LINK_PROGRAM_FAILURE: program link failed"},
    {CL_DEVICE_PARTITION_FAILED, kFail, "CL_DEVICE_PARTITION_FAILED: device partitioning failed"},
    {CL_KERNEL_ARG_INFO_NOT_AVAILABLE, kUnsup, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE: no kernel argument information"},
    {CL_INVALID_VALUE, kArg, "CL_INVALID_VALUE: the OpenCL driver rejected a parameter value"},
    {CL_INVALID_DEVICE_TYPE, kArg, "CL_INVALID_DEVICE_TYPE: invalid device type"},
    {CL_INVALID_PLATFORM, kFail, "CL_INVALID_PLATFORM: invalid platform handle"},
    {CL_INVALID_DEVICE, kFail, "CL_INVALID_DEVICE: invalid device handle"},
    {CL_INVALID_CONTEXT, kFail, "CL_INVALID_CONTEXT: invalid context, or objects from different contexts"},
    {CL_INVALID_QUEUE_PROPERTIES, kArg, "CL_INVALID_QUEUE_PROPERTIES: queue properties not supported"},
    {CL_INVALID_COMMAND_QUEUE, kFail, "CL_INVALID_COMMAND_QUEUE: invalid command queue handle"},
    {CL_INVALID_HOST_PTR, kArg, "CL_INVALID_HOST_PTR: host pointer does not match the memory flags"},
    {CL_INVALID_MEM_OBJECT, kFail, "CL_INVALID_MEM_OBJECT: invalid memory object handle"},
    {CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, kArg, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: invalid image format"},
    {CL_INVALID_IMAGE_SIZE, kArg, "CL_INVALID_IMAGE_SIZE: image size not supported"},
    {CL_INVALID_SAMPLER, kFail, "CL_INVALID_SAMPLER: invalid sampler handle"},
    {CL_INVALID_BINARY, kArg, "CL_INVALID_BINARY: invalid program binary"},
    {CL_INVALID_BUILD_OPTIONS, kArg, "CL_INVALID_BUILD_OPTIONS: invalid build options"},
    {CL_INVALID_PROGRAM, kFail, "CL_INVALID_PROGRAM: invalid program handle"},
    {CL_INVALID_PROGRAM_EXECUTABLE, kFail, "CL_INVALID_PROGRAM_EXECUTABLE: program not built"},
    {CL_INVALID_KERNEL_NAME, kArg, "CL_INVALID_KERNEL_NAME: no kernel of that name"},
    {CL_INVALID_KERNEL_DEFINITION, kArg, "CL_INVALID_KERNEL_DEFINITION: kernel differs between devices"},
    {CL_INVALID_KERNEL, kFail, "CL_INVALID_KERNEL: invalid kernel handle"},
    {CL_INVALID_ARG_INDEX, kArg, "CL_INVALID_ARG_INDEX: invalid kernel argument index"},
    {CL_INVALID_ARG_VALUE, kArg, "CL_INVALID_ARG_VALUE: invalid kernel argument value"},
    {CL_INVALID_ARG_SIZE, kArg, "CL_INVALID_ARG_SIZE: invalid kernel argument size"},
    {CL_INVALID_KERNEL_ARGS, kArg, "CL_INVALID_KERNEL_ARGS: kernel arguments not set"},
    {CL_INVALID_WORK_DIMENSION, kArg, "CL_INVALID_WORK_DIMENSION: invalid work dimension"},
    {CL_INVALID_WORK_GROUP_SIZE, kArg, "CL_INVALID_WORK_GROUP_SIZE: invalid work-group size"},
    {CL_INVALID_WORK_ITEM_SIZE, kArg, "CL_INVALID_WORK_ITEM_SIZE: invalid work-item size"},
    {CL_INVALID_GLOBAL_OFFSET, kArg, "CL_INVALID_GLOBAL_OFFSET: invalid global offset"},
    {CL_INVALID_EVENT_WAIT_LIST, kArg, "CL_INVALID_EVENT_WAIT_LIST: invalid event wait list"},
    {CL_INVALID_EVENT, kFail, "CL_INVALID_EVENT: invalid event handle"},
    {CL_INVALID_OPERATION, kFail, "CL_INVALID_OPERATION: the OpenCL driver refused the operation"},
    {CL_INVALID_GL_OBJECT, kArg, "CL_INVALID_GL_OBJECT: invalid OpenGL object"},
    {CL_INVALID_BUFFER_SIZE, kArg, "CL_INVALID_BUFFER_SIZE: buffer size is zero or too large for the device"},
    {CL_INVALID_MIP_LEVEL, kArg, "CL_INVALID_MIP_LEVEL: invalid mip level"},
    {CL_INVALID_GLOBAL_WORK_SIZE, kArg, "CL_INVALID_GLOBAL_WORK_SIZE: invalid global work size"},
    {CL_INVALID_PROPERTY, kArg, "CL_INVALID_PROPERTY: invalid or unsupported property"},
    {CL_INVALID_IMAGE_DESCRIPTOR, kArg, "CL_INVALID_IMAGE_DESCRIPTOR: invalid image descriptor"},
    {CL_INVALID_COMPILER_OPTIONS, kArg, "CL_INVALID_COMPILER_OPTIONS: invalid compiler options"},
    {CL_INVALID_LINKER_OPTIONS, kArg, "CL_INVALID_LINKER_OPTIONS: invalid linker options"},
    {CL_INVALID_DEVICE_PARTITION_COUNT, kArg, "CL_INVALID_DEVICE_PARTITION_COUNT: invalid partition count"},
    {-69, kArg, "CL_INVALID_PIPE_SIZE: invalid pipe size"},
    {-70, kFail, "CL_INVALID_DEVICE_QUEUE: invalid device queue"},
    {-71, kArg, "CL_INVALID_SPEC_ID: invalid specialization constant id"},
    {-72, kArg, "CL_MAX_SIZE_RESTRICTION_EXCEEDED: a size exceeds a device limit"},
    {-1000, kArg, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR: invalid OpenGL share group"},
    {-1001, kUnsup, "CL_PLATFORM_NOT_FOUND_KHR: no OpenCL platform is installed (ICD loader found none)"},
};

}  // namespace

Error host_access_error() noexcept {
  return Error{Errc::access_denied, CL_INVALID_OPERATION,
               "CL_INVALID_OPERATION: the buffer's host-access flags forbid this host read or write"};
}

Error to_error(cl_int status) noexcept {
  for (const Entry& e : kTable)
    if (e.status == status) return Error{e.code, status, e.message};
  if (status == CL_SUCCESS) return Error{kFail, status, "CL_SUCCESS reported as a failure (internal error)"};
  return Error{kFail, status, "unknown OpenCL error code (see Error::native)"};
}

}  // namespace edgemem::backend::cl
