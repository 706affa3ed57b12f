/* Locality: which ranks share a node (locality.h).
 *
 * Open MPI knows it from PMIx (every process's locality string, exchanged
 * in MPI_Init's modex); MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) returns
 * it without further messages between nodes. Its result differs from rank
 * to rank (each gets its own node's communicator), so a label every rank
 * can compare is derived from it (the node's lowest rank in priv) and
 * gathered: one allgather of an int per rank, once per communicator, at
 * the first call that needs it (or at its creation under
 * MPI_THREAD_MULTIPLE, comm.h). */
#include "locality.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"

/* ACCT_LAYOUT: world ranks per node, repeated (acct_layout_pattern_label).
 * -1: not set (or invalid). */
static int pretend_label = -1;

void rt_locality_init(int world_rank)
{
    const char *v = getenv("ACCT_LAYOUT");
    pretend_label = -1;
    if (v == NULL || *v == '\0')
        return;
    pretend_label = acct_layout_pattern_label(v, world_rank);
    if (pretend_label < 0)
        acct_warn("ACCT_LAYOUT=\"%s\": not a list of ranks per node (e.g. 4 or 3,1); "
                  "the real placement is used", v);
}

/* This rank's label: its node's lowest rank in priv (or the pretended
 * node), -1 if split_type failed. Collective (split_type) on every rank. */
static int node_label(MPI_Comm priv)
{
    MPI_Comm local = MPI_COMM_NULL;
    MPI_Group lg = MPI_GROUP_NULL, pg = MPI_GROUP_NULL;
    int zero = 0, label = -1, rank;
    PMPI_Comm_rank(priv, &rank);
    if (PMPI_Comm_split_type(priv, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local) == MPI_SUCCESS &&
        PMPI_Comm_group(local, &lg) == MPI_SUCCESS && PMPI_Comm_group(priv, &pg) == MPI_SUCCESS &&
        PMPI_Group_translate_ranks(lg, 1, &zero, pg, &label) != MPI_SUCCESS)
        label = -1;
    if (lg != MPI_GROUP_NULL)
        PMPI_Group_free(&lg);
    if (pg != MPI_GROUP_NULL)
        PMPI_Group_free(&pg);
    if (local != MPI_COMM_NULL)
        PMPI_Comm_free(&local);
    if (label == MPI_UNDEFINED)
        label = -1;
    return label >= 0 && pretend_label >= 0 ? pretend_label : label;
}

/* Any rank's flag set, on every rank (1 also when the reduction fails: the
 * MPI library reports its error at the next call). */
static int any_rank(int flag, MPI_Comm priv)
{
    int any = 1;
    if (PMPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, priv) != MPI_SUCCESS)
        any = 1;
    return any;
}

int rt_locality(MPI_Comm priv, int rank, int size, struct acct_layout *out)
{
    int label = node_label(priv);
    int *labels = malloc((size_t)size * sizeof *labels);
    int failed = any_rank(label < 0 || labels == NULL, priv);
    memset(out, 0, sizeof *out);
    if (!failed && PMPI_Allgather(&label, 1, MPI_INT, labels, 1, MPI_INT, priv) != MPI_SUCCESS)
        failed = 1; /* on every rank: the collective failed */
    if (!failed) /* out of memory on one rank: every rank goes without */
        failed = any_rank(acct_layout_build(out, size, labels) != 0, priv);
    free(labels);
    if (failed) {
        acct_layout_free(out);
        acct_debug("locality: unknown for a communicator of %d ranks (rank %d)", size, rank);
        return -1;
    }
    char buf[96];
    acct_debug("locality: %d ranks on %s", size, acct_layout_describe(out, buf, sizeof buf));
    return 0;
}
