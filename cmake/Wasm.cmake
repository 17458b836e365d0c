# The WebAssembly build (Emscripten): link flags of the test and demo
# programs, which run under Node (CMAKE_CROSSCOMPILING_EMULATOR); js/ links
# the npm package's module with its own. Single-threaded: no OpenMP, and
# without -pthread the worker pool's pthread_create fails, so every call
# runs on the caller's thread (docs/web.md).
# Node gives the programs the host's files (NODERAWFS) and environment
# (CROWDSTEER_ISA for the per-ISA test copies: cmake/wasm-env.js); the heap
# grows as needed.
set(CROWDSTEER_WASM_BASE_LINKER_FLAGS "${CMAKE_EXE_LINKER_FLAGS}")
string(APPEND CMAKE_EXE_LINKER_FLAGS " -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -sNODERAWFS=1"
       " -sTOTAL_STACK=8388608 --pre-js ${PROJECT_SOURCE_DIR}/cmake/wasm-env.js")
