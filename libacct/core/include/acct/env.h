/* Reading ACCT's environment variables (no MPI needed).
 *
 * Every variable a job can set is parsed here so that the loader, the runtime
 * and the tools agree on spelling and meaning; docs/user-guide.md lists them. */
#ifndef ACCT_ENV_H
#define ACCT_ENV_H

#include <stdbool.h>

/* Parse a boolean word: 1/0, yes/no, on/off, true/false, enable(d)/disable(d),
 * case-insensitive, surrounding blanks allowed. Returns 0 and sets *out, or -1
 * if the text is not a boolean (then *out is untouched). */
int acct_parse_bool(const char *text, bool *out);

enum acct_env_state {
    ACCT_ENV_ON = 0,      /* nothing asks to switch ACCT off */
    ACCT_ENV_OFF = 1,     /* ACCT_DISABLE is true, or ACCT is false ("off") */
    ACCT_ENV_INVALID = 2, /* one of them is not a boolean: off, and say so */
};

/* Is ACCT switched off for this process? A value that is not a boolean
 * switches it off too (the safe side), but is reported as ACCT_ENV_INVALID so
 * the caller can warn. *why (if not NULL) gets a static, human-readable
 * reason, or NULL for ACCT_ENV_ON. */
enum acct_env_state acct_env_state(const char **why);

/* The process's rank in the job as the launcher announced it (Open MPI,
 * PMIx, PMI, Slurm), or -1 if no launcher variable is set. Used only to keep
 * messages to one rank before MPI is initialised — never for decisions. */
int acct_env_launcher_rank(void);

#endif
