/* A fuzz driver for libaccyrt's bundle reader, built with the library's sources under ASan and
 * UBSan (tests/test_libaccyrt.py): seeded mutations of valid bundles go through
 * accyrt_bundle_open_memory, and those that still open are run on the null device.
 *
 *   fuzz_bundles [--dump DIR] SEED CASES BUNDLE...
 *
 * Most mutations change a section and then rewrite the file around it (offsets, lengths,
 * file size, every CRC), so that they reach the structure checks behind the CRCs; the others
 * change the header or section table, or cut the file (at every section boundary too). Every
 * case must give a clean status (OK, BAD_BUNDLE or UNSUPPORTED, with a "bundle: " message),
 * never a crash, a sanitizer report or a leak; a bundle that opens must run. Each valid seed is
 * also run with each device call failing in turn. Prints counts; exit 0 when all is well.
 * --dump writes every 8th case into DIR (caseN.accy) with the status it got (verdicts.txt), so
 * that the Python reader can be held to the same verdicts. */
#include <accyrt.h>

#include "devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER 72
#define ENTRY 24
#define MAX_SECTIONS 64

static int failures;
static unsigned long long counts[8], opened, ran, cases;
static unsigned long long by_section[8];       /* BAD_BUNDLE messages by section kind */

static const char *const SECTIONS[8] = {"header", "manifest section", "program section",
                                        "ptx section", "cubin section",
                                        "kernel modules section", "module text section",
                                        "info section"};

/* ---- a seeded generator (xorshift64*) ------------------------------------------------------ */

static uint64_t state;

static uint64_t next(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
}

static size_t below(size_t n)
{
    return n == 0 ? 0 : (size_t)(next() % n);
}

/* ---- bundles as sections, written back with every offset and CRC right ------------------- */

typedef struct section {
    uint32_t kind;
    unsigned char *data;
    size_t size;
} section;

typedef struct model {
    unsigned char header[HEADER];
    section sections[MAX_SECTIONS];
    int count;
} model;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t crc32(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

/* The header's CRC over the header (its CRC field zeroed) and the section table. */
static void fix_header_crc(unsigned char *file, size_t size)
{
    uint32_t count = le32(file + 12);
    size_t end = HEADER + (size_t)count * ENTRY;
    if (size < HEADER || end > size)
        return;
    put32(file + 64, 0);
    put32(file + 64, crc32(0, file, end));
}

static int parse_model(const unsigned char *file, size_t size, model *m)
{
    if (size < HEADER)
        return -1;
    memcpy(m->header, file, HEADER);
    m->count = (int)le32(file + 12);
    if (m->count > MAX_SECTIONS || HEADER + (size_t)m->count * ENTRY > size)
        return -1;
    for (int i = 0; i < m->count; i++) {
        const unsigned char *e = file + HEADER + (size_t)i * ENTRY;
        uint64_t offset = le64(e + 8), length = le64(e + 16);
        if (offset > size || length > size - offset)
            return -1;
        m->sections[i].kind = le32(e);
        m->sections[i].size = (size_t)length;
        m->sections[i].data = malloc(length + 1);
        memcpy(m->sections[i].data, file + offset, length);
    }
    return 0;
}

static void free_model(model *m)
{
    for (int i = 0; i < m->count; i++)
        free(m->sections[i].data);
}

static unsigned char *write_model(const model *m, size_t *size)
{
    size_t total = HEADER + (size_t)m->count * ENTRY;
    for (int i = 0; i < m->count; i++)
        total += m->sections[i].size;
    unsigned char *file = malloc(total);
    memcpy(file, m->header, HEADER);
    put32(file + 12, (uint32_t)m->count);
    put64(file + 16, total);
    size_t offset = HEADER + (size_t)m->count * ENTRY;
    for (int i = 0; i < m->count; i++) {
        unsigned char *e = file + HEADER + (size_t)i * ENTRY;
        const section *s = &m->sections[i];
        put32(e, s->kind);
        put32(e + 4, crc32(0, s->data, s->size));
        put64(e + 8, offset);
        put64(e + 16, s->size);
        memcpy(file + offset, s->data, s->size);
        offset += s->size;
    }
    fix_header_crc(file, total);
    *size = total;
    return file;
}

/* ---- one case ------------------------------------------------------------------------------ */

/* A session of `b` on `d` created, run twice on made-up addresses (the test devices touch no
 * memory) and freed: the first status that is not OK, or NULL. */
static accyrt_status *create_and_run_twice(const accyrt_bundle *b, const accyrt_device *d)
{
    accyrt_session *session = NULL;
    accyrt_status *s = accyrt_session_create(b, d, &session);
    size_t ni = accyrt_bundle_num_arguments(b), no = accyrt_bundle_num_results(b);
    uint64_t *inputs = calloc(ni + 1, 8), *outputs = calloc(no + 1, 8);
    if (inputs == NULL || outputs == NULL)
        s = s != NULL ? s : accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "fuzz: out of memory");
    for (size_t i = 0; s == NULL && i < ni; i++)
        inputs[i] = (uint64_t)(0x100 + i) << 40;
    for (size_t i = 0; s == NULL && i < no; i++)
        outputs[i] = (uint64_t)(0x200 + i) << 40;
    for (int r = 0; r < 2 && s == NULL; r++)
        s = accyrt_session_run(session, inputs, ni, outputs, no, NULL);
    accyrt_session_free(session);
    free(inputs);
    free(outputs);
    return s;
}

