/* Opening a bundle: every check of docs/runtime.md, made on the bounded reader, before the
 * bundle is handed out; then the signature queries. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_BYTES 72
#define ENTRY_BYTES 24
#define MAX_SECTIONS 64
#define MAX_RANK 64
#define MAX_SLOT_BYTES ((uint64_t)1 << 48)
#define MAX_BLOCK_THREADS 1024
#define MAX_SHARED_BYTES (227u * 1024u)

enum { KIND_MANIFEST = 1, KIND_PROGRAM, KIND_PTX, KIND_CUBIN, KIND_MODULES, KIND_TEXT, KIND_INFO,
       NUM_KINDS = KIND_INFO };

static const char *const SECTION_NAMES[NUM_KINDS + 1] = {
    "", "manifest section", "program section", "ptx section", "cubin section",
    "kernel modules section", "module text section", "info section"};

/* The smallest encoding of one item of each counted list (count checks divide by these). */
#define MIN_TENSOR 8            /* str (4) + shape rank (4) */
#define MIN_KERNEL 5            /* str + u8 */
#define MIN_SLOT 29             /* u8 + i64 + u64 + u64 + str */
#define MIN_ARGUMENT 8          /* i64 */
#define MIN_OPERAND 20          /* ref (12) + str + rank */
#define MIN_STEP 21             /* tag + the shortest step (host: u32 + 2 str + 2 counts) */
#define MIN_PARAM 9             /* tag + i64 */
#define MIN_STATE 32            /* 2 u32 + 2 refs */
#define MIN_MODULE 8            /* 2 str */
#define MIN_DIM 8

static const struct {
    const char *name;
    uint32_t size;
} DTYPES[] = {{"f64", 8}, {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"i64", 8},
              {"i32", 4}, {"i16", 2}, {"i8", 1},  {"u8", 1},   {"i1", 1}};

static const char *slot_kind(uint8_t kind)
{
    static const char *const names[RT_SLOT_KINDS] = {"argument", "result", "constant",
                                                     "arena", "scratch", "state"};
    return kind < RT_SLOT_KINDS ? names[kind] : "unknown";
}

/* `bytes` for a message: itself when it is short printable ASCII, else a description. */
static const char *shown(const uint8_t *bytes, uint32_t n, char *buf, size_t size)
{
    int printable = n <= 48;
    for (uint32_t i = 0; printable && i < n; i++)
        printable = bytes[i] >= 0x20 && bytes[i] < 0x7F;
    if (printable)
        snprintf(buf, size, "'%.*s'", (int)n, (const char *)bytes);
    else
        snprintf(buf, size, "a %u-byte name", n);
    return buf;
}

typedef struct frame {
    const char *list;           /* the step list: "program", "cond" or "body" */
    uint32_t step;              /* the step being read there */
} frame;

/* What parsing the program needs besides the bundle being built. */
typedef struct parser {
    frame frames[RT_MAX_LOOP_DEPTH + 1];
    int depth;                  /* frames in use: 1 + the loops around the step being read */
    accyrt_bundle *b;
    rt_reader r;
    uint8_t *bound;             /* per slot: a state slot a loop has bound here */
    uint8_t *owned;             /* per slot: a state slot some loop names */
    uint64_t *room;             /* per state slot: the bytes both of its buffers hold */
    int host_found;
    uint32_t host_item;
    char host_kind[64];
} parser;

static int out_of_memory(parser *p)
{
    if (p->r.error == NULL)
        p->r.error = &rt_out_of_memory;
    return -1;
}

static void *alloc(parser *p, size_t count, size_t size)
{
    void *m = rt_region_alloc(&p->b->region, count, size);
    if (m == NULL)
        out_of_memory(p);
    return m;
}

/* A NUL-terminated copy of `n` bytes. */
static char *copy_text(parser *p, const uint8_t *bytes, size_t n)
{
    if (n == SIZE_MAX) {
        out_of_memory(p);
        return NULL;
    }
    char *s = alloc(p, n + 1, 1);
    if (s != NULL)
        memcpy(s, bytes, n);
    return s;
}

static int read_name(parser *p, const uint8_t **bytes, uint32_t *n, const char *what)
{
    if (rt_read_str(&p->r, bytes, n, what))
        return -1;
    char buf[80];
    if (*n == 0)
        return rt_fail(&p->r, "%s at byte %zu is empty", what, p->r.pos - 4);
    for (uint32_t i = 0; i < *n; i++)
        if ((*bytes)[i] >= 0x80)
            return rt_fail(&p->r, "%s %s at byte %zu is not ASCII", what,
                           shown(*bytes, *n, buf, sizeof buf), p->r.pos - *n);
    return 0;
}

/* ---- tensors ----------------------------------------------------------------------------- */

static int read_dtype(parser *p, const char **name, uint32_t *size, const char *what)
{
    const uint8_t *bytes;
    uint32_t n;
    if (rt_read_str(&p->r, &bytes, &n, what))
        return -1;
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strlen(DTYPES[i].name) == n && memcmp(DTYPES[i].name, bytes, n) == 0) {
            *name = DTYPES[i].name;
            *size = DTYPES[i].size;
            return 0;
        }
    char buf[80];
    return rt_fail(&p->r, "%s %s at byte %zu is not a dtype (f64 f32 f16 bf16 i64 i32 i16 i8 "
                   "u8 i1)", what, shown(bytes, n, buf, sizeof buf), p->r.pos - n);
}

/* dtype, then shape; `what` names it ("argument 3"). */
static int read_tensor(parser *p, rt_tensor *t, const char *what)
{
    uint32_t size = 0;
    char field[96];
    snprintf(field, sizeof field, "%s's dtype", what);
    if (read_dtype(p, &t->dtype, &size, field))
        return -1;
    snprintf(field, sizeof field, "dims of %s", what);
    if (rt_read_count(&p->r, &t->rank, MIN_DIM, field))
        return -1;
    if (t->rank > MAX_RANK)
        return rt_fail(&p->r, "%s has rank %u, past the limit of %d", what, t->rank, MAX_RANK);
    t->dims = alloc(p, t->rank ? t->rank : 1, sizeof(int64_t));
    if (t->dims == NULL)
        return -1;
    int zero = 0;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (rt_read_i64(&p->r, &t->dims[i]))
            return -1;
        if (t->dims[i] < 0)
            return rt_fail(&p->r, "%s has dim %u = %lld, below 0", what, i,
                           (long long)t->dims[i]);
        zero |= t->dims[i] == 0;
    }
    /* the exact element count: 0 when a dim is 0, whatever the others */
    uint64_t elements = 1;
    if (zero)
        elements = 0;
    for (uint32_t i = 0; !zero && i < t->rank; i++)
        if (rt_mul(elements, (uint64_t)t->dims[i], &elements) || elements > INT64_MAX)
            return rt_fail(&p->r, "%s has more than 2^63 elements", what);
    if (rt_mul(elements, size, &t->nbytes) || t->nbytes > INT64_MAX)
        return rt_fail(&p->r, "%s's bytes (%llu elements of %u bytes) overflow 2^63", what,
                       (unsigned long long)elements, size);
    return 0;
}

