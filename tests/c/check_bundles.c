/* libaccyrt's test program, built from the installed header and library only (tests/
 * test_libaccyrt.py). Each mode prints what the test compares; exit 0 unless a check fails.
 *
 *   check_bundles signature FILE     the signature, read from the file and from memory
 *   check_bundles open FILE          the status of opening it: code and message
 *   check_bundles record FILE [FLAG...] [--capability M.N | --no-capability]
 *                                    run on the recording device, print its log
 *   check_bundles null FILE          run twice on the null device; every call balanced
 *   check_bundles faults FILE        fail each device call in turn: a clean status each time
 *   check_bundles status FILE        the status contract (NULL pointers, struct sizes)
 *   check_bundles cuda FILE IN OUT   run twice on GPU 0: argument i read from IN<i>.bin,
 *                                    result i written to OUT<i>.bin; exit 2 when no GPU opens
 *   check_bundles cuda_thread FILE IN OUT   the same on a thread of its own, the device opened
 *                                    on the main thread
 */
#define _POSIX_C_SOURCE 200809L         /* pthreads */

#include <accyrt.h>

#include "devices.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "check_bundles: line %d: ", __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

static uint64_t input_address(size_t i)
{
    return (uint64_t)(0x100 + i) << 40;
}

static uint64_t output_address(size_t i)
{
    return (uint64_t)(0x200 + i) << 40;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t capacity = 1 << 16, n = 0;
    unsigned char *data = malloc(capacity);
    while (data != NULL) {
        n += fread(data + n, 1, capacity - n, f);
        if (n < capacity)
            break;
        unsigned char *grown = realloc(data, capacity * 2);
        if (grown == NULL) {
            free(data);
            data = NULL;
            break;
        }
        data = grown;
        capacity *= 2;
    }
    fclose(f);
    *size = n;
    return data;
}

/* Prints status `s` (code and message) and frees it; returns its code. */
static accyrt_code report(const char *what, accyrt_status *s)
{
    accyrt_code code = accyrt_status_code(s);
    printf("%s: %d %s\n", what, (int)code, accyrt_status_message(s));
    accyrt_status_free(s);
    return code;
}

static void print_tensor(const char *kind, size_t i, const accyrt_tensor_info *t)
{
    printf("%s %zu %s [", kind, i, t->dtype);
    for (uint32_t d = 0; d < t->rank; d++)
        printf(d ? ",%lld" : "%lld", (long long)t->dims[d]);
    printf("] %llu\n", (unsigned long long)t->nbytes);
}

static void print_signature(const accyrt_bundle *b)
{
    printf("target %s\naccy %s\n", accyrt_bundle_target(b), accyrt_bundle_accy_version(b));
    for (int results = 0; results < 2; results++) {
        size_t n = results ? accyrt_bundle_num_results(b) : accyrt_bundle_num_arguments(b);
        for (size_t i = 0; i < n; i++) {
            accyrt_tensor_info t = {sizeof t, NULL, 0, NULL, 0};
            accyrt_status *s = results ? accyrt_bundle_result(b, i, &t)
                                       : accyrt_bundle_argument(b, i, &t);
            CHECK(s == NULL, "tensor info: %s", accyrt_status_message(s));
            accyrt_status_free(s);
            print_tensor(results ? "result" : "argument", i, &t);
        }
    }
}

static int mode_signature(const char *path)
{
    accyrt_bundle *from_file = NULL, *from_memory = NULL;
    if (report("open_file", accyrt_bundle_open_file(path, &from_file)) != ACCYRT_OK)
        return 1;
    size_t size;
    unsigned char *data = read_file(path, &size);
    CHECK(data != NULL, "cannot read %s", path);
    accyrt_status *s = accyrt_bundle_open_memory(data, size, &from_memory);
    CHECK(s == NULL, "open_memory: %s", accyrt_status_message(s));
    accyrt_status_free(s);
    free(data);                 /* the bundle holds its own copy */
    print_signature(from_file);
    if (from_memory != NULL) {
        /* the same signature, read again from the memory bundle, goes to stderr to compare */
        CHECK(accyrt_bundle_num_arguments(from_file) == accyrt_bundle_num_arguments(from_memory)
                  && accyrt_bundle_num_results(from_file) == accyrt_bundle_num_results(from_memory)
                  && strcmp(accyrt_bundle_target(from_file), accyrt_bundle_target(from_memory))
                         == 0,
              "file and memory bundles differ");
        for (size_t i = 0; i < accyrt_bundle_num_results(from_memory); i++) {
            accyrt_tensor_info a = {sizeof a, NULL, 0, NULL, 0}, b = {sizeof b, NULL, 0, NULL, 0};
            accyrt_status_free(accyrt_bundle_result(from_file, i, &a));
            accyrt_status_free(accyrt_bundle_result(from_memory, i, &b));
            CHECK(strcmp(a.dtype, b.dtype) == 0 && a.rank == b.rank && a.nbytes == b.nbytes &&
                      memcmp(a.dims, b.dims, a.rank * sizeof *a.dims) == 0,
                  "result %zu differs between the file and memory bundles", i);
        }
    }
    accyrt_bundle_free(from_file);
    accyrt_bundle_free(from_memory);
    return failures != 0;
}