static void run_on_null_device(const accyrt_bundle *b)
{
    accyrt_device *d = accyrt_test_null_device();
    accyrt_status *s = create_and_run_twice(b, d);
    if (s == NULL)
        ran++;
    /* a valid bundle runs, unless the device cannot run its target */
    if (s != NULL && accyrt_status_code(s) != ACCYRT_UNSUPPORTED) {
        fprintf(stderr, "fuzz: a bundle that opens fails to run: %s\n",
                accyrt_status_message(s));
        failures++;
    }
    accyrt_status_free(s);
    if (accyrt_test_device_live(d) != 0) {
        fprintf(stderr, "fuzz: the null device is left with %lld allocations or modules\n",
                (long long)accyrt_test_device_live(d));
        failures++;
    }
    accyrt_test_device_free(d);
}

static const char *dump;       /* a folder to write every 8th mutated case into, or NULL */
static FILE *verdicts;

static void open_case(const unsigned char *file, size_t size, const char *mutation)
{
    cases++;
    if (dump != NULL && cases % 8 == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/case%llu.accy", dump, cases);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(file, 1, size, f) != size) {
            fprintf(stderr, "fuzz: cannot write %s\n", path);
            failures++;
        }
        if (f != NULL)
            fclose(f);
    }
    accyrt_bundle *b = (accyrt_bundle *)&state;
    accyrt_status *s = accyrt_bundle_open_memory(file, size, &b);
    accyrt_code code = accyrt_status_code(s);
    const char *message = accyrt_status_message(s);
    counts[code < 8 ? code : 7]++;
    int clean = code == ACCYRT_OK || code == ACCYRT_BAD_BUNDLE || code == ACCYRT_UNSUPPORTED;
    if (!clean || (code == ACCYRT_OK) != (b != NULL) ||
        (code != ACCYRT_OK && (strncmp(message, "bundle: ", 8) != 0 || strlen(message) > 700))) {
        fprintf(stderr, "fuzz: %s: code %d, bundle %p, message '%s'\n", mutation, (int)code,
                (void *)b, message);
        failures++;
    }
    if (code == ACCYRT_BAD_BUNDLE)
        for (int k = 7; k >= 0; k--)
            if (strncmp(message + 8, SECTIONS[k], strlen(SECTIONS[k])) == 0) {
                by_section[k]++;
                break;
            }
    if (dump != NULL && cases % 8 == 0)
        fprintf(verdicts, "case%llu.accy %d %s\n", cases, (int)code, message);
    accyrt_status_free(s);
    if (b != NULL && code == ACCYRT_OK) {
        opened++;
        run_on_null_device(b);
        accyrt_bundle_free(b);
    }
}

static const uint64_t INTERESTING[] = {
    0, 1, 2, 7, 8, 16, 17, 63, 64, 65, 255, 256, 1023, 1024, 1025, 232448, 232449, 0x7FFF,
    0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF, (uint64_t)1 << 32,
    ((uint64_t)1 << 48) - 1, (uint64_t)1 << 48, (uint64_t)1 << 62, ((uint64_t)1 << 63) - 1,
    (uint64_t)1 << 63, UINT64_MAX - 1, UINT64_MAX};

static uint64_t interesting(void)
{
    return next() % 4 == 0 ? next() : INTERESTING[below(sizeof INTERESTING / 8)];
}