static int same_tensor(const rt_tensor *a, const rt_tensor *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank)
        return 0;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

/* ---- manifest ---------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    const rt_kernel *ka = *(const rt_kernel *const *)a, *kb = *(const rt_kernel *const *)b;
    return strcmp(ka->name, kb->name);
}

/* The index of kernel `name` (n bytes), or -1. */
static int64_t find_kernel(const accyrt_bundle *b, const uint8_t *name, uint32_t n)
{
    size_t lo = 0, hi = b->num_kernels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const rt_kernel *k = &b->kernels[b->kernels_by_name[mid]];
        int c = strncmp(k->name, (const char *)name, n);
        if (c == 0)
            c = k->name[n] == '\0' ? 0 : 1;
        if (c == 0)
            return b->kernels_by_name[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* PTX text with its comments blanked, so that a scan of entries reads code only; `n` bytes. */
static char *without_comments(parser *p, const char *ptx, size_t n)
{
    char *out = alloc(p, n + 1, 1);
    if (out == NULL)
        return NULL;
    memcpy(out, ptx, n);
    out[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (out[i] == '"') {            /* a string: skipped whole */
            for (i++; i < n && out[i] != '"'; i++)
                ;
        } else if (out[i] == '/' && i + 1 < n && out[i + 1] == '/') {
            for (; i < n && out[i] != '\n'; i++)
                out[i] = ' ';
        } else if (out[i] == '/' && i + 1 < n && out[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < n && !(out[j] == '*' && out[j + 1] == '/'))
                j++;
            j = j + 1 < n ? j + 2 : n;
            memset(out + i, ' ', j - i);
            i = j - 1;
        }
    }
    return out;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '%' || c == '.';
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The number of parameters kernel `k`'s `.entry` declares in `code` (comments blanked), each
 * a scalar of at most 8 bytes (what a launch passes: 8 bytes per parameter); -1 with the
 * parser's error otherwise. */
static int entry_params(parser *p, const char *code, const rt_kernel *k, uint32_t *count)
{
    size_t len = strlen(k->name);
    const char *at = code;
    while ((at = strstr(at, ".entry")) != NULL) {
        const char *c = at + 6;
        int before = at == code || is_space(at[-1]);
        at = c;
        if (!before || !is_space(*c))
            continue;
        while (is_space(*c))
            c++;
        if (strncmp(c, k->name, len) != 0 || is_name_char(c[len]))
            continue;
        c += len;
        while (is_space(*c))
            c++;
        if (*c != '(')
            continue;
        const char *end = strchr(++c, ')');
        if (end == NULL)
            return rt_fail(&p->r, "kernel '%s's .entry has no ')'", k->name);
        uint32_t n = 0;
        for (const char *part = c;; part++) {
            const char *stop = memchr(part, ',', (size_t)(end - part));
            if (stop == NULL)
                stop = end;
            const char *q = part;
            while (q < stop && is_space(*q))
                q++;
            if (q == stop && n == 0 && stop == end)
                break;                  /* no parameters */
            static const char *const scalars[] = {
                ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".b8", ".b16",
                ".b32", ".b64", ".f16", ".f32", ".f64"};
            int ok = (size_t)(stop - q) > 6 && strncmp(q, ".param", 6) == 0 && is_space(q[6]);
            if (ok) {
                q += 6;
                while (q < stop && is_space(*q))
                    q++;
                ok = 0;
                for (size_t t = 0; t < sizeof scalars / sizeof scalars[0]; t++) {
                    size_t tl = strlen(scalars[t]);
                    if ((size_t)(stop - q) > tl && strncmp(q, scalars[t], tl) == 0 &&
                        is_space(q[tl]))
                        ok = 1;
                }
                ok = ok && memchr(q, '[', (size_t)(stop - q)) == NULL;
            }
            if (!ok)
                return rt_fail(&p->r, "kernel '%s's parameter %u is not a scalar of at most 8 "
                               "bytes (a launch passes 8 bytes a parameter)", k->name, n);
            n++;
            if (stop == end)
                break;
            part = stop;                /* the loop steps past the comma */
        }
        *count = n;
        return 0;
    }
    return rt_fail(&p->r, "kernel '%s' has no .entry in its module", k->name);
}

/* The .entry parameter counts of the kernels whose PTX is `ptx` (`module` 0 or 1). */
static int kernel_params(parser *p, const char *ptx, size_t n, uint8_t module, rt_kernel *only)
{
    char *code = without_comments(p, ptx, n);
    if (code == NULL)
        return -1;
    for (uint32_t k = 0; k < p->b->num_kernels; k++) {
        rt_kernel *kernel = &p->b->kernels[k];
        if (kernel->module == module && (only == NULL || kernel == only) &&
            entry_params(p, code, kernel, &kernel->num_params))
            return -1;
    }
    return 0;
}

/* A 64-bit little-endian ELF file whose program and section headers, and the bytes they
 * place, lie inside its `n` bytes: what the driver reads of a cubin, which it takes with no
 * size. */
static int check_elf(parser *p, const uint8_t *e, size_t n)
{
    if (n < 64 || memcmp(e, "\x7f" "ELF", 4) != 0)
        return rt_fail(&p->r, "the cubin (%zu bytes) is not an ELF file", n);
    if (e[4] != 2 || e[5] != 1)
        return rt_fail(&p->r, "the cubin is not a 64-bit little-endian ELF file");
    uint64_t tables[2][3] = {   /* offset, count, entry size: program, then section headers */
        {rt_le64(e + 0x20), (uint64_t)(e[0x38] | e[0x39] << 8), (uint64_t)(e[0x36] | e[0x37] << 8)},
        {rt_le64(e + 0x28), (uint64_t)(e[0x3C] | e[0x3D] << 8), (uint64_t)(e[0x3A] | e[0x3B] << 8)}};
    static const uint64_t min_entry[2] = {56, 64};
    for (int t = 0; t < 2; t++) {
        uint64_t off = tables[t][0], count = tables[t][1], size = tables[t][2], end;
        if (count == 0)
            continue;
        if (size < min_entry[t] || rt_add(off, count * size, &end) || end > n)
            return rt_fail(&p->r, "the cubin's %s headers lie outside its %zu bytes",
                           t ? "section" : "program", n);
        for (uint64_t i = 0; i < count; i++) {
            const uint8_t *h = e + off + i * size;
            uint64_t at = rt_le64(h + (t ? 0x18 : 0x08)), length = rt_le64(h + 0x20);
            int placed = t ? rt_le32(h + 4) != 8 /* SHT_NOBITS */ : 1;
            if (placed && (rt_add(at, length, &end) || end > n))
                return rt_fail(&p->r, "the cubin's %s %llu lies outside its %zu bytes",
                               t ? "section" : "segment", (unsigned long long)i, n);
        }
    }
    return 0;
}

static int parse_manifest(parser *p)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    char what[64];
    for (int results = 0; results < 2; results++) {
        uint32_t n;
        if (rt_read_count(r, &n, MIN_TENSOR, results ? "results" : "arguments"))
            return -1;
        rt_tensor *ts = alloc(p, n ? n : 1, sizeof *ts);
        if (ts == NULL)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            snprintf(what, sizeof what, "%s %u", results ? "result" : "argument", i);
            if (read_tensor(p, &ts[i], what))
                return -1;
        }
        if (results) {
            b->num_results = n;
            b->results = ts;
        } else {
            b->num_arguments = n;
            b->arguments = ts;
        }
    }
    if (rt_read_count(r, &b->num_kernels, MIN_KERNEL, "kernels"))
        return -1;
    uint32_t nk = b->num_kernels;
    b->kernels = alloc(p, nk ? nk : 1, sizeof *b->kernels);
    rt_kernel **sorted = alloc(p, nk ? nk : 1, sizeof *sorted);
    b->kernels_by_name = alloc(p, nk ? nk : 1, sizeof *b->kernels_by_name);
    if (b->kernels == NULL || sorted == NULL || b->kernels_by_name == NULL)
        return -1;
    for (uint32_t i = 0; i < nk; i++) {
        const uint8_t *name;
        uint32_t n;
        snprintf(what, sizeof what, "kernel %u's name", i);
        if (read_name(p, &name, &n, what) || rt_read_u8(r, &b->kernels[i].module))
            return -1;
        if (b->kernels[i].module > 1)
            return rt_fail(r, "kernel %u's module is %u, not 0 (the ptx section) or 1 (kernel "
                           "modules)", i, b->kernels[i].module);
        if ((b->kernels[i].name = copy_text(p, name, n)) == NULL)
            return -1;
        sorted[i] = &b->kernels[i];
    }
    qsort(sorted, nk, sizeof *sorted, by_name);
    for (uint32_t i = 0; i < nk; i++) {
        if (i > 0 && strcmp(sorted[i - 1]->name, sorted[i]->name) == 0)
            return rt_fail(r, "kernel '%s' is named twice", sorted[i]->name);
        b->kernels_by_name[i] = (uint32_t)(sorted[i] - b->kernels);
    }
    return rt_reader_end(r);
}

static int parse_modules(parser *p)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    uint32_t n;
    if (rt_read_count(r, &n, MIN_MODULE, "modules"))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *name, *ptx;
        uint32_t nn, np;
        char what[64], buf[80];
        snprintf(what, sizeof what, "module %u's kernel", i);
        if (read_name(p, &name, &nn, what))
            return -1;
        int64_t k = find_kernel(b, name, nn);
        if (k < 0 || b->kernels[k].module != 1)
            return rt_fail(r, "module %u's kernel %s is not a kernel-modules kernel of the "
                           "manifest", i, shown(name, nn, buf, sizeof buf));
        if (b->kernels[k].ptx != NULL)
            return rt_fail(r, "kernel '%s' has two modules", b->kernels[k].name);
        snprintf(what, sizeof what, "module %u's ptx", i);
        if (rt_read_str(r, &ptx, &np, what))
            return -1;
        if ((b->kernels[k].ptx = copy_text(p, ptx, np)) == NULL)
            return -1;
        b->kernels[k].ptx_size = (size_t)np + 1;
        if (np >= 4 && memcmp(ptx, "\x7f" "ELF", 4) == 0)
            return rt_fail(r, "kernel '%s's module is an ELF file, not PTX text",
                           b->kernels[k].name);
        if (kernel_params(p, b->kernels[k].ptx, np, 1, &b->kernels[k]))
            return -1;
    }
    for (uint32_t k = 0; k < b->num_kernels; k++)
        if (b->kernels[k].module == 1 && b->kernels[k].ptx == NULL)
            return rt_fail(r, "kernel '%s' has no module", b->kernels[k].name);
    return rt_reader_end(r);
}

