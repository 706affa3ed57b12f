/* The dispatch table of acctd's requests (docs/protocol.md, "Message
 * types") and the helpers the handlers share. */
#include <stdio.h>
#include <string.h>

#include "acctd.h"

const struct acctd_request acctd_requests[] = {
    {.type = ACCT_MSG_HELLO, .admin = false, .fn = req_hello},
    {.type = ACCT_MSG_STATUS, .admin = false, .fn = req_status},
    {.type = ACCT_MSG_LIST, .admin = false, .fn = req_list},
    {.type = ACCT_MSG_GET_RULES, .admin = false, .fn = req_get_rules},
    {.type = ACCT_MSG_SHOW, .admin = false, .fn = req_show},
    {.type = ACCT_MSG_DIFF, .admin = false, .fn = req_diff},
    {.type = ACCT_MSG_IMPORT, .admin = true, .primary_only = true, .write = true,
     .fn = req_import},
    {.type = ACCT_MSG_ACTIVATE, .admin = true, .primary_only = true, .write = true,
     .fn = req_activate},
    {.type = ACCT_MSG_ROLLBACK, .admin = true, .primary_only = true, .write = true,
     .fn = req_rollback},
    {.type = ACCT_MSG_SAMPLES, .admin = false, .write = true, .fn = req_samples},
    {.type = ACCT_MSG_LIST_SAMPLES, .admin = false, .fn = req_list_samples},
    {.type = ACCT_MSG_LIST_VERSIONS, .admin = false, .fn = req_list_versions},
    {.type = ACCT_MSG_RELOAD, .admin = true, .fn = req_reload},
    {.type = ACCT_MSG_SET_POLICY, .admin = true, .primary_only = true, .write = true,
     .fn = req_set_policy},
    {.type = ACCT_MSG_REFINE, .admin = true, .primary_only = true, .write = true,
     .fn = req_refine},
    {.type = ACCT_MSG_AUTH, .admin = false, .fn = req_auth},
    {.type = ACCT_MSG_SYNC, .admin = false, .fn = req_sync},
    {.type = ACCT_MSG_STEP, .admin = true, .fn = req_step},
    {.type = ACCT_MSG_GET_MODEL, .admin = false, .fn = req_get_model},
    {.type = ACCT_MSG_GET_RESULT, .admin = false, .fn = req_get_result},
    {.fn = NULL},
};

int req_name(const struct acct_msg *m, unsigned tag, bool required, char *buf, size_t cap,
             uint32_t id, struct acct_wbuf *out)
{
    int r = acct_get_str(m->body, m->len, tag, buf, cap);
    if (r == 1 && !required) {
        buf[0] = '\0';
        return 0;
    }
    if (r == 1) {
        acct_put_error(out, id, ACCT_ERR_INVALID, "%s: required", acct_tag_name(tag));
        return -1;
    }
    if (r != 0 || !acct_proto_name_ok(buf, cap - 1)) {
        acct_put_error(out, id, ACCT_ERR_INVALID,
                       "%s: not a valid name (1-%zu characters of A-Z a-z 0-9 . _ + -)",
                       acct_tag_name(tag), cap - 1);
        return -1;
    }
    return 0;
}

void req_put_version(struct acct_wbuf *out, const struct store_version *v, bool text)
{
    acct_put_u64(out, ACCT_T_VERSION, (uint64_t)v->id);
    acct_put_str(out, ACCT_T_PARTITION, v->partition);
    acct_put_str(out, ACCT_T_INTERCONNECT, v->interconnect);
    acct_put_str(out, ACCT_T_SOURCE, v->source);
    acct_put_str(out, ACCT_T_CREATED, v->created);
    acct_put_str(out, ACCT_T_TUNING_RUN, v->tuning_run);
    acct_put_u64(out, ACCT_T_ACTIVE, v->active);
    if (v->active && v->activated_at[0])
        acct_put_str(out, ACCT_T_ACTIVATED_AT, v->activated_at);
    acct_put_u64(out, ACCT_T_PARENT, (uint64_t)v->parent);
    acct_put_str(out, ACCT_T_REASON, v->reason);
    acct_put_u64(out, ACCT_T_HASH, v->hash);
    if (text && v->rules_text != NULL)
        acct_put_str(out, ACCT_T_RULES_TEXT, v->rules_text);
}
