#!/usr/bin/env bash
# libacct.so is preloaded into every process of a job step, most of which are
# not MPI programs. Check that it loads cleanly there, maps no MPI library,
# prints nothing, and that both libraries export/import only what they should.
# The Fortran entry points (issue 22): libacct.so exports every name Open
# MPI's Fortran library exports for MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE
# and the wrapped collectives (never a pmpi_ one), and, in a process without
# any MPI library, each answers an error through ierr (FORTRAN_PROBE).
# usage: preload_nonmpi.sh LIBACCT_SO LIBACCT_RT_SO FORTRAN_PROBE [LIBMPI_MPIFH_SO]
set -u
lib=$1 rt=$2 fprobe=$3 mpifh=${4:-}
# preload, work, check, finish (tests/mpi/checklib.sh)
# shellcheck source-path=SCRIPTDIR source=../mpi/checklib.sh
. "$(dirname "$0")/../mpi/checklib.sh"

no_mpi_needed() { ! readelf -d "$lib" | grep -E 'NEEDED.*lib(mpi|open-|pmix)'; }
# The entry points with Fortran names (acct/mpi_wrap.h: ACCT_FORTRAN_INIT,
# ACCT_FORTRAN_COLLECTIVES, ACCT_FORTRAN_NONBLOCKING).
fentries="init init_thread finalize barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter_block allgatherv reduce_scatter gatherv scatterv alltoallv scan exscan"
fentries="$fentries ibarrier ibcast ireduce iallreduce igather iscatter iallgather ialltoall ireduce_scatter_block"
fentries="$fentries iallgatherv ireduce_scatter igatherv iscatterv ialltoallv iscan iexscan"
fortran_names() { # the Fortran names of fentries among the symbols on stdin
    local e all
    all=$(cat)
    for e in $fentries; do # MPI_INIT mpi_init mpi_init_ mpi_init__ ompi_init_f MPI_Init_f MPI_Init_f08
        grep -E "^(MPI_${e^^}|mpi_${e}(_|__)?|ompi_${e}_f|MPI_${e^}_f(08)?)\$" <<<"$all"
    done
}
only_mpi_exported() {
    local bad
    nm -D --defined-only "$lib" | awk '{print $3}' | sort >"$work/exports"
    bad=$(grep -vE '^(MPI_|acct_tool_)' "$work/exports" | grep -vxFf <(fortran_names <"$work/exports") || true)
    [ -z "$bad" ] || { echo "unexpected exports: $bad"; return 1; }
}
fortran_names_covered() { # every Fortran name of fentries that Open MPI exports
    local want missing extra
    if [ -z "$mpifh" ] || [ ! -e "$mpifh" ]; then echo "(no libmpi_mpifh, skipped)"; return 0; fi
    nm -D --defined-only "$lib" | awk '{print $3}' | fortran_names | sort >"$work/ours"
    want=$(nm -D --defined-only "$mpifh" | awk '{print $3}' | fortran_names | sort)
    [ "$(echo "$want" | wc -l)" -ge 12 ] || { echo "too few names in $mpifh: $want"; return 1; }
    missing=$(comm -23 <(echo "$want") "$work/ours")
    extra=$(comm -13 <(echo "$want") "$work/ours")
    [ -z "$missing" ] || { echo "not interposed: $missing"; return 1; }
    [ -z "$extra" ] || { echo "exported but not in $mpifh: $extra"; return 1; }
}
fortran_without_mpi() { # each Fortran name answers an error, quietly
    LD_PRELOAD=$preload "$fprobe" >"$work/fout" 2>"$work/ferr"
    local rc=$?
    cat "$work/fout" "$work/ferr"
    [ $rc -eq 0 ] && [ ! -s "$work/ferr" ] && grep -q ' OK$' "$work/fout"
}
rt_exports_entry_only() {
    local syms
    syms=$(nm -D --defined-only "$rt" | awk '{print $3}' | tr '\n' ' ')
    [ "$syms" = "acct_rt_entry " ] || { echo "runtime exports: $syms"; return 1; }
}
rt_calls_pmpi_only() {
    local bad
    bad=$(nm -D --undefined-only "$rt" | awk '{print $2}' | grep -E '^MPI_' || true)
    [ -z "$bad" ] || { echo "runtime imports MPI_* (would re-enter the wrappers): $bad"; return 1; }
}
true_runs_quietly() {
    LD_PRELOAD=$preload /bin/true 2>"$work/err" && [ ! -s "$work/err" ]
}
bind_now_ok() { # every symbol the loader needs resolves without MPI
    LD_BIND_NOW=1 LD_PRELOAD=$preload /bin/true 2>"$work/err" && [ ! -s "$work/err" ]
}
maps_of() { # maps_of CMD...: the /proc/self/maps of a preloaded process
    LD_PRELOAD=$preload "$@" >"$work/maps" 2>"$work/err" && [ ! -s "$work/err" ]
}
shell_maps_ok() {
    maps_of bash -c 'cat /proc/$$/maps' || return 1
    grep -q "$(basename "$lib")" "$work/maps" || { echo "libacct not mapped?"; return 1; }
    ! grep -E 'libmpi|libacct_rt' "$work/maps"
}
python_maps_ok() {
    command -v python3 >/dev/null || { echo "(python3 missing, skipped)"; return 0; }
    maps_of python3 -c 'import sys; sys.stdout.write(open("/proc/self/maps").read())' || return 1
    grep -q "$(basename "$lib")" "$work/maps" && ! grep -E 'libmpi|libacct_rt' "$work/maps"
}
hostname_ok() { [ "$(LD_PRELOAD=$preload hostname)" = "$(hostname)" ]; }
pipeline_ok() { # a shell script with pipes and subprocesses, exit status kept
    LD_PRELOAD=$preload bash -c 'seq 1 1000 | sort -n | tail -1 | grep -qx 1000 && exit 7'
    [ $? -eq 7 ]
}
disabled_ok() { LD_PRELOAD=$preload ACCT_DISABLE=1 ACCT_VERBOSE=2 /bin/true 2>"$work/err" && [ ! -s "$work/err" ]; }

check "libacct.so has no MPI/PMIx library in NEEDED" no_mpi_needed
check "libacct.so exports only MPI_*, acct_tool_* and the Fortran MPI names" only_mpi_exported
check "libacct.so interposes every Fortran name libmpi_mpifh exports for them" fortran_names_covered
check "without MPI, each Fortran name answers an error and prints nothing" fortran_without_mpi
check "libacct_rt.so exports only acct_rt_entry" rt_exports_entry_only
check "libacct_rt.so imports no MPI_* symbol (PMPI_* only)" rt_calls_pmpi_only
check "/bin/true runs under the preload and prints nothing" true_runs_quietly
check "LD_BIND_NOW=1 resolves every symbol without MPI" bind_now_ok
check "a shell maps libacct.so but no libmpi/libacct_rt" shell_maps_ok
check "python maps no libmpi/libacct_rt" python_maps_ok
check "hostname output unchanged" hostname_ok
check "a pipeline keeps its exit status" pipeline_ok
check "ACCT_DISABLE=1 with ACCT_VERBOSE=2 stays silent in a non-MPI process" disabled_ok

finish
