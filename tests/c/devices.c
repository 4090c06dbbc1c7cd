/* Device tables for testing and benchmarking libaccyrt without a GPU: see devices.h. */
#include "devices.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LOAD, UNLOAD, GET, ALLOC, FREE, HTOD, DTOH, DTOD, MEMSET, LAUNCH, SYNC, CAPABILITY,
       ENTRIES };
static const char *const ENTRY_NAMES[ENTRIES] = {
    "load_module", "unload_module", "get_function", "alloc", "free", "copy_htod",
    "copy_dtoh", "copy_dtod", "memset", "launch", "synchronize", "capability"};

typedef struct module {
    char **names;               /* the functions got from it: a function is its name */
    size_t count;
} module;

typedef struct test_device {
    accyrt_device table;        /* first: the table is the device */
    uint64_t calls[ENTRIES], total;
    int failing;
    uint64_t fail_at;
    int recording;
    char *log;
    size_t log_size, log_capacity;
    uint8_t *flags;
    size_t num_flags, next_flag;
    uint64_t allocations;       /* made so far: the next address's index */
    uint64_t *live;             /* addresses allocated and not freed */
    size_t num_live, live_capacity;
    int64_t modules;
    int bad_free;
    int major, minor;
    volatile uint8_t sink;      /* what reading the host bytes of a copy adds up to */
} test_device;

static void note(test_device *d, const char *format, ...)
{
    if (!d->recording)
        return;
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n >= 0 && d->log_size + (size_t)n + 2 > d->log_capacity) {
        size_t capacity = (d->log_capacity + (size_t)n + 2) * 2;
        char *grown = realloc(d->log, capacity);
        if (grown == NULL)
            n = -1;
        else {
            d->log = grown;
            d->log_capacity = capacity;
        }
    }
    if (n >= 0) {
        vsnprintf(d->log + d->log_size, (size_t)n + 1, format, again);
        d->log_size += (size_t)n;
        d->log[d->log_size++] = '\n';
        d->log[d->log_size] = '\0';
    }
    va_end(again);
}

/* Counts a call; the injected failure when it is the one to fail. */
static accyrt_status *enter(test_device *d, int entry)
{
    d->calls[entry]++;
    uint64_t call = d->total++;
    if (d->failing && call == d->fail_at) {
        char message[96];
        snprintf(message, sizeof message, "injected failure of call %llu (%s)",
                 (unsigned long long)call, ENTRY_NAMES[entry]);
        return accyrt_status_new(ACCYRT_DEVICE, message);
    }
    return NULL;
}

#define ENTER(d, entry)                                                                     \
    do {                                                                                    \
        accyrt_status *e_ = enter((d), (entry));                                            \
        if (e_ != NULL)                                                                     \
            return e_;                                                                      \
    } while (0)

static accyrt_status *load_module(void *self, const void *image, size_t size, int is_cubin,
                                  void **out)
{
    test_device *d = self;
    ENTER(d, LOAD);
    const uint8_t *bytes = image;
    if (!is_cubin && (size == 0 || bytes[size - 1] != 0))
        return accyrt_status_new(ACCYRT_INVALID_ARGUMENT, "PTX without its NUL");
    for (size_t i = 0; i < size; i++)       /* every byte is there to read */
        d->sink ^= bytes[i];
    module *m = calloc(1, sizeof *m);
    if (m == NULL)
        return accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "test device: out of memory");
    d->modules++;
    note(d, "load_module %s %zu", is_cubin ? "cubin" : "ptx", size);
    *out = m;
    return NULL;
}

static accyrt_status *unload_module(void *self, void *handle)
{
    test_device *d = self;
    module *m = handle;
    for (size_t i = 0; i < m->count; i++)
        free(m->names[i]);
    free(m->names);
    free(m);
    d->modules--;
    ENTER(d, UNLOAD);           /* after the freeing: an unload that fails still unloads */
    note(d, "unload_module");
    return NULL;
}

