/* acct_cluster_hold: an MPI job that stays between MPI_Init and its
 * collectives until told to go on — for "a running job keeps the rules it
 * started with" (tests/cluster/test_spank.sh).
 *
 * usage: acct_cluster_hold PREFIX
 *   After MPI_Init (and a barrier) rank 0 creates PREFIX.ready; then every
 *   rank waits (polling, no MPI traffic) until PREFIX.go exists, at most 120
 *   s; then bcast/allreduce/allgather results are checked and rank 0 prints
 *   "hold: np=N errors=E OK|FAILED". Exit status 0 when every check passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int wait_for(const char *path, double seconds)
{
    struct timespec nap = {0, 20 * 1000 * 1000};
    for (double t = 0; t < seconds; t += 0.02) {
        if (access(path, F_OK) == 0)
            return 0;
        nanosleep(&nap, NULL);
    }
    return -1;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    char ready[4096], go[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: acct_cluster_hold PREFIX\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(ready, sizeof(ready), "%s.ready", argv[1]);
    snprintf(go, sizeof(go), "%s.go", argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(ready, "w");
        if (f == NULL || fclose(f) != 0)
            errors++;
    }
    if (wait_for(go, 120.0) != 0)
        errors++;

    int v[4096];
    for (int i = 0; i < 4096; i++)
        v[i] = rank == 0 ? i * 7 + 1 : -1;
    MPI_Bcast(v, 4096, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 4096; i++)
        errors += v[i] != i * 7 + 1;
    long s = rank + 1, sum = 0;
    MPI_Allreduce(&s, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    errors += sum != (long)size * (size + 1) / 2;
    int *all = malloc(sizeof(int) * (size_t)size);
    if (all == NULL) {
        errors++;
    } else {
        MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < size; i++)
            errors += all[i] != i;
        free(all);
    }
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hold: np=%d errors=%d %s\n", size, total, total == 0 ? "OK" : "FAILED");
    MPI_Finalize();
    return errors == 0 ? 0 : 1;
}
