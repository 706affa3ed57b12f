/* The acctd wire protocol: framing, decoder, encoder, blocking client
 * (docs/protocol.md, acct/proto.h). */
#include "acct/proto.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "acct/common.h"

/* ---- tables --------------------------------------------------------------- */

struct tag_def {
    unsigned tag;
    enum acct_field_kind kind;
    const char *name;
};

static const struct tag_def tags[] = {
    [ACCT_T_PROTO_MIN] = {ACCT_T_PROTO_MIN, ACCT_KIND_U64, "PROTO_MIN"},
    [ACCT_T_PROTO_MAX] = {ACCT_T_PROTO_MAX, ACCT_KIND_U64, "PROTO_MAX"},
    [ACCT_T_PROTO_VERSION] = {ACCT_T_PROTO_VERSION, ACCT_KIND_U64, "PROTO_VERSION"},
    [ACCT_T_SOFTWARE] = {ACCT_T_SOFTWARE, ACCT_KIND_STR, "SOFTWARE"},
    [ACCT_T_MAX_BODY] = {ACCT_T_MAX_BODY, ACCT_KIND_U64, "MAX_BODY"},
    [ACCT_T_ERR_CODE] = {ACCT_T_ERR_CODE, ACCT_KIND_U64, "ERR_CODE"},
    [ACCT_T_ERR_MSG] = {ACCT_T_ERR_MSG, ACCT_KIND_STR, "ERR_MSG"},
    [ACCT_T_DIAG] = {ACCT_T_DIAG, ACCT_KIND_STR, "DIAG"},
    [ACCT_T_PARTITION] = {ACCT_T_PARTITION, ACCT_KIND_STR, "PARTITION"},
    [ACCT_T_INTERCONNECT] = {ACCT_T_INTERCONNECT, ACCT_KIND_STR, "INTERCONNECT"},
    [ACCT_T_VERSION] = {ACCT_T_VERSION, ACCT_KIND_U64, "VERSION"},
    [ACCT_T_VERSION2] = {ACCT_T_VERSION2, ACCT_KIND_U64, "VERSION2"},
    [ACCT_T_SOURCE] = {ACCT_T_SOURCE, ACCT_KIND_STR, "SOURCE"},
    [ACCT_T_CREATED] = {ACCT_T_CREATED, ACCT_KIND_STR, "CREATED"},
    [ACCT_T_TUNING_RUN] = {ACCT_T_TUNING_RUN, ACCT_KIND_STR, "TUNING_RUN"},
    [ACCT_T_ACTIVE] = {ACCT_T_ACTIVE, ACCT_KIND_U64, "ACTIVE"},
    [ACCT_T_RULES_TEXT] = {ACCT_T_RULES_TEXT, ACCT_KIND_STR, "RULES_TEXT"},
    [ACCT_T_HASH] = {ACCT_T_HASH, ACCT_KIND_U64, "HASH"},
    [ACCT_T_PREVIOUS] = {ACCT_T_PREVIOUS, ACCT_KIND_U64, "PREVIOUS"},
    [ACCT_T_RESULT_TEXT] = {ACCT_T_RESULT_TEXT, ACCT_KIND_STR, "RESULT_TEXT"},
    [ACCT_T_RUN_ID] = {ACCT_T_RUN_ID, ACCT_KIND_STR, "RUN_ID"},
    [ACCT_T_NVERSIONS] = {ACCT_T_NVERSIONS, ACCT_KIND_U64, "NVERSIONS"},
    [ACCT_T_ACTIVATE] = {ACCT_T_ACTIVATE, ACCT_KIND_U64, "ACTIVATE"},
    [ACCT_T_PARENT] = {ACCT_T_PARENT, ACCT_KIND_U64, "PARENT"},
    [ACCT_T_REASON] = {ACCT_T_REASON, ACCT_KIND_STR, "REASON"},
    [ACCT_T_ACTIVATED_AT] = {ACCT_T_ACTIVATED_AT, ACCT_KIND_STR, "ACTIVATED_AT"},
    [ACCT_T_PAIR] = {ACCT_T_PAIR, ACCT_KIND_GROUP, "PAIR"},
    [ACCT_T_VERSION_INFO] = {ACCT_T_VERSION_INFO, ACCT_KIND_GROUP, "VERSION_INFO"},
    [ACCT_T_DIFF_LINE] = {ACCT_T_DIFF_LINE, ACCT_KIND_STR, "DIFF_LINE"},
    [ACCT_T_SAMPLE] = {ACCT_T_SAMPLE, ACCT_KIND_GROUP, "SAMPLE"},
    [ACCT_T_STAT] = {ACCT_T_STAT, ACCT_KIND_GROUP, "STAT"},
    [ACCT_T_JOB] = {ACCT_T_JOB, ACCT_KIND_STR, "JOB"},
    [ACCT_T_COLLECTIVE] = {ACCT_T_COLLECTIVE, ACCT_KIND_STR, "COLLECTIVE"},
    [ACCT_T_COMM_SIZE] = {ACCT_T_COMM_SIZE, ACCT_KIND_U64, "COMM_SIZE"},
    [ACCT_T_BYTES_BUCKET] = {ACCT_T_BYTES_BUCKET, ACCT_KIND_U64, "BYTES_BUCKET"},
    [ACCT_T_ALGORITHM] = {ACCT_T_ALGORITHM, ACCT_KIND_STR, "ALGORITHM"},
    [ACCT_T_SEGMENT] = {ACCT_T_SEGMENT, ACCT_KIND_U64, "SEGMENT"},
    [ACCT_T_FANOUT] = {ACCT_T_FANOUT, ACCT_KIND_U64, "FANOUT"},
    [ACCT_T_REORDER] = {ACCT_T_REORDER, ACCT_KIND_U64, "REORDER"},
    [ACCT_T_COUNT] = {ACCT_T_COUNT, ACCT_KIND_U64, "COUNT"},
    [ACCT_T_SUM_US] = {ACCT_T_SUM_US, ACCT_KIND_F64, "SUM_US"},
    [ACCT_T_MIN_US] = {ACCT_T_MIN_US, ACCT_KIND_F64, "MIN_US"},
    [ACCT_T_MAX_US] = {ACCT_T_MAX_US, ACCT_KIND_F64, "MAX_US"},
    [ACCT_T_SUMSQ_US] = {ACCT_T_SUMSQ_US, ACCT_KIND_F64, "SUMSQ_US"},
    [ACCT_T_ACCEPTED] = {ACCT_T_ACCEPTED, ACCT_KIND_U64, "ACCEPTED"},
    [ACCT_T_REJECTED] = {ACCT_T_REJECTED, ACCT_KIND_U64, "REJECTED"},
    [ACCT_T_JOBS] = {ACCT_T_JOBS, ACCT_KIND_U64, "JOBS"},
    [ACCT_T_USERS] = {ACCT_T_USERS, ACCT_KIND_U64, "USERS"},
    [ACCT_T_MEAN_US] = {ACCT_T_MEAN_US, ACCT_KIND_F64, "MEAN_US"},
    [ACCT_T_STDDEV_US] = {ACCT_T_STDDEV_US, ACCT_KIND_F64, "STDDEV_US"},
    [ACCT_T_UPTIME_S] = {ACCT_T_UPTIME_S, ACCT_KIND_U64, "UPTIME_S"},
    [ACCT_T_SCHEMA] = {ACCT_T_SCHEMA, ACCT_KIND_U64, "SCHEMA"},
    [ACCT_T_DB_PATH] = {ACCT_T_DB_PATH, ACCT_KIND_STR, "DB_PATH"},
    [ACCT_T_RULES_DIR] = {ACCT_T_RULES_DIR, ACCT_KIND_STR, "RULES_DIR"},
    [ACCT_T_NPAIRS] = {ACCT_T_NPAIRS, ACCT_KIND_U64, "NPAIRS"},
    [ACCT_T_NSAMPLES] = {ACCT_T_NSAMPLES, ACCT_KIND_U64, "NSAMPLES"},
    [ACCT_T_INTEGRITY] = {ACCT_T_INTEGRITY, ACCT_KIND_STR, "INTEGRITY"},
    [ACCT_T_CHECK] = {ACCT_T_CHECK, ACCT_KIND_U64, "CHECK"},
    [ACCT_T_CLIENTS] = {ACCT_T_CLIENTS, ACCT_KIND_U64, "CLIENTS"},
    [ACCT_T_POLICY] = {ACCT_T_POLICY, ACCT_KIND_STR, "POLICY"},
    [ACCT_T_POLICY_TEXT] = {ACCT_T_POLICY_TEXT, ACCT_KIND_STR, "POLICY_TEXT"},
    [ACCT_T_NREFINED] = {ACCT_T_NREFINED, ACCT_KIND_U64, "NREFINED"},
    [ACCT_T_METHOD] = {ACCT_T_METHOD, ACCT_KIND_STR, "METHOD"},
    [ACCT_T_NODE] = {ACCT_T_NODE, ACCT_KIND_STR, "NODE"},
    [ACCT_T_MUNGE_CRED] = {ACCT_T_MUNGE_CRED, ACCT_KIND_STR, "MUNGE_CRED"},
    [ACCT_T_MORE] = {ACCT_T_MORE, ACCT_KIND_U64, "MORE"},
    [ACCT_T_NAME] = {ACCT_T_NAME, ACCT_KIND_STR, "NAME"},
    [ACCT_T_UID] = {ACCT_T_UID, ACCT_KIND_U64, "UID"},
    [ACCT_T_STEP_END] = {ACCT_T_STEP_END, ACCT_KIND_U64, "STEP_END"},
    [ACCT_T_CHECKED] = {ACCT_T_CHECKED, ACCT_KIND_U64, "CHECKED"},
    [ACCT_T_WARNING] = {ACCT_T_WARNING, ACCT_KIND_STR, "WARNING"},
    [ACCT_T_RULES_PENDING] = {ACCT_T_RULES_PENDING, ACCT_KIND_U64, "RULES_PENDING"},
    [ACCT_T_NONCE] = {ACCT_T_NONCE, ACCT_KIND_STR, "NONCE"},
    [ACCT_T_SYNC_PROTO] = {ACCT_T_SYNC_PROTO, ACCT_KIND_U64, "SYNC_PROTO"},
    [ACCT_T_NEWEST] = {ACCT_T_NEWEST, ACCT_KIND_U64, "NEWEST"},
    [ACCT_T_SYNC_STATE] = {ACCT_T_SYNC_STATE, ACCT_KIND_STR, "SYNC_STATE"},
    [ACCT_T_MODEL_L_US] = {ACCT_T_MODEL_L_US, ACCT_KIND_F64, "MODEL_L_US"},
    [ACCT_T_MODEL_O_US] = {ACCT_T_MODEL_O_US, ACCT_KIND_F64, "MODEL_O_US"},
    [ACCT_T_MODEL_G_US] = {ACCT_T_MODEL_G_US, ACCT_KIND_F64, "MODEL_G_US"},
    [ACCT_T_MODEL_GB_US] = {ACCT_T_MODEL_GB_US, ACCT_KIND_F64, "MODEL_GB_US"},
    [ACCT_T_MODEL_INTRA_L_US] = {ACCT_T_MODEL_INTRA_L_US, ACCT_KIND_F64, "MODEL_INTRA_L_US"},
    [ACCT_T_MODEL_INTRA_O_US] = {ACCT_T_MODEL_INTRA_O_US, ACCT_KIND_F64, "MODEL_INTRA_O_US"},
    [ACCT_T_MODEL_INTRA_G_US] = {ACCT_T_MODEL_INTRA_G_US, ACCT_KIND_F64, "MODEL_INTRA_G_US"},
    [ACCT_T_MODEL_INTRA_GB_US] = {ACCT_T_MODEL_INTRA_GB_US, ACCT_KIND_F64, "MODEL_INTRA_GB_US"},
    [ACCT_T_MODEL_INTER_L_US] = {ACCT_T_MODEL_INTER_L_US, ACCT_KIND_F64, "MODEL_INTER_L_US"},
    [ACCT_T_MODEL_INTER_O_US] = {ACCT_T_MODEL_INTER_O_US, ACCT_KIND_F64, "MODEL_INTER_O_US"},
    [ACCT_T_MODEL_INTER_G_US] = {ACCT_T_MODEL_INTER_G_US, ACCT_KIND_F64, "MODEL_INTER_G_US"},
    [ACCT_T_MODEL_INTER_GB_US] = {ACCT_T_MODEL_INTER_GB_US, ACCT_KIND_F64, "MODEL_INTER_GB_US"},
    [ACCT_T_MODEL_NIC_PAIRS] = {ACCT_T_MODEL_NIC_PAIRS, ACCT_KIND_U64, "MODEL_NIC_PAIRS"},
    [ACCT_T_MODEL_NIC_FACTOR] = {ACCT_T_MODEL_NIC_FACTOR, ACCT_KIND_F64, "MODEL_NIC_FACTOR"},
    [ACCT_T_RANKS_PER_NODE] = {ACCT_T_RANKS_PER_NODE, ACCT_KIND_U64, "RANKS_PER_NODE"},
    [ACCT_T_MODEL_NIC_BIDIR_PAIRS] = {ACCT_T_MODEL_NIC_BIDIR_PAIRS, ACCT_KIND_U64,
                                      "MODEL_NIC_BIDIR_PAIRS"},
    [ACCT_T_MODEL_NIC_BIDIR_FACTOR] = {ACCT_T_MODEL_NIC_BIDIR_FACTOR, ACCT_KIND_F64,
                                       "MODEL_NIC_BIDIR_FACTOR"},
    [ACCT_T_MODEL_PAIR_DUPLEX] = {ACCT_T_MODEL_PAIR_DUPLEX, ACCT_KIND_F64, "MODEL_PAIR_DUPLEX"},
    [ACCT_T_MODEL_PAIR_OVERLAP] = {ACCT_T_MODEL_PAIR_OVERLAP, ACCT_KIND_U64, "MODEL_PAIR_OVERLAP"},
};

