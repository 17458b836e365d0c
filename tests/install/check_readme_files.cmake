# Fails unless every code block of README.md and docs/*.md that follows an
# "<!-- example: PATH -->" marker is exactly the file PATH (relative to the
# repository root), so the documented example and install commands, which the
# tests and CI run from those files, cannot drift from the pages. Also fails
# if a file that must be shown is not: the README's API example, and every
# install command and consumer project that CI runs (shown by docs/install.md).
# Usage: cmake -DROOT=<repository root> -P check_readme_files.cmake
cmake_minimum_required(VERSION 3.25)

# Checks one page; appends "page:path" for each block that matches.
function(check_page page)
  file(READ "${ROOT}/${page}" rest)
  set(shown ${shown_all})
  while(TRUE)
    string(FIND "${rest}" "<!-- example: " start)
    if(start EQUAL -1)
      break()
    endif()
    math(EXPR start "${start} + 14")
    string(SUBSTRING "${rest}" ${start} -1 rest)
    string(FIND "${rest}" " -->\n```" path_end)
    if(path_end EQUAL -1)
      message(FATAL_ERROR "${page}: an example marker is not followed by a code block")
    endif()
    string(SUBSTRING "${rest}" 0 ${path_end} path)
    math(EXPR fence "${path_end} + 5") # the ``` after " -->\n"
    string(SUBSTRING "${rest}" ${fence} -1 rest)
    string(FIND "${rest}" "\n" line_end) # end of the ```lang line
    math(EXPR line_end "${line_end} + 1")
    string(SUBSTRING "${rest}" ${line_end} -1 rest)
    string(FIND "${rest}" "```" stop)
    string(SUBSTRING "${rest}" 0 ${stop} block)
    string(SUBSTRING "${rest}" ${stop} -1 rest)
    if(NOT EXISTS "${ROOT}/${path}")
      message(FATAL_ERROR "${page} shows ${path}, which does not exist")
    endif()
    file(READ "${ROOT}/${path}" expected)
    if(NOT block STREQUAL expected)
      message(FATAL_ERROR "${page}'s block for ${path} differs from the file; "
                          "copy the file into the page's code block")
    endif()
    list(APPEND shown "${page}:${path}")
  endwhile()
  set(shown_all ${shown} PARENT_SCOPE)
endfunction()

set(shown_all "")
file(GLOB docs RELATIVE "${ROOT}" "${ROOT}/docs/*.md")
list(SORT docs)
foreach(page IN ITEMS README.md ${docs})
  check_page(${page})
endforeach()

# What must be shown, and where: the README's API example, and on the install
# page every command file CI runs (.ci/steps/20-install-consumer.sh) and the
# consumer projects it builds.
set(required "README.md:tests/install/consumer/main.c"
             "docs/install.md:tests/install/consumer/CMakeLists.txt"
             "docs/install.md:tests/install/consumer_cxx/CMakeLists.txt")
file(GLOB commands RELATIVE "${ROOT}" "${ROOT}/tests/install/readme/*.sh")
list(LENGTH commands n_commands)
if(n_commands LESS 6)
  message(FATAL_ERROR "tests/install/readme/ holds ${n_commands} command files, expected 6 or more")
endif()
foreach(path IN LISTS commands)
  list(APPEND required "docs/install.md:${path}")
endforeach()
foreach(want IN LISTS required)
  if(NOT want IN_LIST shown_all)
    string(REPLACE ":" " does not show " text "${want}")
    message(FATAL_ERROR "${text} (an <!-- example: PATH --> marker before its code block)")
  endif()
endforeach()

list(LENGTH shown_all count)
message(STATUS "README.md and docs/*.md: ${count} code blocks match their files")
