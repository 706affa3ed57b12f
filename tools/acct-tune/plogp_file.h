/* The measured pLogP table as a small text file (acct-tune --plogp-out,
 * read by acct-tune-replay --plogp; docs/acct-tune.md "Model accuracy"):
 *
 *   acct-plogp 1
 *   L 0.53
 *   # m os_us or_us g_us
 *   1 0.08 0.25 0.17
 *   1024 1.53 0.55 1.34
 *
 * '#' comments and blank lines; sizes strictly increasing; no MPI. */
#ifndef ACCT_TUNE_PLOGP_FILE_H
#define ACCT_TUNE_PLOGP_FILE_H

#include <stddef.h>

#include "acct/model.h"

/* Write t to path (whole file). Returns 0 or -1 with a message. */
int tune_plogp_write(const char *path, const struct acct_plogp *t, char *err, size_t errlen);
/* Read path into *t (checked with acct_plogp_check). Returns 0, or -1 with
 * "FILE:LINE: message" in err. */
int tune_plogp_read(const char *path, struct acct_plogp *t, char *err, size_t errlen);

#endif
