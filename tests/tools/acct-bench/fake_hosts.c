/* Test helper for acct-bench: preloaded, it makes MPI_Get_processor_name
 * return, for world rank r, entry r (modulo their number) of the
 * comma-separated list in ACCT_BENCH_FAKE_HOSTS, so that the header's node
 * count, ranks per node and layout can be checked on one machine. */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "acct/common.h"

#define FAKE_HOSTS_ENV "ACCT_BENCH_FAKE_HOSTS"

ACCT_EXPORT int MPI_Get_processor_name(char *name, int *resultlen)
{
    const char *list = getenv(FAKE_HOSTS_ENV);
    const char *entry = list;
    size_t len = 0;
    int rank = 0, n = 1;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (list == NULL || *list == '\0') {
        list = entry = "nohosts";
    }
    for (const char *p = list; *p != '\0'; p++)
        n += *p == ',';
    for (int i = 0; i < rank % n; i++)
        entry = strchr(entry, ',') + 1;
    len = strcspn(entry, ",");
    if (len > MPI_MAX_PROCESSOR_NAME - 1)
        len = MPI_MAX_PROCESSOR_NAME - 1;
    memcpy(name, entry, len);
    name[len] = '\0';
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