static int mode_open(const char *path)
{
    accyrt_bundle *b = NULL;
    accyrt_code code = report("open_file", accyrt_bundle_open_file(path, &b));
    CHECK((code == ACCYRT_OK) == (b != NULL), "*out and the status disagree");
    accyrt_bundle_free(b);
    return failures != 0;
}

/* inputs and outputs at the test addresses; allocated, the caller frees them */
static void addresses(const accyrt_bundle *b, uint64_t **inputs, uint64_t **outputs)
{
    size_t ni = accyrt_bundle_num_arguments(b), no = accyrt_bundle_num_results(b);
    *inputs = calloc(ni ? ni : 1, sizeof **inputs);
    *outputs = calloc(no ? no : 1, sizeof **outputs);
    for (size_t i = 0; *inputs != NULL && i < ni; i++)
        (*inputs)[i] = input_address(i);
    for (size_t i = 0; *outputs != NULL && i < no; i++)
        (*outputs)[i] = output_address(i);
}

static accyrt_status *create_and_run(const accyrt_bundle *b, const accyrt_device *d, int runs)
{
    accyrt_session *session = NULL;
    accyrt_status *s = accyrt_session_create(b, d, &session);
    if (s != NULL) {
        CHECK(session == NULL, "a failed create left a session");
        return s;
    }
    uint64_t *inputs, *outputs;
    addresses(b, &inputs, &outputs);
    for (int r = 0; r < runs && s == NULL; r++)
        s = accyrt_session_run(session, inputs, accyrt_bundle_num_arguments(b), outputs,
                               accyrt_bundle_num_results(b), NULL);
    free(inputs);
    free(outputs);
    accyrt_session_free(session);
    return s;
}

static int mode_record(const char *path, int argc, char **argv)
{
    uint8_t flags[256];
    size_t n = 0;
    int major = 9, minor = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--no-capability") == 0)
            major = -1;
        else if (strcmp(argv[i], "--capability") == 0 && i + 1 < argc)
            CHECK(sscanf(argv[++i], "%d.%d", &major, &minor) == 2, "bad capability");
        else if (n < sizeof flags)
            flags[n++] = (uint8_t)atoi(argv[i]);
    }
    accyrt_bundle *b = NULL;
    if (report("open_file", accyrt_bundle_open_file(path, &b)) != ACCYRT_OK)
        return 1;
    accyrt_device *d = accyrt_test_recording_device(flags, n, major, minor);
    accyrt_code code = report("run", create_and_run(b, d, 1));
    fputs(accyrt_test_device_log(d), stdout);
    CHECK(accyrt_test_device_live(d) == 0, "%lld allocations or modules left",
          (long long)accyrt_test_device_live(d));
    accyrt_test_device_free(d);
    accyrt_bundle_free(b);
    return failures != 0 || code != ACCYRT_OK;
}

static int mode_null(const char *path)
{
    accyrt_bundle *b = NULL;
    if (report("open_file", accyrt_bundle_open_file(path, &b)) != ACCYRT_OK)
        return 1;
    accyrt_device *d = accyrt_test_null_device();
    accyrt_status *s = create_and_run(b, d, 2);
    CHECK(s == NULL, "run: %s", accyrt_status_message(s));
    accyrt_status_free(s);
    static const char *const entries[] = {"load_module", "unload_module", "get_function",
                                          "alloc", "free", "copy_htod", "copy_dtoh",
                                          "copy_dtod", "memset", "launch", "synchronize"};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        printf("%s %llu\n", entries[i],
               (unsigned long long)accyrt_test_device_calls(d, entries[i]));
    CHECK(accyrt_test_device_live(d) == 0, "%lld allocations or modules left",
          (long long)accyrt_test_device_live(d));
    accyrt_test_device_free(d);
    accyrt_bundle_free(b);
    return failures != 0;
}

