#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
/* An image1d_buffer over a buffer (argument given; else a second buffer), released with its buffer and
   context: LeakSanitizer reports 4 bytes calloc()ed inside PoCL 3.1 (none without the image).
   clang -fsanitize=address raw_leak_image1d_buffer.c -lOpenCL && ./a.out img */
int main(int argc, char** argv) {
  cl_platform_id p; cl_device_id d; cl_int st;
  clGetPlatformIDs(1, &p, NULL);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &st);
  cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 1024, NULL, &st);
  cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc; memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER; desc.image_width = 8; desc.buffer = buf;
  cl_mem img = argc > 1 ? clCreateImage(c, CL_MEM_READ_WRITE, &f, &desc, NULL, &st) : clCreateBuffer(c, CL_MEM_READ_WRITE, 16, NULL, &st);
  printf("image1d_buffer: %d\n", st);
  printf("release image %d, buffer %d, context %d\n", clReleaseMemObject(img), clReleaseMemObject(buf), clReleaseContext(c));
  return 0;
}