/* ---- program ----------------------------------------------------------------------------- */

/* Where the parse is among the steps, for messages: "step 3 of the body of step 1". */
static const char *where(const parser *p, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = p->depth - 1; k >= 0 && n < size; k--) {
        int w = k == p->depth - 1
                    ? snprintf(buf + n, size - n, "step %u", p->frames[k].step)
                    : snprintf(buf + n, size - n, " of the %s of step %u",
                               p->frames[k + 1].list, p->frames[k].step);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return buf;
}

/* rt_fail with the step the parse is in (if any) in front. */
static int fail_at(parser *p, const char *format, ...) RT_PRINTF(2, 3);
static int fail_at(parser *p, const char *format, ...)
{
    char message[320], place[200];
    va_list args;
    va_start(args, format);
    rt_vformat(message, sizeof message, format, args);
    va_end(args);
    if (p->depth == 0)
        return rt_fail(&p->r, "%s", message);
    return rt_fail(&p->r, "%s: %s", where(p, place, sizeof place), message);
}

/* "parameter 2", "the flag": a field named by a label and an index (-1: none). */
static const char *field(const char *label, int64_t index, char *buf, size_t size)
{
    if (index < 0)
        snprintf(buf, size, "%s", label);
    else
        snprintf(buf, size, "%s %lld", label, (long long)index);
    return buf;
}

static int read_ref(parser *p, rt_ref *ref, const char *label, int64_t index)
{
    if (rt_read_u32(&p->r, &ref->slot) || rt_read_u64(&p->r, &ref->offset))
        return -1;
    char f[64];
    if (ref->slot >= p->b->num_slots)
        return fail_at(p, "%s names slot %u, past the %u slots",
                       field(label, index, f, sizeof f), ref->slot, p->b->num_slots);
    return 0;
}

/* A ref through which `nbytes` are read or written (`writes`); a pointer parameter is a ref
 * of 0 bytes. */
static int check_ref(parser *p, const rt_ref *ref, uint64_t nbytes, int writes,
                     const char *label, int64_t index)
{
    const rt_slot *s = &p->b->slots[ref->slot];
    char f[64];
    if (s->kind == RT_SLOT_STATE) {
        if (ref->offset != 0)
            return fail_at(p, "%s is at offset %llu of state slot %u (state refs are at "
                           "offset 0)", field(label, index, f, sizeof f),
                           (unsigned long long)ref->offset, ref->slot);
        if (!p->bound[ref->slot])
            return fail_at(p, "%s names state slot %u, which no loop has bound there",
                           field(label, index, f, sizeof f), ref->slot);
        if (nbytes > p->room[ref->slot])
            return fail_at(p, "%s spans %llu bytes of state slot %u, whose buffers hold %llu",
                           field(label, index, f, sizeof f), (unsigned long long)nbytes,
                           ref->slot, (unsigned long long)p->room[ref->slot]);
    } else {
        uint64_t end;
        if (rt_add(ref->offset, nbytes, &end) || end > s->nbytes)
            return fail_at(p, "%s spans %llu bytes from byte %llu of slot %u, past its %llu "
                           "bytes", field(label, index, f, sizeof f),
                           (unsigned long long)nbytes, (unsigned long long)ref->offset,
                           ref->slot, (unsigned long long)s->nbytes);
    }
    if (writes && (s->kind == RT_SLOT_ARGUMENT || s->kind == RT_SLOT_CONSTANT))
        return fail_at(p, "%s writes into slot %u, %s slot", field(label, index, f, sizeof f),
                       ref->slot, s->kind == RT_SLOT_ARGUMENT ? "an argument" : "a constant");
    return 0;
}