/* Indexed by tag: the decoder looks a kind up per field. */
static const struct tag_def *tag_def(unsigned tag)
{
    if (tag < ACCT_ARRAY_LEN(tags) && tags[tag].name != NULL)
        return &tags[tag];
    return NULL;
}

enum acct_field_kind acct_tag_kind(unsigned tag)
{
    const struct tag_def *d = tag_def(tag);
    return d != NULL ? d->kind : ACCT_KIND_UNKNOWN;
}

const char *acct_tag_name(unsigned tag)
{
    const struct tag_def *d = tag_def(tag);
    return d != NULL ? d->name : "?";
}

static const char *const type_names[] = {
    [ACCT_MSG_HELLO] = "HELLO",
    [ACCT_MSG_STATUS] = "STATUS",
    [ACCT_MSG_LIST] = "LIST",
    [ACCT_MSG_GET_RULES] = "GET_RULES",
    [ACCT_MSG_SHOW] = "SHOW",
    [ACCT_MSG_DIFF] = "DIFF",
    [ACCT_MSG_IMPORT] = "IMPORT",
    [ACCT_MSG_ACTIVATE] = "ACTIVATE",
    [ACCT_MSG_ROLLBACK] = "ROLLBACK",
    [ACCT_MSG_SAMPLES] = "SAMPLES",
    [ACCT_MSG_LIST_SAMPLES] = "LIST_SAMPLES",
    [ACCT_MSG_LIST_VERSIONS] = "LIST_VERSIONS",
    [ACCT_MSG_RELOAD] = "RELOAD",
    [ACCT_MSG_SET_POLICY] = "SET_POLICY",
    [ACCT_MSG_REFINE] = "REFINE",
    [ACCT_MSG_AUTH] = "AUTH",
    [ACCT_MSG_SYNC] = "SYNC",
    [ACCT_MSG_STEP] = "STEP",
    [ACCT_MSG_GET_MODEL] = "GET_MODEL",
    [ACCT_MSG_GET_RESULT] = "GET_RESULT",
};

