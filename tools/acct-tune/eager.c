/* acct-tune: the MPI library's eager limits, read through the MPI tool
 * information interface (MPI_T control variables), for the race's eager
 * probe (race.c; docs/acct-tune.md "The eager probe").
 *
 * Below its eager limit a point-to-point message is sent at once and
 * buffered at the receiver; above it the sender waits for the receiver
 * (rendezvous). A segmented method whose segments fall below the limit of
 * a transport lets the ranks that only send on it go on early: the mean
 * time over the ranks (the rooted collectives' metric) drops there, while
 * the slowest rank's time, which the search descends on, does not show it
 * (issue 23: reduce 256 KiB on eth, hier_chain fan-out 1 at 2 KiB, below
 * the shared-memory limit of 4 KiB: 7.9 ms on the mean against 15.0 ms at
 * 4 KiB, and 20.6 against 21.0 ms on the slowest rank). */
#include "oracle.h"

#include <stdio.h>
#include <string.h>

/* The control variables read: Open MPI's ob1 transports between ranks
 * (self, a rank to itself, is not one). A library without them gives no
 * limit; --eager-limits SIZE,... names them by hand. */
static bool eager_cvar(const char *name)
{
    static const char prefix[] = "btl_", suffix[] = "_eager_limit";
    static const char *const skip[] = { "self", "base" };
    size_t n = strlen(name), np = sizeof(prefix) - 1, ns = sizeof(suffix) - 1;

    if (n <= np + ns || strncmp(name, prefix, np) != 0 || strcmp(name + n - ns, suffix) != 0)
        return false;
    /* btl_COMPONENT_eager_limit: one word between (not the rendezvous
     * protocol's btl_*_rndv_eager_limit, its first fragment's size) */
    const char *comp = name + np;
    size_t nc = n - np - ns;
    if (memchr(comp, '_', nc) != NULL)
        return false;
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (nc == strlen(skip[i]) && strncmp(comp, skip[i], nc) == 0)
            return false;
    return true;
}

size_t tune_eager_read(uint64_t *lim, char (*names)[TUNE_EAGER_NAME], size_t max)
{
    int provided = 0, ncvar = 0;
    size_t k = 0;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return 0;
    if (MPI_T_cvar_get_num(&ncvar) != MPI_SUCCESS)
        ncvar = 0;
    for (int i = 0; i < ncvar && k < max; i++) {
        char name[TUNE_EAGER_NAME], desc[8];
        int nlen = (int)sizeof(name), dlen = (int)sizeof(desc), verb = 0, bind = 0, scope = 0;
        int count = 0;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum en = MPI_T_ENUM_NULL;
        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
        unsigned long long v = 0;

        if (MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) !=
                MPI_SUCCESS ||
            !eager_cvar(name) || bind != MPI_T_BIND_NO_OBJECT)
            continue;
        if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
            continue;
        if (count == 1) {
            if (dt == MPI_UNSIGNED_LONG) {
                unsigned long u = 0;
                if (MPI_T_cvar_read(h, &u) == MPI_SUCCESS)
                    v = u;
            } else if (dt == MPI_UNSIGNED_LONG_LONG) {
                (void)MPI_T_cvar_read(h, &v);
            } else if (dt == MPI_UNSIGNED || dt == MPI_INT) {
                unsigned u = 0;
                if (MPI_T_cvar_read(h, &u) == MPI_SUCCESS)
                    v = u;
            }
        }
        (void)MPI_T_cvar_handle_free(&h);
        if (v >= 2) {
            lim[k] = v;
            snprintf(names[k], TUNE_EAGER_NAME, "%s", name);
            k++;
        }
    }
    (void)MPI_T_finalize();
    return k;
}