static int mode_faults(const char *path)
{
    accyrt_bundle *b = NULL;
    if (report("open_file", accyrt_bundle_open_file(path, &b)) != ACCYRT_OK)
        return 1;
    uint64_t fail_at = 0;
    for (;; fail_at++) {
        accyrt_device *d = accyrt_test_failing_device(fail_at);
        accyrt_status *s = create_and_run(b, d, 2);
        int done = s == NULL;
        if (!done) {
            CHECK(accyrt_status_code(s) == ACCYRT_DEVICE && strstr(accyrt_status_message(s),
                                                                   "injected failure") != NULL,
                  "call %llu: %d %s", (unsigned long long)fail_at, (int)accyrt_status_code(s),
                  accyrt_status_message(s));
            accyrt_status_free(s);
        }
        CHECK(accyrt_test_device_live(d) == 0, "call %llu failed: %lld allocations or modules "
              "left", (unsigned long long)fail_at, (long long)accyrt_test_device_live(d));
        accyrt_test_device_free(d);
        if (done)
            break;
    }
    printf("faults %llu\n", (unsigned long long)fail_at);
    accyrt_bundle_free(b);
    return failures != 0;
}

static void expect_invalid(const char *what, accyrt_status *s)
{
    CHECK(accyrt_status_code(s) == ACCYRT_INVALID_ARGUMENT && accyrt_status_message(s)[0],
          "%s: code %d (%s), not ACCYRT_INVALID_ARGUMENT", what, (int)accyrt_status_code(s),
          accyrt_status_message(s));
    accyrt_status_free(s);
}

/* The contract every call keeps with a NULL pointer or a struct of the wrong size; `path` is a
 * bundle with at least one argument and one result. */
