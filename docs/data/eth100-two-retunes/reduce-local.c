/* The reduction's own cost per element type (session 42, docs/performance.md
 * "Session 42: the rooted collectives again"): MPI_Reduce_local (MPI_SUM) of
 * 256 KiB, in 2 KiB pieces (a 2K-segmented chain's step) and whole, best of 20.
 *   mpicc -O2 reduce-local.c -o /tmp/reduce-local && /tmp/reduce-local */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const size_t bytes = 262144;
    char *a = malloc(bytes), *b = malloc(bytes);
    const struct { const char *name; MPI_Datatype t; int size; } ts[] = {
        { "uchar", MPI_UNSIGNED_CHAR, 1 }, { "int", MPI_INT, 4 },
        { "float", MPI_FLOAT, 4 },         { "double", MPI_DOUBLE, 8 },
    };
    const size_t segs[] = { 2048, bytes };

    MPI_Init(&argc, &argv);
    if (a == NULL || b == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < bytes; i++)
        a[i] = (char)i, b[i] = 1;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 4; k++) {
            double best = 1e9;
            for (int r = 0; r < 20; r++) {
                double t0 = MPI_Wtime();
                for (size_t off = 0; off < bytes; off += segs[s])
                    MPI_Reduce_local(a + off, b + off, (int)(segs[s] / (size_t)ts[k].size), ts[k].t,
                                     MPI_SUM);
                double t = MPI_Wtime() - t0;
                best = t < best ? t : best;
            }
            printf("%-6s pieces of %6zu bytes: 256 KiB reduced in %.1f us\n", ts[k].name, segs[s],
                   best * 1e6);
        }
    MPI_Finalize();
    free(a);
    free(b);
    return 0;
}
