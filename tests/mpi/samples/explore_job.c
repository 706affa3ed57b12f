/* An MPI job for the exploration tests (samples_check.sh explore,
 * tests/cluster/test_refine.sh): N bcasts of BYTES bytes from root 0 and N
 * allreduces of 8 doubles on MPI_COMM_WORLD, every result checked on every
 * rank. Plain MPI: libacct and the rules come from the script.
 *
 * usage: explore_job [N [BYTES]]   (default 1000 calls of 1000 bytes)
 * Rank 0 prints "explore_job: np=P n=N bytes=B errors=0 OK" (or FAILED).
 * Exit status 0 when every result is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int bytes = argc > 2 ? atoi(argv[2]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (buf == NULL || bytes < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < bytes; j++)
            buf[j] = rank == 0 ? (char)(i + j) : 0;
        MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (int j = 0; j < bytes; j++)
            bad |= buf[j] != (char)(i + j);
        double in[8], out[8];
        for (int j = 0; j < 8; j++)
            in[j] = rank * 8 + j + i;
        MPI_Allreduce(in, out, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int j = 0; j < 8; j++)
            bad |= out[j] != 8.0 * size * (size - 1) / 2 + (double)size * (j + i);
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    free(buf);
    if (rank == 0 && any)
        printf("WRONG RESULTS\n");
    if (rank == 0 && argc > 2)
        printf("explore_job: np=%d n=%d bytes=%d errors=%d %s\n", size, n, bytes, any,
               any ? "FAILED" : "OK");
    MPI_Finalize();
    return any ? 1 : 0;
}
