/* The bounded reader every byte of a bundle goes through, the region its parsed form lives
 * in, CRC-32 and UTF-8 checks. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- region ------------------------------------------------------------------------------ */

typedef union rt_align {       /* the strictest alignment of the types a region holds */
    long double f;
    uint64_t u;
    void *p;
} rt_align;

struct rt_chunk {
    rt_chunk *next;
    size_t used, capacity;      /* in units of rt_align */
    rt_align data[];
};

#define RT_CHUNK_UNITS 4096     /* 64 KiB: a small bundle's parse is one or two chunks */

void *rt_region_alloc(rt_region *region, size_t count, size_t size)
{
    uint64_t bytes;
    if (rt_mul(count, size, &bytes) || bytes > SIZE_MAX - 2 * sizeof(rt_align))
        return NULL;
    size_t units = (size_t)((bytes + sizeof(rt_align) - 1) / sizeof(rt_align));
    if (units == 0)
        units = 1;
    rt_chunk *c = region->chunks;
    if (c == NULL || c->capacity - c->used < units) {
        size_t capacity = units > RT_CHUNK_UNITS ? units : RT_CHUNK_UNITS;
        if (capacity > (SIZE_MAX - sizeof(rt_chunk)) / sizeof(rt_align))
            return NULL;
        c = malloc(sizeof(rt_chunk) + capacity * sizeof(rt_align));
        if (c == NULL)
            return NULL;
        c->used = 0;
        c->capacity = capacity;
        if (region->chunks != NULL && units > RT_CHUNK_UNITS) {
            /* a big block gets a chunk of its own, behind the current one's free space */
            c->next = region->chunks->next;
            region->chunks->next = c;
        } else {
            c->next = region->chunks;
            region->chunks = c;
        }
    }
    void *p = c->data + c->used;
    c->used += units;
    memset(p, 0, units * sizeof(rt_align));
    return p;
}

void rt_region_free(rt_region *region)
{
    rt_chunk *c = region->chunks;
    while (c != NULL) {
        rt_chunk *next = c->next;
        free(c);
        c = next;
    }
    region->chunks = NULL;
}

/* ---- reader ------------------------------------------------------------------------------ */

uint32_t rt_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t rt_le64(const uint8_t *p)
{
    return (uint64_t)rt_le32(p) | (uint64_t)rt_le32(p + 4) << 32;
}

void rt_reader_init(rt_reader *r, const uint8_t *data, size_t size, const char *section)
{
    r->data = data;
    r->size = size;
    r->pos = 0;
    r->section = section;
    r->error = NULL;
}

size_t rt_reader_left(const rt_reader *r)
{
    return r->size - r->pos;
}

int rt_fail(rt_reader *r, const char *format, ...)
{
    if (r->error != NULL)
        return -1;
    char message[400];
    va_list args;
    va_start(args, format);
    rt_vformat(message, sizeof message, format, args);
    va_end(args);
    r->error = rt_status(ACCYRT_BAD_BUNDLE, "bundle: %s: %s", r->section, message);
    return -1;
}

static int need(rt_reader *r, size_t n, const char *what)
{
    if (r->error != NULL)
        return -1;
    if (rt_reader_left(r) < n)
        return rt_fail(r, "truncated: %s at byte %zu needs %zu bytes, %zu are left", what,
                       r->pos, n, rt_reader_left(r));
    return 0;
}

int rt_read_u8(rt_reader *r, uint8_t *out)
{
    if (need(r, 1, "a u8"))
        return -1;
    *out = r->data[r->pos++];
    return 0;
}

int rt_read_u32(rt_reader *r, uint32_t *out)
{
    if (need(r, 4, "a u32"))
        return -1;
    *out = rt_le32(r->data + r->pos);
    r->pos += 4;
    return 0;
}

int rt_read_u64(rt_reader *r, uint64_t *out)
{
    if (need(r, 8, "a u64"))
        return -1;
    *out = rt_le64(r->data + r->pos);
    r->pos += 8;
    return 0;
}

int rt_read_i64(rt_reader *r, int64_t *out)
{
    uint64_t u;
    if (rt_read_u64(r, &u))
        return -1;
    /* two's complement without an implementation-defined conversion */
    *out = u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
    return 0;
}

int rt_read_bytes(rt_reader *r, size_t n, const uint8_t **bytes, const char *what)
{
    if (need(r, n, what))
        return -1;
    *bytes = r->data + r->pos;
    r->pos += n;
    return 0;
}

int rt_read_str(rt_reader *r, const uint8_t **bytes, uint32_t *length, const char *what)
{
    uint32_t n;
    if (rt_read_u32(r, &n))
        return -1;
    if (n > rt_reader_left(r))
        return rt_fail(r, "%s at byte %zu is %u bytes long, past the %zu bytes left", what,
                       r->pos - 4, n, rt_reader_left(r));
    if (rt_read_bytes(r, n, bytes, what))
        return -1;
    if (!rt_valid_utf8(*bytes, n))
        return rt_fail(r, "%s at byte %zu is not UTF-8", what, r->pos - n);
    const uint8_t *nul = memchr(*bytes, 0, n);
    if (nul != NULL)
        return rt_fail(r, "%s holds a NUL at byte %zu", what, (size_t)(nul - r->data));
    *length = n;
    return 0;
}

int rt_read_count(rt_reader *r, uint32_t *n, size_t min_item, const char *what)
{
    if (rt_read_u32(r, n))
        return -1;
    uint64_t bytes;
    if (rt_mul(*n, min_item, &bytes) || bytes > rt_reader_left(r))
        return rt_fail(r, "%u %s at byte %zu need at least %zu bytes each, but %zu bytes are "
                       "left", *n, what, r->pos - 4, min_item, rt_reader_left(r));
    return 0;
}

int rt_reader_end(rt_reader *r)
{
    if (r->error != NULL)
        return -1;
    if (r->pos != r->size)
        return rt_fail(r, "%zu bytes are left over after its last field (at byte %zu)",
                       rt_reader_left(r), r->pos);
    return 0;
}

/* ---- CRC-32 (zlib's: reflected, polynomial 0xEDB88320) ------------------------------------ */

static uint32_t crc_table[8][256];
static int crc_state;           /* 0: empty, 1: being filled, 2: ready (atomic) */

static void crc_fill(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = crc_table[0][crc_table[t - 1][i] & 0xFF] ^
                              (crc_table[t - 1][i] >> 8);
}

/* Whether the tables are ready: the first caller fills them; a caller that finds them being
 * filled by another thread computes its CRC bit by bit instead of waiting. */
static int crc_tables(void)
{
    if (__atomic_load_n(&crc_state, __ATOMIC_ACQUIRE) == 2)
        return 1;
    int empty = 0;
    if (__atomic_compare_exchange_n(&crc_state, &empty, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        crc_fill();
        __atomic_store_n(&crc_state, 2, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}

uint32_t rt_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    if (!crc_tables()) {
        crc = ~crc;
        while (n--) {
            crc ^= *p++;
            for (int k = 0; k < 8; k++)
                crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
        }
        return ~crc;
    }
    crc = ~crc;
    while (n >= 8) {            /* eight bytes a step (slicing by 8) */
        uint32_t lo = crc ^ rt_le32(p), hi = rt_le32(p + 4);
        crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
              crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
              crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
              crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* ---- UTF-8 (as Python's strict decoder: no overlong forms, surrogates or values past
 * U+10FFFF) ------------------------------------------------------------------------------ */

int rt_valid_utf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF;   /* the second byte's range */
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0;
            else if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;
        } else
            return 0;
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        i += len;
    }
    return 1;
}
