#!/bin/bash
# Written by "acctctl retune": tune partition eth again with acct-tune.
#SBATCH --job-name=acct-retune-eth
#SBATCH --partition=eth
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --exclusive
#SBATCH --time=15
#SBATCH --output=/run/acct-cluster/shared/apps22c/acct-retune-eth-%j.out
#SBATCH --error=/run/acct-cluster/shared/apps22c/acct-retune-eth-%j.err
set -eu
dir='/run/acct-cluster/shared/apps22c'
result="$dir/acct-retune-eth-$SLURM_JOB_ID.result.yaml"
rules="$dir/acct-retune-eth-$SLURM_JOB_ID.rules.yaml"
srun --mpi=pmix '/work/wt-apps22c/build/tools/acct-tune/acct-tune' \
    --partition eth \
    --interconnect tcp-1g \
    --out "$result" --rules "$rules" \
    --budget 360s \
    --collectives barrier,bcast,reduce,allreduce,gather,scatter,allgather,alltoall,reduce_scatter_block,allgatherv,gatherv,scatterv,alltoallv,scan \
    --max-comm-size 32 \
    '--sizes' \
    '8,1K,32K' \
    '--comm-sizes' \
    '8' \
    '--race' \
    '3' \
    '--race-rounds' \
    '8' \
    --progress
echo "acct-retune: result in $result" >&2
