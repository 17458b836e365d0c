# Pictures (crowdsteer-demo --pictures DIR, needs libpng) and the interactive
# SDL2 viewer crowdsteer-viewer; included at the end of examples/CMakeLists.txt.
set(_cs_pic_dir ${CMAKE_CURRENT_LIST_DIR})
set(_cs_pic_sources ${_cs_pic_dir}/pictures.c ${_cs_pic_dir}/pictures_figures.c
                    ${_cs_pic_dir}/pictures_crowd.c)
# Pixels feed recorded hashes, so no FMA contraction (same rule as the library).
set_source_files_properties(${_cs_pic_sources} PROPERTIES
  COMPILE_OPTIONS "-ffp-contract=off;-Wall;-Wextra")

find_package(PNG QUIET)
if(TARGET crowdsteer-demo AND PNG_FOUND)
  target_sources(crowdsteer-demo PRIVATE ${_cs_pic_sources})
  # Appended to the property rather than target_link_libraries() so this file
  # works whichever target_link_libraries signature the demo uses.
  set_property(TARGET crowdsteer-demo APPEND PROPERTY LINK_LIBRARIES PNG::PNG)
  target_compile_definitions(crowdsteer-demo PRIVATE
    CROWDSTEER_DEMO_PICTURES CROWDSTEER_PICTURES_PNG)
  target_include_directories(crowdsteer-demo PRIVATE ${_cs_pic_dir})
  if(TARGET crowdsteer-evacuation)
    target_sources(crowdsteer-evacuation PRIVATE ${_cs_pic_dir}/evacuation_picture.c
      ${_cs_pic_sources})
    set_property(TARGET crowdsteer-evacuation APPEND PROPERTY LINK_LIBRARIES PNG::PNG)
    target_compile_definitions(crowdsteer-evacuation PRIVATE CROWDSTEER_EVAC_PICTURES
      CROWDSTEER_PICTURES_PNG)
  endif()
elseif(TARGET crowdsteer-demo)
  message(STATUS "crowdsteer: libpng not found, crowdsteer-demo without --pictures "
                 "(apt-get install libpng-dev)")
endif()

# (Not in the WebAssembly build, whose SDL2 is a port emcc downloads.)
if(NOT EMSCRIPTEN)
  find_package(SDL2 CONFIG QUIET)
endif()
if(TARGET SDL2::SDL2)
  add_executable(crowdsteer-viewer ${_cs_pic_dir}/viewer.c ${_cs_pic_dir}/obstacle_layout.c
    ${_cs_pic_sources})
  target_include_directories(crowdsteer-viewer PRIVATE ${_cs_pic_dir})
  if(TARGET crowdsteer-evacuation AND PNG_FOUND)
    target_sources(crowdsteer-evacuation PRIVATE ${_cs_pic_dir}/evacuation_view.c)
    target_link_libraries(crowdsteer-evacuation PRIVATE SDL2::SDL2)
    target_compile_definitions(crowdsteer-evacuation PRIVATE CROWDSTEER_EVAC_VIEW SDL_MAIN_HANDLED)
  endif()
  target_link_libraries(crowdsteer-viewer PRIVATE crowdsteer::crowdsteer SDL2::SDL2)
  target_compile_options(crowdsteer-viewer PRIVATE -ffp-contract=off ${CROWDSTEER_WARNING_FLAGS})
  # Our own main(): no SDL2main needed on any platform.
  target_compile_definitions(crowdsteer-viewer PRIVATE SDL_MAIN_HANDLED)
  if(PNG_FOUND)
    target_link_libraries(crowdsteer-viewer PRIVATE PNG::PNG)
    target_compile_definitions(crowdsteer-viewer PRIVATE CROWDSTEER_PICTURES_PNG)
  endif()
  # Neighbour behaviours run on one range per thread (viewer.c, on_threads).
  if(TARGET OpenMP::OpenMP_C)
    target_link_libraries(crowdsteer-viewer PRIVATE OpenMP::OpenMP_C)
  endif()
  find_library(_cs_pic_libm m)
  if(_cs_pic_libm)
    target_link_libraries(crowdsteer-viewer PRIVATE ${_cs_pic_libm})
  endif()
