/* Communicators created in some threads while others run collectives
 * (MPI_THREAD_MULTIPLE), issue 17: ACCT must never create a communicator
 * inside a user's collective where that can race with the application's
 * own communicator creation (Open MPI 4.1's context-id allocation stops
 * making progress: a hang).
 *
 * Each process runs THREADS threads, each on its own duplicate of
 * MPI_COMM_WORLD made by the main thread (the pattern of MPICH's
 * threads/comm/comm_create_group_threads test). Every iteration, each
 * thread creates a communicator on its duplicate (MPI_Comm_create_group
 * with its id as the tag; thread 0 every other time MPI_Comm_split), runs
 * barrier, bcast and allreduce on it (the first collectives on a fresh
 * communicator) and frees it; then duplicates MPI_COMM_SELF under a lock
 * that all threads share (the application's serialisation of a creation on
 * one communicator), runs the three collectives on that, and frees it. Thread 0 also
 * runs the three collectives on its own duplicate.
 * Every result is checked against its closed form. Prints from rank 0
 *   "threads_create: np=<n> threads=<n> iterations=<n> errors=<n> OK|FAILED"
 * or "threads_create: SKIP ..." when MPI_THREAD_MULTIPLE is not provided. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_test.h"

#define THREADS 4
#define ITERS 40
#define N 1500

struct work {
    MPI_Comm comm;
    MPI_Group world;
    int id;
    long errors;
};

static long check_collectives(MPI_Comm c, int it, int salt)
{
    int rank, size;
    long errors = 0;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int *buf = malloc(sizeof(int) * N), *sum = malloc(sizeof(int) * N);
    int root = (it + salt) % size;
    MPI_Barrier(c);
    for (int i = 0; i < N; i++)
        buf[i] = rank == root ? it * 7 + i + salt : -1;
    MPI_Bcast(buf, N, MPI_INT, root, c);
    for (int i = 0; i < N; i++)
        errors += buf[i] != it * 7 + i + salt;
    for (int i = 0; i < N; i++)
        buf[i] = rank + i;
    MPI_Allreduce(buf, sum, N, MPI_INT, MPI_SUM, c);
    for (int i = 0; i < N; i++)
        errors += sum[i] != size * (size - 1) / 2 + size * i;
    free(buf);
    free(sum);
    return errors;
}

static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

static void *run(void *arg)
{
    struct work *w = arg;
    for (int it = 0; it < ITERS; it++) {
        MPI_Comm fresh = MPI_COMM_NULL, self = MPI_COMM_NULL;
        if (w->id == 0 && it % 2 == 1) {
            int rank;
            MPI_Comm_rank(w->comm, &rank);
            MPI_Comm_split(w->comm, 0, rank, &fresh);
        } else {
            MPI_Comm_create_group(w->comm, w->world, w->id, &fresh);
        }
        /* the first collectives on the new communicator */
        w->errors += check_collectives(fresh, it, w->id);
        MPI_Comm_free(&fresh);
        /* a collective creation on a communicator all threads share
         * (MPI_COMM_SELF): the application serialises it */
        pthread_mutex_lock(&self_lock);
        MPI_Comm_dup(MPI_COMM_SELF, &self);
        pthread_mutex_unlock(&self_lock);
        w->errors += check_collectives(self, it, 2);
        MPI_Comm_free(&self);
        if (w->id == 0)
            w->errors += check_collectives(w->comm, it, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!init_thread_multiple(&argc, &argv, "threads_create", 77, &rank, &size))
        return 77;
    struct work w[THREADS];
    pthread_t t[THREADS];
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct work){.world = world, .id = i};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, run, &w[i]);
    long errors = 0, all = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        errors += w[i].errors;
        MPI_Comm_free(&w[i].comm);
    }
    MPI_Group_free(&world);
    MPI_Reduce(&errors, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads_create: np=%d threads=%d iterations=%d errors=%ld %s\n", size, THREADS,
               ITERS, all, all == 0 ? "OK" : "FAILED");
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