const char *acct_msg_type_name(unsigned type)
{
    if (type == ACCT_MSG_ERROR)
        return "ERROR";
    unsigned base = type & ~(unsigned)ACCT_MSG_REPLY;
    if (base >= 1 && base <= ACCT_MSG_TYPE_MAX && type_names[base] != NULL)
        return type_names[base];
    return "?";
}

static const char *const err_names[] = {
    [ACCT_ERR_BAD_MESSAGE] = "BAD_MESSAGE", [ACCT_ERR_VERSION] = "VERSION",
    [ACCT_ERR_UNKNOWN_TYPE] = "UNKNOWN_TYPE", [ACCT_ERR_INVALID] = "INVALID",
    [ACCT_ERR_PERMISSION] = "PERMISSION", [ACCT_ERR_NOT_FOUND] = "NOT_FOUND",
    [ACCT_ERR_CONFLICT] = "CONFLICT", [ACCT_ERR_TOO_LARGE] = "TOO_LARGE",
    [ACCT_ERR_LIMIT] = "LIMIT", [ACCT_ERR_INTERNAL] = "INTERNAL",
    [ACCT_ERR_CONTENT] = "CONTENT",
};

const char *acct_err_name(unsigned code)
{
    if (code >= 1 && code <= ACCT_ERR_MAX)
        return err_names[code];
    return "?";
}

