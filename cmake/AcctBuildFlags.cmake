# Compiler flags of ACCT's own targets.
#
# acct_apply_build_flags(DIR) walks DIR's directory tree once every target is
# defined and gives each C target built from ACCT's sources (executables,
# static, shared and module libraries, object libraries) the same flags:
# the warning set (errors with ACCT_WERROR), _GNU_SOURCE, and with
# ACCT_SANITIZE AddressSanitizer and UBSan for compiling and linking.
# Imported targets (MPI, libyaml, cmocka, SQLite) and custom commands (the
# libFuzzer targets, built with clang and their own flags) get nothing.
# The flags are C flags: a target's Fortran sources (tests/mpi/fortran) get
# ACCT_FORTRAN_WARNING_FLAGS, and are not sanitized (their C parts are; the
# link takes the sanitizers' runtimes).

set(ACCT_WARNING_FLAGS
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wformat=2 -Wundef -fno-common)
if(ACCT_WERROR)
  list(APPEND ACCT_WARNING_FLAGS -Werror)
endif()
set(ACCT_FORTRAN_WARNING_FLAGS -Wall)
if(ACCT_WERROR)
  list(APPEND ACCT_FORTRAN_WARNING_FLAGS -Werror)
endif()
set(ACCT_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                        -fno-sanitize-recover=undefined)

function(acct_apply_build_flags dir)
  get_property(_targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_t IN LISTS _targets)
    get_target_property(_type ${_t} TYPE)
    if(_type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      target_compile_options(${_t} PRIVATE "$<$<COMPILE_LANGUAGE:C>:${ACCT_WARNING_FLAGS}>"
                             "$<$<COMPILE_LANGUAGE:Fortran>:${ACCT_FORTRAN_WARNING_FLAGS}>")
      target_compile_definitions(${_t} PRIVATE _GNU_SOURCE)
      if(ACCT_SANITIZE)
        target_compile_options(${_t} PRIVATE "$<$<COMPILE_LANGUAGE:C>:${ACCT_SANITIZE_FLAGS}>")
        if(NOT _type STREQUAL "STATIC_LIBRARY" AND NOT _type STREQUAL "OBJECT_LIBRARY")
          target_link_options(${_t} PRIVATE -fsanitize=address,undefined)
        endif()
      endif()
    endif()
  endforeach()
  get_property(_subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(_d IN LISTS _subdirs)
    acct_apply_build_flags(${_d})
  endforeach()
endfunction()
