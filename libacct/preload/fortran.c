/* The Fortran entry points of libacct.so (issue 22).
 *
 * Open MPI's Fortran bindings (libmpi_mpifh: mpif.h and `use mpi`) are C
 * functions that convert their arguments and call PMPI_* directly, so the
 * C wrappers never see a Fortran call, and mpi_init_/mpi_finalize_ never
 * reach the loader's MPI_Init/MPI_Finalize: without this file a Fortran
 * main program never activates ACCT, even for the C libraries it calls
 * (ScaLAPACK, BLACS, ...). The mpi_f08 bindings (libmpi_usempif08) call
 * the same ompi_*_f functions through their PLT (mpi_bcast_f08_ ->
 * ompi_bcast_f in 4.1), so interposing those covers all three.
 *
 * Every name of every row of ACCT_FORTRAN_COLLECTIVES, ACCT_FORTRAN_NONBLOCKING
 * and ACCT_FORTRAN_INIT
 * (acct/mpi_wrap.h) is exported here:
 *   - MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE (every mangling) run the
 *     loader's steps around the native Fortran function, exactly as
 *     MPI_Init does around PMPI_Init: same agreement, report and samples;
 *   - a collective, while the runtime runs the collectives
 *     (acct_loader_routed), converts its arguments as Open MPI's binding
 *     does -- handles with MPI_Comm_f2c/MPI_Type_f2c/MPI_Op_f2c, the
 *     Fortran MPI_IN_PLACE and MPI_BOTTOM sentinels into the C ones, on the
 *     same arguments as Open MPI 4.1 -- and calls the runtime's C entry
 *     point (the one the C wrapper reaches: one decision path), returning
 *     its result through ierr; otherwise (ACCT off, not agreed, before
 *     MPI_Init, a communicator handle f2c does not know) it calls the
 *     native function of the same name: pure pass-through.
 * Nothing is looked up at load time: the natives (in the Fortran library,
 * whatever scope it was loaded in) at the first Fortran call; the f2c
 * functions (in the MPI library the C natives came from) and the
 * sentinels' addresses at the first Fortran collective the runtime runs;
 * again while anything is missing. A
 * name whose native is missing (no Fortran MPI library in the process)
 * answers MPI_ERR_INTERN through ierr; nothing else happens. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "acct/common.h"
#include "acct/mpi_wrap.h"
#include "loader.h"

/* Every C row has its Fortran row (a Fortran row without a C row does not
 * compile: its driver calls rt->Name). */
#define ACCT_X_COUNT_C(Name, lower, params, args) +1
#define ACCT_X_COUNT_F(Name, UPPER, lower, fparams, fargs) +1
_Static_assert(0 ACCT_WRAPPED_COLLECTIVES(ACCT_X_COUNT_C) ==
                   0 ACCT_FORTRAN_COLLECTIVES(ACCT_X_COUNT_F),
               "every collective of ACCT_WRAPPED_COLLECTIVES needs its ACCT_FORTRAN_COLLECTIVES row");
_Static_assert(0 ACCT_WRAPPED_NONBLOCKING(ACCT_X_COUNT_C) ==
                   0 ACCT_FORTRAN_NONBLOCKING(ACCT_X_COUNT_F),
               "every collective of ACCT_WRAPPED_NONBLOCKING needs its ACCT_FORTRAN_NONBLOCKING row");
#undef ACCT_X_COUNT_C
#undef ACCT_X_COUNT_F

#define ACCT_UNPAREN(...) __VA_ARGS__
/* (int m, <the Fortran parameters>): m is the mangling the program called */
#define ACCT_WITH_MANGLING(fparams) (int m, ACCT_UNPAREN fparams)

/* The native function of every name (fnative.Name[m]); a name Open MPI
 * does not export gets another mangling of the same function, as they
 * all share one prototype. */
static struct {
#define ACCT_X_FIELD(Name, UPPER, lower, fparams, fargs) void(*Name[ACCT_FORTRAN_NMANGLINGS]) fparams;
    ACCT_FORTRAN_COLLECTIVES(ACCT_X_FIELD)
    ACCT_FORTRAN_NONBLOCKING(ACCT_X_FIELD)
    ACCT_FORTRAN_INIT(ACCT_X_FIELD)
#undef ACCT_X_FIELD
} fnative;

