# The libFuzzer target fuzz_crowdsteer, over a crowdsteer target already
# defined with ASan + UBSan in CMAKE_C_FLAGS and coverage on its own sources
# (fuzzer-no-link): fuzz/CMakeLists.txt (the standalone project) and the
# main build with CROWDSTEER_BUILD_FUZZER (the asan preset) include it.
set(_fuzz_dir ${CMAKE_CURRENT_LIST_DIR})
add_executable(fuzz_crowdsteer ${_fuzz_dir}/fuzz_crowdsteer.c ${_fuzz_dir}/fuzz_common.c
  ${_fuzz_dir}/fuzz_case.c ${_fuzz_dir}/fuzz_case_call.c ${_fuzz_dir}/fuzz_step.c
  ${_fuzz_dir}/fuzz_step_call.c ${_fuzz_dir}/fuzz_neighbours.c ${_fuzz_dir}/fuzz_navigation.c ${_fuzz_dir}/fuzz_avoid.c
  ${_fuzz_dir}/fuzz_avoid_call.c)
# The avoidance case checks the walls with the library's exact predicates
# (src/avoid/exact.h, verified against a big-integer reference).
target_include_directories(fuzz_crowdsteer PRIVATE ${_fuzz_dir}/../src)
find_package(Threads REQUIRED) # steps on a small-stack thread
target_link_libraries(fuzz_crowdsteer PRIVATE crowdsteer::crowdsteer m Threads::Threads)
target_compile_options(fuzz_crowdsteer PRIVATE -std=c11 -ffp-contract=off -Wall -Wextra
  -fsanitize=fuzzer-no-link)
target_link_options(fuzz_crowdsteer PRIVATE -fsanitize=fuzzer,address,undefined)
