// doctest's runner for the conformance suite (built with cpp_eh=none: doctest then runs without exceptions).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