static accyrt_status *get_function(void *self, void *handle, const char *name, void **out)
{
    test_device *d = self;
    module *m = handle;
    ENTER(d, GET);
    if (m == NULL)
        return accyrt_status_new(ACCYRT_INVALID_ARGUMENT, "get_function with no module");
    char **names = realloc(m->names, (m->count + 1) * sizeof *names);
    if (names == NULL)
        return accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "test device: out of memory");
    m->names = names;
    size_t n = strlen(name);
    if ((names[m->count] = malloc(n + 1)) == NULL)
        return accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "test device: out of memory");
    memcpy(names[m->count], name, n + 1);
    *out = names[m->count++];
    note(d, "get_function %s", name);
    return NULL;
}

static accyrt_status *alloc(void *self, uint64_t nbytes, uint64_t *address)
{
    test_device *d = self;
    ENTER(d, ALLOC);
    if (d->num_live == d->live_capacity) {
        size_t capacity = d->live_capacity ? d->live_capacity * 2 : 16;
        uint64_t *grown = realloc(d->live, capacity * sizeof *grown);
        if (grown == NULL)
            return accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "test device: out of memory");
        d->live = grown;
        d->live_capacity = capacity;
    }
    *address = (d->allocations + 1) << 40;
    d->allocations++;
    d->live[d->num_live++] = *address;
    note(d, "alloc %llu -> 0x%llx", (unsigned long long)nbytes, (unsigned long long)*address);
    return NULL;
}

static accyrt_status *free_(void *self, uint64_t address)
{
    test_device *d = self;
    for (size_t i = 0; i < d->num_live; i++)
        if (d->live[i] == address) {
            d->live[i] = d->live[--d->num_live];
            ENTER(d, FREE);     /* after the freeing, as unload_module */
            note(d, "free 0x%llx", (unsigned long long)address);
            return NULL;
        }
    d->bad_free = 1;
    return accyrt_status_new(ACCYRT_INVALID_ARGUMENT, "free of an address not allocated");
}

static accyrt_status *copy_htod(void *self, uint64_t target, const void *source,
                                uint64_t nbytes, void *stream)
{
    test_device *d = self;
    (void)stream;
    ENTER(d, HTOD);
    const uint8_t *bytes = source;
    for (uint64_t i = 0; i < nbytes; i++)
        d->sink ^= bytes[i];
    note(d, "copy_htod 0x%llx %llu", (unsigned long long)target, (unsigned long long)nbytes);
    return NULL;
}

static accyrt_status *copy_dtoh(void *self, void *target, uint64_t source, uint64_t nbytes,
                                void *stream)
{
    test_device *d = self;
    (void)stream;
    ENTER(d, DTOH);
    uint8_t *bytes = target;
    for (uint64_t i = 0; i < nbytes; i++)
        bytes[i] = d->next_flag < d->num_flags ? d->flags[d->next_flag++] : 0;
    note(d, "copy_dtoh 0x%llx %llu -> %u", (unsigned long long)source,
         (unsigned long long)nbytes, nbytes ? bytes[0] : 0);
    return NULL;
}

static accyrt_status *copy_dtod(void *self, uint64_t target, uint64_t source, uint64_t nbytes,
                                void *stream)
{
    test_device *d = self;
    (void)stream;
    ENTER(d, DTOD);
    note(d, "copy_dtod 0x%llx 0x%llx %llu", (unsigned long long)target,
         (unsigned long long)source, (unsigned long long)nbytes);
    return NULL;
}

static accyrt_status *memset_(void *self, uint64_t target, uint8_t value, uint64_t nbytes,
                              void *stream)
{
    test_device *d = self;
    (void)stream;
    ENTER(d, MEMSET);
    note(d, "memset 0x%llx %u %llu", (unsigned long long)target, value,
         (unsigned long long)nbytes);
    return NULL;
}

