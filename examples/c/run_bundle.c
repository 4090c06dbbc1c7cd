/* run_bundle: open an accy bundle, print its signature, and run it on GPU 0 on random inputs.
 *
 *     cc run_bundle.c $(accy config --cflags --libs) -o run_bundle
 *     ./run_bundle model.accy
 *
 * Exit status: 0 it ran (the first values of each result are printed), 1 the bundle could not
 * be opened or run, 2 there is no GPU to run it on (no CUDA driver, or no device). */
#include <accyrt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char *what, accyrt_status *status)
{
    fprintf(stderr, "run_bundle: %s: %s (status %d)\n", what, accyrt_status_message(status),
            (int)accyrt_status_code(status));
    accyrt_status_free(status);
    return 1;
}

static size_t dtype_size(const char *dtype)
{
    if (strcmp(dtype, "f64") == 0 || strcmp(dtype, "i64") == 0)
        return 8;
    if (strcmp(dtype, "f32") == 0 || strcmp(dtype, "i32") == 0)
        return 4;
    if (strcmp(dtype, "f16") == 0 || strcmp(dtype, "bf16") == 0 || strcmp(dtype, "i16") == 0)
        return 2;
    return 1;                                   /* i8, u8, i1 */
}

/* One element of `dtype` at p: a value in [-1, 1) for floats, [-8, 8) for integers. */
static void put_random(const char *dtype, unsigned char *p)
{
    float f = (float)rand() / ((float)RAND_MAX + 1.0f) * 2.0f - 1.0f;
    double d = f;
    long long i = rand() % 16 - 8;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t f16 = (uint16_t)((bits >> 16 & 0x8000) | (rand() % 2 + 13) << 10 | (rand() & 0x3FF));
    uint16_t bf16 = (uint16_t)(bits >> 16);
    if (strcmp(dtype, "f64") == 0)
        memcpy(p, &d, 8);
    else if (strcmp(dtype, "f32") == 0)
        memcpy(p, &f, 4);
    else if (strcmp(dtype, "f16") == 0)
        memcpy(p, &f16, 2);
    else if (strcmp(dtype, "bf16") == 0)
        memcpy(p, &bf16, 2);
    else if (strcmp(dtype, "u8") == 0 || strcmp(dtype, "i1") == 0)
        *p = (unsigned char)(rand() % 2);
    else
        memcpy(p, &i, dtype_size(dtype));       /* little-endian: the low bytes */
}

/* One element of `dtype` at p, as a double. */
static double get_value(const char *dtype, const unsigned char *p)
{
    double d;
    float f;
    uint16_t h;
    uint32_t bits;
    long long i = 0;
    if (strcmp(dtype, "f64") == 0)
        return memcpy(&d, p, 8), d;
    if (strcmp(dtype, "f32") == 0)
        return memcpy(&f, p, 4), f;
    if (strcmp(dtype, "f16") == 0 || strcmp(dtype, "bf16") == 0) {
        memcpy(&h, p, 2);
        if (dtype[0] == 'b')
            bits = (uint32_t)h << 16;
        else {                                  /* normal f16 only (0 for subnormals) */
            uint32_t e = h >> 10 & 0x1F;
            bits = (uint32_t)(h & 0x8000) << 16 |
                   (e == 0 ? 0 : (e == 31 ? 255 : e - 15 + 127) << 23 | (uint32_t)(h & 0x3FF) << 13);
        }
        return memcpy(&f, &bits, 4), f;
    }
    if (strcmp(dtype, "u8") == 0 || strcmp(dtype, "i1") == 0)
        return *p;
    memcpy(&i, p, dtype_size(dtype));
    size_t shift = 64 - 8 * dtype_size(dtype);  /* sign-extend the low bytes */
    return (double)((long long)((unsigned long long)i << shift) >> shift);
}

