/* Test helper for acct-bench: a "broken algorithm" preloaded into the
 * benchmark. Its MPI_Bcast returns at once without moving any data, as a
 * wrong algorithm might — impossibly fast. acct-bench must refuse to report a
 * time for it (its result check fails) instead of printing a fast row. */
#include <mpi.h>

#include "acct/common.h"

ACCT_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    (void)buf;
    (void)count;
    (void)datatype;
    (void)root;
    (void)comm;
    return MPI_SUCCESS;
}