static int mode_status(const char *path)
{
    CHECK(accyrt_status_code(NULL) == ACCYRT_OK, "code of NULL");
    CHECK(strcmp(accyrt_status_message(NULL), "") == 0, "message of NULL");
    accyrt_status_free(NULL);
    accyrt_status *s = accyrt_status_new(ACCYRT_DEVICE, "a device's words");
    CHECK(accyrt_status_code(s) == ACCYRT_DEVICE &&
              strcmp(accyrt_status_message(s), "a device's words") == 0,
          "accyrt_status_new keeps its code and message");
    accyrt_status_free(s);
    s = accyrt_status_new(ACCYRT_IO, NULL);
    CHECK(accyrt_status_code(s) == ACCYRT_IO && strcmp(accyrt_status_message(s), "") == 0,
          "accyrt_status_new(NULL message)");
    accyrt_status_free(s);
    expect_invalid("status_new(OK)", accyrt_status_new(ACCYRT_OK, "fine"));
    expect_invalid("status_new(99)", accyrt_status_new((accyrt_code)99, "?"));

    accyrt_bundle *b = (accyrt_bundle *)&failures;      /* must come back NULL */
    expect_invalid("open_file(NULL path)", accyrt_bundle_open_file(NULL, &b));
    CHECK(b == NULL, "open_file(NULL path) left *out");
    expect_invalid("open_file(NULL out)", accyrt_bundle_open_file(path, NULL));
    expect_invalid("open_memory(NULL data)", accyrt_bundle_open_memory(NULL, 10, &b));
    expect_invalid("open_memory(NULL out)", accyrt_bundle_open_memory("x", 1, NULL));
    s = accyrt_bundle_open_memory(NULL, 0, &b);
    CHECK(accyrt_status_code(s) == ACCYRT_BAD_BUNDLE, "open_memory(NULL, 0): %s",
          accyrt_status_message(s));
    accyrt_status_free(s);
    s = accyrt_bundle_open_file("/nonexistent/model.accy", &b);
    CHECK(accyrt_status_code(s) == ACCYRT_IO, "open_file of a missing file: %s",
          accyrt_status_message(s));
    accyrt_status_free(s);
    accyrt_bundle_free(NULL);
    CHECK(accyrt_bundle_num_arguments(NULL) == 0 && accyrt_bundle_num_results(NULL) == 0,
          "counts of NULL");
    CHECK(strcmp(accyrt_bundle_target(NULL), "") == 0 &&
              strcmp(accyrt_bundle_accy_version(NULL), "") == 0,
          "strings of NULL");

    s = accyrt_bundle_open_file(path, &b);
    CHECK(s == NULL, "open %s: %s", path, accyrt_status_message(s));
    accyrt_status_free(s);
    if (b == NULL)
        return 1;
    accyrt_tensor_info t = {sizeof t, NULL, 0, NULL, 0};
    expect_invalid("argument(NULL bundle)", accyrt_bundle_argument(NULL, 0, &t));
    expect_invalid("argument(NULL out)", accyrt_bundle_argument(b, 0, NULL));
    expect_invalid("result(NULL out)", accyrt_bundle_result(b, 0, NULL));
    expect_invalid("argument(past the end)",
                   accyrt_bundle_argument(b, accyrt_bundle_num_arguments(b), &t));
    expect_invalid("result(past the end)",
                   accyrt_bundle_result(b, accyrt_bundle_num_results(b), &t));
    t.struct_size = sizeof t - 1;
    expect_invalid("argument(struct_size - 1)", accyrt_bundle_argument(b, 0, &t));
    t.struct_size = sizeof t + 8;
    expect_invalid("result(struct_size + 8)", accyrt_bundle_result(b, 0, &t));

    accyrt_device *d = accyrt_test_null_device();
    accyrt_session *session = (accyrt_session *)&failures;
    expect_invalid("session_create(NULL bundle)", accyrt_session_create(NULL, d, &session));
    CHECK(session == NULL, "session_create(NULL bundle) left *out");
    expect_invalid("session_create(NULL device)", accyrt_session_create(b, NULL, &session));
    expect_invalid("session_create(NULL out)", accyrt_session_create(b, d, NULL));
    accyrt_device copy = *d;
    copy.struct_size = sizeof copy - 8;
    expect_invalid("session_create(struct_size - 8)", accyrt_session_create(b, &copy, &session));
    copy = *d;
    copy.launch = NULL;
    expect_invalid("session_create(no launch)", accyrt_session_create(b, &copy, &session));
    s = accyrt_session_create(b, d, &session);
    CHECK(s == NULL, "session_create: %s", accyrt_status_message(s));
    accyrt_status_free(s);
    uint64_t *inputs, *outputs;
    addresses(b, &inputs, &outputs);
    size_t ni = accyrt_bundle_num_arguments(b), no = accyrt_bundle_num_results(b);
    expect_invalid("session_run(NULL session)",
                   accyrt_session_run(NULL, inputs, ni, outputs, no, NULL));
    expect_invalid("session_run(NULL inputs)",
                   accyrt_session_run(session, NULL, ni, outputs, no, NULL));
    expect_invalid("session_run(NULL outputs)",
                   accyrt_session_run(session, inputs, ni, NULL, no, NULL));
    expect_invalid("session_run(one input too many)",
                   accyrt_session_run(session, inputs, ni + 1, outputs, no, NULL));
    expect_invalid("session_run(one output too few)",
                   accyrt_session_run(session, inputs, ni, outputs, no - 1, NULL));
    outputs[0] = 0;
    expect_invalid("session_run(output 0 at address 0)",
                   accyrt_session_run(session, inputs, ni, outputs, no, NULL));
    free(inputs);
    free(outputs);
    accyrt_session_free(session);
    accyrt_session_free(NULL);

    expect_invalid("cuda_device_open(NULL out)", accyrt_cuda_device_open(0, NULL));
    accyrt_device *cuda = d;
    expect_invalid("cuda_device_open(-1)", accyrt_cuda_device_open(-1, &cuda));
    CHECK(cuda == NULL, "cuda_device_open(-1) left *out");
    accyrt_cuda_device_close(NULL);
    accyrt_cuda_device_close(d);        /* not a CUDA device's table: left alone */
    CHECK(accyrt_test_device_live(d) == 0, "the null device is left unbalanced");
    accyrt_test_device_free(d);
    accyrt_bundle_free(b);
    printf("status contract: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}

typedef struct cuda_work {
    const accyrt_bundle *b;
    accyrt_device *d;
    const char *in, *out;
    accyrt_code code;
} cuda_work;

/* Inputs uploaded from files, two runs, results written to files, everything freed. */
static void *cuda_run(void *arg)
{
    cuda_work *w = arg;
    const accyrt_bundle *b = w->b;
    accyrt_device *d = w->d;
    size_t ni = accyrt_bundle_num_arguments(b), no = accyrt_bundle_num_results(b);
    uint64_t *inputs = calloc(ni + 1, sizeof *inputs), *outputs = calloc(no + 1, sizeof *outputs);
    accyrt_tensor_info *results = calloc(no + 1, sizeof *results);
    char name[4096];
    accyrt_status *s = NULL;
    for (size_t i = 0; s == NULL && i < ni; i++) {
        snprintf(name, sizeof name, "%s%zu.bin", w->in, i);
        size_t size = 0;
        unsigned char *data = read_file(name, &size);
        if (data == NULL) {
            s = accyrt_status_new(ACCYRT_IO, "check_bundles: an input file cannot be read");
            break;
        }
        if ((s = d->alloc(d->self, size, &inputs[i])) == NULL && size > 0)
            s = d->copy_htod(d->self, inputs[i], data, size, NULL);
        free(data);
    }
    for (size_t i = 0; s == NULL && i < no; i++) {
        results[i].struct_size = sizeof results[i];
        if ((s = accyrt_bundle_result(b, i, &results[i])) == NULL)
            s = d->alloc(d->self, results[i].nbytes, &outputs[i]);
    }
    accyrt_session *session = NULL;
    if (s == NULL)
        s = accyrt_session_create(b, d, &session);
    for (int r = 0; r < 2 && s == NULL; r++)        /* twice: a session runs again */
        s = accyrt_session_run(session, inputs, ni, outputs, no, NULL);
    if (s == NULL)
        s = d->synchronize(d->self, NULL);
    for (size_t i = 0; s == NULL && i < no; i++) {
        unsigned char *data = malloc(results[i].nbytes + 1);
        if (results[i].nbytes > 0)
            s = d->copy_dtoh(d->self, data, outputs[i], results[i].nbytes, NULL);
        snprintf(name, sizeof name, "%s%zu.bin", w->out, i);
        FILE *f = fopen(name, "wb");
        CHECK(f != NULL && fwrite(data, 1, results[i].nbytes, f) == results[i].nbytes,
              "cannot write %s", name);
        if (f != NULL)
            fclose(f);
        free(data);
    }
    w->code = report("run", s);
    accyrt_session_free(session);
    for (size_t i = 0; i < ni; i++)
        if (inputs[i])
            accyrt_status_free(d->free(d->self, inputs[i]));
    for (size_t i = 0; i < no; i++)
        if (outputs[i])
            accyrt_status_free(d->free(d->self, outputs[i]));
    free(inputs);
    free(outputs);
    free(results);
    return NULL;
}

/* The device opened on this thread; the work done here or on a thread of its own. */
static int mode_cuda(const char *path, const char *in, const char *out, int threaded)
{
    accyrt_bundle *b = NULL;
    if (report("open_file", accyrt_bundle_open_file(path, &b)) != ACCYRT_OK)
        return 1;
    accyrt_device *d = NULL;
    if (report("cuda_device_open", accyrt_cuda_device_open(0, &d)) != ACCYRT_OK) {
        accyrt_bundle_free(b);
        return 2;
    }
    cuda_work w = {b, d, in, out, ACCYRT_OK};
    pthread_t thread;
    if (!threaded)
        cuda_run(&w);
    else if (pthread_create(&thread, NULL, cuda_run, &w) != 0 || pthread_join(thread, NULL) != 0)
        CHECK(0, "no thread");
    accyrt_cuda_device_close(d);
    accyrt_bundle_free(b);
    return failures != 0 || w.code != ACCYRT_OK;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "signature") == 0)
        return mode_signature(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "open") == 0)
        return mode_open(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "record") == 0)
        return mode_record(argv[2], argc - 3, argv + 3);
    if (argc >= 3 && strcmp(argv[1], "null") == 0)
        return mode_null(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "faults") == 0)
        return mode_faults(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "status") == 0)
        return mode_status(argv[2]);
    if (argc >= 5 && strcmp(argv[1], "cuda") == 0)
        return mode_cuda(argv[2], argv[3], argv[4], 0);
    if (argc >= 5 && strcmp(argv[1], "cuda_thread") == 0)
        return mode_cuda(argv[2], argv[3], argv[4], 1);
    fprintf(stderr, "usage: check_bundles signature|open|record|null|faults|status FILE ...\n"
                    "       check_bundles cuda|cuda_thread FILE INPUT_PREFIX OUTPUT_PREFIX\n");
    return 1;
}
