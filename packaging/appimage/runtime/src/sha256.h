/* SHA-256 (FIPS 180-4), used to key the extraction cache by the image's content. */
#ifndef RT_SHA256_H
#define RT_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
    uint32_t state[8];
    uint64_t length;      /* bytes hashed so far */
    unsigned char block[64];
    size_t used;          /* bytes waiting in block */
};

void sha256_init(struct sha256 *ctx);
void sha256_update(struct sha256 *ctx, const void *data, size_t len);
void sha256_final(struct sha256 *ctx, unsigned char digest[32]);
/* Lower-case hex of a digest: out must hold 65 bytes. */
void sha256_hex(const unsigned char digest[32], char out[65]);

#endif
