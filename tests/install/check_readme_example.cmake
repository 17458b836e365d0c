# Fails unless the C block after the README's "example: tests/install/consumer/main.c"
# marker is exactly that file, so the documented example cannot rot.
# Usage: cmake -DREADME=README.md -DEXAMPLE=main.c -P check_readme_example.cmake
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
set(marker "<!-- example: tests/install/consumer/main.c -->\n```c\n")
string(FIND "${readme}" "${marker}" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README.md lacks the example marker: ${marker}")
endif()
string(LENGTH "${marker}" marker_length)
math(EXPR start "${start} + ${marker_length}")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "```" stop)
string(SUBSTRING "${rest}" 0 ${stop} block)
if(NOT block STREQUAL example)
  message(FATAL_ERROR "README.md's API example differs from ${EXAMPLE}; "
                      "copy the file into the README's code block")
endif()
message(STATUS "README example matches ${EXAMPLE}")
