# The SIMD backends: src/kernels/kernels.c compiled once per ISA as its own
# object library with its own flags, linked into crowdsteer. The dispatcher
# learns which exist through CROWDSTEER_HAVE_<ISA>.
set(CROWDSTEER_BACKENDS "")
# Testing aid for machines without AVX-512 (such as AMD Zen 3 and older): the
# 16-lane backend is built through SIMDe's portable AVX-512 emulation on AVX2
# and reported as available wherever AVX2 is, so its lane logic (masks,
# tails, 16-wide hashing) is checked bit for bit. Never for production.
option(CROWDSTEER_AVX512_EMULATED "Build the avx512 backend emulated on AVX2 (tests only)" OFF)
set(_cs_avx512_flags "-mavx512f -mavx512dq -mavx512bw -mavx512vl")
# Behaviour outputs at least this large (bytes written by one call) use
# non-temporal stores; see stream_split in src/kernels/kernels.c. 64 MiB is
# beyond the last-level cache of most CPUs, so the integrator would read them
# from memory anyway. The asan and aarch64 presets set 1 so that the suite
# runs the streaming path everywhere.
set(CROWDSTEER_STREAM_MIN_BYTES 67108864 CACHE STRING
    "Smallest behaviour output (bytes) written with non-temporal stores")
set(_cs_kernel_opt "")
if(CROWDSTEER_AVX512_EMULATED)
  set(_cs_avx512_flags "-mavx2")
  # SIMDe's portable 512-bit kernels.c took gcc 233 s to compile at -O3
  # (110 s at -O2, 45 s at -O1), the longest step of CI on such machines.
  # (clang's sanitizer build is faster at its -O2: 55 s, 126 s at -O1.)
  # A build for tests only: the other backends at -O1 too (their -O3
  # kernels took 43 s of the build's 154 s of CPU).
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    set(_cs_kernel_opt "-O1")
  endif()
endif()
if(CROWDSTEER_SIMD)
  find_path(SIMDE_INCLUDE_DIR simde/x86/sse4.1.h)
  if(EMSCRIPTEN AND NOT SIMDE_INCLUDE_DIR)
    # The Emscripten toolchain searches its own sysroot only, and the host's
    # /usr/include as an include directory would hide the sysroot's C
    # library: SIMDe (headers only, portable) alone is linked into the build.
    find_path(_cs_host_simde simde/x86/sse4.1.h PATHS /usr/include /usr/local/include
              NO_CMAKE_FIND_ROOT_PATH)
    if(_cs_host_simde)
      file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/simde-include)
      file(CREATE_LINK ${_cs_host_simde}/simde ${PROJECT_BINARY_DIR}/simde-include/simde
           SYMBOLIC)
      set(SIMDE_INCLUDE_DIR ${PROJECT_BINARY_DIR}/simde-include CACHE PATH "SIMDe" FORCE)
    endif()
  endif()
  if(NOT SIMDE_INCLUDE_DIR)
    message(FATAL_ERROR "SIMDe not found: apt-get install libsimde-dev, "
                        "or configure with -DCROWDSTEER_SIMD=OFF for the scalar build")
  endif()
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    list(APPEND CROWDSTEER_BACKENDS "sse4\;4\;-msse4.1"
         "avx2\;8\;-mavx2"
         "avx512\;16\;${_cs_avx512_flags}")
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
    list(APPEND CROWDSTEER_BACKENDS "neon\;4\;")
  elseif(EMSCRIPTEN)
    # The 4-lane kernels on WebAssembly SIMD (SIMDe maps the SSE4.1 API to
    # it). Such a module loads only on engines with SIMD: the scalar build
    # (CROWDSTEER_SIMD=OFF) is the other half of the npm package.
    list(APPEND CROWDSTEER_BACKENDS "simd128\;4\;-msimd128")
  else()
    message(STATUS "crowdsteer: no SIMD backend for ${CMAKE_SYSTEM_PROCESSOR}; scalar only")
  endif()
endif()

set(CROWDSTEER_ISAS scalar)
foreach(backend IN LISTS CROWDSTEER_BACKENDS)
  list(GET backend 0 isa)
  list(GET backend 1 lanes)
  list(GET backend 2 flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(target crowdsteer_kernels_${isa})
  add_library(${target} OBJECT src/kernels/kernels.c src/kernels/neighbours.c
    src/kernels/avoid_scan.c src/kernels/avoid_lines.c src/kernels/path.c)
  crowdsteer_use_flags(${target})
  target_include_directories(${target} SYSTEM PRIVATE ${SIMDE_INCLUDE_DIR})
  target_compile_definitions(${target} PRIVATE CS_LANES=${lanes}
                             CS_BACKEND=cs_backend_${isa} CS_NB_KERNEL=cs_nb_kernel_${isa}
                             CS_AVOID_SCAN=cs_avoid_scan_${isa}
                             CS_AVOID_LINES=cs_avoid_lines_${isa}
                             CS_FOLLOW_PATH_2D=cs_follow_path_2d_${isa}
                             CS_FOLLOW_PATH_3D=cs_follow_path_3d_${isa}
                             CS_STREAM_MIN_BYTES=${CROWDSTEER_STREAM_MIN_BYTES}u)
  target_compile_options(${target} PRIVATE ${flags} ${_cs_kernel_opt})
  # UBSan's pointer-overflow check made clang's sanitizer and fuzz builds of
  # the AVX-512 kernels.c take 208 s instead of 63 s (the longest step of CI);
  # the kernels index arrays whose bounds ASan checks on every access.
  if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND CMAKE_C_FLAGS MATCHES "fsanitize=[^ ]*undefined")
    target_compile_options(${target} PRIVATE -fno-sanitize=pointer-overflow)
  endif()
  target_sources(crowdsteer PRIVATE $<TARGET_OBJECTS:${target}>)
  string(TOUPPER ${isa} ISA)
  target_compile_definitions(crowdsteer PRIVATE CROWDSTEER_HAVE_${ISA})
  list(APPEND CROWDSTEER_ISAS ${isa})
endforeach()
if(CROWDSTEER_AVX512_EMULATED)
  target_compile_definitions(crowdsteer PRIVATE CROWDSTEER_AVX512_EMULATED)
endif()
message(STATUS "crowdsteer backends: ${CROWDSTEER_ISAS}")
