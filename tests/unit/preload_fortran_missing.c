/* preload_fortran_missing: a process without any MPI library calls the
 * Fortran MPI names libacct.so exports (issue 22), as a program would that
 * finds them with dlsym or through a weak reference. Each must answer an
 * error through ierr and return: no crash, no output, no MPI library
 * mapped. Without the preload the names do not exist (exit 77: SKIP).
 *
 * Output: "fortran_missing: names=N errors_answered=N OK|FAILED". */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef void ierr_fn(int *ierr);
typedef void init_thread_fn(int *required, int *provided, int *ierr);
typedef void comm_fn(int *comm, int *ierr);
typedef void bcast_fn(void *buf, int *count, int *type, int *root, int *comm, int *ierr);
typedef void allreduce_fn(void *s, void *r, int *count, int *type, int *op, int *comm, int *ierr);
typedef void icomm_fn(int *comm, int *req, int *ierr);
typedef void ibcast_fn(void *buf, int *count, int *type, int *root, int *comm, int *req, int *ierr);
typedef void iallreduce_fn(void *s, void *r, int *count, int *type, int *op, int *comm, int *req,
                           int *ierr);
typedef void blocks_fn(void *s, int *sc, int *st, void *r, int *rc, int *rt, int *comm, int *ierr);
typedef void rooted_fn(void *s, int *sc, int *st, void *r, int *rc, int *rt, int *root, int *comm,
                       int *ierr);

static int names, answered;

static void *find(const char *name)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    names++;
    if (sym == NULL)
        fprintf(stderr, "%s: not exported\n", name);
    return sym;
}

static void got(const char *name, int ierr)
{
    if (ierr != 0)
        answered++;
    else
        fprintf(stderr, "%s: ierr 0 without an MPI library\n", name);
}

#define CALL(type, name, ...)                                  \
    do {                                                       \
        void *p = find(name);                                  \
        type *fn;                                              \
        int ierr = 0;                                          \
        if (p != NULL) {                                       \
            memcpy(&fn, &p, sizeof p);                         \
            fn(__VA_ARGS__, &ierr);                            \
            got(name, ierr);                                   \
        }                                                      \
    } while (0)

int main(void)
{
    int one = 1, zero = 0, req = 0, prov = -1, x[4] = {0}, y[4] = {0};
    if (dlsym(RTLD_DEFAULT, "mpi_init_") == NULL) {
        printf("fortran_missing: SKIP mpi_init_ is not defined (run under the libacct preload)\n");
        return 77;
    }
    {
        const char *inits[] = {"MPI_INIT", "mpi_init", "mpi_init_", "mpi_init__",
                               "ompi_init_f", "MPI_Init_f", "MPI_Init_f08"};
        for (size_t i = 0; i < sizeof inits / sizeof inits[0]; i++) {
            void *p = find(inits[i]);
            ierr_fn *fn;
            int ierr = 0;
            if (p != NULL) {
                memcpy(&fn, &p, sizeof p);
                fn(&ierr);
                got(inits[i], ierr);
            }
        }
    }
    CALL(init_thread_fn, "mpi_init_thread_", &req, &prov);
    CALL(comm_fn, "mpi_barrier_", &zero);
    CALL(bcast_fn, "mpi_bcast_", x, &one, &zero, &zero, &zero);
    CALL(allreduce_fn, "MPI_ALLREDUCE", x, y, &one, &zero, &zero, &zero);
    CALL(blocks_fn, "ompi_alltoall_f", x, &one, &zero, y, &one, &zero, &zero);
    CALL(rooted_fn, "mpi_gather__", x, &one, &zero, y, &one, &zero, &zero, &zero);
    /* non-blocking collectives: the request is one more argument */
    CALL(icomm_fn, "mpi_ibarrier_", &zero, &req);
    CALL(ibcast_fn, "mpi_ibcast_", x, &one, &zero, &zero, &zero, &req);
    CALL(iallreduce_fn, "MPI_IALLREDUCE", x, y, &one, &zero, &zero, &zero, &req);
    {
        void *p = find("mpi_finalize_");
        ierr_fn *fn;
        int ierr = 0;
        if (p != NULL) {
            memcpy(&fn, &p, sizeof p);
            fn(&ierr);
            got("mpi_finalize_", ierr);
        }
    }
    printf("fortran_missing: names=%d errors_answered=%d %s\n", names, answered,
           answered == names ? "OK" : "FAILED");
    return answered == names ? 0 : 1;
}