/* The names, in mangling order, for the lookup. */
#define ACCT_X_NAME(id, str, sym, ...) str,
#define ACCT_X_NAMES(Name, UPPER, lower, fparams, fargs) \
    static const char *const names_##Name[] = {ACCT_FORTRAN_MANGLINGS(ACCT_X_NAME, Name, UPPER, lower, -)};
ACCT_FORTRAN_COLLECTIVES(ACCT_X_NAMES)
ACCT_FORTRAN_NONBLOCKING(ACCT_X_NAMES)
ACCT_FORTRAN_INIT(ACCT_X_NAMES)
#undef ACCT_X_NAMES
#undef ACCT_X_NAME

/* The conversions, valid once fstate has F_CONVERT. */
static struct {
    MPI_Comm (*comm)(MPI_Fint);
    MPI_Datatype (*type)(MPI_Fint);
    MPI_Op (*op)(MPI_Fint);
    MPI_Fint (*request)(MPI_Request); /* c2f: the request a non-blocking call returns */
} f2c;

/* Addresses the program may pass for MPI_IN_PLACE and MPI_BOTTOM: the
 * common blocks /mpi_fortran_in_place/ and /mpi_fortran_bottom/ under each
 * mangling, wherever they are defined -- an executable compiled with
 * mpif.h or the modules holds its own copy (which the global scope then
 * binds for Open MPI's bindings too), a Fortran plugin opened with
 * RTLD_LOCAL holds its own in its local scope (which its libmpi_mpifh then
 * binds), the MPI libraries hold theirs. Open MPI 4.1 compares with the
 * one copy it bound, under the compiler's mangling
 * (OMPI_IS_FORTRAN_IN_PLACE: &mpi_fortran_in_place_ for gfortran); older
 * builds with all four manglings. Every copy of these blocks means the
 * sentinel: no user buffer lies at any of these addresses. */
enum { SENTINEL_MAX = 32 };
struct sentinel {
    const char *names[4];
    void *addr[SENTINEL_MAX];
    int n;
};
static struct sentinel in_place = {
    {"mpi_fortran_in_place_", "mpi_fortran_in_place", "mpi_fortran_in_place__",
     "MPI_FORTRAN_IN_PLACE"}, {0}, 0};
static struct sentinel bottom = {
    {"mpi_fortran_bottom_", "mpi_fortran_bottom", "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM"},
    {0}, 0};

enum { F_NATIVES = 1, F_CONVERT = 2 };
static int fstate; /* F_* found so far; written under flock, read with acquire */
static pthread_mutex_t flock = PTHREAD_MUTEX_INITIALIZER;
static void *flib; /* where the natives came from (F_NATIVES) */

static void lookup(void *lib, void *slot, const char *name)
{
    void *sym = dlsym(lib, name);
    memcpy(slot, &sym, sizeof sym); /* POSIX: a dlsym() result converts */
}

static void lookup_f2c(void *lib, void *slot, const char *pmpi_name, const char *mpi_name)
{
    lookup(lib, slot, pmpi_name);
    if (*(void **)slot == NULL)
        lookup(lib, slot, mpi_name);
}

static void sentinel_add(struct sentinel *s, void *a)
{
    int known = a == NULL;
    for (int j = 0; j < s->n && !known; j++)
        known = s->addr[j] == a;
    if (!known && s->n < SENTINEL_MAX)
        s->addr[s->n++] = a;
}

/* Every copy: the global scope's (the main program's, if it has one) and
 * each loaded object's. */
static void sentinel_find(struct sentinel *s)
{
    void *found[SENTINEL_MAX];
    for (int i = 0; i < 4; i++) {
        sentinel_add(s, dlsym(RTLD_DEFAULT, s->names[i]));
        int n = acct_loader_defined(s->names[i], found, SENTINEL_MAX);
        for (int j = 0; j < n; j++)
            sentinel_add(s, found[j]);
    }
}

/* The natives of one row: its names in flib, a missing mangling filled
 * with a found one. */
