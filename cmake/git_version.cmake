# Writes OUTPUT with the current commit; touches it only when the text changes.
# A copy of the tree without .git (e.g. on a lent GPU machine) can name it in $GEMMKIT_COMMIT;
# otherwise such a tree reports v<VERSION>-nogit.
if(DEFINED ENV{GEMMKIT_COMMIT})
  set(commit "$ENV{GEMMKIT_COMMIT}")
  set(rc 0)
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
endif()
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  # No git, or not a git tree (a release tarball, an sdist): the version it was cut from.
  if(DEFINED VERSION)
    set(commit "v${VERSION}-nogit")
  else()
    set(commit "unknown")
  endif()
elseif(NOT DEFINED ENV{GEMMKIT_COMMIT})
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "#pragma once\n#define GEMMKIT_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUTPUT} "${text}")
endif()