/* ---- byte order ---------------------------------------------------------------- */

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

static void wr16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void wr64(uint8_t *p, uint64_t v)
{
    wr32(p, (uint32_t)(v >> 32));
    wr32(p + 4, (uint32_t)v);
}

/* ---- decoding -------------------------------------------------------------------- */

long acct_proto_frame(const uint8_t *buf, size_t have, uint32_t max_body, struct acct_hdr *h)
{
    if (have < ACCT_PROTO_HEADER) {
        /* A wrong magic is reported as early as possible. */
        size_t n = have < 4 ? have : 4;
        return memcmp(buf, ACCT_PROTO_MAGIC, n) == 0 ? 0 : -ACCT_ERR_BAD_MESSAGE;
    }
    if (memcmp(buf, ACCT_PROTO_MAGIC, 4) != 0)
        return -ACCT_ERR_BAD_MESSAGE;
    h->version = buf[4];
    h->type = buf[5];
    h->flags = (uint16_t)(buf[6] << 8 | buf[7]);
    h->len = rd32(buf + 8);
    h->id = rd32(buf + 12);
    if (h->version != ACCT_PROTO_VERSION)
        return -ACCT_ERR_VERSION;
    if (h->len > max_body)
        return -ACCT_ERR_TOO_LARGE;
    return (long)(ACCT_PROTO_HEADER + (size_t)h->len);
}

