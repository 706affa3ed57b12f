/* fcheck_c: the C half of fortran_check.F90 -- a C library called by a
 * Fortran main program, as ScaLAPACK and BLACS are by Quantum ESPRESSO.
 * Its collectives go through the C bindings (MPI_Bcast, ...), which
 * libacct's C wrappers intercept once the Fortran MPI_INIT has activated
 * ACCT (issue 22: before, a Fortran main left them native).
 *
 * fcheck_c_side(comm, calls, checks): bcast and reduce of doubles from the
 * first and last rank, then allreduce, over counts 1, 1000 and 20000 on the
 * Fortran communicator comm; adds its calls to calls[] (fortran_check's
 * order: barrier, bcast, reduce, allreduce, ...) and its checks to
 * *checks; returns the number of wrong results. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((visibility("default"))) int fcheck_c_side(MPI_Fint fcomm, long long *calls,
                                                    int *checks);

enum { F_BCAST = 1, F_REDUCE = 2, F_ALLREDUCE = 3 };

static double dval(int r, int i) { return r + (double)(i % 4096) * 0.25; }

int fcheck_c_side(MPI_Fint fcomm, long long *calls, int *checks)
{
    static const int counts[] = {1, 1000, 20000};
    MPI_Comm comm = MPI_Comm_f2c(fcomm);
    int rank, size, errors = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        int n = counts[ci];
        double *d = malloc(sizeof(double) * (size_t)n), *s = malloc(sizeof(double) * (size_t)n);
        if (d == NULL || s == NULL) {
            fprintf(stderr, "fcheck_c: out of memory\n");
            MPI_Abort(comm, 2);
        }
        int roots[2] = {0, size - 1};
        for (int ri = 0; ri < 2; ri++) {
            int root = roots[ri], ok = 1;
            for (int i = 0; i < n; i++)
                d[i] = rank == root ? dval(root, i) : -1.0;
            ok &= MPI_Bcast(d, n, MPI_DOUBLE, root, comm) == MPI_SUCCESS;
            calls[F_BCAST]++;
            for (int i = 0; i < n; i++)
                ok &= d[i] == dval(root, i);
            (*checks)++;
            errors += !ok;

            ok = 1;
            for (int i = 0; i < n; i++)
                d[i] = dval(rank, i), s[i] = -7.0;
            ok &= MPI_Reduce(d, s, n, MPI_DOUBLE, MPI_SUM, root, comm) == MPI_SUCCESS;
            calls[F_REDUCE]++;
            if (rank == root)
                for (int i = 0; i < n; i++)
                    ok &= s[i] == (double)size * (size - 1) / 2 + size * (double)(i % 4096) * 0.25;
            (*checks)++;
            errors += !ok;
        }
        int ok = 1;
        for (int i = 0; i < n; i++)
            d[i] = dval(rank, i);
        ok &= MPI_Allreduce(d, s, n, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS;
        calls[F_ALLREDUCE]++;
        for (int i = 0; i < n; i++)
            ok &= s[i] == (double)size * (size - 1) / 2 + size * (double)(i % 4096) * 0.25;
        (*checks)++;
        errors += !ok;
        if (!ok)
            fprintf(stderr, "rank %d: fcheck_c: wrong result, n=%d\n", rank, n);
        free(d);
        free(s);
    }
    return errors;
}
