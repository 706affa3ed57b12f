/* The SACK automatic mode under mpirun (docs/sack.md "Automatic mode"):
 * NCALLS bcasts (or gathers, or MPI_INT sum reduces) of BYTES from (to)
 * rank 0, each after a barrier (gather: BYTES / ranks per rank); with "late",
 * ranks 1, 2 and 4 (the root's children in the binomial tree, i.e. the
 * interior of the static tree) enter every call DELAY_MS, 2x and 3x that
 * late; with "none", nobody sleeps. Every rank checks the data of every
 * call. The wrapper (sack_auto.sh) checks from the debug lines whether
 * reordering turned on.
 *   usage: acct_sack_auto late|none NCALLS BYTES DELAY_MS [bcast|gather|reduce] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0, all_bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *coll = argc == 6 ? argv[5] : "bcast";
    if ((argc != 5 && argc != 6) || (strcmp(argv[1], "late") != 0 && strcmp(argv[1], "none") != 0) ||
        (strcmp(coll, "bcast") != 0 && strcmp(coll, "gather") != 0 && strcmp(coll, "reduce") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: acct_sack_auto late|none NCALLS BYTES DELAY_MS "
                            "[bcast|gather|reduce]\n");
        MPI_Finalize();
        return 2;
    }
    int late = strcmp(argv[1], "late") == 0, ncalls = atoi(argv[2]);
    long bytes = atol(argv[3]), delay_ms = atol(argv[4]);
    long mine = 0;
    if (late && (rank == 1 || rank == 2 || rank == 4))
        mine = delay_ms * (rank == 4 ? 3 : rank);
    unsigned char *buf = malloc((size_t)bytes);
    int gather = strcmp(coll, "gather") == 0, reduce = strcmp(coll, "reduce") == 0;
    int n = (int)(bytes / (long)sizeof(int)), per = (int)(bytes / size);
    int *in = malloc((size_t)bytes + 1), *out = malloc((size_t)bytes + 1);
    if (in == NULL || out == NULL) {
        free(buf);
        buf = NULL;
    }
    for (int c = 0; buf != NULL && (gather || reduce) && c < ncalls; c++) {
        for (int i = 0; i < n; i++)
            in[i] = (i * 7 + c) * (rank + 1);
        MPI_Barrier(MPI_COMM_WORLD);
        if (mine > 0) {
            struct timespec ts = {mine / 1000, (mine % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (gather) {
            MPI_Gather(in, per, MPI_BYTE, out, per, MPI_BYTE, 0, MPI_COMM_WORLD);
            for (int r = 0; rank == 0 && r < size; r++)
                for (int i = 0; i < per; i++) {
                    int v = ((i / 4) * 7 + c) * (r + 1); /* the int the byte belongs to */
                    bad += ((unsigned char *)out)[(long)r * per + i] !=
                           ((unsigned char *)&v)[i % 4];
                }
        } else {
            MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            for (int i = 0; rank == 0 && i < n; i++)
                bad += out[i] != (i * 7 + c) * (size * (size + 1) / 2);
        }
    }
    for (int c = 0; buf != NULL && !gather && !reduce && c < ncalls; c++) {
        for (long i = 0; i < bytes; i++)
            buf[i] = rank == 0 ? (unsigned char)(i * 13 + c) : 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (mine > 0) {
            struct timespec ts = {mine / 1000, (mine % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (long i = 0; i < bytes; i++)
            bad += buf[i] != (unsigned char)(i * 13 + c);
    }
    MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sack_auto: %s %s, %d ranks, %d calls of %ld bytes: %s\n", coll, argv[1], size,
               ncalls, bytes,
               buf == NULL ? "NO MEMORY" : all_bad ? "WRONG DATA" : "OK");
    free(buf);
    free(in);
    free(out);
    MPI_Finalize();
    return buf == NULL || all_bad ? 1 : 0;
}
