#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
/* clEnqueueCopyImage between two image1d_buffer images over different buffers. */
int main(void) {
  cl_platform_id p; cl_device_id d; cl_int st;
  clGetPlatformIDs(1, &p, NULL);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &st);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &st);
  cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
  cl_mem img[2];
  for (int i = 0; i < 2; ++i) {
    cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 256, NULL, &st);
    cl_image_desc desc; memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER; desc.image_width = 8; desc.buffer = buf;
    img[i] = clCreateImage(c, CL_MEM_READ_WRITE, &f, &desc, NULL, &st);
    printf("image1d_buffer %d: %d\n", i, st);
  }
  size_t o[3] = {0, 0, 0}, r[3] = {8, 1, 1};
  st = clEnqueueCopyImage(q, img[0], img[1], o, o, r, 0, NULL, NULL);
  printf("copy image1d_buffer -> image1d_buffer: %d\n", st);
  printf("finish: %d\n", clFinish(q));
  return 0;
}
