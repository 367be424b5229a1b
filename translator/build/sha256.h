/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sha256.h - SHA-256 (FIPS 180-4) for the build cache keys. Small and
 * self-contained: no library dependency.
 */
#ifndef TAPIR_SHA256_H
#define TAPIR_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE (2 * SHA256_DIGEST_SIZE + 1)

struct sha256 {
	uint32_t h[8];
	uint64_t len;			/* bytes hashed so far */
	unsigned char buf[64];		/* a partial block */
	size_t nbuf;
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t n);
void sha256_final(struct sha256 *c, unsigned char out[SHA256_DIGEST_SIZE]);
/* Finish and write the digest as 64 lower-case hex digits and a NUL. */
void sha256_final_hex(struct sha256 *c, char out[SHA256_HEX_SIZE]);

/*
 * Hash one tagged field: the tag, the length and the bytes, so that no
 * two different sequences of fields can hash the same stream of bytes.
 */
void sha256_field(struct sha256 *c, const char *tag, const void *data, size_t n);
void sha256_field_str(struct sha256 *c, const char *tag, const char *s);

#endif /* TAPIR_SHA256_H */
