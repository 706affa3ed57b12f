/* The acctd wire protocol (docs/protocol.md): framing, fields, a
 * bounds-checked decoder, an encoder and a small blocking client. No MPI, no
 * allocation in the decoder: acctd, acctctl and libacct's runtime link it.
 *
 * A message is a 16-byte header followed by a body of fields:
 *
 *   offset 0  4 bytes  magic "ACCT"
 *          4  1 byte   protocol version (ACCT_PROTO_VERSION)
 *          5  1 byte   message type (enum acct_msg_type)
 *          6  2 bytes  flags (0; receivers ignore unknown bits)
 *          8  4 bytes  body length in bytes (big-endian)
 *         12  4 bytes  request id (big-endian; a reply carries its request's)
 *
 *   field:   2 bytes tag (big-endian), 4 bytes value length (big-endian),
 *            value. The tag fixes the kind of the value: U64 (8 bytes,
 *            big-endian), F64 (8 bytes, IEEE 754 binary64 bits, big-endian,
 *            finite), STR (0..len bytes, no NUL, not NUL-terminated) or GROUP
 *            (a nested sequence of fields, one level deep at most).
 *
 * Unknown tags are skipped by receivers (so fields can be added without a
 * new version); known tags with a value of the wrong size, a NUL in a string,
 * a non-finite F64 or a group inside a group make the whole message invalid.
 */
#ifndef ACCT_PROTO_H
#define ACCT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACCT_PROTO_MAGIC "ACCT"
#define ACCT_PROTO_VERSION 1
#define ACCT_PROTO_HEADER 16
#define ACCT_PROTO_FIELD_HEADER 6
/* Largest body a daemon accepts from root or the admin group (IMPORT of a
 * tuning result of up to 64 MiB) and from everybody else. */
#define ACCT_PROTO_MAX_BODY ((uint32_t)(64u * 1024 * 1024 + 64 * 1024))
#define ACCT_PROTO_MAX_USER_BODY ((uint32_t)(1024u * 1024))
#define ACCT_PROTO_MAX_DEPTH 2      /* top level + one level of groups */
#define ACCT_PROTO_MAX_FIELDS 1000000 /* fields in one message, groups included */
#define ACCT_PROTO_MAX_SAMPLES 4096   /* SAMPLE groups in one SAMPLES request */

/* Message types. A successful reply has the request's type | ACCT_MSG_REPLY;
 * a failure is ACCT_MSG_ERROR (ERR_CODE, ERR_MSG, DIAG...). */
enum acct_msg_type {
    ACCT_MSG_HELLO = 1,         /* PROTO_MIN, PROTO_MAX, SOFTWARE */
    ACCT_MSG_STATUS = 2,        /* [CHECK] */
    ACCT_MSG_LIST = 3,          /* -> PAIR groups */
    ACCT_MSG_GET_RULES = 4,     /* PARTITION, INTERCONNECT */
    ACCT_MSG_SHOW = 5,          /* VERSION | PARTITION, INTERCONNECT */
    ACCT_MSG_DIFF = 6,          /* VERSION, VERSION2 */
    ACCT_MSG_IMPORT = 7,        /* admin: RESULT_TEXT | RULES_TEXT, [ACTIVATE] */
    ACCT_MSG_ACTIVATE = 8,      /* admin: VERSION */
    ACCT_MSG_ROLLBACK = 9,      /* admin: PARTITION, INTERCONNECT */
    ACCT_MSG_SAMPLES = 10,      /* JOB, PARTITION, INTERCONNECT, SAMPLE groups */
    ACCT_MSG_LIST_SAMPLES = 11, /* [PARTITION], [INTERCONNECT], [COLLECTIVE] */
    ACCT_MSG_LIST_VERSIONS = 12,/* PARTITION, INTERCONNECT */
    ACCT_MSG_RELOAD = 13,       /* admin: re-read config and policies */
    ACCT_MSG_SET_POLICY = 14,   /* admin: PARTITION, POLICY_TEXT */
    ACCT_MSG_REFINE = 15,       /* admin: run the refinement pass now */
    ACCT_MSG_AUTH = 16,         /* TCP only: MUNGE_CRED (first message) */
    ACCT_MSG_SYNC = 17,         /* VERSION (since) -> versions + active map */
    ACCT_MSG_STEP = 18,         /* admin: JOB, UID, PARTITION, INTERCONNECT, [STEP_END] */
    ACCT_MSG_GET_MODEL = 19,    /* VERSION | PARTITION, INTERCONNECT -> the run's model */
    ACCT_MSG_GET_RESULT = 20,   /* VERSION | PARTITION, INTERCONNECT -> the run's result */
    ACCT_MSG_TYPE_MAX = 20,
    ACCT_MSG_REPLY = 0x80,
    ACCT_MSG_ERROR = 0xff,
};

