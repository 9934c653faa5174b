// The two-process tests' checks (ipc_test.cpp, hostile_ipc_test.cpp): EXPECT counts a failure with the
// process id, file and line on stderr and goes on (a child reports through its exit status).
#pragma once
#include <unistd.h>

#include <cstdio>

namespace ipc {

/// Failed EXPECTs of this process.
inline int g_failures = 0;

/// The message of a failed Result, "ok" otherwise.
template <class R>
const char* why(const R& r) {
  return r ? "ok" : r.error().message;
}

}  // namespace ipc

#define EXPECT(cond, ...)                                                                                 \
  do {                                                                                                    \
    if (!(cond)) {                                                                                        \
      std::fprintf(stderr, "[%d] FAIL %s:%d: %s: ", static_cast<int>(getpid()), __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                                  \
      std::fprintf(stderr, "\n");                                                                         \
      ++ipc::g_failures;                                                                                  \
    }                                                                                                     \
  } while (false)