/* Whether a copy of `nbytes` from `b` to `a` (checked refs) reads bytes it also writes, short
 * of being one place (which copies nothing): the device's result would be undefined. State
 * slots are bound to buffers that do not overlap. */
static int overlap(const parser *p, const rt_ref *a, const rt_ref *b, uint64_t nbytes)
{
    if (a->slot != b->slot || p->b->slots[a->slot].kind == RT_SLOT_STATE || a->offset == b->offset)
        return 0;
    uint64_t gap = a->offset > b->offset ? a->offset - b->offset : b->offset - a->offset;
    return gap < nbytes;
}

static int parse_steps(parser *p, rt_steps *out, const char *list);

static int parse_launch(parser *p, rt_step *step)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    const uint8_t *name;
    uint32_t n;
    char buf[80];
    if (read_name(p, &name, &n, "a launch's kernel name"))
        return -1;
    int64_t k = find_kernel(b, name, n);
    if (k < 0)
        return fail_at(p, "it launches kernel %s, which the manifest does not list",
                       shown(name, n, buf, sizeof buf));
    step->u.launch.kernel = (uint32_t)k;
    uint32_t *dims[2] = {step->u.launch.grid, step->u.launch.block};
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 3; i++) {
            if (rt_read_u32(r, &dims[g][i]))
                return -1;
            if (dims[g][i] == 0)
                return fail_at(p, "%s dim %d is 0", g ? "block" : "grid", i);
        }
    uint64_t threads = (uint64_t)step->u.launch.block[0] * step->u.launch.block[1] *
                       (uint64_t)step->u.launch.block[2];
    if (threads > MAX_BLOCK_THREADS)
        return fail_at(p, "blocks of %llu threads, past %d", (unsigned long long)threads,
                       MAX_BLOCK_THREADS);
    if (rt_read_u32(r, &step->u.launch.shared_bytes))
        return -1;
    if (step->u.launch.shared_bytes > MAX_SHARED_BYTES)
        return fail_at(p, "%u bytes of shared memory, past %u", step->u.launch.shared_bytes,
                       MAX_SHARED_BYTES);
    if (rt_read_count(r, &step->u.launch.num_params, MIN_PARAM, "launch parameters"))
        return -1;
    uint32_t np = step->u.launch.num_params;
    if (np != b->kernels[k].num_params)
        return fail_at(p, "it passes %u parameters to kernel '%s', whose .entry declares %u",
                       np, b->kernels[k].name, b->kernels[k].num_params);
    step->u.launch.params = alloc(p, np ? np : 1, sizeof(rt_param));
    if (step->u.launch.params == NULL)
        return -1;
    for (uint32_t i = 0; i < np; i++) {
        rt_param *param = &step->u.launch.params[i];
        if (rt_read_u8(r, &param->tag))
            return -1;
        if (param->tag == RT_PARAM_REF) {
            if (read_ref(p, &param->ref, "parameter", i) ||
                check_ref(p, &param->ref, 0, 0, "parameter", i))
                return -1;
        } else if (param->tag == RT_PARAM_SCALAR) {
            if (rt_read_i64(r, &param->scalar))
                return -1;
        } else
            return fail_at(p, "parameter %u has tag %u, not 1 (ref) or 2 (scalar)", i,
                           param->tag);
    }
    step->u.launch.first_param = b->num_launch_params;
    b->num_launch_params += np;         /* at most the section's bytes / 9: no overflow */
    return 0;
}

static int parse_loop(parser *p, rt_step *step)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    if (p->depth > RT_MAX_LOOP_DEPTH)
        return fail_at(p, "loops nest %d deep, past %d", p->depth, RT_MAX_LOOP_DEPTH);
    if (rt_read_u32(r, &step->u.loop.item))
        return -1;
    if (rt_read_count(r, &step->u.loop.num_states, MIN_STATE, "loop states"))
        return -1;
    uint32_t ns = step->u.loop.num_states;
    rt_state *states = step->u.loop.states = alloc(p, ns ? ns : 1, sizeof(rt_state));
    if (states == NULL)
        return -1;
    for (uint32_t i = 0; i < ns; i++) {
        rt_state *s = &states[i];
        if (rt_read_u32(r, &s->current) || rt_read_u32(r, &s->next))
            return -1;
        uint32_t pair[2] = {s->current, s->next};
        for (int j = 0; j < 2; j++) {
            const char *role = j ? "next" : "current";
            if (pair[j] >= b->num_slots)
                return fail_at(p, "state %u's %s slot is %u, past the %u slots", i, role,
                               pair[j], b->num_slots);
            if (b->slots[pair[j]].kind != RT_SLOT_STATE)
                return fail_at(p, "state %u's %s slot %u is %s slot", i, role, pair[j],
                               slot_kind(b->slots[pair[j]].kind));
            if (p->owned[pair[j]])
                return fail_at(p, "state %u's %s slot %u is a state slot of another state", i,
                               role, pair[j]);
            p->owned[pair[j]] = 1;
        }
        rt_ref *buffers[2] = {&s->first, &s->second};
        uint64_t room = UINT64_MAX;
        for (int j = 0; j < 2; j++) {
            const char *label = j ? "the second buffer of state" : "the first buffer of state";
            if (read_ref(p, buffers[j], label, i))
                return -1;
            const rt_slot *slot = &b->slots[buffers[j]->slot];
            if (slot->kind == RT_SLOT_STATE)
                return fail_at(p, "%s %u is in state slot %u", label, i, buffers[j]->slot);
            if (check_ref(p, buffers[j], 0, 1, label, i))
                return -1;
            uint64_t left = slot->nbytes - buffers[j]->offset;
            room = left < room ? left : room;
        }
        p->room[s->current] = p->room[s->next] = room;
        p->bound[s->current] = p->bound[s->next] = 1;
    }
    if (read_ref(p, &step->u.loop.flag, "the flag", -1))
        return -1;
    if (b->slots[step->u.loop.flag.slot].kind == RT_SLOT_STATE)
        return fail_at(p, "the flag is in state slot %u", step->u.loop.flag.slot);
    if (check_ref(p, &step->u.loop.flag, 1, 0, "the flag", -1))
        return -1;
    return parse_steps(p, &step->u.loop.cond, "cond") ||
           parse_steps(p, &step->u.loop.body, "body");
}