/* Error codes (ERR_CODE of an ACCT_MSG_ERROR). */
enum acct_err {
    ACCT_ERR_BAD_MESSAGE = 1,   /* framing or field encoding invalid */
    ACCT_ERR_VERSION = 2,       /* unsupported protocol version */
    ACCT_ERR_UNKNOWN_TYPE = 3,  /* message type not known */
    ACCT_ERR_INVALID = 4,       /* a field is missing or has a bad value */
    ACCT_ERR_PERMISSION = 5,    /* needs root or the admin group */
    ACCT_ERR_NOT_FOUND = 6,     /* no such version / pair */
    ACCT_ERR_CONFLICT = 7,      /* e.g. nothing to roll back to */
    ACCT_ERR_TOO_LARGE = 8,     /* body over the peer's limit */
    ACCT_ERR_LIMIT = 9,         /* a per-job / per-user quota is exhausted */
    ACCT_ERR_INTERNAL = 10,     /* store or I/O failure in the daemon */
    ACCT_ERR_CONTENT = 11,      /* an imported file is invalid: DIAG lines */
    ACCT_ERR_MAX = 11,
};

enum acct_field_kind {
    ACCT_KIND_UNKNOWN = 0,
    ACCT_KIND_U64,
    ACCT_KIND_F64,
    ACCT_KIND_STR,
    ACCT_KIND_GROUP,
};

/* Field tags. The kind of each is in the table of proto.c and
 * docs/protocol.md; numbers are never reused. */