static void print_tensor(const char *kind, size_t index, const accyrt_tensor_info *t)
{
    printf("  %s %zu: %s[", kind, index, t->dtype);
    for (uint32_t d = 0; d < t->rank; d++)
        printf(d ? ",%lld" : "%lld", (long long)t->dims[d]);
    printf("] (%llu bytes)\n", (unsigned long long)t->nbytes);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: run_bundle BUNDLE\n");
        return 1;
    }
    accyrt_bundle *bundle;
    accyrt_status *status = accyrt_bundle_open_file(argv[1], &bundle);
    if (status != NULL)
        return failed("opening the bundle", status);
    size_t n_in = accyrt_bundle_num_arguments(bundle), n_out = accyrt_bundle_num_results(bundle);
    accyrt_tensor_info *info = calloc(n_in + n_out + 1, sizeof *info);
    uint64_t *buffers = calloc(n_in + n_out + 1, sizeof *buffers);  /* inputs, then outputs */
    if (info == NULL || buffers == NULL) {
        free(info);
        free(buffers);
        accyrt_bundle_free(bundle);
        return failed("reading the signature", accyrt_status_new(ACCYRT_OUT_OF_MEMORY,
                                                                 "out of host memory"));
    }
    printf("%s: written by accy %s for %s\n", argv[1], accyrt_bundle_accy_version(bundle),
           accyrt_bundle_target(bundle));
    for (size_t i = 0; i < n_in + n_out; i++) {
        info[i].struct_size = sizeof info[i];
        status = i < n_in ? accyrt_bundle_argument(bundle, i, &info[i])
                          : accyrt_bundle_result(bundle, i - n_in, &info[i]);
        if (status != NULL)
            break;
        print_tensor(i < n_in ? "argument" : "result", i < n_in ? i : i - n_in, &info[i]);
    }

    accyrt_device *gpu = NULL;
    if (status == NULL)
        status = accyrt_cuda_device_open(0, &gpu);
    if (gpu == NULL) {
        if (accyrt_status_code(status) != ACCYRT_DEVICE) {
            failed("reading the signature", status);
            free(info);
            free(buffers);
            accyrt_bundle_free(bundle);
            return 1;
        }
        printf("no GPU to run it on: %s\n", accyrt_status_message(status));
        accyrt_status_free(status);
        free(info);
        free(buffers);
        accyrt_bundle_free(bundle);
        return 2;
    }
    accyrt_session *session = NULL;
    unsigned char *host = NULL;
    for (size_t i = 0; status == NULL && i < n_in + n_out; i++) {
        free(host);
        if ((host = malloc(info[i].nbytes + 1)) == NULL) {
            status = accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "out of host memory");
            break;
        }
        status = gpu->alloc(gpu->self, info[i].nbytes, &buffers[i]);
        for (uint64_t k = 0; i < n_in && k < info[i].nbytes; k += dtype_size(info[i].dtype))
            put_random(info[i].dtype, host + k);
        if (status == NULL && i < n_in)
            status = gpu->copy_htod(gpu->self, buffers[i], host, info[i].nbytes, NULL);
    }
    if (status == NULL)
        status = accyrt_session_create(bundle, gpu, &session);
    if (status == NULL)
        status = accyrt_session_run(session, buffers, n_in, buffers + n_in, n_out, NULL);
    for (size_t i = n_in; status == NULL && i < n_in + n_out; i++) {
        free(host);
        if ((host = malloc(info[i].nbytes + 1)) == NULL) {
            status = accyrt_status_new(ACCYRT_OUT_OF_MEMORY, "out of host memory");
            break;
        }
        status = gpu->copy_dtoh(gpu->self, host, buffers[i], info[i].nbytes, NULL);
        printf("result %zu:", i - n_in);
        size_t size = dtype_size(info[i].dtype);
        for (uint64_t k = 0; status == NULL && k < info[i].nbytes && k < 4 * size; k += size)
            printf(" %g", get_value(info[i].dtype, host + k));
        printf("%s\n", info[i].nbytes > 4 * size ? " ..." : "");
    }
    int code = status == NULL ? 0 : failed("running", status);
    accyrt_session_free(session);
    for (size_t i = 0; i < n_in + n_out; i++)
        if (buffers[i] != 0)
            accyrt_status_free(gpu->free(gpu->self, buffers[i]));
    free(host);
    free(info);
    free(buffers);
    accyrt_cuda_device_close(gpu);
    accyrt_bundle_free(bundle);
    return code;
}
