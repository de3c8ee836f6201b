// The one translation unit with main and CAF's test-engine definitions (caf/test/unit_test_impl.hpp,
// without CAF's own main), next to Catch2's runner.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#define CAF_TEST_NO_MAIN
#include "caf/test/unit_test_impl.hpp"

int main(int argc, char** argv) {
  caf::test::engine::args(1, argv); // CAF sees only argv[0]; Catch keeps its own flags
  return Catch::Session().run(argc, argv);
}
