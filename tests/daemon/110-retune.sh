#!/usr/bin/env bash
# 110: acctctl retune end to end against a real acctd, with Slurm replaced
# by the fakes in tests/daemon/fake-slurm (sbatch runs the job script here;
# srun runs the fake acct-tune once): the job script (partition, all 4
# nodes from scontrol, srun --mpi=pmix, acct-tune's options), progress from
# the job's stderr, import, diff against the active version, activation;
# a failing job imports nothing; the job's own import into every node's
# acctd; a job longer than acctd's idle_timeout is still imported; --dry-run
# submits nothing; no daemon: no submission. (On the emulated cluster, with real Slurm: tests/cluster.)
. "$(dirname "$0")/lib.sh"
FAKE=$(cd "$(dirname "$0")/fake-slurm" && pwd)
export PATH=$FAKE:$PATH FAKE_SLURM_DIR=$T/slurm FAKE_RESULT=$ACCT_TEST_DATA/result-eth.yaml
mkdir -p "$T/slurm" "$T/work"
RETUNE=(retune -p eth --ops bcast,allreduce --budget 1m --interval 0.2 --acct-tune "$FAKE/acct-tune" --workdir "$T/work")

# No daemon: nothing is submitted.
ctl 1 "${RETUNE[@]}"
expect "$T/err" "cannot connect to acctd at $SOCK"
[ -e "$T/slurm/calls" ] && grep -q '^sbatch' "$T/slurm/calls" && fail "retune submitted a job without a daemon"

write_config
start_acctd || exit 1
ctl 0 import "$ACCT_TEST_DATA/rules-eth-a.yaml" --activate

# --dry-run: the script and the plan, no job.
ctl 0 "${RETUNE[@]}" --dry-run
expect "$T/out" "#SBATCH --partition=eth"
expect "$T/out" "#SBATCH --nodes=4"
expect "$T/out" "srun --mpi=pmix '$FAKE/acct-tune'"
expect "$T/out" "--collectives bcast,allreduce"
expect "$T/out" "--budget 60s"
expect "$T/out" "--max-comm-size 8 \\"
expect "$T/out" "--progress"
expect "$T/out" "nothing submitted"
expect "$T/out" "srun --ntasks-per-node=1 '$ACCTCTL' import \"\$result\" --activate"
grep -q '^sbatch' "$T/slurm/calls" 2>/dev/null && fail "--dry-run submitted a job"

# The real thing.
FAKE_SLURM_JOBID=4242 ctl 0 "${RETUNE[@]}" --nodes 2 --no-node-import
expect "$T/err" "submitted job 4242"
expect "$T/err" "job 4242 RUNNING"
grep -q '^squeue -j 4242$' "$T/slurm/calls" || fail "retune did not poll squeue"
grep -q "^srun --mpi=pmix $FAKE/acct-tune " "$T/slurm/calls" || fail "acct-tune was not started with srun --mpi=pmix"
expect "$T/err" "| acct-tune: phase 2/3: measuring"
expect "$T/out" "imported tuning run r-fake-4242-eth as version 2 of eth/tcp-1g"
expect "$T/out" "changes against the active version 1:"
expect "$T/out" "activated version 2 of eth/tcp-1g (was 1)"
# how sure the result is, per collective (a result without races or noise)
expect "$T/out" "confidence of tuning run r-fake-4242-eth: no noise section"
expect "$T/out" "  bcast: 1 points: 0 settled by test, 0 equivalent, 0 capped, 1 unraced"
grep -q -- '--nodes=2' "$T/slurm/4242.script" || fail "--nodes 2 not in the job script"
grep -q 'acct-tune --partition eth --out .*acct-retune-eth-4242.result.yaml --rules .* --budget 60s --collectives bcast,allreduce --max-comm-size 8 --progress' "$T/slurm/calls" ||
    fail "acct-tune was not run with the expected options: $(grep acct-tune "$T/slurm/calls")"
ctl 0 show -p eth --format tsv
[ "$(awk -F'\t' 'NR == 2 { print $1 }' "$T/out")" = 2 ] || fail "version 2 is not active after retune"
ctl 0 validate "$T/run/rules/eth/tcp-1g.yaml"
expect "$T/out" "version 2)"

# A job that fails: nothing imported, exit 1, the log named.
FAKE_SLURM_JOBID=4243 FAKE_TUNE_FAIL=1 ctl 1 "${RETUNE[@]}" --format json
expect "$T/err" "job 4243 did not complete"
expect "$T/err" "acct-retune-eth-4243.err"
expect "$T/err" "the fake tuner was told to fail"
ctl 0 versions -p eth --format tsv
[ "$(tail -n +2 "$T/out" | wc -l)" -eq 2 ] || fail "a failed retune added a version"

