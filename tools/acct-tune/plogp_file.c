/* The pLogP table file (plogp_file.h). */
#include "plogp_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tune_plogp_write(const char *path, const struct acct_plogp *t, char *err, size_t errlen)
{
    int rc = 0;
    FILE *f = fopen(path, "w");

    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "acct-plogp 1\nL %.17g\n# m os_us or_us g_us\n", t->L_us);
    for (size_t i = 0; i < t->n; i++)
        fprintf(f, "%llu %.17g %.17g %.17g\n", (unsigned long long)t->m[i], t->os_us[i],
                t->or_us[i], t->g_us[i]);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int tune_plogp_read(const char *path, struct acct_plogp *t, char *err, size_t errlen)
{
    int rc = 0, line = 0;
    bool header = false, have_l = false;
    char buf[512], why[256] = "";
    FILE *f = fopen(path, "r");

    memset(t, 0, sizeof(*t));
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    while (rc == 0 && fgets(buf, sizeof(buf), f) != NULL) {
        unsigned long long m = 0;
        double a = 0, b = 0, c = 0;
        char *p = buf + strspn(buf, " \t");
        line++;
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        if (!header) {
            header = strncmp(p, "acct-plogp 1", 12) == 0;
            rc = header ? 0 : -1;
            snprintf(why, sizeof(why), "expected \"acct-plogp 1\"");
        } else if (p[0] == 'L') {
            have_l = sscanf(p, "L %lf", &t->L_us) == 1;
            rc = have_l ? 0 : -1;
            snprintf(why, sizeof(why), "expected \"L MICROSECONDS\"");
        } else if (t->n >= ACCT_PLOGP_MAX_SIZES) {
            rc = -1;
            snprintf(why, sizeof(why), "more than %d sizes", ACCT_PLOGP_MAX_SIZES);
        } else if (sscanf(p, "%llu %lf %lf %lf", &m, &a, &b, &c) == 4) {
            t->m[t->n] = m;
            t->os_us[t->n] = a;
            t->or_us[t->n] = b;
            t->g_us[t->n] = c;
            t->n++;
        } else {
            rc = -1;
            snprintf(why, sizeof(why), "expected \"BYTES OS OR G\"");
        }
    }
    fclose(f);
    if (rc != 0) {
        snprintf(err, errlen, "%s:%d: %s", path, line, why);
    } else if (!header || !have_l) {
        snprintf(err, errlen, "%s:%d: %s", path, line, header ? "no L line" : "empty file");
        rc = -1;
    } else if (acct_plogp_check(t, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        rc = -1;
    }
    return rc;
}