enum acct_tag {
    ACCT_T_PROTO_MIN = 1,      /* U64 */
    ACCT_T_PROTO_MAX = 2,      /* U64 */
    ACCT_T_PROTO_VERSION = 3,  /* U64 */
    ACCT_T_SOFTWARE = 4,       /* STR */
    ACCT_T_MAX_BODY = 5,       /* U64 */
    ACCT_T_ERR_CODE = 10,      /* U64 */
    ACCT_T_ERR_MSG = 11,       /* STR */
    ACCT_T_DIAG = 12,          /* STR, repeated */
    ACCT_T_PARTITION = 20,     /* STR */
    ACCT_T_INTERCONNECT = 21,  /* STR */
    ACCT_T_VERSION = 22,       /* U64 */
    ACCT_T_VERSION2 = 23,      /* U64 */
    ACCT_T_SOURCE = 24,        /* STR */
    ACCT_T_CREATED = 25,       /* STR */
    ACCT_T_TUNING_RUN = 26,    /* STR */
    ACCT_T_ACTIVE = 27,        /* U64 0/1 */
    ACCT_T_RULES_TEXT = 28,    /* STR */
    ACCT_T_HASH = 29,          /* U64 */
    ACCT_T_PREVIOUS = 30,      /* U64 */
    ACCT_T_RESULT_TEXT = 31,   /* STR */
    ACCT_T_RUN_ID = 32,        /* STR */
    ACCT_T_NVERSIONS = 33,     /* U64 */
    ACCT_T_ACTIVATE = 34,      /* U64 0/1 */
    ACCT_T_PARENT = 35,        /* U64 */
    ACCT_T_REASON = 36,        /* STR */
    ACCT_T_ACTIVATED_AT = 37,  /* STR */
    ACCT_T_PAIR = 40,          /* GROUP */
    ACCT_T_VERSION_INFO = 41,  /* GROUP */
    ACCT_T_DIFF_LINE = 42,     /* STR, repeated */
    ACCT_T_SAMPLE = 43,        /* GROUP, repeated */
    ACCT_T_STAT = 44,          /* GROUP, repeated */
    ACCT_T_JOB = 50,           /* STR */
    ACCT_T_COLLECTIVE = 51,    /* STR */
    ACCT_T_COMM_SIZE = 52,     /* U64 */
    ACCT_T_BYTES_BUCKET = 53,  /* U64 */
    ACCT_T_ALGORITHM = 54,     /* STR */
    ACCT_T_SEGMENT = 55,       /* U64 */
    ACCT_T_FANOUT = 56,        /* U64 */
    ACCT_T_REORDER = 57,       /* U64 0/1 */
    ACCT_T_COUNT = 58,         /* U64 */
    ACCT_T_SUM_US = 59,        /* F64 */
    ACCT_T_MIN_US = 60,        /* F64 */
    ACCT_T_MAX_US = 61,        /* F64 */
    ACCT_T_SUMSQ_US = 62,      /* F64 */
    ACCT_T_ACCEPTED = 63,      /* U64 */
    ACCT_T_REJECTED = 64,      /* U64 */
    ACCT_T_JOBS = 65,          /* U64 */
    ACCT_T_USERS = 66,         /* U64 */
    ACCT_T_MEAN_US = 67,       /* F64 */
    ACCT_T_STDDEV_US = 68,     /* F64 */
    ACCT_T_UPTIME_S = 70,      /* U64 */
    ACCT_T_SCHEMA = 71,        /* U64 */
    ACCT_T_DB_PATH = 72,       /* STR */
    ACCT_T_RULES_DIR = 73,     /* STR */
    ACCT_T_NPAIRS = 74,        /* U64 */
    ACCT_T_NSAMPLES = 75,      /* U64 */
    ACCT_T_INTEGRITY = 76,     /* STR */
    ACCT_T_CHECK = 77,         /* U64 0/1 */
    ACCT_T_CLIENTS = 78,       /* U64 */
    ACCT_T_POLICY = 79,        /* STR */
    ACCT_T_POLICY_TEXT = 80,   /* STR */
    ACCT_T_NREFINED = 81,      /* U64 */
    ACCT_T_METHOD = 82,        /* STR: "alg[:segment[:fanout]][,reorder]" */
    ACCT_T_NODE = 83,          /* STR */
    ACCT_T_MUNGE_CRED = 84,    /* STR */
    ACCT_T_MORE = 85,          /* U64 0/1 */
    ACCT_T_NAME = 86,          /* STR: display name of an imported file */
    ACCT_T_UID = 87,           /* U64: SAMPLES forwarded on behalf of this uid */
    ACCT_T_STEP_END = 90,      /* U64 0/1: STEP: the step ended (unregister) */
    ACCT_T_CHECKED = 91,       /* U64 0/1: forwarded SAMPLES: the follower checked the job */
    ACCT_T_WARNING = 110,      /* STR, repeated: done, but something needs attention */
    ACCT_T_RULES_PENDING = 111,/* U64: active pairs whose rules file is not written */
    /* primary/follower authentication (sync protocol 2, docs/protocol.md "TCP") */
    ACCT_T_NONCE = 120,        /* STR: 64 hex digits, fresh per connection */
    ACCT_T_SYNC_PROTO = 121,   /* U64: the sync protocol the peer speaks (2) */
    ACCT_T_NEWEST = 122,       /* U64: the primary's newest version id (SYNC reply) */
    ACCT_T_SYNC_STATE = 123,   /* STR: a follower's view of its primary (STATUS) */
    /* the LogGP model of a version's tuning run (GET_MODEL) */
    ACCT_T_MODEL_L_US = 130,   /* F64: L, microseconds */
    ACCT_T_MODEL_O_US = 131,   /* F64: o, microseconds */
    ACCT_T_MODEL_G_US = 132,   /* F64: g, microseconds */
    ACCT_T_MODEL_GB_US = 133,  /* F64: G, microseconds per byte */
    /* issue 21: the run's intra- and inter-node levels and NIC factor, when measured */
    ACCT_T_MODEL_INTRA_L_US = 134,  /* F64 */
    ACCT_T_MODEL_INTRA_O_US = 135,  /* F64 */
    ACCT_T_MODEL_INTRA_G_US = 136,  /* F64 */
    ACCT_T_MODEL_INTRA_GB_US = 137, /* F64 */
    ACCT_T_MODEL_INTER_L_US = 138,  /* F64 */
    ACCT_T_MODEL_INTER_O_US = 139,  /* F64 */
    ACCT_T_MODEL_INTER_G_US = 140,  /* F64 */
    ACCT_T_MODEL_INTER_GB_US = 141, /* F64 */
    ACCT_T_MODEL_NIC_PAIRS = 142,   /* U64: 0 = not measured */
    ACCT_T_MODEL_NIC_FACTOR = 143,  /* F64: per-pair gap multiplier of NIC_PAIRS pairs */
    ACCT_T_RANKS_PER_NODE = 144,    /* U64: GET_MODEL/GET_RESULT: the layout asked about */
    ACCT_T_MODEL_NIC_BIDIR_PAIRS = 145,  /* U64: two-way NIC factor's pairs; 0 = not measured */
    ACCT_T_MODEL_NIC_BIDIR_FACTOR = 146, /* F64: its per-pair gap multiplier (both ways) */
    ACCT_T_MODEL_PAIR_DUPLEX = 147, /* F64: one inter-node pair both ways / one way (>= 1) */
    ACCT_T_MODEL_PAIR_OVERLAP = 148, /* U64: its overlap in bytes (0: the whole message) */
};

