/* The CUDA device: the driver API reached through dlopen, so that building needs no CUDA
 * toolkit and a machine without a driver still loads the library. The few types and
 * constants the calls take are declared here as the driver API defines them. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define DEFAULT_DYNAMIC_SHARED (48u * 1024u)    /* what a launch may ask for without opting in */

typedef struct cuda_api {
    CUresult (*cuInit)(unsigned int);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxGetCurrent)(CUcontext *);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
                               unsigned int, unsigned int, unsigned int, unsigned int,
                               CUstream, void **, void **);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
} cuda_api;

typedef struct cuda_function {
    CUfunction function;
    uint32_t shared_allowed;            /* the dynamic shared bytes it is opted in to */
    struct cuda_function *next;
} cuda_function;

typedef struct cuda_module {
    CUmodule module;
    cuda_function *functions;           /* freed with the module */
} cuda_module;

typedef struct cuda_device {
    accyrt_device table;                /* first: the table handed out is the device */
    cuda_api api;
    CUdevice device;
    CUcontext context;
    int retained;
    int major, minor;
} cuda_device;

static accyrt_status *cu_error(const cuda_device *d, CUresult r, const char *call)
{
    const char *name = NULL, *text = NULL;
    if (d->api.cuGetErrorName == NULL || d->api.cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    if (d->api.cuGetErrorString == NULL || d->api.cuGetErrorString(r, &text) != CUDA_SUCCESS)
        text = NULL;
    return rt_status(ACCYRT_DEVICE, "CUDA driver: %s failed: %s (%s, error %d)", call,
                     text != NULL ? text : "an unknown error",
                     name != NULL ? name : "no name", (int)r);
}

#define CU(d, call, args)                                                                   \
    do {                                                                                    \
        CUresult r_ = (d)->api.call args;                                                   \
        if (r_ != CUDA_SUCCESS)                                                             \
            return cu_error((d), r_, #call);                                                \
    } while (0)

/* The device's context made current on the calling thread (a no-op when it is). */
static accyrt_status *current(cuda_device *d)
{
    CUcontext now = NULL;
    CU(d, cuCtxGetCurrent, (&now));
    if (now != d->context)
        CU(d, cuCtxSetCurrent, (d->context));
    return NULL;
}

#define CURRENT(d)                                                                          \
    do {                                                                                    \
        accyrt_status *e_ = current(d);                                                     \
        if (e_ != NULL)                                                                     \
            return e_;                                                                      \
    } while (0)

static accyrt_status *cuda_load_module(void *self, const void *image, size_t size,
                                       int is_cubin, void **out)
{
    cuda_device *d = self;
    (void)size;                 /* the driver reads an ELF's or a NUL-terminated text's size */
    (void)is_cubin;             /* and tells them apart itself */
    CURRENT(d);
    cuda_module *m = calloc(1, sizeof *m);
    if (m == NULL)
        return &rt_out_of_memory;
    CUresult r = d->api.cuModuleLoadData(&m->module, image);
    if (r != CUDA_SUCCESS) {
        free(m);
        return cu_error(d, r, "cuModuleLoadData");
    }
    *out = m;
    return NULL;
}

static accyrt_status *cuda_unload_module(void *self, void *module)
{
    cuda_device *d = self;
    cuda_module *m = module;
    while (m->functions != NULL) {
        cuda_function *next = m->functions->next;
        free(m->functions);
        m->functions = next;
    }
    accyrt_status *e = current(d);
    CUresult r = e == NULL ? d->api.cuModuleUnload(m->module) : CUDA_SUCCESS;
    free(m);
    if (e != NULL)
        return e;
    return r == CUDA_SUCCESS ? NULL : cu_error(d, r, "cuModuleUnload");
}

static accyrt_status *cuda_get_function(void *self, void *module, const char *name,
                                        void **out)
{
    cuda_device *d = self;
    cuda_module *m = module;
    CURRENT(d);
    cuda_function *f = calloc(1, sizeof *f);
    if (f == NULL)
        return &rt_out_of_memory;
    CUresult r = d->api.cuModuleGetFunction(&f->function, m->module, name);
    if (r != CUDA_SUCCESS) {
        free(f);
        return cu_error(d, r, "cuModuleGetFunction");
    }
    f->shared_allowed = DEFAULT_DYNAMIC_SHARED;
    f->next = m->functions;
    m->functions = f;
    *out = f;
    return NULL;
}

static accyrt_status *cuda_alloc(void *self, uint64_t nbytes, uint64_t *address)
{
    cuda_device *d = self;
    CUdeviceptr p = 0;
    CURRENT(d);
    if (nbytes > SIZE_MAX)
        return rt_status(ACCYRT_DEVICE, "CUDA device: %llu bytes do not fit a size_t",
                         (unsigned long long)nbytes);
    CU(d, cuMemAlloc, (&p, nbytes > 0 ? (size_t)nbytes : 1));   /* the driver refuses 0 */
    *address = p;
    return NULL;
}

static accyrt_status *cuda_free(void *self, uint64_t address)
{
    cuda_device *d = self;
    CURRENT(d);
    CU(d, cuMemFree, ((CUdeviceptr)address));
    return NULL;
}

static accyrt_status *cuda_copy_htod(void *self, uint64_t target, const void *source,
                                     uint64_t nbytes, void *stream)
{
    cuda_device *d = self;
    CURRENT(d);
    CU(d, cuMemcpyHtoDAsync, ((CUdeviceptr)target, source, (size_t)nbytes, stream));
    return NULL;
}

static accyrt_status *cuda_copy_dtoh(void *self, void *target, uint64_t source,
                                     uint64_t nbytes, void *stream)
{
    cuda_device *d = self;
    CURRENT(d);
    CU(d, cuMemcpyDtoHAsync, (target, (CUdeviceptr)source, (size_t)nbytes, stream));
    CU(d, cuStreamSynchronize, (stream));
    return NULL;
}

static accyrt_status *cuda_copy_dtod(void *self, uint64_t target, uint64_t source,
                                     uint64_t nbytes, void *stream)
{
    cuda_device *d = self;
    CURRENT(d);
    CU(d, cuMemcpyDtoDAsync, ((CUdeviceptr)target, (CUdeviceptr)source, (size_t)nbytes,
                              stream));
    return NULL;
}

static accyrt_status *cuda_memset(void *self, uint64_t target, uint8_t value, uint64_t nbytes,
                                  void *stream)
{
    cuda_device *d = self;
    CURRENT(d);
    CU(d, cuMemsetD8Async, ((CUdeviceptr)target, value, (size_t)nbytes, stream));
    return NULL;
}

static accyrt_status *cuda_launch(void *self, void *function, const uint32_t grid[3],
                                  const uint32_t block[3], uint32_t shared_bytes, void *stream,
                                  void **params, uint32_t num_params)
{
    cuda_device *d = self;
    cuda_function *f = function;
    (void)num_params;           /* the kernel's signature tells the driver */
    CURRENT(d);
    if (shared_bytes > f->shared_allowed) {
        CU(d, cuFuncSetAttribute, (f->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   (int)shared_bytes));
        f->shared_allowed = shared_bytes;
    }
    CU(d, cuLaunchKernel, (f->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                           shared_bytes, stream, params, NULL));
    return NULL;
}

static accyrt_status *cuda_synchronize(void *self, void *stream)
{
    cuda_device *d = self;
    CURRENT(d);
    CU(d, cuStreamSynchronize, (stream));
    return NULL;
}

static accyrt_status *cuda_capability(void *self, int *major, int *minor)
{
    cuda_device *d = self;
    *major = d->major;
    *minor = d->minor;
    return NULL;
}

/* The driver's entry points; a missing one is ACCYRT_DEVICE naming it. */
static accyrt_status *resolve(cuda_api *api, void *lib)
{
    static const struct {
        const char *name, *fallback;
        size_t offset;
    } entries[] = {
#define ENTRY(field, name, fallback) {name, fallback, offsetof(cuda_api, field)}
        ENTRY(cuInit, "cuInit", NULL),
        ENTRY(cuDeviceGet, "cuDeviceGet", NULL),
        ENTRY(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL),
        ENTRY(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
        ENTRY(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
              "cuDevicePrimaryCtxRelease"),
        ENTRY(cuCtxGetCurrent, "cuCtxGetCurrent", NULL),
        ENTRY(cuCtxSetCurrent, "cuCtxSetCurrent", NULL),
        ENTRY(cuModuleLoadData, "cuModuleLoadData", NULL),
        ENTRY(cuModuleUnload, "cuModuleUnload", NULL),
        ENTRY(cuModuleGetFunction, "cuModuleGetFunction", NULL),
        ENTRY(cuFuncSetAttribute, "cuFuncSetAttribute", NULL),
        ENTRY(cuMemAlloc, "cuMemAlloc_v2", NULL),
        ENTRY(cuMemFree, "cuMemFree_v2", NULL),
        ENTRY(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL),
        ENTRY(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL),
        ENTRY(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL),
        ENTRY(cuMemsetD8Async, "cuMemsetD8Async", NULL),
        ENTRY(cuLaunchKernel, "cuLaunchKernel", NULL),
        ENTRY(cuStreamSynchronize, "cuStreamSynchronize", NULL),
        ENTRY(cuGetErrorName, "cuGetErrorName", NULL),
        ENTRY(cuGetErrorString, "cuGetErrorString", NULL),
#undef ENTRY
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        void *symbol = dlsym(lib, entries[i].name);
        if (symbol == NULL && entries[i].fallback != NULL)
            symbol = dlsym(lib, entries[i].fallback);
        if (symbol == NULL)
            return rt_status(ACCYRT_DEVICE, "CUDA driver: libcuda.so.1 has no %s (a driver "
                             "older than CUDA 11?)", entries[i].name);
        /* a function pointer through a data pointer, as POSIX's dlsym requires */
        memcpy((char *)api + entries[i].offset, &symbol, sizeof symbol);
    }
    return NULL;
}

static accyrt_status *start(cuda_device *d, int ordinal)
{
    /* The library stays loaded for the process: the driver runs threads of its own once
     * initialized, and unloading its code under them is not safe. */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        return rt_status(ACCYRT_DEVICE, "no CUDA driver: dlopen(\"libcuda.so.1\") failed: %s",
                         why != NULL ? why : "no reason given");
    }
    accyrt_status *e = resolve(&d->api, lib);
    if (e != NULL)
        return e;
    CU(d, cuInit, (0));
    CU(d, cuDeviceGet, (&d->device, ordinal));
    CU(d, cuDeviceGetAttribute, (&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                 d->device));
    CU(d, cuDeviceGetAttribute, (&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                 d->device));
    CU(d, cuDevicePrimaryCtxRetain, (&d->context, d->device));
    d->retained = 1;
    CU(d, cuCtxSetCurrent, (d->context));
    return NULL;
}

ACCYRT_API accyrt_status *accyrt_cuda_device_open(int ordinal, accyrt_device **out)
{
    if (out == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_cuda_device_open: out is NULL");
    *out = NULL;
    if (ordinal < 0)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_cuda_device_open: ordinal %d is "
                         "below 0", ordinal);
    cuda_device *d = calloc(1, sizeof *d);
    if (d == NULL)
        return &rt_out_of_memory;
    accyrt_status *e = start(d, ordinal);
    if (e != NULL) {
        if (d->retained)
            d->api.cuDevicePrimaryCtxRelease(d->device);
        free(d);
        return e;
    }
    accyrt_device *t = &d->table;
    t->struct_size = sizeof *t;
    t->self = d;
    t->load_module = cuda_load_module;
    t->unload_module = cuda_unload_module;
    t->get_function = cuda_get_function;
    t->alloc = cuda_alloc;
    t->free = cuda_free;
    t->copy_htod = cuda_copy_htod;
    t->copy_dtoh = cuda_copy_dtoh;
    t->copy_dtod = cuda_copy_dtod;
    t->memset = cuda_memset;
    t->launch = cuda_launch;
    t->synchronize = cuda_synchronize;
    t->capability = cuda_capability;
    *out = t;
    return NULL;
}

ACCYRT_API void accyrt_cuda_device_close(accyrt_device *device)
{
    if (device == NULL || device->load_module != cuda_load_module)
        return;                 /* not a table accyrt_cuda_device_open made */
    cuda_device *d = (cuda_device *)device;     /* the table is its first member */
    if (d->retained)
        d->api.cuDevicePrimaryCtxRelease(d->device);
    free(d);
}
