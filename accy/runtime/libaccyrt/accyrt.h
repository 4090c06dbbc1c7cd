/* libaccyrt: runs accy bundles (docs/runtime.md describes the format).
 *
 * Errors. Every call that can fail returns an accyrt_status pointer: NULL means success; any
 * other value is a status the caller owns and frees with accyrt_status_free. The library never
 * exits, aborts or prints, and frees what it allocated on every path.
 *
 * Threads. A bundle is immutable once opened: any number of threads may query it and create
 * sessions from it at once. A session (its device memory, its loaded modules) is used by one
 * thread at a time. A device table is used by the sessions made with it; a device that many
 * threads' sessions share must itself be safe to call from those threads (the CUDA device is,
 * as the CUDA driver is).
 *
 * Lifetimes. A session keeps pointers into its bundle and its device: both must outlive it.
 *
 * Versions. A struct the caller fills starts with its size (`struct_size = sizeof(...)`), so
 * that a later library can tell an older caller's struct from its own; a size the library does
 * not know is ACCYRT_INVALID_ARGUMENT.
 */
#ifndef ACCYRT_H
#define ACCYRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACCYRT_FORMAT_VERSION 1

/* The library is built with hidden visibility; this marks what it exports. */
#if defined(__GNUC__) && !defined(ACCYRT_API)
#define ACCYRT_API __attribute__((visibility("default")))
#elif !defined(ACCYRT_API)
#define ACCYRT_API
#endif

/* ---- status ---------------------------------------------------------------------------- */

typedef enum accyrt_code {
    ACCYRT_OK = 0,
    ACCYRT_INVALID_ARGUMENT = 1, /* a NULL pointer, an index out of range, a count that differs */
    ACCYRT_BAD_BUNDLE = 2,       /* the bytes are not a well-formed bundle */
    ACCYRT_UNSUPPORTED = 3,      /* well-formed, but not something this runtime runs */
    ACCYRT_DEVICE = 4,           /* the device (the CUDA driver) reported an error */
    ACCYRT_OUT_OF_MEMORY = 5,    /* host memory ran out */
    ACCYRT_IO = 6                /* a file could not be read */
} accyrt_code;

typedef struct accyrt_status accyrt_status;

ACCYRT_API accyrt_code accyrt_status_code(const accyrt_status *status);    /* OK for NULL */
ACCYRT_API const char *accyrt_status_message(const accyrt_status *status); /* "" for NULL */
ACCYRT_API void accyrt_status_free(accyrt_status *status);                  /* NULL is fine */
/* A new status (for device tables written outside the library); the message is copied (NULL:
 * ""). A code that is not a failure's (ACCYRT_OK included) gives an ACCYRT_INVALID_ARGUMENT
 * status saying so. When memory runs out, a static out-of-memory status is returned, which
 * accyrt_status_free ignores. */
ACCYRT_API accyrt_status *accyrt_status_new(accyrt_code code, const char *message);

/* ---- bundles --------------------------------------------------------------------------- */

typedef struct accyrt_bundle accyrt_bundle;

typedef struct accyrt_tensor_info {
    size_t struct_size;     /* sizeof(accyrt_tensor_info), set by the caller */
    const char *dtype;      /* "f32", "bf16", ...; owned by the bundle */
    uint32_t rank;
    const int64_t *dims;    /* rank dims; owned by the bundle */
    uint64_t nbytes;        /* elements times the dtype's size */
} accyrt_tensor_info;

/* Open a bundle: every check of the format is made before anything is built; a file that
 * fails one is ACCYRT_BAD_BUNDLE naming it, a bundle with host steps (or of a newer format
 * version) ACCYRT_UNSUPPORTED, a file that cannot be read ACCYRT_IO. *out is NULL on failure. */
ACCYRT_API accyrt_status *accyrt_bundle_open_file(const char *path, accyrt_bundle **out);
/* The same from memory; the bytes are copied, the caller keeps `data`. */
ACCYRT_API accyrt_status *accyrt_bundle_open_memory(const void *data, size_t size,
                                                    accyrt_bundle **out);
ACCYRT_API void accyrt_bundle_free(accyrt_bundle *bundle);                    /* NULL is fine */

/* The signature (a NULL bundle: 0 and "" where a status cannot be returned). */
ACCYRT_API size_t accyrt_bundle_num_arguments(const accyrt_bundle *bundle);
ACCYRT_API size_t accyrt_bundle_num_results(const accyrt_bundle *bundle);
ACCYRT_API accyrt_status *accyrt_bundle_argument(const accyrt_bundle *bundle, size_t index,
                                                 accyrt_tensor_info *out);
