/* bench/runtime.py's C side, built at bench time into a shared library (with tests/c/devices.c,
 * whose null device counts calls and does nothing else: a session's run on it costs what the
 * runtime itself costs) against the installed libaccyrt, and called through ctypes:
 *
 *   a recording device: forwards every entry to another device and keeps each launch
 *     (function, grid, block, shared bytes, the parameters' bytes), so that the same launches
 *     can be replayed straight through that device's launch entry: the driver's floor;
 *   timing loops (CLOCK_MONOTONIC) of session runs, replays and bundle opens, so that no
 *     Python call sits inside what is timed.
 *
 * A failing call stops a loop and hands its status to the caller (-1 seconds).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <accyrt.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the recording device -------------------------------------------------------------- */

#define MAX_PARAMS 64

typedef struct launch {
    void *function;
    uint32_t grid[3], block[3], shared_bytes, num_params;
    uint64_t values[MAX_PARAMS];
    void *params[MAX_PARAMS];
} launch;

typedef struct recorder {
    accyrt_device table;            /* first: a recorder is its table */
    const accyrt_device *inner;
    launch *launches;
    size_t count, capacity;
} recorder;

#define INNER(self) (((recorder *)(self))->inner)

static accyrt_status *rec_load_module(void *self, const void *image, size_t size,
                                      int is_cubin, void **module) {
    return INNER(self)->load_module(INNER(self)->self, image, size, is_cubin, module);
}
static accyrt_status *rec_unload_module(void *self, void *module) {
    return INNER(self)->unload_module(INNER(self)->self, module);
}
static accyrt_status *rec_get_function(void *self, void *module, const char *name,
                                       void **function) {
    return INNER(self)->get_function(INNER(self)->self, module, name, function);
}
static accyrt_status *rec_alloc(void *self, uint64_t nbytes, uint64_t *address) {
    return INNER(self)->alloc(INNER(self)->self, nbytes, address);
}
static accyrt_status *rec_free(void *self, uint64_t address) {
    return INNER(self)->free(INNER(self)->self, address);
}
static accyrt_status *rec_copy_htod(void *self, uint64_t target, const void *source,
                                    uint64_t nbytes, void *stream) {
    return INNER(self)->copy_htod(INNER(self)->self, target, source, nbytes, stream);
}
static accyrt_status *rec_copy_dtoh(void *self, void *target, uint64_t source, uint64_t nbytes,
                                    void *stream) {
    return INNER(self)->copy_dtoh(INNER(self)->self, target, source, nbytes, stream);
}
static accyrt_status *rec_copy_dtod(void *self, uint64_t target, uint64_t source,
                                    uint64_t nbytes, void *stream) {
    return INNER(self)->copy_dtod(INNER(self)->self, target, source, nbytes, stream);
}
static accyrt_status *rec_memset(void *self, uint64_t target, uint8_t value, uint64_t nbytes,
                                 void *stream) {
    return INNER(self)->memset(INNER(self)->self, target, value, nbytes, stream);
}
static accyrt_status *rec_launch(void *self, void *function, const uint32_t grid[3],
                                 const uint32_t block[3], uint32_t shared_bytes, void *stream,
                                 void **params, uint32_t num_params) {
    recorder *r = self;
    if (num_params > MAX_PARAMS)
        return accyrt_status_new(ACCYRT_UNSUPPORTED, "bench recorder: too many parameters");
    if (r->count == r->capacity) {
        size_t capacity = r->capacity ? 2 * r->capacity : 64;
        launch *grown = realloc(r->launches, capacity * sizeof(launch));
        if (!grown)
            return accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "bench recorder: out of memory");
        r->launches = grown;
        r->capacity = capacity;
    }
    launch *l = &r->launches[r->count++];
    l->function = function;
    memcpy(l->grid, grid, sizeof l->grid);
    memcpy(l->block, block, sizeof l->block);
    l->shared_bytes = shared_bytes;
    l->num_params = num_params;
    for (uint32_t i = 0; i < num_params; i++)
        memcpy(&l->values[i], params[i], 8);
    return r->inner->launch(r->inner->self, function, grid, block, shared_bytes, stream, params,
                            num_params);
}
static accyrt_status *rec_synchronize(void *self, void *stream) {
    return INNER(self)->synchronize(INNER(self)->self, stream);
}
static accyrt_status *rec_capability(void *self, int *major, int *minor) {
    return INNER(self)->capability(INNER(self)->self, major, minor);
}

accyrt_device *bench_recorder_new(const accyrt_device *inner) {
    recorder *r = calloc(1, sizeof(recorder));
    if (!r)
        return NULL;
    accyrt_device table = {
        sizeof(accyrt_device), r, rec_load_module, rec_unload_module, rec_get_function,
        rec_alloc, rec_free, rec_copy_htod, rec_copy_dtoh, rec_copy_dtod, rec_memset,
        rec_launch, rec_synchronize, inner->capability ? rec_capability : NULL,
    };
    r->table = table;
    r->inner = inner;
    return &r->table;
}

void bench_recorder_free(accyrt_device *device) {
    recorder *r = (recorder *)device;
    if (r) {
        free(r->launches);
        free(r);
    }
}

/* Forget the launches recorded so far. */
void bench_recorder_clear(accyrt_device *device) { ((recorder *)device)->count = 0; }

size_t bench_recorder_count(const accyrt_device *device) {
    return ((const recorder *)device)->count;
}

/* Seconds for `n` replays of the recorded launches through the inner device's launch entry
 * (then one synchronize). */
double bench_replay(accyrt_device *device, int n, void *stream, accyrt_status **status) {
    recorder *r = (recorder *)device;
    const accyrt_device *d = r->inner;
    for (size_t i = 0; i < r->count; i++)
        for (uint32_t p = 0; p < r->launches[i].num_params; p++)
            r->launches[i].params[p] = &r->launches[i].values[p];
    double t0 = now();
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < r->count; i++) {
            launch *l = &r->launches[i];
            *status = d->launch(d->self, l->function, l->grid, l->block, l->shared_bytes,
                                stream, l->params, l->num_params);
            if (*status)
                return -1;
        }
    }
    if ((*status = d->synchronize(d->self, stream)))
        return -1;
    return now() - t0;
}

/* ---- timing loops ---------------------------------------------------------------------- */

/* Seconds for `n` runs of a session (then one synchronize of `device`). */
double bench_runs(accyrt_session *session, const accyrt_device *device,
                         const uint64_t *inputs, size_t num_inputs, const uint64_t *outputs,
                         size_t num_outputs, int n, void *stream, accyrt_status **status) {
    double t0 = now();
    for (int k = 0; k < n; k++)
        if ((*status = accyrt_session_run(session, inputs, num_inputs, outputs, num_outputs,
                                          stream)))
            return -1;
    if ((*status = device->synchronize(device->self, stream)))
        return -1;
    return now() - t0;
}

/* Seconds for `n` opens (and frees) of a bundle from memory, or from the file `path` when
 * `path` is not NULL. */
double bench_open(const char *path, const void *data, size_t size, int n,
                         accyrt_status **status) {
    double t0 = now();
    for (int k = 0; k < n; k++) {
        accyrt_bundle *bundle = NULL;
        *status = path ? accyrt_bundle_open_file(path, &bundle)
                       : accyrt_bundle_open_memory(data, size, &bundle);
        if (*status)
            return -1;
        accyrt_bundle_free(bundle);
    }
    return now() - t0;
}
