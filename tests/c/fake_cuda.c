/* A stand-in for the CUDA driver, built as libcuda.so.1 so that libaccyrt's CUDA device
 * (accy/runtime/libaccyrt/cuda.c) can be tested without a GPU: device memory is host memory,
 * modules and functions are records, kernels do nothing. Every call but the context queries
 * needs the primary context current on the calling thread (CUDA_ERROR_INVALID_CONTEXT else),
 * as the real driver does.
 *
 * Environment: FAKE_CUDA_LOG, a file each call is logged to (a line each); FAKE_CUDA_FAIL, the
 * name of a call that fails with CUDA_ERROR_UNKNOWN; FAKE_CUDA_CAPABILITY, "major.minor"
 * (default 9.0). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { SUCCESS = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, INVALID_DEVICE = 101,
       INVALID_IMAGE = 200, INVALID_CONTEXT = 201, NOT_FOUND = 500, UNKNOWN = 999 };

#define API __attribute__((visibility("default")))

typedef struct function {
    char name[256];
    struct function *next;
} function;

typedef struct module {
    function *functions;
} module;

static int context;             /* the primary context: its address */
static _Thread_local void *current;
static int initialized, retained;
static long live;               /* allocations and modules not yet freed */

static void note(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *format, ...)
{
    const char *path = getenv("FAKE_CUDA_LOG");
    if (path == NULL)
        return;
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return;
    va_list args;
    va_start(args, format);
    vfprintf(f, format, args);
    va_end(args);
    fputc('\n', f);
    fclose(f);
}

static int fails(const char *call)
{
    const char *fail = getenv("FAKE_CUDA_FAIL");
    return fail != NULL && strcmp(fail, call) == 0;
}

/* The checks every call but the context queries makes. */
static CUresult enter(const char *call)
{
    if (fails(call))
        return UNKNOWN;
    if (!initialized)
        return NOT_INITIALIZED;
    if (current != &context)
        return INVALID_CONTEXT;
    return SUCCESS;
}

#define ENTER(call)                                                                         \
    do {                                                                                    \
        CUresult r_ = enter(call);                                                          \
        if (r_ != SUCCESS) {                                                                \
            note("%s -> %d", call, r_);                                                     \
            return r_;                                                                      \
        }                                                                                   \
    } while (0)

API CUresult cuInit(unsigned int flags)
{
    note("cuInit %u", flags);
    if (fails("cuInit"))
        return UNKNOWN;
    initialized = 1;
    return flags == 0 ? SUCCESS : INVALID_VALUE;
}

