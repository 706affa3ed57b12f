#!/usr/bin/python3
"""mpi4py_check: collectives of numpy arrays through mpi4py (issue 17).

mpi4py opens libmpi from a Python extension module, i.e. in a local dlopen
scope, not in the executable's global one: the case the libacct preload must
handle like a C program linked with MPI.

Every collective mpi4py maps onto one MPI call (the upper-case, buffer
methods) over several counts and roots; each result is checked against its
closed form, computed locally.

Output (rank 0):
  thread_level=<single|funneled|serialized|multiple>
  calls <collective>=<n> ...        MPI calls this program made (per rank)
  rt_mapped=<0|1>                   libacct_rt.so in /proc/self/maps
  mpi4py_check: np=<n> checks=<n> errors=<n> OK|FAILED
Exit status 0 when every check passed on every rank.

Usage: mpi4py_check.py [single|funneled|serialized|multiple]
(the thread level requested; default: mpi4py's own, MPI_THREAD_MULTIPLE).
Run it with /usr/bin/python3: Debian's python3-mpi4py.
"""
import sys

import mpi4py

if len(sys.argv) > 1:
    mpi4py.rc.thread_level = sys.argv[1]
from mpi4py import MPI  # noqa: E402  (MPI_Init_thread happens here)
import numpy as np  # noqa: E402

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
COUNTS = (0, 1, 3, 1000, 65537)
ROOTS = sorted({0, size // 2, size - 1})
COLLS = ("barrier", "bcast", "reduce", "allreduce", "gather", "allgather", "alltoall")
calls = dict.fromkeys(COLLS, 0)
checks = 0
errors = 0


def expect(ok, what):
    global checks, errors
    checks += 1
    if not ok:
        if errors < 10:
            print(f"rank {rank}: {what} wrong", file=sys.stderr, flush=True)
        errors += 1


def dval(r, n):
    """Rank r's doubles: exact in any summation order."""
    return r + (np.arange(n) % 4096) * 0.5


def ival(r, n):
    return (r * 31 + np.arange(n, dtype=np.int64) * 7) % 1000


# bcast: doubles and bytes from every root
for n in COUNTS:
    for root in ROOTS:
        d = dval(root, n) if rank == root else np.full(n, -1.0)
        comm.Bcast(d, root=root)
        calls["bcast"] += 1
        expect(np.array_equal(d, dval(root, n)), f"bcast double n={n} root={root}")
        b = np.arange(n, dtype=np.uint8) ^ root if rank == root else np.zeros(n, np.uint8)
        comm.Bcast(b, root=root)
        calls["bcast"] += 1
        expect(np.array_equal(b, np.arange(n, dtype=np.uint8) ^ root), f"bcast byte n={n} root={root}")

# allreduce: double sum, int64 sum, int32 max
for n in COUNTS:
    s = np.empty(n)
    comm.Allreduce(dval(rank, n), s, op=MPI.SUM)
    calls["allreduce"] += 1
    expect(np.array_equal(s, sum(dval(r, n) for r in range(size))), f"allreduce sum double n={n}")
    li = np.empty(n, np.int64)
    comm.Allreduce(ival(rank, n), li, op=MPI.SUM)
    calls["allreduce"] += 1
    expect(np.array_equal(li, sum(ival(r, n) for r in range(size))), f"allreduce sum int64 n={n}")
    mx = np.empty(n, np.int32)
    comm.Allreduce(ival(rank, n).astype(np.int32), mx, op=MPI.MAX)
    calls["allreduce"] += 1
    want = np.max([ival(r, n) for r in range(size)], axis=0) if n else np.empty(0)
    expect(np.array_equal(mx, want), f"allreduce max int32 n={n}")
# in place
for n in COUNTS[1:]:
    d = dval(rank, n)
    comm.Allreduce(MPI.IN_PLACE, d, op=MPI.SUM)
    calls["allreduce"] += 1
    expect(np.array_equal(d, sum(dval(r, n) for r in range(size))), f"allreduce in place n={n}")

# reduce: double sum to every root
for n in COUNTS:
    for root in ROOTS:
        s = np.full(n, -7.0)
        comm.Reduce(dval(rank, n), s if rank == root else None, op=MPI.SUM, root=root)
        calls["reduce"] += 1
        if rank == root:
            expect(np.array_equal(s, sum(dval(r, n) for r in range(size))), f"reduce n={n} root={root}")

# alltoall: block j of rank r is r * 10^6 + j * 10^3 + i % 1000
for n in (0, 1, 1000, 10000):
    i = np.arange(n, dtype=np.int64) % 1000
    send = np.concatenate([rank * 1000000 + j * 1000 + i for j in range(size)]) if n else np.empty(0, np.int64)
    recv = np.full(n * size, -1, np.int64)
    comm.Alltoall(send, recv)
    calls["alltoall"] += 1
    want = np.concatenate([j * 1000000 + rank * 1000 + i for j in range(size)]) if n else recv[:0]
    expect(np.array_equal(recv, want), f"alltoall n={n}")

# gather and allgather: rank r's block is ival(r)
for n in (1, 3, 1000, 20000):
    for root in ROOTS:
        recv = np.full(n * size, -1, np.int64) if rank == root else None
        comm.Gather(ival(rank, n), recv, root=root)
        calls["gather"] += 1
        if rank == root:
            expect(np.array_equal(recv, np.concatenate([ival(r, n) for r in range(size)])), f"gather n={n} root={root}")
    recv = np.full(n * size, -1, np.int64)
    comm.Allgather(ival(rank, n), recv)
    calls["allgather"] += 1
    expect(np.array_equal(recv, np.concatenate([ival(r, n) for r in range(size)])), f"allgather n={n}")

comm.Barrier()
calls["barrier"] += 1

# Everybody's error count (one more allreduce, counted).
tot = np.array([errors], np.int64)
comm.Allreduce(MPI.IN_PLACE, tot, op=MPI.SUM)
calls["allreduce"] += 1
if rank == 0:
    levels = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
              MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}
    print(f"thread_level={levels.get(MPI.Query_thread(), '?')}")
    print("calls " + " ".join(f"{c}={calls[c]}" for c in COLLS))
    with open("/proc/self/maps", encoding="ascii", errors="replace") as f:
        print(f"rt_mapped={int('libacct_rt.so' in f.read())}")
    print(f"mpi4py_check: np={size} checks={checks} errors={int(tot[0])} {'OK' if tot[0] == 0 else 'FAILED'}",
          flush=True)
sys.exit(0 if tot[0] == 0 else 1)