# --no-activate: imported, left inactive.
FAKE_SLURM_JOBID=4244 ctl 0 "${RETUNE[@]}" --no-activate --format json
jq -e '.version == 3 and .active == false and .previous == 2' "$T/out" >/dev/null ||
    fail "retune --no-activate: $(cat "$T/out")"

# The job imports into every node's acctd (here: fake srun runs acctctl
# once, against the test's acctd), then acctctl finds it already active.
FAKE_SLURM_JOBID=4245 ctl 0 "${RETUNE[@]}"
grep -q "^srun --ntasks-per-node=1 $ACCTCTL import .*acct-retune-eth-4245.result.yaml --activate" "$T/slurm/calls" ||
    fail "the job did not import on its nodes: $(grep import "$T/slurm/calls")"
expect "$T/out" "imported tuning run r-fake-4245-eth as version 4 of eth/tcp-1g"
expect "$T/out" "version 4 is already the active one"
ctl 0 show -p eth --format tsv
[ "$(awk -F'\t' 'NR == 2 { print $1 }' "$T/out")" = 4 ] || fail "version 4 is not active after a node-import retune"

# --ranks-per-node and --time reach the script.
ctl 0 "${RETUNE[@]}" --dry-run --ranks-per-node 2 --time 1:30:00 --interconnect tcp-1g
expect "$T/out" "#SBATCH --ntasks-per-node=2"
expect "$T/out" "#SBATCH --time=1:30:00"
expect "$T/out" "--interconnect tcp-1g"

# Arguments after "--" reach acct-tune verbatim, shell-quoted.
ctl 0 "${RETUNE[@]}" --dry-run -- --sizes 1K,64K "it's"
expect "$T/out" "    '--sizes' \\"
expect "$T/out" "    '1K,64K' \\"
expect "$T/out" "    'it'\\''s' \\"
ctl 2 "${RETUNE[@]}" --dry-run -- "$(printf 'two\nlines')"

# --max-comm-size: the partition's TotalCPUs by default (above), acctctl's
# own option instead, or acct-tune's own after "--" and then none of acctctl's.
ctl 0 "${RETUNE[@]}" --dry-run --max-comm-size 0
expect "$T/out" "    --max-comm-size 0 \\"
ctl 0 "${RETUNE[@]}" --dry-run -- --max-comm-size=64
expect "$T/out" "    '--max-comm-size=64' \\"
[ "$(grep -c -- '--max-comm-size' "$T/out")" = 1 ] || fail "two --max-comm-size in the script: $(grep -- --max-comm-size "$T/out")"
ctl 2 "${RETUNE[@]}" --dry-run --max-comm-size 2000000
expect "$T/err" "--max-comm-size: expected 0 (no model regions) to 1048576, got \"2000000\""
ctl 1 retune -p nocpus --dry-run
expect "$T/err" "cannot count the CPUs of partition nocpus"
expect "$T/err" "give --max-comm-size P"
ctl 0 retune -p nocpus --dry-run --max-comm-size 16 --acct-tune "$FAKE/acct-tune" --workdir "$T/work"
expect "$T/out" "    --max-comm-size 16 \\"

# --no-wait: the job id on stdout, the import command to run later.
FAKE_SLURM_JOBID=4246 ctl 0 "${RETUNE[@]}" --no-wait --no-node-import
[ "$(cat "$T/out")" = 4246 ] || fail "--no-wait printed $(cat "$T/out"), expected the job id"
expect "$T/err" "acctctl import $T/work/acct-retune-eth-4246.result.yaml --activate"
for i in $(seq 100); do
    grep -qE 'COMPLETED|FAILED' "$T/slurm/4246.state" 2>/dev/null && break
    sleep 0.1
done
expect "$T/slurm/4246.state" "COMPLETED"
ctl 0 import "$T/work/acct-retune-eth-4246.result.yaml" --activate
expect "$T/out" "imported tuning run r-fake-4246-eth"

# Several layouts (--ranks-per-node R1,R2,...): one acct-tune run per
# ranks per node in the one job, every run imported (inactive), then the
# runs' rules merged (acctctl merge) and activated as one version.
ctl 0 "${RETUNE[@]}" --dry-run --ranks-per-node 1,2,8
expect "$T/out" "#SBATCH --ntasks-per-node=8"
expect "$T/out" "srun --mpi=pmix --ntasks-per-node=2 --ntasks=\$((SLURM_JOB_NUM_NODES * 2)) '$FAKE/acct-tune'"
expect "$T/out" "--rules \"\$dir/acct-retune-eth-\$SLURM_JOB_ID.rpn8.rules.yaml\""
expect "$T/out" "'$ACCTCTL' merge -o \"\$rules\""
ctl 2 "${RETUNE[@]}" --dry-run --ranks-per-node 2,1
expect "$T/err" "--ranks-per-node: expected R or an ascending list R1,R2,... of at most 8 values from 1 to 4096, got \"2,1\""
ctl 2 "${RETUNE[@]}" --dry-run --ranks-per-node 1,
FAKE_SLURM_JOBID=4248 ctl 0 "${RETUNE[@]}" --ranks-per-node 1,2,8 --no-node-import
for r in 1 2 8; do
    expect "$T/out" "imported tuning run r-fake-4248-rpn$r-eth as version"
    grep -q "^srun --mpi=pmix --ntasks-per-node=$r --ntasks=$((4 * r)) $FAKE/acct-tune .*rpn$r.result.yaml --rules .*rpn$r.rules.yaml" "$T/slurm/calls" ||
        fail "no acct-tune run at $r ranks per node: $(grep acct-tune "$T/slurm/calls" | tail -3)"
