# How every MPI test and benchmark starts ranks (docs/testbed.md, "MPI
# launch flags"). The defaults fit the project's test hosts: 2 cores, runs
# as root, inside a container. Another host overrides them on the cmake
# command line, e.g. -DACCT_MPIEXEC_FLAGS="--oversubscribe".
#   --allow-run-as-root          CI runs as root
#   --oversubscribe              tests start more ranks than there are cores
#   mpi_yield_when_idle 1        oversubscribed ranks must not busy-poll
#   btl self,vader,tcp           the transports every host has
#   btl_vader_single_copy_mechanism none
#                                no CMA/XPMEM: containers forbid
#                                process_vm_readv between ranks
set(ACCT_MPIEXEC ${MPIEXEC_EXECUTABLE} CACHE STRING "mpirun used by the tests")
set(ACCT_MPIEXEC_FLAGS
    --allow-run-as-root --oversubscribe
    --mca mpi_yield_when_idle 1
    --mca btl self,vader,tcp
    --mca btl_vader_single_copy_mechanism none
    CACHE STRING "Flags every test passes to mpirun")

# Environment of every test that runs MPI programs. In a sanitizer build,
# a preloaded libacct.so in programs that are not sanitized (/bin/true,
# mpirun) needs the ASan runtime first in LD_PRELOAD; and leak reports at
# exit come from Open MPI's own allocations, not ours.
set(ACCT_TEST_ENVIRONMENT "")
if(ACCT_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE _acct_asan OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(ACCT_TEST_ENVIRONMENT "ACCT_TEST_PRELOAD=${_acct_asan}" "ASAN_OPTIONS=detect_leaks=0")
endif()