static void resolve_row(void *slots, size_t slot_size, const char *const *names)
{
    void *first = NULL;
    char *slot = slots;
    for (int m = 0; m < ACCT_FORTRAN_NMANGLINGS; m++) {
        lookup(flib, slot + (size_t)m * slot_size, names[m]);
        if (first == NULL)
            memcpy(&first, slot + (size_t)m * slot_size, sizeof first);
    }
    for (int m = 0; m < ACCT_FORTRAN_NMANGLINGS; m++) {
        void *cur;
        memcpy(&cur, slot + (size_t)m * slot_size, sizeof cur);
        if (cur == NULL)
            memcpy(slot + (size_t)m * slot_size, &first, sizeof first);
    }
}

/* What is known now: F_NATIVES once the Fortran library is found;
 * F_CONVERT, asked for only while the runtime runs the collectives, once
 * the MPI library (acct_loader_resolve) gave the f2c functions and the
 * sentinels are known. Looked for again while missing. */
static int fortran_state(int convert)
{
    static const char *const probes[] = {
#define ACCT_X_NAME(id, str, sym, ...) str,
        ACCT_FORTRAN_MANGLINGS(ACCT_X_NAME, Init, INIT, init, -)
#undef ACCT_X_NAME
        NULL};
    int s = __atomic_load_n(&fstate, __ATOMIC_ACQUIRE);
    void *mpi;
    if ((s & F_NATIVES) && (!convert || (s & F_CONVERT)))
        return s;
    pthread_mutex_lock(&flock);
    s = fstate;
    if (!(s & F_NATIVES) && (flib = acct_loader_find(probes)) != NULL) {
#define ACCT_X_RESOLVE(Name, UPPER, lower, fparams, fargs) \
        resolve_row(fnative.Name, sizeof fnative.Name[0], names_##Name);
        ACCT_FORTRAN_COLLECTIVES(ACCT_X_RESOLVE)
        ACCT_FORTRAN_NONBLOCKING(ACCT_X_RESOLVE)
        ACCT_FORTRAN_INIT(ACCT_X_RESOLVE)
#undef ACCT_X_RESOLVE
        s |= F_NATIVES;
    }
    if (convert && !(s & F_CONVERT) && (mpi = acct_loader_mpi()) != NULL) {
        lookup_f2c(mpi, &f2c.comm, "PMPI_Comm_f2c", "MPI_Comm_f2c");
        lookup_f2c(mpi, &f2c.type, "PMPI_Type_f2c", "MPI_Type_f2c");
        lookup_f2c(mpi, &f2c.op, "PMPI_Op_f2c", "MPI_Op_f2c");
        lookup_f2c(mpi, &f2c.request, "PMPI_Request_c2f", "MPI_Request_c2f");
        sentinel_find(&in_place);
        sentinel_find(&bottom);
        if (f2c.comm != NULL && f2c.type != NULL && f2c.op != NULL && f2c.request != NULL)
            s |= F_CONVERT;
    }
    __atomic_store_n(&fstate, s, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&flock);
    return s;
}

static int is_sentinel(const struct sentinel *s, const void *p)
{
    for (int i = 0; i < s->n; i++)
        if (s->addr[i] == p)
            return 1;
    return 0;
}

/* OMPI_F2C_BOTTOM, OMPI_F2C_IN_PLACE and both, in Open MPI's order. */
static void *c_bottom(void *p) { return is_sentinel(&bottom, p) ? MPI_BOTTOM : p; }
static void *c_in_place(void *p)
{
    return is_sentinel(&in_place, p) ? MPI_IN_PLACE : c_bottom(p);
}

/* Each collective with its arguments converted, through the runtime's C
 * entry point rt->Name; F_NATIVE for a communicator handle f2c does not
 * know (erroneous: the native binding reports it in its own words).
 * Which buffer may be MPI_IN_PLACE follows Open MPI 4.1's bindings (the
 * send buffer; scatter's receive buffer); both may be MPI_BOTTOM, except
 * that bcast's one buffer may only be MPI_BOTTOM. Datatype and op handles
 * are converted as given: arguments MPI does not read on this rank may be
 * anything, and the C entry point treats them as it treats C calls. */
#define F_NATIVE (-1)

static MPI_Comm c_comm(const MPI_Fint *comm) { return f2c.comm(*comm); }

static int run_Barrier(const struct acct_coll_fns *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE : rt->Barrier(c);
}

static int run_Bcast(const struct acct_coll_fns *rt, void *buffer, MPI_Fint *count,
                     MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE : rt->Bcast(c_bottom(buffer), *count, f2c.type(*datatype), *root, c);
}

static int run_Reduce(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                      MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                      MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Reduce(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                  f2c.type(*datatype), f2c.op(*op), *root, c);
}

static int run_Allreduce(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                         MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                         MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Allreduce(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                     f2c.type(*datatype), f2c.op(*op), c);
}

static int run_Reduce_scatter_block(const struct acct_coll_fns *rt, void *sendbuf,
                                    void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype,
                                    MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Reduce_scatter_block(c_in_place(sendbuf), c_bottom(recvbuf),
                                                *recvcount, f2c.type(*datatype), f2c.op(*op),
                                                c);
}

static int run_Gather(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                      MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                      MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Gather(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                  c_bottom(recvbuf), *recvcount, f2c.type(*recvtype), *root, c);
}

static int run_Scatter(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                       MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                       MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Scatter(c_bottom(sendbuf), *sendcount, f2c.type(*sendtype),
                                   c_in_place(recvbuf), *recvcount, f2c.type(*recvtype), *root,
                                   c);
}

static int run_Allgather(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                         MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                         MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Allgather(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                     c_bottom(recvbuf), *recvcount, f2c.type(*recvtype), c);
}

static int run_Alltoall(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                        MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Alltoall(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                    c_bottom(recvbuf), *recvcount, f2c.type(*recvtype), c);
}

/* The v-collectives pass their count arrays as MPI_Fint arrays, which
 * Open MPI's bindings hand to C unconverted when MPI_Fint is an int
 * (OMPI_ARRAY_FINT_2_INT is then a no-op); so do these. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint count arrays are passed as int arrays");

static int run_Allgatherv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                          MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                          MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Allgatherv(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                      c_bottom(recvbuf), (const int *)recvcounts,
                                      (const int *)displs, f2c.type(*recvtype), c);
}

static int run_Reduce_scatter(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                              MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,
                              MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Reduce_scatter(c_in_place(sendbuf), c_bottom(recvbuf),
                                          (const int *)recvcounts, f2c.type(*datatype),
                                          f2c.op(*op), c);
}

static int run_Gatherv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                       MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                       MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Gatherv(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                   c_bottom(recvbuf), (const int *)recvcounts, (const int *)displs,
                                   f2c.type(*recvtype), *root, c);
}

static int run_Scatterv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcounts,
                        MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                        MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Scatterv(c_bottom(sendbuf), (const int *)sendcounts,
                                    (const int *)displs, f2c.type(*sendtype), c_in_place(recvbuf),
                                    *recvcount, f2c.type(*recvtype), *root, c);
}

static int run_Alltoallv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcounts,
                         MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
                         MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                         MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Alltoallv(c_in_place(sendbuf), (const int *)sendcounts,
                                     (const int *)sdispls, f2c.type(*sendtype), c_bottom(recvbuf),
                                     (const int *)recvcounts, (const int *)rdispls,
                                     f2c.type(*recvtype), c);
}

/* scan and exscan: MPI_IN_PLACE as the send buffer (Open MPI 4.1's
 * mpi_scan_f and mpi_exscan_f). */
static int run_Scan(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf, MPI_Fint *count,
                    MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Scan(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                f2c.type(*datatype), f2c.op(*op), c);
}

static int run_Exscan(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                      MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                      MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : rt->Exscan(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                  f2c.type(*datatype), f2c.op(*op), c);
}

/* The non-blocking collectives: the same conversions, and the C request
 * the runtime returns handed back as a Fortran handle (MPI_Request_c2f,
 * as Open MPI's binding does), only when the call succeeded. */
static int f_request(int rc, const MPI_Request *creq, MPI_Fint *request)
{
    if (rc == MPI_SUCCESS) /* *creq read only now: the call has set it */
        *request = f2c.request(*creq);
    return rc;
}

static int run_Ibarrier(const struct acct_coll_fns *rt, MPI_Fint *comm, MPI_Fint *request,
                        MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE : f_request(rt->Ibarrier(c, &r), &r, request);
}

static int run_Ibcast(const struct acct_coll_fns *rt, void *buffer, MPI_Fint *count,
                      MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                      MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Ibcast(c_bottom(buffer), *count, f2c.type(*datatype), *root,
                                            c, &r),
                                 &r, request);
}

