/* libacct-callshapes.so: which call shapes an application's collectives
 * have — ACCT_REPORT counts calls per method, communicator size and
 * segment, not message sizes. Preload it (instead of libacct) and world
 * rank 0 prints, at MPI_Finalize, one line per (collective, bytes) of its
 * own calls on stderr:
 *
 *   mpirun -np 8 -x LD_PRELOAD=build/tools/perf/libacct-callshapes.so lmp -in in.eam
 *   acct-callshapes: allreduce 4 60
 *
 * bytes as rules files define them (docs/rules.md): the vector for
 * reductions and bcast, one rank's block for the others (send side),
 * 0 for barrier. C bindings only; blocking collectives with one count. */
#include <mpi.h>
#include <stdio.h>

#define MAX_SHAPES 512
static struct {
    const char *coll;
    long long bytes, calls;
} shape[MAX_SHAPES];
static int nshapes, dropped;

static void count(const char *coll, int n, MPI_Datatype t)
{
    int size = 0;
    long long bytes = 0;
    if (t != MPI_DATATYPE_NULL && PMPI_Type_size(t, &size) == MPI_SUCCESS)
        bytes = (long long)n * size;
    for (int i = 0; i < nshapes; i++)
        if (shape[i].coll == coll && shape[i].bytes == bytes) {
            shape[i].calls++;
            return;
        }
    if (nshapes == MAX_SHAPES) {
        dropped++;
        return;
    }
    shape[nshapes].coll = coll;
    shape[nshapes].bytes = bytes;
    shape[nshapes++].calls = 1;
}

int MPI_Barrier(MPI_Comm c)
{
    count("barrier", 0, MPI_BYTE);
    return PMPI_Barrier(c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    count("bcast", n, t);
    return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
    count("reduce", n, t);
    return PMPI_Reduce(s, r, n, t, op, root, c);
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    count("allreduce", n, t);
    return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    count("scan", n, t);
    return PMPI_Scan(s, r, n, t, op, c);
}

int MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    count("exscan", n, t);
    return PMPI_Exscan(s, r, n, t, op, c);
}

int MPI_Allgather(const void *s, int n, MPI_Datatype t, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c)
{
    count("allgather", s == MPI_IN_PLACE ? rn : n, s == MPI_IN_PLACE ? rt : t);
    return PMPI_Allgather(s, n, t, r, rn, rt, c);
}

int MPI_Alltoall(const void *s, int n, MPI_Datatype t, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c)
{
    count("alltoall", s == MPI_IN_PLACE ? rn : n, s == MPI_IN_PLACE ? rt : t);
    return PMPI_Alltoall(s, n, t, r, rn, rt, c);
}

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < nshapes; i++)
            fprintf(stderr, "acct-callshapes: %s %lld %lld\n", shape[i].coll, shape[i].bytes,
                    shape[i].calls);
        if (dropped)
            fprintf(stderr, "acct-callshapes: %d calls beyond %d shapes not counted\n", dropped,
                    MAX_SHAPES);
    }
    return PMPI_Finalize();
}
