# cmake -DLIBRARY=<libgemmkit.so> -DHEADER=<gemmkit.h> -P check_exports.cmake
# Fails unless the library's defined dynamic symbols (nm -D --defined-only) are exactly the
# functions gemmkit.h declares GEMMKIT_API: hidden visibility keeps everything else internal.
execute_process(COMMAND nm -D --defined-only ${LIBRARY} OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D --defined-only ${LIBRARY} failed (${rc})")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${nm_out}")
set(exported "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>"; the linker's own version nodes (type A) are not code.
  if(line MATCHES "^[0-9a-fA-F]+ ([A-Za-z]) ([^ ]+)$" AND NOT CMAKE_MATCH_1 STREQUAL "A")
    list(APPEND exported ${CMAKE_MATCH_2})
  endif()
endforeach()
file(READ ${HEADER} header)
# Declarations start a line with GEMMKIT_API (the #define of the macro does not).
string(REGEX MATCHALL "\nGEMMKIT_API [^(]*[ *]([a-z_0-9]+)\\(" decls "${header}")
set(declared "")
foreach(decl IN LISTS decls)
  string(REGEX REPLACE ".*[ *]([a-z_0-9]+)\\($" "\\1" name "${decl}")
  list(APPEND declared ${name})
endforeach()
list(SORT exported)
list(SORT declared)
if(NOT exported STREQUAL declared)
  message(FATAL_ERROR "exported symbols differ from gemmkit.h's GEMMKIT_API functions:\n"
                      "  exported: ${exported}\n  declared: ${declared}")
endif()
list(LENGTH exported count)
message(STATUS "${count} exported symbols, all declared GEMMKIT_API: ${exported}")