/* A mutation of section contents, the file rewritten around it. */
static const char *mutate_section(model *m)
{
    section *s = &m->sections[below((size_t)m->count)];
    int kind = (int)below(7);
    size_t at = below(s->size + 1);
    switch (kind) {
    case 0:                 /* flip bits */
        if (s->size == 0)
            return "empty";
        for (size_t i = 1 + below(4); i > 0; i--)
            s->data[below(s->size)] ^= (unsigned char)(1u << below(8));
        return "bit flips";
    case 1:                 /* a u32 (a count, a slot id, a dim) of an interesting value */
        if (s->size < 4)
            return "short";
        put32(s->data + below(s->size - 3), (uint32_t)interesting());
        return "u32";
    case 2:                 /* a u64 (a size, an offset, a dim) */
        if (s->size < 8)
            return "short";
        put64(s->data + below(s->size - 7), interesting());
        return "u64";
    case 3: {               /* a count off by one either way */
        if (s->size < 4)
            return "short";
        size_t p = below(s->size - 3);
        put32(s->data + p, le32(s->data + p) + (next() & 1 ? 1u : 0xFFFFFFFFu));
        return "lying count";
    }
    case 4: {               /* bytes inserted */
        size_t n = 1 + below(16);
        unsigned char *grown = malloc(s->size + n + 1);
        memcpy(grown, s->data, at);
        for (size_t i = 0; i < n; i++)
            grown[at + i] = (unsigned char)next();
        memcpy(grown + at + n, s->data + at, s->size - at);
        free(s->data);
        s->data = grown;
        s->size += n;
        return "insert";
    }
    case 5: {               /* bytes deleted */
        size_t n = 1 + below(16);
        if (at + n > s->size)
            n = s->size - at;
        memmove(s->data + at, s->data + at + n, s->size - at - n);
        s->size -= n;
        return "delete";
    }
    default:                /* the section cut short */
        s->size = at;
        return "cut";
    }
}

/* A mutation of the header or section table (the header's CRC recomputed, or not). */
static const char *mutate_table(unsigned char *file, size_t size)
{
    uint32_t count = le32(file + 12);
    unsigned char *entry = file + HEADER + ENTRY * below(count ? count : 1);
    const char *what;
    switch (below(9)) {
    case 0:
        put32(entry, (uint32_t)below(10));
        what = "section kind";
        break;
    case 1:
        put64(entry + 8, interesting());
        what = "section offset";
        break;
    case 2:
        put64(entry + 16, interesting());
        what = "section length";
        break;
    case 3: {
        unsigned char *other = file + HEADER + ENTRY * below(count ? count : 1);
        memcpy(entry, other, 4);
        what = "duplicate kind";
        break;
    }
    case 4:
        put32(file + 8, (uint32_t)interesting());
        what = "version";
        break;
    case 5:
        put32(file + 12, (uint32_t)(count + (next() & 1 ? 1 : -1)));
        what = "section count";
        break;
    case 6:
        put64(file + 16, le64(file + 16) + (next() & 1 ? 1 : (uint64_t)-1));
        what = "file size";
        break;
    case 7:
        file[24 + below(40)] = (unsigned char)next();
        what = "version or target text";
        break;
    default:
        put32(file + 68, (uint32_t)interesting());
        what = "reserved";
    }
    if (next() % 8 != 0)
        fix_header_crc(file, size);
    return what;
}

static void fuzz(const unsigned char *seed, size_t size)
{
    model m;
    if (parse_model(seed, size, &m) != 0) {
        fprintf(stderr, "fuzz: a seed is not a bundle\n");
        failures++;
        return;
    }
    int kind = (int)below(10);
    unsigned char *file;
    size_t n;
    const char *what;
    if (kind < 6) {
        what = mutate_section(&m);
        if (next() % 4 == 0)
            mutate_section(&m);
        file = write_model(&m, &n);
    } else if (kind < 8) {
        file = write_model(&m, &n);
        what = mutate_table(file, n);
    } else if (kind < 9) {
        file = write_model(&m, &n);
        what = "raw bit flip";
        file[below(n)] ^= (unsigned char)(1u << below(8));
    } else {
        file = write_model(&m, &n);
        what = "truncation";
        n = below(n);
    }
    open_case(file, n, what);
    free(file);
    free_model(&m);
}

/* The seed cut at every section boundary and header field: as cut, and with the file size
 * and header CRC made to agree with the cut. */
