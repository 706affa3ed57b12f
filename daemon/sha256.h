/* SHA-256 (FIPS 180-4), for the integrity of what a primary sends its
 * followers (docs/acctd.md, "Security model"). No dependency but libc. */
#ifndef ACCTD_SHA256_H
#define ACCTD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ACCTD_SHA256_LEN 32
#define ACCTD_SHA256_HEX (2 * ACCTD_SHA256_LEN + 1)

struct acctd_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
};

void acctd_sha256_init(struct acctd_sha256 *s);
void acctd_sha256_update(struct acctd_sha256 *s, const void *data, size_t len);
void acctd_sha256_final(struct acctd_sha256 *s, uint8_t out[ACCTD_SHA256_LEN]);
/* The digest of data as 64 lowercase hex digits. */
void acctd_sha256_hex(const void *data, size_t len, char out[ACCTD_SHA256_HEX]);

#endif