/* Kind of a tag; ACCT_KIND_UNKNOWN for tags this build does not know. */
enum acct_field_kind acct_tag_kind(unsigned tag);
/* Name of a tag ("PARTITION"), a type ("GET_RULES"), an error ("NOT_FOUND");
 * "?" when unknown. */
const char *acct_tag_name(unsigned tag);
const char *acct_msg_type_name(unsigned type);
const char *acct_err_name(unsigned code);

/* ---- decoding ----------------------------------------------------------- */

struct acct_hdr {
    uint8_t version, type;
    uint16_t flags;
    uint32_t len, id;
};

/* Look at the first have bytes of a stream. Returns the total size of the
 * first message (header + body) once the header is there and valid, 0 if
 * fewer than ACCT_PROTO_HEADER bytes are there yet, or -ACCT_ERR_BAD_MESSAGE
 * (bad magic), -ACCT_ERR_VERSION (other version; h is still filled) or
 * -ACCT_ERR_TOO_LARGE (body over max_body). */
long acct_proto_frame(const uint8_t *buf, size_t have, uint32_t max_body,
                      struct acct_hdr *h);

/* A decoded message: views into the caller's buffer (nothing allocated). */
struct acct_msg {
    struct acct_hdr h;
    const uint8_t *body;
    size_t len;
};

/* One field: value bytes at val (len of them). */
struct acct_field {
    unsigned tag;
    enum acct_field_kind kind;
    const uint8_t *val;
    uint32_t len;
};

/* Decode and check one whole message of exactly len bytes (header and
 * body): framing, every field's bounds, sizes, kinds, string contents and
 * nesting. Returns 0, or a negative -ACCT_ERR_* code with a reason in
 * why[why_len] (may be NULL). After success the accessors below cannot
 * fail on bounds. */
int acct_proto_decode(const uint8_t *buf, size_t len, uint32_t max_body,
                      struct acct_msg *m, char *why, size_t why_len);

/* Iterate fields of a body or of a group value. */
struct acct_iter {
    const uint8_t *p, *end;
};
void acct_iter_init(struct acct_iter *it, const uint8_t *body, size_t len);
void acct_iter_group(struct acct_iter *it, const struct acct_field *group);
/* Next field: true and *f, or false at the end (or on a malformed field in
 * input that was not decoded by acct_proto_decode). */
/* A name as docs/rules.md defines partition and interconnect names and
 * docs/protocol.md the JOB identity: 1..max characters of [A-Za-z0-9._+-],
 * and not "." or ".." (names become path components: rules/P/I.yaml). The
 * one check of the runtime, acctd, acctctl and spank_acct. */
bool acct_proto_name_ok(const char *s, size_t max);

bool acct_iter_next(struct acct_iter *it, struct acct_field *f);

uint64_t acct_field_u64(const struct acct_field *f);
double acct_field_f64(const struct acct_field *f);