static void truncations(const unsigned char *seed, size_t size)
{
    uint32_t count = le32(seed + 12);
    size_t cuts[2 * MAX_SECTIONS + 16], n = 0;
    static const size_t fields[] = {0, 8, 12, 16, 24, 48, 64, 68, HEADER};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        cuts[n++] = fields[i];
    cuts[n++] = HEADER + (size_t)count * ENTRY;
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *e = seed + HEADER + (size_t)i * ENTRY;
        cuts[n++] = (size_t)le64(e + 8);
        cuts[n++] = (size_t)(le64(e + 8) + le64(e + 16));
    }
    unsigned char *file = malloc(size + 1);
    for (size_t i = 0; i < n; i++)
        for (int fixed = 0; fixed < 2; fixed++) {
            for (size_t back = 0; back < 2; back++) {
                size_t cut = cuts[i] >= back ? cuts[i] - back : 0;
                if (cut > size)
                    continue;
                memcpy(file, seed, cut);
                if (fixed && cut >= HEADER) {
                    put64(file + 16, cut);
                    fix_header_crc(file, cut);
                }
                open_case(file, cut, "cut at a boundary");
            }
        }
    free(file);
}

/* Each device call of a create and two runs failing in turn: a clean status, nothing left. */
static void device_faults(const unsigned char *seed, size_t size)
{
    accyrt_bundle *b = NULL;
    accyrt_status *s = accyrt_bundle_open_memory(seed, size, &b);
    if (s != NULL) {
        accyrt_status_free(s);      /* a seed with host steps: nothing to run */
        return;
    }
    for (uint64_t fail_at = 0;; fail_at++) {
        accyrt_device *d = accyrt_test_failing_device(fail_at);
        s = create_and_run_twice(b, d);
        int done = s == NULL;
        if (!done && accyrt_status_code(s) != ACCYRT_DEVICE) {
            fprintf(stderr, "fuzz: call %llu failing gave %s\n", (unsigned long long)fail_at,
                    accyrt_status_message(s));
            failures++;
        }
        accyrt_status_free(s);
        if (accyrt_test_device_live(d) != 0) {
            fprintf(stderr, "fuzz: call %llu failing left %lld allocations or modules\n",
                    (unsigned long long)fail_at, (long long)accyrt_test_device_live(d));
            failures++;
        }
        accyrt_test_device_free(d);
        if (done)
            break;
    }
    accyrt_bundle_free(b);
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t capacity = 1 << 16, n = 0;
    unsigned char *data = malloc(capacity);
    for (;;) {
        n += fread(data + n, 1, capacity - n, f);
        if (n < capacity)
            break;
        capacity *= 2;
        data = realloc(data, capacity);
    }
    fclose(f);
    *size = n;
    return data;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--dump") == 0) {
        dump = argv[2];
        argc -= 2;
        argv += 2;
        char path[4096];
        snprintf(path, sizeof path, "%s/verdicts.txt", dump);
        if ((verdicts = fopen(path, "w")) == NULL) {
            fprintf(stderr, "fuzz: cannot write %s\n", path);
            return 1;
        }
    }
    if (argc < 4) {
        fprintf(stderr, "usage: fuzz_bundles [--dump DIR] SEED CASES BUNDLE...\n");
        return 1;
    }
    state = strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
    unsigned long long total = strtoull(argv[2], NULL, 10);
    int nseeds = argc - 3;
    unsigned char **seeds = calloc((size_t)nseeds, sizeof *seeds);
    size_t *sizes = calloc((size_t)nseeds, sizeof *sizes);
    for (int i = 0; i < nseeds; i++) {
        if ((seeds[i] = read_file(argv[3 + i], &sizes[i])) == NULL) {
            fprintf(stderr, "fuzz: cannot read %s\n", argv[3 + i]);
            return 1;
        }
        open_case(seeds[i], sizes[i], "a seed as it is");
        truncations(seeds[i], sizes[i]);
        device_faults(seeds[i], sizes[i]);
    }
    while (cases < total) {
        int i = (int)below((size_t)nseeds);
        fuzz(seeds[i], sizes[i]);
    }
    printf("cases %llu opened %llu ran %llu bad %llu unsupported %llu other %llu\n", cases,
           opened, ran, counts[ACCYRT_BAD_BUNDLE], counts[ACCYRT_UNSUPPORTED],
           cases - counts[ACCYRT_OK] - counts[ACCYRT_BAD_BUNDLE] - counts[ACCYRT_UNSUPPORTED]);
    for (int k = 0; k < 8; k++)
        printf("bad in the %s: %llu\n", SECTIONS[k], by_section[k]);
    for (int i = 0; i < nseeds; i++)
        free(seeds[i]);
    free(seeds);
    free(sizes);
    if (verdicts != NULL)
        fclose(verdicts);
    printf("failures %d\n", failures);
    return failures != 0;
}