static int run_Ireduce(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                       MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Ireduce(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                             f2c.type(*datatype), f2c.op(*op), *root, c, &r),
                                 &r, request);
}

static int run_Iallreduce(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                          MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                          MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iallreduce(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                                f2c.type(*datatype), f2c.op(*op), c, &r),
                                 &r, request);
}

static int run_Ireduce_scatter_block(const struct acct_coll_fns *rt, void *sendbuf,
                                     void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype,
                                     MPI_Fint *op, MPI_Fint *comm, MPI_Fint *request,
                                     MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Ireduce_scatter_block(c_in_place(sendbuf), c_bottom(recvbuf),
                                                           *recvcount, f2c.type(*datatype),
                                                           f2c.op(*op), c, &r),
                                 &r, request);
}

static int run_Igather(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                       MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                       MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                       MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Igather(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                             c_bottom(recvbuf), *recvcount, f2c.type(*recvtype),
                                             *root, c, &r),
                                 &r, request);
}

static int run_Iscatter(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                        MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                        MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iscatter(c_bottom(sendbuf), *sendcount, f2c.type(*sendtype),
                                              c_in_place(recvbuf), *recvcount,
                                              f2c.type(*recvtype), *root, c, &r),
                                 &r, request);
}

static int run_Iallgather(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                          MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                          MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iallgather(c_in_place(sendbuf), *sendcount,
                                                f2c.type(*sendtype), c_bottom(recvbuf),
                                                *recvcount, f2c.type(*recvtype), c, &r),
                                 &r, request);
}

