/* An MPI job with known numbers of collectives, for the live-samples tests
 * (samples_check.sh). Plain MPI: libacct is preloaded by the script.
 *
 * usage: samples_job [SECONDS]
 *   on MPI_COMM_WORLD: 40 bcasts of 1000 bytes (bucket 10), 30 allreduces
 *   of 8 doubles (64 bytes, bucket 7), 20 barriers, 10 gathers of 4 ints
 *   (16 bytes, bucket 5); then, if SECONDS > 0, barriers for that long
 *   (periodic batches; the count of those is printed by rank 0).
 * Exit status 0 when every result is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    double seconds = argc > 1 ? atof(argv[1]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char buf[1000];
    for (int i = 0; i < 40; i++) {
        memset(buf, rank == 0 ? (char)(i + 1) : 0, sizeof buf);
        MPI_Bcast(buf, (int)sizeof buf, MPI_BYTE, 0, MPI_COMM_WORLD);
        bad |= buf[0] != (char)(i + 1) || buf[999] != (char)(i + 1);
    }
    for (int i = 0; i < 30; i++) {
        double in[8], out[8];
        for (int j = 0; j < 8; j++)
            in[j] = rank + j;
        MPI_Allreduce(in, out, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int j = 0; j < 8; j++)
            bad |= out[j] != (double)size * (size - 1) / 2 + (double)size * j;
    }
    for (int i = 0; i < 20; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    int *all = malloc(sizeof(int) * 4 * (size_t)size);
    for (int i = 0; i < 10 && all != NULL; i++) {
        int mine[4] = {rank, rank, rank, i};
        MPI_Gather(mine, 4, MPI_INT, all, 4, MPI_INT, 0, MPI_COMM_WORLD);
        for (int r = 0; rank == 0 && r < size; r++)
            bad |= all[4 * r] != r || all[4 * r + 3] != i;
    }
    free(all);
    long extra = 0;
    if (seconds > 0) {
        double t0 = MPI_Wtime();
        int more = 1;
        while (more) {
            MPI_Barrier(MPI_COMM_WORLD);
            extra++;
            more = MPI_Wtime() - t0 < seconds;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD); /* all stop alike */
            extra++;
        }
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && seconds > 0)
        printf("extra calls: %ld\n", extra);
    if (rank == 0 && any)
        printf("WRONG RESULTS\n");
    MPI_Finalize();
    return any ? 1 : 0;
}