static int parse_host(parser *p)
{
    rt_reader *r = &p->r;
    uint32_t item, n;
    const uint8_t *kind, *module;
    uint32_t nk, nm;
    if (rt_read_u32(r, &item) || rt_read_str(r, &kind, &nk, "a host step's kind") ||
        rt_read_str(r, &module, &nm, "a host step's module"))
        return -1;
    for (int outputs = 0; outputs < 2; outputs++) {
        const char *label = outputs ? "output" : "input";
        if (rt_read_count(r, &n, MIN_OPERAND, outputs ? "host outputs" : "host inputs"))
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            rt_ref ref;
            rt_tensor t;
            if (read_ref(p, &ref, label, i) || read_tensor(p, &t, label) ||
                check_ref(p, &ref, t.nbytes, outputs, label, i))
                return -1;
        }
    }
    if (!p->host_found) {
        p->host_found = 1;
        p->host_item = item;
        shown(kind, nk, p->host_kind, sizeof p->host_kind);
    }
    return 0;
}

/* A list of steps (`list`: "program", "cond", "body"); the states its loops bind stay bound
 * to its end (for the copies after a loop), then are released, except at the top, whose
 * caller checks the results. */
static int parse_steps(parser *p, rt_steps *out, const char *list)
{
    rt_reader *r = &p->r;
    if (rt_read_count(r, &out->count, MIN_STEP, "steps"))
        return -1;
    out->steps = alloc(p, out->count ? out->count : 1, sizeof(rt_step));
    if (out->steps == NULL)
        return -1;
    frame *f = &p->frames[p->depth++];
    f->list = list;
    for (uint32_t i = 0; i < out->count; i++) {
        rt_step *step = &out->steps[i];
        f->step = i;
        if (rt_read_u8(r, &step->tag))
            return -1;
        int failed = 0;
        switch (step->tag) {
        case RT_STEP_LAUNCH:
            failed = parse_launch(p, step);
            break;
        case RT_STEP_MEMSET:
            failed = read_ref(p, &step->u.memset.target, "the memset's target", -1) ||
                     rt_read_u64(r, &step->u.memset.nbytes) ||
                     rt_read_u8(r, &step->u.memset.value) ||
                     check_ref(p, &step->u.memset.target, step->u.memset.nbytes, 1,
                               "the memset's target", -1);
            break;
        case RT_STEP_COPY:
            failed = read_ref(p, &step->u.copy.target, "the copy's target", -1) ||
                     read_ref(p, &step->u.copy.source, "the copy's source", -1) ||
                     rt_read_u64(r, &step->u.copy.nbytes) ||
                     check_ref(p, &step->u.copy.target, step->u.copy.nbytes, 1,
                               "the copy's target", -1) ||
                     check_ref(p, &step->u.copy.source, step->u.copy.nbytes, 0,
                               "the copy's source", -1);
            if (!failed && overlap(p, &step->u.copy.target, &step->u.copy.source,
                                   step->u.copy.nbytes))
                failed = fail_at(p, "the copy's source and target overlap (%llu bytes at "
                                 "offsets %llu and %llu of slot %u)",
                                 (unsigned long long)step->u.copy.nbytes,
                                 (unsigned long long)step->u.copy.source.offset,
                                 (unsigned long long)step->u.copy.target.offset,
                                 step->u.copy.target.slot);
            break;
        case RT_STEP_LOOP:
            failed = parse_loop(p, step);
            break;
        case RT_STEP_HOST:
            failed = parse_host(p);
            break;
        default:
            failed = fail_at(p, "tag %u (at byte %zu) is not a step's (1 launch, 2 memset, "
                             "3 copy, 4 loop, 5 host)", step->tag, r->pos - 1);
        }
        if (failed)
            return -1;
    }
    p->depth--;
    if (p->depth > 0)
        for (uint32_t i = 0; i < out->count; i++)
            if (out->steps[i].tag == RT_STEP_LOOP)
                for (uint32_t j = 0; j < out->steps[i].u.loop.num_states; j++) {
                    p->bound[out->steps[i].u.loop.states[j].current] = 0;
                    p->bound[out->steps[i].u.loop.states[j].next] = 0;
                }
    return 0;
}

static int parse_slots(parser *p)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    if (rt_read_count(r, &b->num_slots, MIN_SLOT, "slots"))
        return -1;
    uint32_t n = b->num_slots ? b->num_slots : 1;
    b->slots = alloc(p, n, sizeof(rt_slot));
    p->bound = alloc(p, n, 1);
    p->owned = alloc(p, n, 1);
    p->room = alloc(p, n, sizeof(uint64_t));
    uint8_t *result_seen = alloc(p, b->num_results ? b->num_results : 1, 1);
    if (b->slots == NULL || p->bound == NULL || p->owned == NULL || p->room == NULL ||
        result_seen == NULL)
        return -1;
    for (uint32_t i = 0; i < b->num_slots; i++) {
        rt_slot *s = &b->slots[i];
        uint64_t n_data;
        if (rt_read_u8(r, &s->kind))
            return -1;
        if (s->kind >= RT_SLOT_KINDS)
            return rt_fail(r, "slot %u has kind %u, not one of 0-5", i, s->kind);
        if (rt_read_i64(r, &s->position) || rt_read_u64(r, &s->nbytes) ||
            rt_read_u64(r, &n_data))
            return -1;
        const char *kind = slot_kind(s->kind);
        if (s->kind == RT_SLOT_ARGUMENT || s->kind == RT_SLOT_RESULT) {
            int args = s->kind == RT_SLOT_ARGUMENT;
            uint32_t count = args ? b->num_arguments : b->num_results;
            if (s->position < 0 || s->position >= (int64_t)count)
                return rt_fail(r, "slot %u (%s) has position %lld, not below the %u %ss", i,
                               kind, (long long)s->position, count, kind);
            const rt_tensor *t = args ? &b->arguments[s->position] : &b->results[s->position];
            if (s->nbytes != t->nbytes)
                return rt_fail(r, "slot %u (%s %lld) has %llu bytes, but %s %lld has %llu", i,
                               kind, (long long)s->position, (unsigned long long)s->nbytes,
                               kind, (long long)s->position, (unsigned long long)t->nbytes);
            if (!args) {
                if (result_seen[s->position])
                    return rt_fail(r, "slot %u is a second result slot at position %lld", i,
                                   (long long)s->position);
                result_seen[s->position] = 1;
            }
        } else if (s->position != -1)
            return rt_fail(r, "slot %u (%s) has position %lld, not -1", i, kind,
                           (long long)s->position);
        if (s->nbytes >= MAX_SLOT_BYTES)
            return rt_fail(r, "slot %u has %llu bytes, not below 2^48", i,
                           (unsigned long long)s->nbytes);
        if (s->kind == RT_SLOT_STATE && s->nbytes != 0)
            return rt_fail(r, "slot %u (state) has %llu bytes, not 0", i,
                           (unsigned long long)s->nbytes);
        uint64_t want = s->kind == RT_SLOT_CONSTANT ? s->nbytes : 0;
        if (n_data != want)
            return rt_fail(r, "slot %u (%s) holds %llu bytes of data, not %llu", i, kind,
                           (unsigned long long)n_data, (unsigned long long)want);
        char what[48];
        snprintf(what, sizeof what, "slot %u's data", i);
        if (n_data > rt_reader_left(r))     /* before it is narrowed to a size_t */
            return rt_fail(r, "%s is %llu bytes, past the %zu bytes left", what,
                           (unsigned long long)n_data, rt_reader_left(r));
        if (rt_read_bytes(r, (size_t)n_data, &s->data, what))
            return -1;
        const uint8_t *note;
        uint32_t nn;
        snprintf(what, sizeof what, "slot %u's note", i);
        if (rt_read_str(r, &note, &nn, what))
            return -1;
    }
    return 0;
}

