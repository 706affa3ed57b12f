#!/usr/bin/python3
"""acct-apps-py: a small mpi4py application for tools/perf/acct-apps (issue 22).

An mpi4py program the way Python codes use mpi4py: the pickle API for
Python objects (comm.allgather / comm.gather / comm.bcast / comm.scatter:
mpi4py turns allgather into MPI_Allgather of the sizes then MPI_Allgatherv,
and gather into MPI_Gather then MPI_Gatherv), the buffer API for numpy
arrays (Allreduce, Bcast, Alltoall, Allgather, Reduce_scatter_block) and a
non-blocking collective (Iallreduce, overlapped with local work, completed
with Wait).

Every rank's data is a deterministic function of (rank, step); every
result is integer (sums of int64), so the checksums are exact and must be
byte-identical with and without ACCT. Each result is also checked against
its closed form.

Output (rank 0), one line each:
  acct-apps-py: np=<p> steps=<n> checksum=<hex> checks=<n> errors=<n> OK|FAILED seconds=<t>
(t: MPI_Wtime of rank 0 around the loop and the final checks, after
MPI_Init and before MPI_Finalize)
Exit status 0 when every check passed on every rank.

Usage: acct-apps-py.py [STEPS]   (default 40)
"""
import hashlib
import sys

from mpi4py import MPI
import numpy as np


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    comm = MPI.COMM_WORLD
    rank, p = comm.Get_rank(), comm.Get_size()
    digest = hashlib.sha256()
    checks = errors = 0

    def expect(ok):
        nonlocal checks, errors
        checks += 1
        errors += 0 if ok else 1

    n = 1024
    t0 = MPI.Wtime()
    for step in range(steps):
        # Pickle API: a Python object per rank, of a rank-dependent size.
        obj = {"rank": rank, "step": step, "payload": list(range(rank + step % 5))}
        everyone = comm.allgather(obj)  # -> MPI_Allgather + MPI_Allgatherv
        expect([o["rank"] for o in everyone] == list(range(p)))
        expect(all(len(o["payload"]) == r + step % 5 for r, o in enumerate(everyone)))
        root = step % p
        got = comm.gather((rank, step * rank), root=root)  # -> MPI_Gather + MPI_Gatherv
        if rank == root:
            expect(got == [(r, step * r) for r in range(p)])
        else:
            expect(got is None)
        cfg = comm.bcast({"step": step, "dt": 0.5} if rank == root else None, root=root)
        expect(cfg["step"] == step)
        part = comm.scatter([r * step for r in range(p)] if rank == root else None, root=root)
        expect(part == rank * step)

        # Buffer API on numpy arrays.
        x = np.arange(n, dtype=np.int64) * (rank + 1) + step
        s = np.empty_like(x)
        comm.Allreduce(x, s, op=MPI.SUM)
        expect(np.array_equal(s, np.arange(n, dtype=np.int64) * (p * (p + 1) // 2) + p * step))
        b = x.copy() if rank == root else np.empty_like(x)
        comm.Bcast(b, root=root)
        expect(np.array_equal(b, np.arange(n, dtype=np.int64) * (root + 1) + step))
        a = np.array([rank * 1000 + j + step for j in range(p) for _ in range(16)], dtype=np.int64)
        t = np.empty_like(a)
        comm.Alltoall(a, t)
        want = [r * 1000 + rank + step for r in range(p) for _ in range(16)]
        expect(np.array_equal(t, np.array(want, dtype=np.int64)))
        g = np.empty(p * 64, dtype=np.int64)
        comm.Allgather(np.full(64, rank + step, dtype=np.int64), g)
        expect(np.array_equal(g, np.repeat(np.arange(p, dtype=np.int64) + step, 64)))
        rs = np.empty(32, dtype=np.int64)
        comm.Reduce_scatter_block(np.arange(32 * p, dtype=np.int64) + rank, rs, op=MPI.SUM)
        want = p * (np.arange(32, dtype=np.int64) + 32 * rank) + p * (p - 1) // 2
        expect(np.array_equal(rs, want))

        # Non-blocking: start, compute locally, wait.
        y = np.full(4096, rank + step, dtype=np.int64)
        ys = np.empty_like(y)
        req = comm.Iallreduce(y, ys, op=MPI.SUM)
        local = int(np.sum(x * 3))  # overlapped work
        req.Wait()
        expect(np.array_equal(ys, np.full(4096, p * (p - 1) // 2 + p * step, dtype=np.int64)))

        for arr in (s, b, t, g, ys):
            digest.update(arr.tobytes())
        seen = sorted(o["rank"] for o in everyone)
        digest.update(repr((seen, cfg["step"], part, local)).encode())
        rs_all = comm.gather(rs.tobytes(), root=0)
        if rank == 0:
            for chunk in rs_all:
                digest.update(chunk)

    comm.Barrier()
    total = comm.allreduce(errors, op=MPI.SUM)
    all_checks = comm.allreduce(checks, op=MPI.SUM)
    if rank == 0:
        print(f"acct-apps-py: np={p} steps={steps} checksum={digest.hexdigest()[:32]} "
              f"checks={all_checks} errors={total} {'OK' if total == 0 else 'FAILED'} "
              f"seconds={MPI.Wtime() - t0:.3f}", flush=True)
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