API CUresult cuDeviceGet(int *device, int ordinal)
{
    note("cuDeviceGet %d", ordinal);
    if (!initialized)
        return NOT_INITIALIZED;
    if (ordinal != 0)
        return INVALID_DEVICE;
    *device = 0;
    return SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *value, int attribute, int device)
{
    int major = 9, minor = 0;
    const char *capability = getenv("FAKE_CUDA_CAPABILITY");
    if (capability != NULL && sscanf(capability, "%d.%d", &major, &minor) != 2)
        return INVALID_VALUE;
    if (!initialized || device != 0)
        return !initialized ? NOT_INITIALIZED : INVALID_DEVICE;
    if (attribute == 75)
        *value = major;
    else if (attribute == 76)
        *value = minor;
    else
        return INVALID_VALUE;
    return SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    note("cuDevicePrimaryCtxRetain %d", device);
    if (!initialized || device != 0)
        return !initialized ? NOT_INITIALIZED : INVALID_DEVICE;
    retained++;
    *ctx = &context;
    return SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(int device)
{
    note("cuDevicePrimaryCtxRelease %d (%ld allocations and modules live)", device, live);
    retained--;
    return device == 0 ? SUCCESS : INVALID_DEVICE;
}

API CUresult cuCtxGetCurrent(void **ctx)
{
    *ctx = current;
    return SUCCESS;
}

API CUresult cuCtxSetCurrent(void *ctx)
{
    note("cuCtxSetCurrent");
    current = ctx;
    return SUCCESS;
}

API CUresult cuModuleLoadData(void **out, const void *image)
{
    ENTER("cuModuleLoadData");
    const char *bytes = image;
    int cubin = memcmp(bytes, "\177ELF", 4) == 0;
    if (cubin)
        note("cuModuleLoadData cubin");
    else if (strstr(bytes, ".entry") == NULL)   /* PTX text: read to its NUL */
        return INVALID_IMAGE;
    else
        note("cuModuleLoadData ptx %zu", strlen(bytes));
    module *m = calloc(1, sizeof *m);
    live++;
    *out = m;
    return SUCCESS;
}

API CUresult cuModuleUnload(void *handle)
{
    ENTER("cuModuleUnload");
    module *m = handle;
    while (m->functions != NULL) {
        function *next = m->functions->next;
        free(m->functions);
        m->functions = next;
    }
    free(m);
    live--;
    note("cuModuleUnload");
    return SUCCESS;
}

API CUresult cuModuleGetFunction(void **out, void *handle, const char *name)
{
    ENTER("cuModuleGetFunction");
    module *m = handle;
    function *f = calloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->next = m->functions;
    m->functions = f;
    *out = f;
    note("cuModuleGetFunction %s", name);
    return SUCCESS;
}

API CUresult cuFuncSetAttribute(void *handle, int attribute, int value)
{
    ENTER("cuFuncSetAttribute");
    note("cuFuncSetAttribute %s %d %d", ((function *)handle)->name, attribute, value);
    return SUCCESS;
}

API CUresult cuMemAlloc_v2(uint64_t *address, size_t nbytes)
{
    ENTER("cuMemAlloc");
    if (nbytes == 0)
        return INVALID_VALUE;
    *address = (uint64_t)(uintptr_t)malloc(nbytes);
    live++;
    note("cuMemAlloc %zu", nbytes);
    return SUCCESS;
}

API CUresult cuMemFree_v2(uint64_t address)
{
    ENTER("cuMemFree");
    free((void *)(uintptr_t)address);
    live--;
    return SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(uint64_t target, const void *source, size_t n, void *stream)
{
    ENTER("cuMemcpyHtoDAsync");
    memcpy((void *)(uintptr_t)target, source, n);
    note("cuMemcpyHtoDAsync %zu %s", n, stream ? "stream" : "default");
    return SUCCESS;
}

API CUresult cuMemcpyDtoHAsync_v2(void *target, uint64_t source, size_t n, void *stream)
{
    ENTER("cuMemcpyDtoHAsync");
    memcpy(target, (const void *)(uintptr_t)source, n);
    note("cuMemcpyDtoHAsync %zu %s", n, stream ? "stream" : "default");
    return SUCCESS;
}

API CUresult cuMemcpyDtoDAsync_v2(uint64_t target, uint64_t source, size_t n, void *stream)
{
    ENTER("cuMemcpyDtoDAsync");
    memmove((void *)(uintptr_t)target, (const void *)(uintptr_t)source, n);
    note("cuMemcpyDtoDAsync %zu %s", n, stream ? "stream" : "default");
    return SUCCESS;
}

API CUresult cuMemsetD8Async(uint64_t target, unsigned char value, size_t n, void *stream)
{
    ENTER("cuMemsetD8Async");
    memset((void *)(uintptr_t)target, value, n);
    note("cuMemsetD8Async %u %zu %s", value, n, stream ? "stream" : "default");
    return SUCCESS;
}

API CUresult cuLaunchKernel(void *handle, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, void *stream,
                            void **params, void **extra)
{
    ENTER("cuLaunchKernel");
    (void)params;
    note("cuLaunchKernel %s grid %u,%u,%u block %u,%u,%u shared %u %s%s",
         ((function *)handle)->name, gx, gy, gz, bx, by, bz, shared,
         stream ? "stream" : "default", extra ? " extra" : "");
    return SUCCESS;
}

API CUresult cuStreamSynchronize(void *stream)
{
    ENTER("cuStreamSynchronize");
    note("cuStreamSynchronize %s", stream ? "stream" : "default");
    return SUCCESS;
}

API CUresult cuGetErrorName(CUresult r, const char **name)
{
    switch (r) {
    case INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; return SUCCESS;
    case UNKNOWN: *name = "CUDA_ERROR_UNKNOWN"; return SUCCESS;
    default: return INVALID_VALUE;
    }
}

API CUresult cuGetErrorString(CUresult r, const char **text)
{
    switch (r) {
    case INVALID_CONTEXT: *text = "invalid device context"; return SUCCESS;
    case UNKNOWN: *text = "unknown error"; return SUCCESS;
    default: return INVALID_VALUE;
    }
}
