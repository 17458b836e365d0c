# Fails unless every README code block that follows an "<!-- example: PATH -->"
# marker is exactly the file PATH (relative to the repository root), so the
# documented example and install commands, which the tests and CI run from
# those files, cannot drift from the page.
# Usage: cmake -DROOT=<repository root> -P check_readme_files.cmake
cmake_minimum_required(VERSION 3.25)
file(READ "${ROOT}/README.md" rest)
set(count 0)
while(TRUE)
  string(FIND "${rest}" "<!-- example: " start)
  if(start EQUAL -1)
    break()
  endif()
  math(EXPR start "${start} + 14")
  string(SUBSTRING "${rest}" ${start} -1 rest)
  string(FIND "${rest}" " -->\n```" path_end)
  if(path_end EQUAL -1)
    message(FATAL_ERROR "README.md: an example marker is not followed by a code block")
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
    message(FATAL_ERROR "README.md shows ${path}, which does not exist")
  endif()
  file(READ "${ROOT}/${path}" expected)
  if(NOT block STREQUAL expected)
    message(FATAL_ERROR "README.md's block for ${path} differs from the file; "
                        "copy the file into the README's code block")
  endif()
  math(EXPR count "${count} + 1")
endwhile()
if(count LESS 8)
  message(FATAL_ERROR "README.md: ${count} example markers, expected at least 8")
endif()
message(STATUS "README.md: ${count} code blocks match their files")