ACCYRT_API accyrt_status *accyrt_bundle_result(const accyrt_bundle *bundle, size_t index,
                                               accyrt_tensor_info *out);
ACCYRT_API const char *accyrt_bundle_target(const accyrt_bundle *bundle);       /* "sm_90" */
ACCYRT_API const char *accyrt_bundle_accy_version(const accyrt_bundle *bundle); /* the writer's */

/* ---- devices --------------------------------------------------------------------------- */

/* Device memory is addressed by 64-bit integers; modules and functions are opaque handles.
 * Every entry returns NULL on success. `stream` is what accyrt_session_run was given. */
typedef struct accyrt_device {
    size_t struct_size;     /* sizeof(accyrt_device) */
    void *self;
    /* Load a module: PTX text (NUL-terminated, size counts the NUL) or a cubin's bytes. */
    accyrt_status *(*load_module)(void *self, const void *image, size_t size, int is_cubin,
                                  void **module);
    accyrt_status *(*unload_module)(void *self, void *module);
    accyrt_status *(*get_function)(void *self, void *module, const char *name,
                                   void **function);
    accyrt_status *(*alloc)(void *self, uint64_t nbytes, uint64_t *address);
    accyrt_status *(*free)(void *self, uint64_t address);
    accyrt_status *(*copy_htod)(void *self, uint64_t target, const void *source,
                                uint64_t nbytes, void *stream);
    /* Returns once the bytes are on the host. */
    accyrt_status *(*copy_dtoh)(void *self, void *target, uint64_t source, uint64_t nbytes,
                                void *stream);
    accyrt_status *(*copy_dtod)(void *self, uint64_t target, uint64_t source, uint64_t nbytes,
                                void *stream);
    accyrt_status *(*memset)(void *self, uint64_t target, uint8_t value, uint64_t nbytes,
                             void *stream);
    /* params[i] points at parameter i's 8 bytes (a u64 address or an i64 scalar), as
     * cuLaunchKernel takes them. */
    accyrt_status *(*launch)(void *self, void *function, const uint32_t grid[3],
                             const uint32_t block[3], uint32_t shared_bytes, void *stream,
                             void **params, uint32_t num_params);
    accyrt_status *(*synchronize)(void *self, void *stream);
    /* The compute capability, to choose the cubin over the PTX; NULL: always the PTX. */
    accyrt_status *(*capability)(void *self, int *major, int *minor);
} accyrt_device;

/* A device for GPU `ordinal` through the CUDA driver, loaded with dlopen("libcuda.so.1") (no
 * CUDA toolkit is needed to build). It retains the GPU's primary context and makes it current
 * on the thread that calls any of its entries. No driver, or no such GPU, is ACCYRT_DEVICE
 * with the driver's words. Close it after the sessions made with it are freed. */
ACCYRT_API accyrt_status *accyrt_cuda_device_open(int ordinal, accyrt_device **out);
ACCYRT_API void accyrt_cuda_device_close(accyrt_device *device);            /* NULL is fine */

/* ---- sessions -------------------------------------------------------------------------- */

typedef struct accyrt_session accyrt_session;

/* Load the bundle's modules on `device` (the cubin when the device's capability runs the
 * target, else the PTX; PTX for a newer arch than the device's is ACCYRT_UNSUPPORTED),
 * allocate the arena and scratch, upload the constants (and synchronize, so that any stream
 * sees them). Every entry but `capability` must be set. */
ACCYRT_API accyrt_status *accyrt_session_create(const accyrt_bundle *bundle,
                                                const accyrt_device *device,
                                                accyrt_session **out);
/* Run the host program once: inputs[i] is argument i's device address (read only), outputs[i]
 * result i's (accyrt_bundle_result tells its bytes; outputs overlap neither the inputs nor
 * each other); the counts must be the bundle's, and an address is 0 only for 0 bytes. The
 * outputs and the arena are not cleared first: the program writes every result byte. Kernels
 * are launched on `stream` (NULL: the default stream); it returns when every step is issued
 * (loops read their flag back, so they wait for their own kernels). */
ACCYRT_API accyrt_status *accyrt_session_run(accyrt_session *session, const uint64_t *inputs,
                                             size_t num_inputs, const uint64_t *outputs,
                                             size_t num_outputs, void *stream);
/* Unloads the modules and frees the memory at once: synchronize the stream it ran on first. */
ACCYRT_API void accyrt_session_free(accyrt_session *session);               /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* ACCYRT_H */
