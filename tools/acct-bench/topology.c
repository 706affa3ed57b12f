/* Where the ranks sit: nodes, ranks per node and the layout, from the
 * processor names of all ranks in rank order (pure; kit.h). */
#include "kit.h"

#include <stdlib.h>
#include <string.h>

const char *kit_layout_name(enum kit_layout l)
{
    static const char *const names[] = {
        [KIT_LAYOUT_BLOCK] = "block", [KIT_LAYOUT_CYCLIC] = "cyclic", [KIT_LAYOUT_MIXED] = "mixed",
    };
    return (unsigned)l <= KIT_LAYOUT_MIXED ? names[l] : "?";
}

void kit_topology_free(struct kit_topology *t)
{
    if (t != NULL) {
        free(t->host_of);
        free(t->first_rank);
        t->host_of = t->first_rank = NULL;
    }
}

int kit_topology(const char *names, size_t stride, int nranks, struct kit_topology *out)
{
    int rc = -1;
    int *count = calloc((size_t)nranks, sizeof(*count)); /* per host */
    int block = 1, cyclic = 1;

    memset(out, 0, sizeof(*out));
    out->nranks = nranks;
    out->host_of = malloc((size_t)nranks * sizeof(*out->host_of));
    out->first_rank = malloc((size_t)nranks * sizeof(*out->first_rank));
    if (nranks < 1 || count == NULL || out->host_of == NULL || out->first_rank == NULL)
        goto out;
    for (int r = 0; r < nranks; r++) {
        int h = 0;
        while (h < out->nodes && strncmp(names + (size_t)out->first_rank[h] * stride,
                                         names + (size_t)r * stride, stride) != 0)
            h++;
        if (h == out->nodes)
            out->first_rank[out->nodes++] = r;
        out->host_of[r] = h;
        count[h]++;
    }
    out->rpn_min = out->rpn_max = count[0];
    for (int h = 1; h < out->nodes; h++) {
        out->rpn_min = count[h] < out->rpn_min ? count[h] : out->rpn_min;
        out->rpn_max = count[h] > out->rpn_max ? count[h] : out->rpn_max;
    }
    /* Hosts are numbered by first appearance, so "block" (each host's ranks
     * consecutive) means non-decreasing numbers, and "cyclic" (round robin)
     * means host_of[r] == r mod nodes. */
    for (int r = 1; r < nranks; r++) {
        block = block && out->host_of[r] >= out->host_of[r - 1];
        cyclic = cyclic && out->host_of[r] == r % out->nodes;
    }
    out->layout = block ? KIT_LAYOUT_BLOCK : cyclic ? KIT_LAYOUT_CYCLIC : KIT_LAYOUT_MIXED;
    rc = 0;
out:
    free(count);
    if (rc != 0)
        kit_topology_free(out);
    return rc;
}