static int why_set(char *why, size_t why_len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t why_len, int rc, const char *fmt, ...)
{
    if (why != NULL && why_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* Check the fields of [p, end) at nesting depth; *nfields counts them all. */
static int check_fields(const uint8_t *p, const uint8_t *end, int depth, size_t *nfields,
                        char *why, size_t why_len)
{
    size_t off = 0, total = (size_t)(end - p);
    while (off < total) {
        if (total - off < ACCT_PROTO_FIELD_HEADER)
            return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                           "truncated field header at body offset %zu", off);
        unsigned tag = (unsigned)(p[off] << 8 | p[off + 1]);
        uint32_t len = rd32(p + off + 2);
        const uint8_t *val = p + off + ACCT_PROTO_FIELD_HEADER;
        off += ACCT_PROTO_FIELD_HEADER;
        if (len > total - off)
            return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                           "field %s (%u) of %u bytes overruns its container",
                           acct_tag_name(tag), tag, len);
        if (++*nfields > ACCT_PROTO_MAX_FIELDS)
            return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE, "more than %d fields",
                           ACCT_PROTO_MAX_FIELDS);
        switch (acct_tag_kind(tag)) {
        case ACCT_KIND_U64:
            if (len != 8)
                return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                               "field %s: integer of %u bytes (must be 8)", acct_tag_name(tag),
                               len);
            break;
        case ACCT_KIND_F64: {
            if (len != 8)
                return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                               "field %s: number of %u bytes (must be 8)", acct_tag_name(tag),
                               len);
            uint64_t bits = rd64(val);
            double d;
            memcpy(&d, &bits, sizeof(d));
            if (!isfinite(d))
                return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                               "field %s: not a finite number", acct_tag_name(tag));
            break;
        }
        case ACCT_KIND_STR: {
            const uint8_t *nul = memchr(val, 0, len);
            if (nul != NULL) {
                /* where, for a whole document (RULES_TEXT, ...): line, column */
                size_t line = 1, col = 1;
                for (const uint8_t *q = val; q < nul; q++, col++)
                    if (*q == '\n') {
                        line++;
                        col = 0;
                    }
                return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                               "field %s: a NUL byte at line %zu, column %zu (text only)",
                               acct_tag_name(tag), line, col);
            }
            break;
        }
        case ACCT_KIND_GROUP: {
            if (depth + 1 >= ACCT_PROTO_MAX_DEPTH + 1)
                return why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                               "field %s: groups nest at most %d deep", acct_tag_name(tag),
                               ACCT_PROTO_MAX_DEPTH - 1);
            int rc = check_fields(val, val + len, depth + 1, nfields, why, why_len);
            if (rc != 0)
                return rc;
            break;
        }
        case ACCT_KIND_UNKNOWN:
            break; /* skipped: added by a newer peer */
        }
        off += len;
    }
    return 0;
}