static int run_Ialltoall(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                         MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                         MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Ialltoall(c_in_place(sendbuf), *sendcount,
                                               f2c.type(*sendtype), c_bottom(recvbuf),
                                               *recvcount, f2c.type(*recvtype), c, &r),
                                 &r, request);
}

/* The non-blocking v-collectives: their count arrays as the blocking
 * ones' (read during the call only: the runtime copies what it needs). */
static int run_Iallgatherv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                           MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                           MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                           MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iallgatherv(c_in_place(sendbuf), *sendcount,
                                                 f2c.type(*sendtype), c_bottom(recvbuf),
                                                 (const int *)recvcounts, (const int *)displs,
                                                 f2c.type(*recvtype), c, &r),
                                 &r, request);
}

static int run_Ireduce_scatter(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                               MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op,
                               MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Ireduce_scatter(c_in_place(sendbuf), c_bottom(recvbuf),
                                                     (const int *)recvcounts, f2c.type(*datatype),
                                                     f2c.op(*op), c, &r),
                                 &r, request);
}

static int run_Igatherv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcount,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                        MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                        MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Igatherv(c_in_place(sendbuf), *sendcount, f2c.type(*sendtype),
                                              c_bottom(recvbuf), (const int *)recvcounts,
                                              (const int *)displs, f2c.type(*recvtype), *root, c,
                                              &r),
                                 &r, request);
}

static int run_Iscatterv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcounts,
                         MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                         MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request,
                         MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iscatterv(c_bottom(sendbuf), (const int *)sendcounts,
                                               (const int *)displs, f2c.type(*sendtype),
                                               c_in_place(recvbuf), *recvcount,
                                               f2c.type(*recvtype), *root, c, &r),
                                 &r, request);
}

static int run_Ialltoallv(const struct acct_coll_fns *rt, void *sendbuf, MPI_Fint *sendcounts,
                          MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf,
                          MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                          MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Ialltoallv(c_in_place(sendbuf), (const int *)sendcounts,
                                                (const int *)sdispls, f2c.type(*sendtype),
                                                c_bottom(recvbuf), (const int *)recvcounts,
                                                (const int *)rdispls, f2c.type(*recvtype), c, &r),
                                 &r, request);
}

static int run_Iscan(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                     MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                     MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iscan(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                           f2c.type(*datatype), f2c.op(*op), c, &r),
                                 &r, request);
}

