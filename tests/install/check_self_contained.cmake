# Fails if any tracked text file cites a document outside the repository
# (the project's old private specification, or the shared folder beside it): the
# repository stands alone, and docs/behaviours.md is its normative statement.
# Usage: cmake -DROOT=<repository root> -P check_self_contained.cmake
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE files RELATIVE "${ROOT}"
     "${ROOT}/*.md" "${ROOT}/*.c" "${ROOT}/*.h" "${ROOT}/*.cpp" "${ROOT}/*.py"
     "${ROOT}/*.sh" "${ROOT}/*.cmake" "${ROOT}/*.txt" "${ROOT}/*.in" "${ROOT}/tools/*"
     "${ROOT}/bench/report" "${ROOT}/.ci/*")
set(spec_name "SPEC")
string(APPEND spec_name ".md") # split so this file does not match itself
set(bad "")
foreach(f IN LISTS files)
  if(f MATCHES "^(build|out|\\.git)/" OR f MATCHES "/(build|_deps)/")
    continue()
  endif()
  file(STRINGS "${ROOT}/${f}" hits REGEX "${spec_name}|\\.\\./shared|SPEC (section )?[0-9]")
  if(hits)
    list(APPEND bad "${f}: ${hits}")
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "cite docs/behaviours.md instead of documents outside the "
                      "repository:\n  ${text}")
endif()
list(LENGTH files n)
message(STATUS "${n} files cite nothing outside the repository")
