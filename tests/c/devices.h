/* Device tables for testing and benchmarking libaccyrt without a GPU (tests/c/devices.c).
 *
 * Every device hands out addresses (k + 1) << 40 for its k-th allocation and checks that
 * each address is freed once; modules are heap allocations (so a module never unloaded shows
 * as a leak under LeakSanitizer). copy_dtoh fills its target with the next bytes of the flag
 * script (0 once it is used up), so a loop runs as many trips as the script says.
 *
 * As a library of its own (for a benchmark through ctypes, say):
 *     cc -shared -fPIC -O2 tests/c/devices.c $(accy config --cflags --libs) \
 *        -o libaccyrt_testdevices.so */
#ifndef ACCYRT_TEST_DEVICES_H
#define ACCYRT_TEST_DEVICES_H

#include <accyrt.h>

#if defined(__GNUC__)
#define ACCYRT_TEST_API __attribute__((visibility("default")))
#else
#define ACCYRT_TEST_API
#endif

/* Does nothing but count the calls; capability 9.0. */
ACCYRT_TEST_API accyrt_device *accyrt_test_null_device(void);
/* Also logs each call as a line of text (accyrt_test_device_log); capability major.minor
 * (major < 0: no capability entry). */
ACCYRT_TEST_API accyrt_device *accyrt_test_recording_device(const uint8_t *flags,
                                                            size_t num_flags, int major,
                                                            int minor);
/* A null device whose call number `fail_at` (from 0, over every entry) fails with
 * ACCYRT_DEVICE. */
ACCYRT_TEST_API accyrt_device *accyrt_test_failing_device(uint64_t fail_at);
ACCYRT_TEST_API void accyrt_test_device_free(accyrt_device *device);

ACCYRT_TEST_API const char *accyrt_test_device_log(const accyrt_device *device);
/* The calls of one entry ("launch", "alloc", ...) or of all ("total"). */
ACCYRT_TEST_API uint64_t accyrt_test_device_calls(const accyrt_device *device,
                                                  const char *entry);
/* Allocations and modules not yet freed or unloaded; -1 after a free of an address that was
 * not allocated (or freed twice). */
ACCYRT_TEST_API int64_t accyrt_test_device_live(const accyrt_device *device);

#endif