else()
  message(STATUS "crowdsteer: SDL2 not found, no crowdsteer-viewer "
                 "(apt-get install libsdl2-dev)")
endif()

# Tests. The pixel tests themselves live in tests/pictures (no libpng or SDL
# needed); here only what needs the demo or the viewer binaries.
if(CROWDSTEER_BUILD_TESTS AND (NOT DEFINED BUILD_TESTING OR BUILD_TESTING))
  if(TARGET crowdsteer-demo AND PNG_FOUND)
    add_test(NAME pictures.demo_writes_pngs
      COMMAND ${CMAKE_COMMAND} -DDEMO=$<TARGET_FILE:crowdsteer-demo>
              -DOUT=${CMAKE_CURRENT_BINARY_DIR}/pictures-test
              -P ${_cs_pic_dir}/../tests/pictures/demo_pictures.cmake)
  endif()
  # The viewer needs a display: only where Xvfb can provide one, so a
  # headless machine without it still passes the suite.
  find_program(_cs_xvfb_run xvfb-run)
  find_program(_cs_xauth xauth)
  if(TARGET crowdsteer-viewer AND TARGET pictures_bmp_check AND _cs_xvfb_run AND _cs_xauth)
    # The default (seek with separation) and boids re-sort the crowd into
    # cell order every frame; the mixed crowd keeps its order.
    # avoid: ORCA among the walls, the mixed crowd in one step per frame.
    foreach(_mode smoke boids mixed avoid)
      set(_name pictures.viewer_${_mode})
      set(_args --agents 20000 --script 30)
      if(_mode STREQUAL "avoid")
        set(_name pictures.viewer_avoid_smoke)
        list(APPEND _args --behaviour mixed --avoid on --obstacles on)
      elseif(NOT _mode STREQUAL "smoke")
        set(_name pictures.viewer_${_mode}_smoke)
        list(APPEND _args --behaviour ${_mode})
      endif()
      string(REPLACE ";" " " _args "${_args}")
      set(_shot ${CMAKE_CURRENT_BINARY_DIR}/viewer-${_mode}.bmp)
      add_test(NAME ${_name}
        COMMAND sh -c "rm -f '${_shot}' && '${_cs_xvfb_run}' -a '$<TARGET_FILE:crowdsteer-viewer>' ${_args} --screenshot '${_shot}' && '$<TARGET_FILE:pictures_bmp_check>' '${_shot}' 2000")
      # Under the asan preset, LeakSanitizer reports what the X, GL and
      # D-Bus libraries that SDL loads never free; the viewer's own memory
      # is checked by AddressSanitizer all the same.
      set_tests_properties(${_name} PROPERTIES TIMEOUT 120
        ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
    endforeach()
    # The keys, through SDL's event queue: s turns separation off, 3 picks
    # arrive, 9 boids, a avoidance, o walls (the summary line names what ran).
    foreach(_keys s3 9 ao 8ao)
      set(_expect "20000 agents, arrive, ISA")
      if(_keys STREQUAL "9")
        set(_expect "20000 agents, boids, ISA")
      elseif(_keys STREQUAL "ao")
        set(_expect "20000 agents, seek [+] separation [+] avoidance [+] walls, ISA")
      elseif(_keys STREQUAL "8ao")
        set(_expect "20000 agents, mixed [+] separation [+] avoidance [+] walls, ISA")
      endif()
      add_test(NAME pictures.viewer_keys_${_keys}
        COMMAND ${_cs_xvfb_run} -a $<TARGET_FILE:crowdsteer-viewer> --agents 20000
                --script 30 --keys ${_keys})
      set_tests_properties(pictures.viewer_keys_${_keys} PROPERTIES TIMEOUT 120
        PASS_REGULAR_EXPRESSION "${_expect}" ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
    endforeach()
  endif()
endif()