int acct_proto_decode(const uint8_t *buf, size_t len, uint32_t max_body, struct acct_msg *m,
                      char *why, size_t why_len)
{
    int rc;
    if (why != NULL && why_len > 0)
        why[0] = '\0';
    memset(m, 0, sizeof(*m));
    long total = acct_proto_frame(buf, len, max_body, &m->h);
    if (total == 0) {
        rc = why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE, "message shorter than its header");
        goto out;
    }
    if (total < 0) {
        rc = why_set(why, why_len, (int)total, "%s",
                     total == -ACCT_ERR_VERSION    ? "unsupported protocol version"
                     : total == -ACCT_ERR_TOO_LARGE ? "message body too large"
                                                    : "bad magic (not an ACCT message)");
        goto out;
    }
    if ((size_t)total != len) {
        rc = why_set(why, why_len, -ACCT_ERR_BAD_MESSAGE,
                     "message of %zu bytes but header says %ld", len, total);
        goto out;
    }
    m->body = buf + ACCT_PROTO_HEADER;
    m->len = m->h.len;
    size_t nfields = 0;
    rc = check_fields(m->body, m->body + m->len, 1, &nfields, why, why_len);
out:
    return rc;
}

void acct_iter_init(struct acct_iter *it, const uint8_t *body, size_t len)
{
    it->p = body;
    it->end = body + len;
}

void acct_iter_group(struct acct_iter *it, const struct acct_field *group)
{
    acct_iter_init(it, group->val, group->len);
}

bool acct_iter_next(struct acct_iter *it, struct acct_field *f)
{
    size_t left = (size_t)(it->end - it->p);
    if (left < ACCT_PROTO_FIELD_HEADER)
        return false;
    uint32_t len = rd32(it->p + 2);
    if (len > left - ACCT_PROTO_FIELD_HEADER)
        return false;
    f->tag = (unsigned)(it->p[0] << 8 | it->p[1]);
    f->kind = acct_tag_kind(f->tag);
    f->val = it->p + ACCT_PROTO_FIELD_HEADER;
    f->len = len;
    it->p += ACCT_PROTO_FIELD_HEADER + len;
    return true;
}

uint64_t acct_field_u64(const struct acct_field *f)
{
    return f->len == 8 ? rd64(f->val) : 0;
}

double acct_field_f64(const struct acct_field *f)
{
    double d = 0;
    if (f->len == 8) {
        uint64_t bits = rd64(f->val);
        memcpy(&d, &bits, sizeof(d));
    }
    return d;
}

bool acct_find(const uint8_t *body, size_t len, unsigned tag, struct acct_field *f)
{
    struct acct_iter it;
    acct_iter_init(&it, body, len);
    while (acct_iter_next(&it, f))
        if (f->tag == tag)
            return true;
    return false;
}

bool acct_msg_find(const struct acct_msg *m, unsigned tag, struct acct_field *f)
{
    return acct_find(m->body, m->len, tag, f);
}

int acct_get_u64(const uint8_t *body, size_t len, unsigned tag, uint64_t *v)
{
    struct acct_field f;
    if (!acct_find(body, len, tag, &f))
        return 1;
    if (f.len != 8)
        return -1;
    *v = acct_field_u64(&f);
    return 0;
}

int acct_get_f64(const uint8_t *body, size_t len, unsigned tag, double *v)
{
    struct acct_field f;
    if (!acct_find(body, len, tag, &f))
        return 1;
    if (f.len != 8)
        return -1;
    *v = acct_field_f64(&f);
    return 0;
}

int acct_get_str(const uint8_t *body, size_t len, unsigned tag, char *buf, size_t cap)
{
    struct acct_field f;
    if (!acct_find(body, len, tag, &f))
        return 1;
    if (cap == 0 || f.len > cap - 1 || memchr(f.val, 0, f.len) != NULL)
        return -1;
    memcpy(buf, f.val, f.len);
    buf[f.len] = '\0';
    return 0;
}

