#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>
/* PoCL 3.1 and image1d_buffer images over buffers: a view of a sub-buffer, copy_image_to_buffer into
   its own buffer (argument: none, "crash" = a farther offset, "other" = into another buffer). */
int main(int argc, char** argv) {
  cl_platform_id p; cl_device_id d; cl_int st;
  clGetPlatformIDs(1, &p, NULL);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL);
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &st);
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &st);
  cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 1024, NULL, &st);
  cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc; memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER; desc.image_width = 8; desc.buffer = buf;
  cl_mem img = clCreateImage(c, CL_MEM_READ_WRITE, &f, &desc, NULL, &st);
  printf("image1d_buffer over buffer: %d\n", st);
  cl_buffer_region reg = {512, 256};
  cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &st);
  printf("sub-buffer: %d\n", st);
  desc.buffer = sub;
  cl_mem img2 = clCreateImage(c, CL_MEM_READ_WRITE, &f, &desc, NULL, &st);
  printf("image1d_buffer over sub-buffer at 512: %d\n", st);
  size_t o[3] = {0, 0, 0}, r[3] = {8, 1, 1};
  st = clEnqueueCopyImageToBuffer(q, img, buf, o, r, 64, 0, NULL, NULL);
  printf("copy image->own buffer at 64 (image bytes 0..32): %d\n", st);
  fflush(stdout);
  if (argc > 1 && argv[1][0] == 'o') {
    cl_mem other = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &st);
    st = clEnqueueCopyImageToBuffer(q, img, other, o, r, 0, 0, NULL, NULL);
    printf("copy image -> another buffer: %d\n", st);
    printf("finish: %d\n", clFinish(q));
  } else if (argc > 1) {
    st = clEnqueueCopyImageToBuffer(q, img, buf, o, r, 512, 0, NULL, NULL);
    printf("copy image->own buffer at 512: %d\n", st);
    st = clFinish(q);
    printf("finish: %d\n", st);
  }
  return 0;
}
