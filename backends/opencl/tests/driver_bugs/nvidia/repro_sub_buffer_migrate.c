/* The operations of crash-nvidia-migrate-discard-sub-buffer.bin as raw OpenCL calls, the way edgemem made
 * them before 2738094 (a sub-buffer was a native cl sub-buffer; each command used it directly), to tell
 * whether the crash is the driver's. Each variant runs in a child process, so a crash is reported and the
 * next variant still runs. Not built by Meson (a by-hand probe for an NVIDIA machine):
 *   cc -O2 -o repro backends/opencl/tests/driver_bugs/nvidia/repro_sub_buffer_migrate.c -lOpenCL
 *   OCL_ICD_VENDORS=<dir with nvidia.icd> ./repro
 * Variant bits: 1 clFinish after each migration, 2 the migrations non-blocking and never waited for
 * (else a clWaitForEvents on each), 4 reads and writes non-blocking with a clFinish after each; and, to
 * find what the crash needs, 8 without the sub-buffer's discarding migration (#3), 16 without the
 * buffer's migrations to the host (#9, #11). Variant 0 prints each step before it runs. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static cl_command_queue q;
static int variant;
static unsigned char host[4096];

static void check(cl_int e, const char* what) {
  if (e != CL_SUCCESS) {
    printf("    %s: error %d\n", what, e);
    exit(2);
  }
}
static void step(const char* what) {
  if (variant == 0) printf("    step: %s\n", what), fflush(stdout);
}
static void rw(cl_mem m, int write, size_t bytes, const char* what) {
  step(what);
  const cl_bool blocking = (variant & 4) ? CL_FALSE : CL_TRUE;
  cl_int e = write ? clEnqueueWriteBuffer(q, m, blocking, 0, bytes, host, 0, NULL, NULL)
                   : clEnqueueReadBuffer(q, m, blocking, 0, bytes, host, 0, NULL, NULL);
  check(e, what);
  if (variant & 4) check(clFinish(q), "clFinish");
}
static void migrate(cl_mem m, cl_mem_migration_flags flags, const char* what) {
  step(what);
  cl_event ev = NULL;
  check(clEnqueueMigrateMemObjects(q, 1, &m, flags, 0, NULL, &ev), what);
  if (!(variant & 2)) check(clWaitForEvents(1, &ev), "clWaitForEvents");
  clReleaseEvent(ev);
  if (variant & 1) check(clFinish(q), "clFinish");
}

static int run(cl_context ctx) {
  cl_int e;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &e);
  check(e, "clCreateBuffer");
  memset(host, 7, sizeof host);
  rw(buf, 1, 4096, "write buffer");                                                /* #1 */
  cl_buffer_region region = {1024, 1024};
  cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &e);
  check(e, "clCreateSubBuffer");                                                   /* #2 */
  if (!(variant & 8)) migrate(sub, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, "migrate sub, discard"); /* #3 */
  rw(buf, 0, 4096, "read buffer");                                                 /* #4 */
  rw(sub, 1, 512, "write sub");                                                    /* #5 */
  rw(sub, 0, 1024, "read sub");                                                    /* #6 */
  rw(buf, 0, 4096, "read buffer");                                                 /* #7 */
  rw(buf, 1, 4096, "write buffer");                                                /* #8 */
  if (!(variant & 16)) migrate(buf, CL_MIGRATE_MEM_OBJECT_HOST, "migrate buffer to host"); /* #9 */
  rw(buf, 0, 4096, "read buffer");                                                 /* #10 */
  if (!(variant & 16)) migrate(buf, CL_MIGRATE_MEM_OBJECT_HOST, "migrate buffer to host"); /* #11 */
  rw(sub, 0, 1024, "read sub");                                                    /* #12: the crash */
  check(clFinish(q), "clFinish");
  clReleaseMemObject(sub);
  clReleaseMemObject(buf);
  return 0;
}

/* The first device of the first platform (in the child: a driver's threads do not survive fork). */
static cl_device_id first_device(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_uint n = 0;
  if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) puts("no platform"), exit(1);
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &n) != CL_SUCCESS || n == 0) puts("no device"), exit(1);
  return device;
}

int main(void) {
  int crashes = 0;
  static const int kVariants[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 24};
  const int count = (int)(sizeof kVariants / sizeof kVariants[0]);
  for (int v = 0; v < count; ++v) {
    variant = kVariants[v];
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      cl_int e;
      cl_device_id device = first_device();
      if (variant == 0) {
        char name[256] = "";
        clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
        printf("device: %s\n", name);
        fflush(stdout);
      }
      cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
      check(e, "clCreateContext");
      q = clCreateCommandQueue(ctx, device, 0, &e);
      check(e, "clCreateCommandQueue");
      _exit(run(ctx));
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) {
      ++crashes;
      printf("variant %d: killed by signal %d\n", variant, WTERMSIG(status));
    } else {
      printf("variant %d: exit %d\n", variant, WEXITSTATUS(status));
    }
  }
  printf("%d of %d variants crashed\n", crashes, count);
  return crashes != 0 ? 3 : 0;
}