size_t acct_count(const uint8_t *body, size_t len, unsigned tag)
{
    struct acct_iter it;
    struct acct_field f;
    size_t n = 0;
    acct_iter_init(&it, body, len);
    while (acct_iter_next(&it, &f))
        n += f.tag == tag;
    return n;
}

/* ---- encoding ------------------------------------------------------------------------ */

void acct_wbuf_init(struct acct_wbuf *w, uint32_t max_body)
{
    memset(w, 0, sizeof(*w));
    w->max_body = max_body;
}

/* Room for n more bytes, within the body limit. */
static uint8_t *reserve(struct acct_wbuf *w, size_t n)
{
    if (w->err != 0)
        return NULL;
    if (w->len < ACCT_PROTO_HEADER || n > (size_t)w->max_body + ACCT_PROTO_HEADER - w->len) {
        w->err = -ACCT_ERR_TOO_LARGE;
        return NULL;
    }
    if (w->len + n > w->cap) {
        size_t cap = w->cap < 256 ? 256 : w->cap;
        while (cap < w->len + n)
            cap *= 2;
        uint8_t *np = realloc(w->p, cap);
        if (np == NULL) {
            w->err = -ACCT_ERR_INTERNAL;
            return NULL;
        }
        w->p = np;
        w->cap = cap;
    }
    uint8_t *at = w->p + w->len;
    w->len += n;
    return at;
}

void acct_wbuf_start(struct acct_wbuf *w, unsigned type, uint32_t id)
{
    w->err = 0;
    w->group_at = 0;
    w->len = 0;
    if (w->cap < ACCT_PROTO_HEADER) {
        uint8_t *np = realloc(w->p, 256);
        if (np == NULL) {
            w->err = -ACCT_ERR_INTERNAL;
            return;
        }
        w->p = np;
        w->cap = 256;
    }
    memcpy(w->p, ACCT_PROTO_MAGIC, 4);
    w->p[4] = ACCT_PROTO_VERSION;
    w->p[5] = (uint8_t)type;
    wr16(w->p + 6, 0);
    wr32(w->p + 8, 0);
    wr32(w->p + 12, id);
    w->len = ACCT_PROTO_HEADER;
}

static uint8_t *put_field(struct acct_wbuf *w, unsigned tag, size_t n)
{
    if (n > UINT32_MAX) {
        if (w->err == 0)
            w->err = -ACCT_ERR_TOO_LARGE;
        return NULL;
    }
    uint8_t *p = reserve(w, ACCT_PROTO_FIELD_HEADER + n);
    if (p == NULL)
        return NULL;
    wr16(p, tag);
    wr32(p + 2, (uint32_t)n);
    return p + ACCT_PROTO_FIELD_HEADER;
}

void acct_put_u64(struct acct_wbuf *w, unsigned tag, uint64_t v)
{
    uint8_t *p = put_field(w, tag, 8);
    if (p != NULL)
        wr64(p, v);
}

void acct_put_f64(struct acct_wbuf *w, unsigned tag, double v)
{
    uint64_t bits;
    if (!isfinite(v))
        v = 0;
    memcpy(&bits, &v, sizeof(bits));
    uint8_t *p = put_field(w, tag, 8);
    if (p != NULL)
        wr64(p, bits);
}

void acct_put_strn(struct acct_wbuf *w, unsigned tag, const char *s, size_t n)
{
    const char *nul = memchr(s, 0, n);
    if (nul != NULL)
        n = (size_t)(nul - s);
    uint8_t *p = put_field(w, tag, n);
    if (p != NULL && n > 0)
        memcpy(p, s, n);
}

void acct_put_str(struct acct_wbuf *w, unsigned tag, const char *s)
{
    acct_put_strn(w, tag, s, strlen(s));
}

void acct_group_begin(struct acct_wbuf *w, unsigned tag)
{
    if (w->err == 0 && w->group_at != 0) {
        w->err = -ACCT_ERR_INTERNAL; /* groups do not nest */
        return;
    }
    size_t at = w->len;
    if (put_field(w, tag, 0) != NULL)
        w->group_at = at;
}

void acct_group_end(struct acct_wbuf *w)
{
    if (w->err != 0)
        return;
    if (w->group_at == 0) {
        w->err = -ACCT_ERR_INTERNAL;
        return;
    }
    size_t start = w->group_at + ACCT_PROTO_FIELD_HEADER;
    wr32(w->p + w->group_at + 2, (uint32_t)(w->len - start));
    w->group_at = 0;
}