/* First field with tag in a body/group. true if found. */
bool acct_find(const uint8_t *body, size_t len, unsigned tag, struct acct_field *f);
bool acct_msg_find(const struct acct_msg *m, unsigned tag, struct acct_field *f);
/* Typed getters on a message (top level) or a group. Each returns 0 if
 * found, 1 if absent, -1 if the value does not fit (string longer than
 * cap - 1). Strings are copied NUL-terminated. */
int acct_get_u64(const uint8_t *body, size_t len, unsigned tag, uint64_t *v);
int acct_get_f64(const uint8_t *body, size_t len, unsigned tag, double *v);
int acct_get_str(const uint8_t *body, size_t len, unsigned tag, char *buf, size_t cap);
/* Number of fields with tag. */
size_t acct_count(const uint8_t *body, size_t len, unsigned tag);

/* ---- encoding ----------------------------------------------------------- */

/* A growing message. Errors are sticky: after an allocation failure or a
 * body over max_body every put is ignored and acct_wbuf_finish fails. */
struct acct_wbuf {
    uint8_t *p;
    size_t len, cap;
    uint32_t max_body;
    size_t group_at; /* offset of the open group's field header, 0 = none */
    int err;         /* 0 or -ACCT_ERR_TOO_LARGE / -ACCT_ERR_INTERNAL (ENOMEM) */
};

/* Start a message (frees nothing: reuse needs acct_wbuf_free or _reset). */
void acct_wbuf_init(struct acct_wbuf *w, uint32_t max_body);
void acct_wbuf_start(struct acct_wbuf *w, unsigned type, uint32_t id);
void acct_put_u64(struct acct_wbuf *w, unsigned tag, uint64_t v);
void acct_put_f64(struct acct_wbuf *w, unsigned tag, double v);
void acct_put_str(struct acct_wbuf *w, unsigned tag, const char *s);
void acct_put_strn(struct acct_wbuf *w, unsigned tag, const char *s, size_t n);
void acct_group_begin(struct acct_wbuf *w, unsigned tag);
void acct_group_end(struct acct_wbuf *w);
/* Fill in the body length. Returns 0 (message in w->p, w->len bytes) or the
 * sticky error. */
int acct_wbuf_finish(struct acct_wbuf *w);
void acct_wbuf_free(struct acct_wbuf *w);

/* An error reply in one call (message cut to fit). */
void acct_put_error(struct acct_wbuf *w, uint32_t id, enum acct_err code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Message bytes m -> bucket: 0 for m = 0, else 1 + floor(log2 m) (1..64);
 * bucket k >= 1 holds sizes [2^(k-1), 2^k - 1]. */
unsigned acct_bytes_bucket(uint64_t m);

/* ---- blocking client ---------------------------------------------------- */

/* Connect to a Unix stream socket (path < 108 bytes), close-on-exec,
 * non-blocking internally; every wait bounded by timeout_ms. Returns the fd
 * or -1 with errno set. */
int acct_client_connect(const char *path, int timeout_ms);

/* Send the finished message w, then read one reply into *reply (a buffer of
 * *reply_len bytes, malloc'ed, owned by the caller) and decode it into *m.
 * Returns 0, or -1 with errno: ETIMEDOUT (no reply in time), ECONNRESET
 * (the daemon closed the connection), EBADMSG (the reply is not a valid
 * message: bad magic, bad field encoding), EPROTO (another protocol
 * version), EMSGSIZE (reply body over ACCT_PROTO_MAX_BODY), ENOMEM, or the
 * error of send/recv/poll. */
int acct_client_call(int fd, const struct acct_wbuf *w, int timeout_ms, uint8_t **reply,
                     size_t *reply_len, struct acct_msg *m);

/* Fire and forget, for senders that must never block (libacct inside a
 * job): connect without waiting, send the finished message w in one
 * non-blocking send, close. No reply is read, so nothing says whether the
 * daemon stored it. Returns 0 if every byte was handed to the socket, else
 * -1 with errno (ENOENT/ECONNREFUSED: no daemon; EAGAIN: its queue is full;
 * EMSGSIZE: w did not fit in one send). */
int acct_client_post(const char *path, const struct acct_wbuf *w);

#endif
