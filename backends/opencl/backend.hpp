/// @file backends/opencl/backend.hpp  The OpenCL backend: the backend contract
/// (src/contract/backend_contract.hpp documents every operation) over OpenCL 1.2+ (2.0/3.0 entry
/// points only after a run-time version check). Private: not installed. CL/cl.h is included only by
/// this folder's .cpp files (through cl.hpp); every cl_int the driver returns is mapped to an Errc in
/// cl_error.cpp and kept in Error::native.
///
/// What is particular to OpenCL:
/// - device_census: clGetPlatformIDs (at most DeviceCensus::max_platforms) and clGetDeviceIDs per
///   platform; context_create opens the selected device and caches its facts and capabilities;
/// - commands run asynchronously (completes_at_enqueue is false), so the common layer records pending
///   commands per root buffer and orders other queues after them;
/// - a blocking write returns once the host bytes are copied out and reports *still_running (NVIDIA
///   580.x crashed when asked for an event on a blocking sub-buffer write under churn);
/// - mem_sub is clCreateSubBuffer with flags 0 (inheriting the root's); copy_rect runs on the root at
///   the origin (PoCL crashed on a rect copy within one sub-buffer);
/// - adopt with AdoptMode::retain calls clRetain*, with borrow nothing; an adopted sub-buffer reports
///   its parent so the common layer makes it a view of it;
/// - map is clEnqueueMapBuffer, blocking; its state is unused;
/// - svm is OpenCL 2.0's clSVMAlloc / clEnqueueSVM* (cl_svm.cpp), the entry points declared weak; a
///   copy between SVM and a buffer runs through a buffer object made over the SVM for that command;
/// - external is cl_khr_external_memory (dma-buf, opaque fd; clCreateBufferWithProperties, OpenCL 3.0)
///   and cl_arm_import_memory (dma-buf), the extension entry points looked up per platform
///   (cl_external.cpp); a khr import is acquired / released around each command by the common layer.
#pragma once
#include "contract/backend_contract.hpp"

namespace edgemem::backend {

/// The OpenCL backend.
struct OpenCL : contract::BackendTypes {
  static constexpr const char* name = "opencl";  ///< DeviceInfo::backend
  static constexpr unsigned groups = contract::group_device | contract::group_buffer | contract::group_image |
                                    contract::group_svm | contract::group_external;  ///< contract groups
  /// Commands run asynchronously on the device.
  static constexpr bool completes_at_enqueue = false;
  static constexpr bool unmap_waits = true;  ///< a blocking unmap waits for its event on the host

  EDGEMEM_BACKEND_OPERATIONS(EDGEMEM_DECLARE_OPERATION)
};

/// The backend this folder builds (src/contract/active.hpp).
using Selected = OpenCL;

}  // namespace edgemem::backend