int acct_wbuf_finish(struct acct_wbuf *w)
{
    if (w->err == 0 && (w->group_at != 0 || w->len < ACCT_PROTO_HEADER))
        w->err = -ACCT_ERR_INTERNAL;
    if (w->err == 0)
        wr32(w->p + 8, (uint32_t)(w->len - ACCT_PROTO_HEADER));
    return w->err;
}

void acct_wbuf_free(struct acct_wbuf *w)
{
    free(w->p);
    w->p = NULL;
    w->len = w->cap = 0;
    w->group_at = 0;
}

void acct_put_error(struct acct_wbuf *w, uint32_t id, enum acct_err code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    acct_wbuf_start(w, ACCT_MSG_ERROR, id);
    acct_put_u64(w, ACCT_T_ERR_CODE, (uint64_t)code);
    acct_put_str(w, ACCT_T_ERR_MSG, msg);
}

unsigned acct_bytes_bucket(uint64_t m)
{
    unsigned k = 0;
    while (m != 0) {
        k++;
        m >>= 1;
    }
    return k;
}

/* ---- blocking client ------------------------------------------------------------------- */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on fd until deadline. 0 ready, -1 error/timeout (errno). */
static int wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

int acct_client_connect(const char *path, int timeout_ms)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = -1;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        goto fail;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        goto fail;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN)
            goto fail;
        if (wait_fd(fd, POLLOUT, now_ms() + timeout_ms) != 0)
            goto fail;
        int err = 0;
        socklen_t el = sizeof(err);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
            goto fail;
        if (err != 0) {
            errno = err;
            goto fail;
        }
    }
    return fd;
fail:
    if (fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return -1;
}

int acct_client_call(int fd, const struct acct_wbuf *w, int timeout_ms, uint8_t **reply,
                     size_t *reply_len, struct acct_msg *m)
{
    long long deadline = now_ms() + timeout_ms;
    uint8_t *buf = NULL;
    size_t have = 0, cap = 0;
    int rc = -1;
    *reply = NULL;
    *reply_len = 0;
    for (size_t off = 0; off < w->len;) {
        ssize_t n = send(fd, w->p + off, w->len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            goto out;
        if (wait_fd(fd, POLLOUT, deadline) != 0)
            goto out;
    }
    size_t want = ACCT_PROTO_HEADER;
    for (;;) {
        if (have >= ACCT_PROTO_HEADER) {
            struct acct_hdr h;
            long t = acct_proto_frame(buf, have, ACCT_PROTO_MAX_BODY, &h);
            if (t < 0) {
                errno = t == -ACCT_ERR_VERSION ? EPROTO : t == -ACCT_ERR_TOO_LARGE ? EMSGSIZE : EBADMSG;
                goto out;
            }
            want = (size_t)t;
            if (have >= want)
                break;
        }
        if (cap < want) {
            uint8_t *nb = realloc(buf, want);
            if (nb == NULL)
                goto out;
            buf = nb;
            cap = want;
        }
        ssize_t n = recv(fd, buf + have, want - have, MSG_DONTWAIT);
        if (n > 0) {
            have += (size_t)n;
            continue;
        }
        if (n == 0) {
            errno = ECONNRESET;
            goto out;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            goto out;
        if (wait_fd(fd, POLLIN, deadline) != 0)
            goto out;
    }
    if (acct_proto_decode(buf, have, ACCT_PROTO_MAX_BODY, m, NULL, 0) != 0) {
        errno = EBADMSG;
        goto out;
    }
    *reply = buf;
    *reply_len = have;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    return rc;
}

int acct_client_post(const char *path, const struct acct_wbuf *w)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = -1, rc = -1;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        goto out;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
        goto out; /* a Unix socket connects at once or not at all (EAGAIN) */
    ssize_t n = send(fd, w->p, w->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0)
        goto out;
    if ((size_t)n != w->len) {
        errno = EMSGSIZE;
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return rc;
}

bool acct_proto_name_ok(const char *s, size_t max)
{
    size_t n = s != NULL ? strlen(s) : 0;
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '+' || c == '-'))
            return false;
    }
    return strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}