static accyrt_status *launch(void *self, void *function, const uint32_t grid[3],
                             const uint32_t block[3], uint32_t shared_bytes, void *stream,
                             void **params, uint32_t num_params)
{
    test_device *d = self;
    (void)stream;
    ENTER(d, LAUNCH);
    if (!d->recording)
        return NULL;
    char *text = malloc((size_t)num_params * 20 + 1);
    if (text == NULL)
        return accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "test device: out of memory");
    size_t n = 0;
    text[0] = '\0';
    for (uint32_t i = 0; i < num_params; i++) {
        uint64_t v;
        memcpy(&v, params[i], sizeof v);        /* each parameter's 8 bytes */
        n += (size_t)snprintf(text + n, 21, " 0x%llx", (unsigned long long)v);
    }
    note(d, "launch %s grid %u,%u,%u block %u,%u,%u shared %u params%s",
         (const char *)function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
         shared_bytes, text);
    free(text);
    return NULL;
}

static accyrt_status *synchronize(void *self, void *stream)
{
    test_device *d = self;
    (void)stream;
    ENTER(d, SYNC);
    note(d, "synchronize");
    return NULL;
}

static accyrt_status *capability(void *self, int *major, int *minor)
{
    test_device *d = self;
    ENTER(d, CAPABILITY);
    *major = d->major;
    *minor = d->minor;
    return NULL;
}

static test_device *make(void)
{
    test_device *d = calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    accyrt_device *t = &d->table;
    t->struct_size = sizeof *t;
    t->self = d;
    t->load_module = load_module;
    t->unload_module = unload_module;
    t->get_function = get_function;
    t->alloc = alloc;
    t->free = free_;
    t->copy_htod = copy_htod;
    t->copy_dtoh = copy_dtoh;
    t->copy_dtod = copy_dtod;
    t->memset = memset_;
    t->launch = launch;
    t->synchronize = synchronize;
    t->capability = capability;
    d->major = 9;
    d->minor = 0;
    return d;
}

ACCYRT_TEST_API accyrt_device *accyrt_test_null_device(void)
{
    test_device *d = make();
    return d == NULL ? NULL : &d->table;
}

ACCYRT_TEST_API accyrt_device *accyrt_test_recording_device(const uint8_t *flags,
                                                            size_t num_flags, int major,
                                                            int minor)
{
    test_device *d = make();
    if (d == NULL)
        return NULL;
    d->recording = 1;
    d->major = major;
    d->minor = minor;
    if (major < 0)
        d->table.capability = NULL;
    if (num_flags > 0) {
        if ((d->flags = malloc(num_flags)) == NULL) {
            free(d);
            return NULL;
        }
        memcpy(d->flags, flags, num_flags);
        d->num_flags = num_flags;
    }
    return &d->table;
}

ACCYRT_TEST_API accyrt_device *accyrt_test_failing_device(uint64_t fail_at)
{
    test_device *d = make();
    if (d == NULL)
        return NULL;
    d->failing = 1;
    d->fail_at = fail_at;
    return &d->table;
}

ACCYRT_TEST_API void accyrt_test_device_free(accyrt_device *device)
{
    if (device == NULL)
        return;
    test_device *d = device->self;
    free(d->log);
    free(d->flags);
    free(d->live);
    free(d);
}

ACCYRT_TEST_API const char *accyrt_test_device_log(const accyrt_device *device)
{
    const test_device *d = device->self;
    return d->log != NULL ? d->log : "";
}

ACCYRT_TEST_API uint64_t accyrt_test_device_calls(const accyrt_device *device,
                                                  const char *entry)
{
    const test_device *d = device->self;
    uint64_t total = 0;
    for (int i = 0; i < ENTRIES; i++) {
        if (strcmp(entry, ENTRY_NAMES[i]) == 0)
            return d->calls[i];
        total += d->calls[i];
    }
    return strcmp(entry, "total") == 0 ? total : 0;
}

ACCYRT_TEST_API int64_t accyrt_test_device_live(const accyrt_device *device)
{
    const test_device *d = device->self;
    return d->bad_free ? -1 : (int64_t)d->num_live + d->modules;
}