done
expect "$T/out" "activated version"
# The active version is the merged rules: each run's decision bound to its
# ranks-per-node interval ([1, 1], [2, 7], [8, max]; TSV: algorithm segment
# fanout reorder rpn_min rpn_max layout evidence).
ctl 0 show -p eth --format tsv
for want in "binomial	0	0	false	1	1	any" "pipeline	65536	0	false	2	7	any" \
    "hier_chain	65536	0	false	8	max	any"; do
    grep -qF "$want" "$T/out" || fail "the active version has no rule \"$want\": $(cat "$T/out")"
done
# Its model: the merged rules name each layout's run (provenance.runs), so
# whatif and check through acctd use the run behind the layout asked about
# (GET_MODEL with RANKS_PER_NODE), the lowest layout's when none is given.
ctl 0 whatif bcast -p eth -n 16 -b 1M --ranks-per-node 8
expect "$T/out" "model:    tuning run r-fake-4248-rpn8-eth of version"
ctl 0 whatif bcast -p eth -n 16 -b 1M --ranks-per-node 4
expect "$T/out" "model:    tuning run r-fake-4248-rpn2-eth of version"
ctl 0 whatif bcast -p eth -n 16 -b 1M
expect "$T/out" "model:    tuning run r-fake-4248-rpn1-eth of version"
ctl 0 check -p eth --ranks-per-node 8
expect "$T/out" "tuning run r-fake-4248-rpn8-eth of version"

# Racing (acct-tune --race after "--"): the active version races as the
# incumbent (acct-tune --incumbent), its rules written next to the script;
# not when --incumbent is given, nor without --race.
active=$("$ACCTCTL" show -p eth --format tsv 2>/dev/null | awk -F'\t' 'NR == 2 { print $1 }')
ctl 0 "${RETUNE[@]}" --dry-run -- --race 3
expect "$T/out" "# the race's incumbent: version $active of eth, written to $T/work/acct-retune-eth-"
expect "$T/out" "    --incumbent '$T/work/acct-retune-eth-"
FAKE_SLURM_JOBID=4249 ctl 0 "${RETUNE[@]}" --no-node-import -- --race 3
expect "$T/err" "the race's incumbent: version $active ("
inc=$(grep -o -- "--incumbent [^ ]*" "$T/slurm/calls" | tail -1 | cut -d' ' -f2)
[ -n "$inc" ] && [ -s "$inc" ] || fail "acct-tune was not given the incumbent: $(grep acct-tune "$T/slurm/calls" | tail -1)"
ctl 0 export --version "$active" -o "$T/active.yaml"
cmp -s "$inc" "$T/active.yaml" || fail "the incumbent file is not version $active's rules"
ctl 0 "${RETUNE[@]}" --dry-run -- --race 3 --incumbent /elsewhere.yaml
[ "$(grep -c -- '--incumbent' "$T/out")" = 1 ] || fail "--incumbent given twice: $(grep -- --incumbent "$T/out")"
ctl 0 "${RETUNE[@]}" --dry-run
grep -q -- '--incumbent' "$T/out" && fail "an incumbent without --race"

# A job that outlasts acctd's idle_timeout: acctctl imports over a new
# connection (the one it checked acctd with was closed meanwhile).
stop_acctd
start_acctd --idle-timeout 1 || exit 1
FAKE_SLURM_JOBID=4247 FAKE_TUNE_SLEEP=2.5 ctl 0 "${RETUNE[@]}" --no-node-import
expect "$T/out" "imported tuning run r-fake-4247-eth"
expect "$T/out" "activated version"

# Bad command lines.
ctl 2 retune
expect "$T/err" "which partition?"
ctl 2 retune -p eth --ops bcast,nosuch
expect "$T/err" "unknown collective \"nosuch\""
ctl 2 retune -p eth --budget 10x
ctl 1 retune -p nopart --dry-run
expect "$T/err" "cannot count the nodes of partition nopart"
finish
