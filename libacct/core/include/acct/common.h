/* Common definitions shared by every part of libacct. */
#ifndef ACCT_COMMON_H
#define ACCT_COMMON_H

/* Symbols are hidden by default (-fvisibility=hidden); only the MPI wrappers
 * of the preload library and the runtime's single entry point are exported. */
#define ACCT_EXPORT __attribute__((visibility("default")))

#define ACCT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
