// The interop tests' compute shader (compiled by glslc at build time): a[i] += value for every 32-bit
// word of the storage buffer bound at binding 0 (an edgemem buffer's native() range).
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Words { uint a[]; };
layout(push_constant) uniform Push { uint words; uint value; } p;
void main() {  // a grid-stride loop: any size within maxComputeWorkGroupCount
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.words; i += stride) a[i] += p.value;
}
