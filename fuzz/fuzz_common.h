/* fuzz_common.h: what every libFuzzer target here shares: wmem scopes set
 * up once, a scratch allocator per input, and a byte reader that returns
 * zeros past the end (so every input is a valid sequence of choices).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <epan/tvbuff.h>
#include <wsutil/wmem/wmem.h>
#include <epan/wmem_scopes.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_init_once(void)
{
    static int done;
    if (!done) {
        wmem_init_scopes();
        done = 1;
    }
}

typedef struct {
    const uint8_t *p;
    size_t n, at;
} fuzz_reader_t;

static inline uint8_t fuzz_u8(fuzz_reader_t *r)
{
    return r->at < r->n ? r->p[r->at++] : 0;
}

static inline uint16_t fuzz_u16(fuzz_reader_t *r)
{
    uint16_t hi = fuzz_u8(r);
    return (uint16_t)(hi << 8 | fuzz_u8(r));
}

static inline uint32_t fuzz_u32(fuzz_reader_t *r)
{
    uint32_t hi = fuzz_u16(r);
    return hi << 16 | fuzz_u16(r);
}

static inline int fuzz_more(const fuzz_reader_t *r)
{
    return r->at < r->n;
}

#endif
