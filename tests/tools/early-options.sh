#!/usr/bin/env bash
# early-options.sh TOOL NAME: an MPI tool answers --help and --version, and
# refuses to start without an MPI launcher, all before MPI_Init (no MPI
# process, no singleton: Open MPI refuses a root singleton and would hang).
set -u
tool=$1 name=$2
fail=0
check() { # DESCRIPTION EXPECTED-RC REGEX COMMAND...
    local what=$1 want=$2 re=$3 out rc
    shift 3
    out=$(env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK timeout 20 "$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ] || ! grep -qE -- "$re" <<<"$out"; then
        echo "FAIL: $what: exit $rc (want $want), output: $(head -3 <<<"$out")"
        fail=1
    else
        echo "ok: $what"
    fi
}
check "--help" 0 "^Usage: mpirun .*$name" "$tool" --help
check "-h among other options" 0 "^Usage: mpirun .*$name" "$tool" --collectives bcast -h
check "--version" 0 "^$name [0-9]+\.[0-9]+\.[0-9]+$" "$tool" --version
check "started alone" 2 "^$name: error: started without an MPI launcher.*mpirun -np N $name" "$tool" -c bcast
check "--help after --" 2 "started without an MPI launcher" "$tool" -- --help
exit $fail
