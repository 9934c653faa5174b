#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
/* clEnqueueFillImage on an image1d_buffer. argv[1]: channel type 0 unorm_int8, 1 unsigned_int8; argv[2]: 1 = whole width */
int main(int argc, char** argv) {
  cl_platform_id p; cl_device_id d; cl_int st;
  clGetPlatformIDs(1, &p, NULL);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &st);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &st);
  cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 32, NULL, &st);
  int u = argc > 1 && argv[1][0] == '1';
  cl_image_format f = {CL_RGBA, u ? CL_UNSIGNED_INT8 : CL_UNORM_INT8};
  cl_image_desc desc; memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER; desc.image_width = 8; desc.buffer = buf;
  cl_mem img = clCreateImage(c, CL_MEM_READ_WRITE, &f, &desc, NULL, &st);
  printf("image1d_buffer: %d\n", st); fflush(stdout);
  size_t o[3] = {0, 0, 0}, r[3] = {argc > 2 ? 8 : 4, 1, 1};
  cl_uint ucol[4] = {1, 2, 3, 4}; float fcol[4] = {0, 1, 0, 1};
  st = clEnqueueFillImage(q, img, u ? (void*)ucol : (void*)fcol, o, r, 0, NULL, NULL);
  printf("fill: %d\n", st); fflush(stdout);
  printf("finish: %d\n", clFinish(q));
  unsigned char out[32];
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 32, out, 0, NULL, NULL);
  for (int i = 0; i < 32; ++i) printf("%d ", out[i]);
  printf("\n");
  return 0;
}
