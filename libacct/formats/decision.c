/* Decisions (acct/decision.h): their checks against the registry, shared by
 * rules files and ACCT_FORCE, their text form, and what they become on a
 * communicator whose size an algorithm cannot take. */
#include "acct/decision.h"

#include <inttypes.h>
#include <stdio.h>

#include "acct/stats.h"
#include "yamltree.h"

/* Append the registry names of coll's algorithms, comma-separated. */
static void alg_names(enum acct_coll_id coll, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const struct acct_alg *a = acct_algs; a->name != NULL && o < len; a++) {
        if (a->coll != coll)
            continue;
        int k = snprintf(buf + o, len - o, "%s%s", o > 0 ? ", " : "", a->name);
        if (k < 0)
            break;
        o += (size_t)k;
    }
}

const char *acct_unknown_alg_msg(enum acct_coll_id coll, const char *name, size_t name_len,
                                 char *buf, size_t len)
{
    char q[YT_QUOTE_MAX * 4 + 16];
    char names[400];
    alg_names(coll, names, sizeof(names));
    snprintf(buf, len, "unknown %s algorithm %s (valid: %s)", acct_coll_name(coll),
             acct_yt_quote(q, sizeof(q), name, name_len), names);
    return buf;
}

const char *acct_check_segment(const struct acct_alg *alg, uint64_t segment, char *buf,
                               size_t len)
{
    if (!(alg->flags & ACCT_ALG_SEGMENTED)) {
        snprintf(buf, len, "%s %s does not take a segment size (not a segmented algorithm)",
                 acct_coll_name(alg->coll), alg->name);
        return buf;
    }
    if (segment > ACCT_RULES_MAX_SEGMENT) {
        snprintf(buf, len, "segment of %" PRIu64 " bytes is larger than the limit of 1G",
                 segment);
        return buf;
    }
    return NULL;
}

const char *acct_check_fanout(const struct acct_alg *alg, long long fanout, char *buf,
                              size_t len)
{
    if (!(alg->flags & ACCT_ALG_FANOUT)) {
        snprintf(buf, len, "%s %s does not take a fan-out", acct_coll_name(alg->coll),
                 alg->name);
        return buf;
    }
    if (fanout < alg->fanout_min || fanout > alg->fanout_max) {
        snprintf(buf, len, "fan-out %lld is out of range for %s %s (%d to %d)", fanout,
                 acct_coll_name(alg->coll), alg->name, alg->fanout_min, alg->fanout_max);
        return buf;
    }
    return NULL;
}

const char *acct_check_reorder(const struct acct_alg *alg, bool reorder, char *buf,
                               size_t len)
{
    if (reorder && (alg->flags & ACCT_ALG_NATIVE)) {
        snprintf(buf, len, "reorder needs an ACCT algorithm: %s native cannot be reordered",
                 acct_coll_name(alg->coll));
        return buf;
    }
    if (reorder && !acct_alg_reorderable(alg, NULL, NULL)) {
        acct_alg_reorder_msg(alg, buf, len); /* the registry says which can */
        return buf;
    }
    return NULL;
}

bool acct_decision_equal(const struct acct_decision *a, const struct acct_decision *b)
{
    return a->alg == b->alg && a->segment_bytes == b->segment_bytes &&
           a->fanout == b->fanout && a->reorder == b->reorder;
}

int acct_decision_format(const struct acct_decision *d, char *buf, size_t len)
{
    char seg[ACCT_SIZE_FORMAT_LEN] = "", fan[16] = "";
    const char *name = d->alg != NULL ? d->alg->name : "native";
    if (d->segment_bytes != 0)
        acct_size_format(d->segment_bytes, seg, sizeof(seg));
    if (d->fanout != 0)
        snprintf(fan, sizeof(fan), "%d", d->fanout);
    /* ACCT_FORCE syntax: empty fields are "not given" ("knomial::4") */
    if (d->reorder)
        return snprintf(buf, len, "%s:%s:%s:reorder", name, seg, fan);
    if (d->fanout != 0)
        return snprintf(buf, len, "%s:%s:%s", name, seg, fan);
    if (d->segment_bytes != 0)
        return snprintf(buf, len, "%s:%s", name, seg);
    return snprintf(buf, len, "%s", name);
}

struct acct_decision acct_decision_for_size(const struct acct_decision *d,
                                            enum acct_coll_id coll, int comm_size)
{
    struct acct_decision out = *d;
    struct acct_call call = {
        .coll = coll, .rank = 0, .size = comm_size, .root = 0, .count = UINT64_MAX,
        .scount = UINT64_MAX, .fanout = d->fanout, .commutative = true,
        .layout = &acct_layout_any,
    };
    /* Only the communicator size's restrictions are known here; the
     * runtime checks the call's own (commutativity, count, layout) per call. One
     * that does not hold takes the algorithm's fallback chain, as the
     * runtime does (acct_alg_resolve). */
    if (d->alg == NULL || (d->alg->flags & ACCT_ALG_NATIVE))
        out = (struct acct_decision){.alg = acct_alg_native(coll)};
    else if (!acct_alg_applicable(d->alg, &call, NULL)) {
        const struct acct_alg *a = acct_alg_resolve(d->alg, &call);
        if (a->flags & ACCT_ALG_NATIVE) {
            out = (struct acct_decision){.alg = a};
        } else {
            out.alg = a;
            if (!(a->flags & ACCT_ALG_SEGMENTED))
                out.segment_bytes = 0;
            if (!(a->flags & ACCT_ALG_FANOUT))
                out.fanout = 0;
        }
    }
    return out;
}