static int parse_program(parser *p)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    uint32_t n;
    if (parse_slots(p))
        return -1;
    if (rt_read_count(r, &n, MIN_ARGUMENT, "arguments"))
        return -1;
    if (n != b->num_arguments)
        return rt_fail(r, "%u arguments, but the manifest has %u", n, b->num_arguments);
    b->argument_slots = alloc(p, n ? n : 1, sizeof(int64_t));
    if (b->argument_slots == NULL)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t s;
        if (rt_read_i64(r, &s))
            return -1;
        if (s < -1 || s >= (int64_t)b->num_slots)
            return rt_fail(r, "argument %u names slot %lld, not -1 or one of the %u slots", i,
                           (long long)s, b->num_slots);
        if (s >= 0 && (b->slots[s].kind != RT_SLOT_ARGUMENT || b->slots[s].position != i))
            return rt_fail(r, "argument %u names slot %lld, which is not the argument slot at "
                           "position %u", i, (long long)s, i);
        b->argument_slots[i] = s;
    }
    for (uint32_t s = 0; s < b->num_slots; s++)
        if (b->slots[s].kind == RT_SLOT_ARGUMENT &&
            b->argument_slots[b->slots[s].position] != (int64_t)s)
            return rt_fail(r, "slot %u (argument %lld) is not the one argument %lld names", s,
                           (long long)b->slots[s].position, (long long)b->slots[s].position);
    if (rt_read_count(r, &n, MIN_OPERAND, "results"))
        return -1;
    if (n != b->num_results)
        return rt_fail(r, "%u results, but the manifest has %u", n, b->num_results);
    b->result_refs = alloc(p, n ? n : 1, sizeof(rt_ref));
    if (b->result_refs == NULL)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        rt_tensor t;
        char what[48];
        snprintf(what, sizeof what, "result %u", i);
        /* its ref is checked after the steps, which may bind the state slot it names */
        if (read_ref(p, &b->result_refs[i], "result", i) || read_tensor(p, &t, what))
            return -1;
        if (!same_tensor(&t, &b->results[i]))
            return rt_fail(r, "result %u's dtype or shape is not the manifest's result %u's",
                           i, i);
    }
    if (parse_steps(p, &b->steps, "program"))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const rt_ref *ref = &b->result_refs[i];
        const rt_slot *s = &b->slots[ref->slot];
        if (check_ref(p, ref, b->results[i].nbytes, 0, "result", i))
            return -1;
        if (s->kind == RT_SLOT_RESULT && (s->position != i || ref->offset != 0))
            return rt_fail(r, "result %u lies in slot %u, result %lld's (at offset %llu): a "
                           "result in a result slot is the one at its position, offset 0", i,
                           ref->slot, (long long)s->position,
                           (unsigned long long)ref->offset);
    }
    return rt_reader_end(r);
}

/* ---- header and sections ----------------------------------------------------------------- */

/* An ASCII field NUL-padded to `size` bytes, into `out` (size + 1 bytes). */
static int padded_ascii(rt_reader *r, const uint8_t *field, size_t size, char *out,
                        const char *what)
{
    size_t n = 0;
    while (n < size && field[n] != 0) {
        if (field[n] < 0x20 || field[n] >= 0x7F)
            return rt_fail(r, "the %s holds a byte (0x%02x) that is not printable ASCII", what,
                           field[n]);
        n++;
    }
    for (size_t i = n; i < size; i++)
        if (field[i] != 0)
            return rt_fail(r, "the %s is not NUL-padded", what);
    if (n == 0)
        return rt_fail(r, "the %s is empty", what);
    memcpy(out, field, n);
    out[n] = '\0';
    return 0;
}

/* sm_<major><minor>, maybe an 'a': the architecture's compute capability. */
static int parse_target(rt_reader *r, accyrt_bundle *b)
{
    const char *t = b->target;
    size_t n = strlen(t), digits = 0;
    b->target_specific = n > 0 && t[n - 1] == 'a';
    size_t end = n - (size_t)b->target_specific;
    if (strncmp(t, "sm_", 3) == 0)
        while (3 + digits < end && t[3 + digits] >= '0' && t[3 + digits] <= '9')
            digits++;
    if (strncmp(t, "sm_", 3) != 0 || digits < 2 || digits > 4 || 3 + digits != end)
        return rt_fail(r, "the target arch '%s' is not sm_<major><minor> (with maybe an 'a')",
                       t);
    b->target_major = 0;
    for (size_t i = 3; i + 1 < end; i++)
        b->target_major = b->target_major * 10 + (t[i] - '0');
    b->target_minor = t[end - 1] - '0';
    return 0;
}

typedef struct section {
    uint32_t kind, crc;
    uint64_t offset, length;
} section;

static int by_offset(const void *a, const void *b)
{
    const section *sa = *(const section *const *)a, *sb = *(const section *const *)b;
    return sa->offset < sb->offset ? -1 : sa->offset > sb->offset;
}

/* UTF-8 text with no NUL (the info section's JSON is Python's to read). */
static int text_section(parser *p, const section *s, const char *what)
{
    const uint8_t *data = p->b->bytes + s->offset;
    if (!rt_valid_utf8(data, (size_t)s->length))
        return rt_fail(&p->r, "the %s is not UTF-8", what);
    const uint8_t *nul = memchr(data, 0, (size_t)s->length);
    if (nul != NULL)
        return rt_fail(&p->r, "the %s holds a NUL at byte %zu", what, (size_t)(nul - data));
    return 0;
}

