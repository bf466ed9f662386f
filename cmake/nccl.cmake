# NCCL, for gemmkit_dist. Looked for, in order: NCCL_ROOT (a CMake or environment variable:
# the folder holding include/nccl.h and lib/libnccl.so*), the nvidia-nccl-cu13 wheel of the
# Python interpreter on PATH (pip install nvidia-nccl-cu13; PyTorch installs it too), and the
# system's folders. Sets NCCL_FOUND, and the imported target gemmkit_nccl where found.
set(gemmkit_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT})
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
            "import importlib.util as u; s = u.find_spec('nvidia.nccl'); print(list(s.submodule_search_locations)[0] if s else '')"
    OUTPUT_VARIABLE gemmkit_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(gemmkit_nccl_wheel)
    list(APPEND gemmkit_nccl_hints ${gemmkit_nccl_wheel})
  endif()
endif()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${gemmkit_nccl_hints} PATH_SUFFIXES include)
# The wheel ships libnccl.so.2 only (no unversioned link).
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${gemmkit_nccl_hints} PATH_SUFFIXES lib lib64)
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  set(NCCL_FOUND ON)
  add_library(gemmkit_nccl SHARED IMPORTED)
  set_target_properties(gemmkit_nccl PROPERTIES IMPORTED_LOCATION ${NCCL_LIBRARY}
                                                INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
  message(STATUS "NCCL: ${NCCL_LIBRARY} (gemmkit_dist is built)")
else()
  set(NCCL_FOUND OFF)
  message(STATUS "NCCL not found: gemmkit_dist is not built (pip install nvidia-nccl-cu13, or set NCCL_ROOT)")
endif()