static int run_Iexscan(const struct acct_coll_fns *rt, void *sendbuf, void *recvbuf,
                       MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                       MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = c_comm(comm);
    MPI_Request r;
    (void)ierr;
    return c == NULL ? F_NATIVE
                     : f_request(rt->Iexscan(c_in_place(sendbuf), c_bottom(recvbuf), *count,
                                             f2c.type(*datatype), f2c.op(*op), c, &r),
                                 &r, request);
}

/* A collective: the runtime's path while it runs the collectives and the
 * conversions are known, else the native function the program called. */
#define ACCT_X_DRIVER(Name, UPPER, lower, fparams, fargs)                          \
    static void f_##Name ACCT_WITH_MANGLING(fparams)                               \
    {                                                                              \
        const struct acct_coll_fns *rt = acct_loader_routed();                     \
        int s = fortran_state(rt != NULL);                                         \
        if (rt != NULL && (s & F_CONVERT) && rt->Name != NULL) {                   \
            int rc = run_##Name(rt, ACCT_UNPAREN fargs);                           \
            if (rc != F_NATIVE) {                                                  \
                if (ierr != NULL)                                                  \
                    *ierr = rc;                                                    \
                return;                                                            \
            }                                                                      \
        }                                                                          \
        if (fnative.Name[m] != NULL)                                               \
            fnative.Name[m] fargs;                                                 \
        else if (ierr != NULL)                                                     \
            *ierr = MPI_ERR_INTERN;                                                \
    }
ACCT_FORTRAN_COLLECTIVES(ACCT_X_DRIVER)
ACCT_FORTRAN_NONBLOCKING(ACCT_X_DRIVER)
#undef ACCT_X_DRIVER

/* MPI_INIT[_THREAD]: the loader's steps around the native Fortran init,
 * as MPI_Init's around PMPI_Init. Without the C natives (no MPI library
 * found) the native init still runs, ACCT stays out. ierr may be absent
 * (NULL) in the mpi_f08 style; the outcome is needed all the same. */
static void f_Init_thread(int m, MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    MPI_Fint local = MPI_SUCCESS;
    int with_acct;

    fortran_state(0);
    if (ierr == NULL)
        ierr = &local;
    if (fnative.Init_thread[m] == NULL) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    with_acct = acct_loader_resolve() == 0;
    if (with_acct)
        acct_loader_prepare();
    fnative.Init_thread[m](required, provided, ierr);
    if (with_acct && *ierr == MPI_SUCCESS)
        acct_loader_activate(provided != NULL ? *provided : -1);
}

static void f_Init(int m, MPI_Fint *ierr)
{
    MPI_Fint local = MPI_SUCCESS;
    int with_acct;

    fortran_state(0);
    if (ierr == NULL)
        ierr = &local;
    if (fnative.Init[m] == NULL) {
        *ierr = MPI_ERR_INTERN;
        return;
    }
    with_acct = acct_loader_resolve() == 0;
    if (with_acct)
        acct_loader_prepare();
    fnative.Init[m](ierr);
    if (with_acct && *ierr == MPI_SUCCESS)
        acct_loader_activate(-1);
}

static void f_Finalize(int m, MPI_Fint *ierr)
{
    fortran_state(0);
    if (fnative.Finalize[m] == NULL) {
        if (ierr != NULL)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    acct_loader_deactivate();
    fnative.Finalize[m](ierr);
}

/* The exported names: each calls its row's function with its mangling. */
#define ACCT_X_EXPORT_ONE(id, str, sym, Name, fparams, fargs) \
    ACCT_EXPORT void sym fparams;                              \
    ACCT_EXPORT void sym fparams { f_##Name(id, ACCT_UNPAREN fargs); }
#define ACCT_X_EXPORT(Name, UPPER, lower, fparams, fargs) \
    ACCT_FORTRAN_MANGLINGS(ACCT_X_EXPORT_ONE, Name, UPPER, lower, Name, fparams, fargs)
ACCT_FORTRAN_COLLECTIVES(ACCT_X_EXPORT)
ACCT_FORTRAN_NONBLOCKING(ACCT_X_EXPORT)
ACCT_FORTRAN_INIT(ACCT_X_EXPORT)
#undef ACCT_X_EXPORT
#undef ACCT_X_EXPORT_ONE