static int parse_bundle(parser *p)
{
    accyrt_bundle *b = p->b;
    rt_reader *r = &p->r;
    const uint8_t *h = b->bytes;
    rt_reader_init(r, b->bytes, b->size, "header");
    if (b->size < HEADER_BYTES)
        return rt_fail(r, "the file is %zu bytes, shorter than the %d-byte header", b->size,
                       HEADER_BYTES);
    if (memcmp(h, "ACCYBNDL", 8) != 0)
        return rt_fail(r, "no ACCYBNDL magic: not a bundle");
    uint32_t version = rt_le32(h + 8), count = rt_le32(h + 12);
    if (version > ACCYRT_FORMAT_VERSION) {     /* a newer writer's: not malformed */
        r->error = rt_status(ACCYRT_UNSUPPORTED, "bundle: header: format version %u; this "
                             "runtime reads version %d", version, ACCYRT_FORMAT_VERSION);
        return -1;
    }
    if (version != ACCYRT_FORMAT_VERSION)
        return rt_fail(r, "format version %u; this runtime reads version %d", version,
                       ACCYRT_FORMAT_VERSION);
    if (count > MAX_SECTIONS)
        return rt_fail(r, "%u sections, past the limit of %d", count, MAX_SECTIONS);
    uint64_t file_size = rt_le64(h + 16);
    if (file_size != b->size)
        return rt_fail(r, "it gives a file size of %llu bytes; the file has %zu",
                       (unsigned long long)file_size, b->size);
    size_t table_end = HEADER_BYTES + (size_t)count * ENTRY_BYTES;
    if (table_end > b->size)
        return rt_fail(r, "the table of %u sections ends at byte %zu, past the file's %zu bytes",
                       count, table_end, b->size);
    uint8_t zero[4] = {0, 0, 0, 0};
    uint32_t crc = rt_crc32(0, h, 64);
    crc = rt_crc32(crc, zero, 4);
    crc = rt_crc32(crc, h + 68, table_end - 68);
    if (crc != rt_le32(h + 64))
        return rt_fail(r, "its CRC-32 is 0x%08x, the header and section table give 0x%08x",
                       rt_le32(h + 64), crc);
    if (rt_le32(h + 68) != 0)
        return rt_fail(r, "the reserved field is %u, not 0", rt_le32(h + 68));
    if (padded_ascii(r, h + 24, 24, b->accy_version, "accy version") ||
        padded_ascii(r, h + 48, 16, b->target, "target arch") || parse_target(r, b))
        return -1;

    section sections[MAX_SECTIONS];
    const section *by_kind[NUM_KINDS + 1] = {NULL};
    const section *sorted[MAX_SECTIONS];
    r->section = "section table";
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = h + HEADER_BYTES + (size_t)i * ENTRY_BYTES;
        section *s = &sections[i];
        s->kind = rt_le32(e);
        s->crc = rt_le32(e + 4);
        s->offset = rt_le64(e + 8);
        s->length = rt_le64(e + 16);
        uint64_t end;
        if (s->kind < 1 || s->kind > NUM_KINDS)
            return rt_fail(r, "entry %u has kind %u, which this runtime does not know", i,
                           s->kind);
        if (by_kind[s->kind] != NULL)
            return rt_fail(r, "the %s appears twice", SECTION_NAMES[s->kind]);
        by_kind[s->kind] = s;
        if (s->offset < table_end)
            return rt_fail(r, "the %s starts at byte %llu, inside the header or table (which "
                           "end at %zu)", SECTION_NAMES[s->kind],
                           (unsigned long long)s->offset, table_end);
        if (rt_add(s->offset, s->length, &end) || end > b->size)
            return rt_fail(r, "the %s (%llu bytes at %llu) runs past the file's %zu bytes",
                           SECTION_NAMES[s->kind], (unsigned long long)s->length,
                           (unsigned long long)s->offset, b->size);
        sorted[i] = s;
    }
    /* an empty section overlaps nothing: only the others are ordered */
    uint32_t spans = 0;
    for (uint32_t i = 0; i < count; i++)
        if (sorted[i]->length > 0)
            sorted[spans++] = sorted[i];
    qsort(sorted, spans, sizeof sorted[0], by_offset);
    for (uint32_t i = 1; i < spans; i++)
        if (sorted[i - 1]->offset + sorted[i - 1]->length > sorted[i]->offset)
            return rt_fail(r, "the %s and the %s overlap", SECTION_NAMES[sorted[i - 1]->kind],
                           SECTION_NAMES[sorted[i]->kind]);
    for (uint32_t i = 0; i < count; i++) {
        const section *s = &sections[i];
        uint32_t got = rt_crc32(0, b->bytes + s->offset, (size_t)s->length);
        if (got != s->crc)
            return rt_fail(r, "the %s's CRC-32 is 0x%08x; the table gives 0x%08x",
                           SECTION_NAMES[s->kind], got, s->crc);
    }
    static const int required[] = {KIND_MANIFEST, KIND_PROGRAM, KIND_TEXT, KIND_INFO};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (by_kind[required[i]] == NULL)
            return rt_fail(r, "the bundle has no %s", SECTION_NAMES[required[i]]);

    const section *s = by_kind[KIND_MANIFEST];
    rt_reader_init(r, b->bytes + s->offset, (size_t)s->length, SECTION_NAMES[KIND_MANIFEST]);
    if (parse_manifest(p))
        return -1;
    int generated = 0, called = 0;
    for (uint32_t k = 0; k < b->num_kernels; k++) {
        generated |= b->kernels[k].module == 0;
        called |= b->kernels[k].module == 1;
    }
    r->section = "section table";
    if (generated && by_kind[KIND_PTX] == NULL)
        return rt_fail(r, "the manifest lists generated kernels, but there is no ptx section");
    if (generated && by_kind[KIND_PTX]->length == 0)
        return rt_fail(r, "the manifest lists generated kernels, but the ptx section is empty");
    if (called && by_kind[KIND_MODULES] == NULL)
        return rt_fail(r, "the manifest lists kernel_call kernels, but there is no kernel "
                       "modules section");
    if ((s = by_kind[KIND_MODULES]) != NULL) {
        rt_reader_init(r, b->bytes + s->offset, (size_t)s->length, SECTION_NAMES[KIND_MODULES]);
        if (parse_modules(p))
            return -1;
    }
    if ((s = by_kind[KIND_PTX]) != NULL) {
        const uint8_t *ptx = b->bytes + s->offset;
        r->section = SECTION_NAMES[KIND_PTX];
        if (text_section(p, s, "PTX"))
            return -1;
        if (s->length >= 4 && memcmp(ptx, "\x7f" "ELF", 4) == 0)
            return rt_fail(r, "the ptx section is an ELF file, not PTX text");
        if ((b->ptx = copy_text(p, ptx, (size_t)s->length)) == NULL)
            return -1;
        b->ptx_size = (size_t)s->length + 1;
        if (kernel_params(p, b->ptx, (size_t)s->length, 0, NULL))
            return -1;
    }
    if ((s = by_kind[KIND_CUBIN]) != NULL) {
        r->section = SECTION_NAMES[KIND_CUBIN];
        if (check_elf(p, b->bytes + s->offset, (size_t)s->length))
            return -1;
        b->cubin = b->bytes + s->offset;
        b->cubin_size = (size_t)s->length;
    }
    s = by_kind[KIND_PROGRAM];
    rt_reader_init(r, b->bytes + s->offset, (size_t)s->length, SECTION_NAMES[KIND_PROGRAM]);
    if (parse_program(p))
        return -1;
    r->section = SECTION_NAMES[KIND_TEXT];
    if (text_section(p, by_kind[KIND_TEXT], "module text"))
        return -1;
    r->section = SECTION_NAMES[KIND_INFO];
    if (text_section(p, by_kind[KIND_INFO], "info"))
        return -1;
    if (p->host_found) {
        r->error = rt_status(ACCYRT_UNSUPPORTED, "bundle: the host program has a host step "
                             "(item %u, %s): libaccyrt runs no host fallbacks (accy's Python "
                             "runtime does)", p->host_item, p->host_kind);
        return -1;
    }
    return 0;
}

