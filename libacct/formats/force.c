/* ACCT_FORCE parsing (acct/force.h). The checks on algorithm, segment and
 * fan-out are the rules file's own (acct_check_* in decision.c). */
#include "acct/force.h"

#include <stdio.h>
#include <string.h>

#include "acct/stats.h"

#define NAME "ACCT_FORCE"
#define QUOTE_MAX 64
#define MAX_FIELDS 5 /* collective=algorithm, segment, fanout, reorder (+1 to detect extras) */

static bool blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* The entry s[0..n) quoted for messages, unprintable bytes as \xNN. */
static void quote(char *out, size_t len, const char *s, size_t n)
{
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n && i < QUOTE_MAX && o + 6 < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
        else
            out[o++] = (char)ch;
    }
    if (n > QUOTE_MAX && o + 5 < len) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = '\0';
}

/* A decimal integer with an optional '-', the whole of s[0..n): 0, or -1
 * if it is not one, -2 if it is beyond +-10^12 (far outside any fan-out). */
static int parse_ll(const char *s, size_t n, long long *out)
{
    bool neg = n > 0 && s[0] == '-';
    unsigned long long v = 0;
    size_t i = neg ? 1 : 0;
    if (i == n)
        return -1;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v > 100000000000ull)
            return -2;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = neg ? -(long long)v : (long long)v;
    return 0;
}

/* One entry s[0..n), not empty, no surrounding blanks. Returns NULL and
 * fills *coll, *d if valid, or writes a message into msg and returns it. */
static const char *parse_entry(const char *s, size_t n, enum acct_coll_id *coll,
                               struct acct_decision *d, char *msg, size_t mlen)
{
    char word[ACCT_FORCE_MAX_LEN + 1];
    char q[QUOTE_MAX * 4 + 8];
    const char *eq = memchr(s, '=', n);
    const char *f[MAX_FIELDS] = { NULL };
    size_t fl[MAX_FIELDS] = { 0 };
    size_t nf = 0;
    const struct acct_alg *alg;

    memset(d, 0, sizeof(*d));
    if (eq == NULL) {
        snprintf(msg, mlen, "expected COLLECTIVE=ALGORITHM[:SEGMENT[:FANOUT[:reorder]]]");
        return msg;
    }
    memcpy(word, s, (size_t)(eq - s));
    word[eq - s] = '\0';
    if (acct_coll_from_name(word, coll) != 0) {
        char names[256];
        size_t o = 0;
        names[0] = '\0';
        for (int i = 0; i < ACCT_COLL_COUNT; i++)
            o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", i > 0 ? ", " : "",
                                  acct_coll_name((enum acct_coll_id)i));
        quote(q, sizeof(q), s, (size_t)(eq - s));
        snprintf(msg, mlen, "unknown collective %s (valid: %s)", q, names);
        return msg;
    }
    /* Split the rest on ':'. */
    for (const char *p = eq + 1, *end = s + n; nf < MAX_FIELDS;) {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        f[nf] = p;
        fl[nf] = (size_t)((colon != NULL ? colon : end) - p);
        nf++;
        if (colon == NULL)
            break;
        p = colon + 1;
    }
    if (nf == MAX_FIELDS) {
        snprintf(msg, mlen, "too many ':' fields: expected ALGORITHM[:SEGMENT[:FANOUT[:reorder]]]");
        return msg;
    }
    memcpy(word, f[0], fl[0]);
    word[fl[0]] = '\0';
    alg = acct_alg_find(*coll, word);
    if (alg == NULL)
        return acct_unknown_alg_msg(*coll, f[0], fl[0], msg, mlen);
    d->alg = alg;
    if (nf > 1 && fl[1] > 0) {
        char e[256];
        uint64_t seg = 0;
        memcpy(word, f[1], fl[1]);
        word[fl[1]] = '\0';
        if (strspn(word, "0") != fl[1] && acct_size_parse(word, &seg, e, sizeof(e)) != 0) {
            snprintf(msg, mlen, "segment: %s", e);
            return msg;
        }
        if (acct_check_segment(alg, seg, msg, mlen) != NULL)
            return msg;
        d->segment_bytes = seg;
    }
    if (nf > 2 && fl[2] > 0) {
        long long fan = 0;
        int prc = parse_ll(f[2], fl[2], &fan);
        if (prc != 0) {
            quote(q, sizeof(q), f[2], fl[2]);
            snprintf(msg, mlen, "fan-out %s is %s", q,
                     prc == -2 ? "too large" : "not an integer");
            return msg;
        }
        if (acct_check_fanout(alg, fan, msg, mlen) != NULL)
            return msg;
        d->fanout = (int)fan;
    }
    if (nf > 3 && fl[3] > 0) {
        if (fl[3] != 7 || memcmp(f[3], "reorder", 7) != 0) {
            quote(q, sizeof(q), f[3], fl[3]);
            snprintf(msg, mlen, "fourth field %s: expected \"reorder\" or nothing", q);
            return msg;
        }
        if (acct_check_reorder(alg, true, msg, mlen) != NULL)
            return msg;
        d->reorder = true;
    }
    return NULL;
}

int acct_force_parse(const char *text, struct acct_force *out, struct acct_diags *diags)
{
    int bad = 0;
    size_t len;

    memset(out, 0, sizeof(*out));
    acct_diags_reset(diags, NAME);
    if (text == NULL)
        return 0;
    len = strlen(text);
    if (len > ACCT_FORCE_MAX_LEN) {
        acct_diags_add(diags, 0, 0, NULL, "longer than %d characters: ignored",
                       ACCT_FORCE_MAX_LEN);
        return 1;
    }
    for (const char *p = text; *p != '\0';) {
        const char *comma = strchr(p, ',');
        const char *end = comma != NULL ? comma : p + strlen(p);
        const char *b = p, *e = end;
        char msg[ACCT_DIAG_MSG_MAX], q[QUOTE_MAX * 4 + 8];
        enum acct_coll_id coll;
        struct acct_decision d;

        while (b < e && blank(*b))
            b++;
        while (e > b && blank(e[-1]))
            e--;
        if (e > b) {
            quote(q, sizeof(q), b, (size_t)(e - b));
            if (parse_entry(b, (size_t)(e - b), &coll, &d, msg, sizeof(msg)) != NULL) {
                acct_diags_add(diags, 0, 0, q, "%s", msg);
                bad++;
            } else if (out->forced[coll]) {
                acct_diags_add(diags, 0, 0, q, "%s is forced twice: the first entry is kept",
                               acct_coll_name(coll));
                bad++;
            } else {
                out->forced[coll] = true;
                out->d[coll] = d;
                out->count++;
            }
        }
        p = comma != NULL ? comma + 1 : end;
    }
    return bad;
}

int acct_force_format(const struct acct_force *f, char *buf, size_t len)
{
    size_t o = 0;
    int total = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        char d[128];
        if (!f->forced[i])
            continue;
        acct_decision_format(&f->d[i], d, sizeof(d));
        int k = snprintf(o < len ? buf + o : NULL, o < len ? len - o : 0, "%s%s=%s",
                         total > 0 ? "," : "", acct_coll_name((enum acct_coll_id)i), d);
        if (k < 0)
            return -1;
        total += k;
        o += (size_t)k;
    }
    return total;
}
