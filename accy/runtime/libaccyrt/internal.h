/* libaccyrt's own declarations, shared by its sources and never installed: the parsed bundle,
 * statuses built with a format, a region allocator, checked size arithmetic. */
#ifndef ACCYRT_INTERNAL_H
#define ACCYRT_INTERNAL_H

#include "accyrt.h"

#include <stdarg.h>

/* ---- statuses -------------------------------------------------------------------------- */

#if defined(__GNUC__)
#define RT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define RT_PRINTF(f, a)
#endif

accyrt_status *rt_status(accyrt_code code, const char *format, ...) RT_PRINTF(2, 3);
accyrt_status *rt_vstatus(accyrt_code code, const char *format, va_list args);
/* `format` printed into `out` (`size` bytes, cut short to fit; "" if it cannot be printed). */
void rt_vformat(char *out, size_t size, const char *format, va_list args);
/* `inner` (a device's status, which this frees) with `context: ` in front of its message;
 * its code is kept. */
accyrt_status *rt_wrap(accyrt_status *inner, const char *format, ...) RT_PRINTF(2, 3);
extern accyrt_status rt_out_of_memory;

/* ---- checked arithmetic ---------------------------------------------------------------- */

/* 0 and *out = a + b (a * b) when it fits, else -1. */
static inline int rt_add(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > UINT64_MAX - b)
        return -1;
    *out = a + b;
    return 0;
}

static inline int rt_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b != 0 && a > UINT64_MAX / b)
        return -1;
    *out = a * b;
    return 0;
}

/* ---- a region of host memory, freed at once ---------------------------------------------- */

typedef struct rt_chunk rt_chunk;
typedef struct rt_region {
    rt_chunk *chunks;
} rt_region;

/* Zeroed memory for `count` items of `size` bytes, aligned for any type; NULL when the size
 * overflows or memory runs out. */
void *rt_region_alloc(rt_region *region, size_t count, size_t size);
void rt_region_free(rt_region *region);

/* ---- the bounded reader ---------------------------------------------------------------- */

typedef struct rt_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    const char *section;        /* named in messages: "bundle: program section: ..." */
    accyrt_status *error;       /* the first failure; reads return -1 once it is set */
} rt_reader;

void rt_reader_init(rt_reader *r, const uint8_t *data, size_t size, const char *section);
size_t rt_reader_left(const rt_reader *r);
/* Sets r->error (BAD_BUNDLE, "bundle: <section>: <message>") unless it is set;
 * returns -1. */
int rt_fail(rt_reader *r, const char *format, ...) RT_PRINTF(2, 3);
int rt_read_u8(rt_reader *r, uint8_t *out);
int rt_read_u32(rt_reader *r, uint32_t *out);
int rt_read_u64(rt_reader *r, uint64_t *out);
int rt_read_i64(rt_reader *r, int64_t *out);
/* A str: its bytes stay in the reader's data. */
int rt_read_str(rt_reader *r, const uint8_t **bytes, uint32_t *length, const char *what);
int rt_read_bytes(rt_reader *r, size_t n, const uint8_t **bytes, const char *what);
/* A count prefix: the u32 `n`, checked so that n items of `min_item` bytes fit in what is
 * left. */
int rt_read_count(rt_reader *r, uint32_t *n, size_t min_item, const char *what);
/* Fails unless every byte was read. */
int rt_reader_end(rt_reader *r);

uint32_t rt_crc32(uint32_t crc, const uint8_t *data, size_t size);
int rt_valid_utf8(const uint8_t *s, size_t n);
uint32_t rt_le32(const uint8_t *p);
uint64_t rt_le64(const uint8_t *p);

/* ---- the parsed bundle ----------------------------------------------------------------- */

enum { RT_SLOT_ARGUMENT, RT_SLOT_RESULT, RT_SLOT_CONSTANT, RT_SLOT_ARENA, RT_SLOT_SCRATCH,
       RT_SLOT_STATE, RT_SLOT_KINDS };
enum { RT_STEP_LAUNCH = 1, RT_STEP_MEMSET, RT_STEP_COPY, RT_STEP_LOOP, RT_STEP_HOST };
enum { RT_PARAM_REF = 1, RT_PARAM_SCALAR = 2 };
#define RT_MAX_LOOP_DEPTH 16

typedef struct rt_tensor {
    const char *dtype;          /* a static name */
    uint32_t rank;
    int64_t *dims;
    uint64_t nbytes;
} rt_tensor;

typedef struct rt_ref {
    uint32_t slot;
    uint64_t offset;
} rt_ref;

typedef struct rt_slot {
    uint8_t kind;
    int64_t position;
    uint64_t nbytes;
    const uint8_t *data;        /* a constant's bytes, in the bundle's copy of the file */
} rt_slot;

typedef struct rt_param {
    uint8_t tag;
    rt_ref ref;                 /* RT_PARAM_REF */
    int64_t scalar;             /* RT_PARAM_SCALAR */
} rt_param;

typedef struct rt_state {
    uint32_t current, next;
    rt_ref first, second;
} rt_state;

typedef struct rt_step rt_step;
typedef struct rt_steps {
    uint32_t count;
    rt_step *steps;
} rt_steps;

struct rt_step {
    uint8_t tag;
    union {
        struct {
            uint32_t kernel;        /* index into the bundle's kernels */
            uint32_t grid[3], block[3], shared_bytes;
            uint32_t num_params;
            rt_param *params;
            size_t first_param;     /* where its params start in a session's flat arrays */
        } launch;
        struct {
            rt_ref target;
            uint64_t nbytes;
            uint8_t value;
        } memset;
        struct {
            rt_ref target, source;
            uint64_t nbytes;
        } copy;
        struct {
            uint32_t item, num_states;
            rt_state *states;
            rt_ref flag;
            rt_steps cond, body;
        } loop;
    } u;
};

typedef struct rt_kernel {
    char *name;
    uint8_t module;             /* 0: the ptx section, 1: its own module */
    const char *ptx;            /* module 1: its PTX, NUL-terminated */
    size_t ptx_size;            /* counting the NUL */
    uint32_t num_params;        /* what its .entry declares: what a launch of it passes */
} rt_kernel;

struct accyrt_bundle {
    rt_region region;           /* everything below that is allocated */
    uint8_t *bytes;             /* the file, owned */
    size_t size;
    char accy_version[25];
    char target[17];
    int target_major, target_minor, target_specific;   /* sm_90a: 9, 0, 1 */
    uint32_t num_arguments, num_results, num_kernels, num_slots;
    rt_tensor *arguments, *results;
    rt_kernel *kernels;
    uint32_t *kernels_by_name;  /* kernel indices sorted by name */
    const char *ptx;            /* NUL-terminated copy, or NULL */
    size_t ptx_size;            /* counting the NUL */
    const uint8_t *cubin;
    size_t cubin_size;
    rt_slot *slots;
    int64_t *argument_slots;    /* per argument: its slot or -1 */
    rt_ref *result_refs;        /* per result: where its operand lies (the manifest tells its
                                 * dtype and shape) */
    rt_steps steps;
    size_t num_launch_params;   /* over every launch step: a session's parameter arrays */
};

#endif