/* Takes `bytes` (malloc'd, `size` bytes): the bundle owns them from here, or frees them. */
static accyrt_status *open_owned(uint8_t *bytes, size_t size, accyrt_bundle **out)
{
    accyrt_bundle *b = calloc(1, sizeof *b);
    if (b == NULL) {
        free(bytes);
        return &rt_out_of_memory;
    }
    b->bytes = bytes;
    b->size = size;
    parser p;
    memset(&p, 0, sizeof p);
    p.b = b;
    if (parse_bundle(&p)) {
        accyrt_status *error = p.r.error != NULL ? p.r.error
                                                 : rt_status(ACCYRT_BAD_BUNDLE, "bundle: refused");
        accyrt_bundle_free(b);
        return error;
    }
    *out = b;
    return NULL;
}

ACCYRT_API accyrt_status *accyrt_bundle_open_memory(const void *data, size_t size,
                                                    accyrt_bundle **out)
{
    if (out == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_bundle_open_memory: out is NULL");
    *out = NULL;
    if (data == NULL && size > 0)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_bundle_open_memory: data is NULL");
    uint8_t *bytes = malloc(size ? size : 1);
    if (bytes == NULL)
        return &rt_out_of_memory;
    if (size)
        memcpy(bytes, data, size);
    return open_owned(bytes, size, out);
}

ACCYRT_API accyrt_status *accyrt_bundle_open_file(const char *path, accyrt_bundle **out)
{
    if (out == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_bundle_open_file: out is NULL");
    *out = NULL;
    if (path == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_bundle_open_file: path is NULL");
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return rt_status(ACCYRT_IO, "bundle: cannot open %s: %s", path, strerror(errno));
    /* The header first, then no more than the file size it gives, and one byte to tell a
     * longer file; the buffer grows as bytes come, so a lying header costs no memory. */
    uint8_t *bytes = malloc(HEADER_BYTES);
    size_t size = 0, capacity = HEADER_BYTES;
    uint64_t limit = HEADER_BYTES - 1;
    accyrt_status *error = NULL;
    while (bytes != NULL && size <= limit) {
        if (size == capacity) {
            size_t grown = capacity <= (limit + 1) / 2 ? capacity * 2 : (size_t)limit + 1;
            uint8_t *more = realloc(bytes, grown);
            if (more == NULL) {
                free(bytes);
                bytes = NULL;
                break;
            }
            bytes = more;
            capacity = grown;
        }
        size_t want = capacity - size;
        size_t got = fread(bytes + size, 1, want, f);
        size += got;
        if (got < want) {
            if (ferror(f))
                error = rt_status(ACCYRT_IO, "bundle: cannot read %s: %s", path,
                                  strerror(errno));
            break;
        }
        if (size == HEADER_BYTES && limit == HEADER_BYTES - 1 &&
            memcmp(bytes, "ACCYBNDL", 8) == 0) {
            uint64_t declared = rt_le64(bytes + 16);
            if (declared > HEADER_BYTES)
                limit = declared < SIZE_MAX / 4 ? declared : SIZE_MAX / 4;
            else
                limit = HEADER_BYTES;
        }
    }
    fclose(f);
    if (bytes == NULL)
        return &rt_out_of_memory;
    if (error == NULL && size > limit && limit >= HEADER_BYTES)
        error = rt_status(ACCYRT_BAD_BUNDLE, "bundle: header: it gives a file size of %llu "
                          "bytes; %s is longer", (unsigned long long)rt_le64(bytes + 16), path);
    if (error != NULL) {
        free(bytes);
        return error;
    }
    return open_owned(bytes, size, out);
}

ACCYRT_API void accyrt_bundle_free(accyrt_bundle *bundle)
{
    if (bundle == NULL)
        return;
    rt_region_free(&bundle->region);
    free(bundle->bytes);
    free(bundle);
}

/* ---- queries ----------------------------------------------------------------------------- */

ACCYRT_API size_t accyrt_bundle_num_arguments(const accyrt_bundle *bundle)
{
    return bundle == NULL ? 0 : bundle->num_arguments;
}

ACCYRT_API size_t accyrt_bundle_num_results(const accyrt_bundle *bundle)
{
    return bundle == NULL ? 0 : bundle->num_results;
}

static accyrt_status *tensor_info(const char *call, const accyrt_bundle *bundle, size_t index,
                                  accyrt_tensor_info *out, int results)
{
    if (bundle == NULL || out == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "%s: %s is NULL", call,
                         bundle == NULL ? "bundle" : "out");
    if (out->struct_size != sizeof(accyrt_tensor_info))
        return rt_status(ACCYRT_INVALID_ARGUMENT, "%s: out->struct_size is %zu, not "
                         "sizeof(accyrt_tensor_info) (%zu)", call, out->struct_size,
                         sizeof(accyrt_tensor_info));
    size_t count = results ? bundle->num_results : bundle->num_arguments;
    if (index >= count)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "%s: index %zu is not below the %zu %s", call,
                         index, count, results ? "results" : "arguments");
    const rt_tensor *t = results ? &bundle->results[index] : &bundle->arguments[index];
    out->dtype = t->dtype;
    out->rank = t->rank;
    out->dims = t->dims;
    out->nbytes = t->nbytes;
    return NULL;
}

ACCYRT_API accyrt_status *accyrt_bundle_argument(const accyrt_bundle *bundle, size_t index,
                                                 accyrt_tensor_info *out)
{
    return tensor_info("accyrt_bundle_argument", bundle, index, out, 0);
}

ACCYRT_API accyrt_status *accyrt_bundle_result(const accyrt_bundle *bundle, size_t index,
                                               accyrt_tensor_info *out)
{
    return tensor_info("accyrt_bundle_result", bundle, index, out, 1);
}

ACCYRT_API const char *accyrt_bundle_target(const accyrt_bundle *bundle)
{
    return bundle == NULL ? "" : bundle->target;
}

ACCYRT_API const char *accyrt_bundle_accy_version(const accyrt_bundle *bundle)
{
    return bundle == NULL ? "" : bundle->accy_version;
}
