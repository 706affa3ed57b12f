#!/usr/bin/env bash
# The SACK reordering benchmark matrix (docs/sack.md): modes x patterns of
# acct-sack-bench, one mpirun each, medians side by side.
#
#   tools/perf/acct-sack-bench.sh [-n NP] [-r REPS] [-b BYTES] [-s SEGMENT] [-m MODES] [-p PATTERNS]
#                                 [-d DELAYS_MS] [-a BENCH_ARG]...
#                                 LIBACCT_SO ACCT_SACK_BENCH LAUNCHER...
#
# LAUNCHER is the mpirun command line without -np, e.g. on this host
#   mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 \
#          --mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none
# or on the emulated cluster
#   tests/cluster/acct-cluster run -p eth -- --map-by node
# Modes: native (no preload: the MPI library's bcast), ompi (no preload, Open
# MPI's coll/tuned binomial forced with SEGMENT segments), static (ACCT's
# binomial tree, SEGMENT segments, reorder false), df, bf (the same with
# reorder true and ACCT_SACK_FILL); ab-df, ab-bf: static and reordered
# alternating within each repetition of one job (acct-sack-bench
# --alternate), the cell being the median ratio reordered/static.
# Patterns: none interior leaf random.
# ACCT_SACK_* variables of the caller's environment (but ACCT_SACK_FILL, set
# per mode) are passed to the ranks of the ACCT modes.
set -eu
np=8 reps=5 bytes=1M seg=8K delays=200,300,400
modes="native static df bf"
patterns="none interior leaf random"
extra=()
while getopts n:r:b:s:m:p:d:a: o; do
  case $o in
    n) np=$OPTARG ;; r) reps=$OPTARG ;; b) bytes=$OPTARG ;; s) seg=$OPTARG ;;
    m) modes=$OPTARG ;; p) patterns=$OPTARG ;; d) delays=$OPTARG ;; a) extra+=("$OPTARG") ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { sed -n '2,21p' "$0"; exit 2; }
lib=$1 bench=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bytes_of() { # 8K -> 8192
  case $1 in
    *[kK]) echo $((${1%?} * 1024)) ;; *[mM]) echo $((${1%?} * 1048576)) ;; *) echo "$1" ;;
  esac
}
# The methods go by ACCT_FORCE (docs/rules.md), not a rules file: nothing
# to put where every node can read it (the emulated nodes have a private /tmp).
static_spec="bcast=binomial:$seg" reorder_spec="bcast=binomial:$seg::reorder"
printf '%-9s' pattern
for m in $modes; do printf ' %12s' "$m"; done
printf '   (median ms of %s, %s bytes, %s ranks, segment %s)\n' "$reps" "$bytes" "$np" "$seg"
for p in $patterns; do
  printf '%-9s' "$p"
  for m in $modes; do
    case $m in
      native) env=() ;;
      ompi) # Open MPI's own binomial with SEGMENT segments (the issue's reference)
        env=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_bcast_algorithm 6
             --mca coll_tuned_bcast_algorithm_segmentsize "$(bytes_of "$seg")") ;;
      static) env=(-x LD_PRELOAD="$lib" -x ACCT_FORCE="$static_spec") ;;
      df | bf) env=(-x LD_PRELOAD="$lib" -x ACCT_FORCE="$reorder_spec" -x ACCT_SACK_FILL="$m") ;;
      ab-df | ab-bf) # static then reordered in each repetition: the cell is reordered/static
        env=(-x LD_PRELOAD="$lib" -x ACCT_SACK_FILL="${m#ab-}") ;;
      *) echo "unknown mode $m" >&2; exit 2 ;;
    esac
    # ACCT's own knobs (e.g. ACCT_SACK_INFLIGHT) reach the ranks of ACCT modes
    if [[ $m != native && $m != ompi ]]; then
      for v in ${!ACCT_SACK_@}; do [[ $v == ACCT_SACK_FILL ]] || env+=(-x "$v=${!v}"); done
    fi
    alt=()
    [[ $m == ab-* ]] && alt=(--alternate "$static_spec" --alternate-b "$reorder_spec")
    out=$("$@" "${env[@]}" -np "$np" "$bench" --pattern "$p" --bytes "$bytes" --reps "$reps" \
          --delays "$delays" "${alt[@]}" "${extra[@]}" 2>"$work/err") ||
      { echo; cat "$work/err" >&2; exit 1; }
    echo "$m $out" >> "$work/lines"
    med=$(sed -n 's/.* median_ms=\([0-9.]*\).*/\1/p' <<<"$out")
    [[ $m == ab-* ]] && med=$(sed -n 's/.*B_over_A_median=\([0-9.]*\).*/\1/p' <<<"$out")
    printf ' %12s' "${med:-?}"
  done
  echo
done
echo "# raw lines:"
cat "$work/lines"
grep -q ' acct=0 ' <(grep -v '^native\|^ompi' "$work/lines") &&
  { echo "ACCT was not active in an ACCT mode (see acct=0 above)" >&2; exit 1; }
true
