/* Two threads, two communicators, collectives at the same time under
 * MPI_THREAD_MULTIPLE, through ACCT's algorithms (ACCT_FORCE set by the
 * test): every result is checked against its closed form.
 * Prints "threads: np=<n> iterations=<n> errors=<n> OK|FAILED" from rank 0. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_test.h"

#define ITERS 200
#define N 3000

struct work {
    MPI_Comm comm;
    int id;
    long errors;
};

static void *run(void *arg)
{
    struct work *w = arg;
    int rank, size;
    MPI_Comm_rank(w->comm, &rank);
    MPI_Comm_size(w->comm, &size);
    int *buf = malloc(sizeof(int) * N), *all = malloc(sizeof(int) * (size_t)size);
    for (int it = 0; it < ITERS; it++) {
        int root = it % size;
        for (int i = 0; i < N; i++)
            buf[i] = rank == root ? it + i + w->id : -1;
        MPI_Bcast(buf, N, MPI_INT, root, w->comm);
        for (int i = 0; i < N; i++)
            w->errors += buf[i] != it + i + w->id;
        for (int i = 0; i < N; i++)
            buf[i] = rank + i % 7;
        MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, w->comm);
        for (int i = 0; i < N; i++)
            w->errors += buf[i] != size * (size - 1) / 2 + size * (i % 7);
        int mine = rank * 10 + w->id;
        MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, w->comm);
        for (int r = 0; r < size; r++)
            w->errors += all[r] != r * 10 + w->id;
    }
    free(buf);
    free(all);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!init_thread_multiple(&argc, &argv, "threads", 1, &rank, &size))
        return 1;
    struct work w[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
        w[i].id = i;
        w[i].errors = 0;
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, run, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    long local = w[0].errors + w[1].errors, total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: np=%d iterations=%d errors=%ld %s\n", size, ITERS, total,
               total == 0 ? "OK" : "FAILED");
    for (int i = 0; i < 2; i++)
        MPI_Comm_free(&w[i].comm);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
