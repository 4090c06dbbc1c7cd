/* Statuses: a code and a message in one allocation; a static one for when memory runs out. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct accyrt_status {
    accyrt_code code;
    int is_static;              /* never freed */
    const char *message;
};

accyrt_status rt_out_of_memory = {ACCYRT_OUT_OF_MEMORY, 1, "out of host memory"};

static accyrt_status *make(accyrt_code code, const char *message, size_t length)
{
    accyrt_status *s = malloc(sizeof *s + length + 1);
    if (s == NULL)
        return &rt_out_of_memory;
    s->code = code;
    s->is_static = 0;
    char *text = (char *)(s + 1);
    memcpy(text, message, length);
    text[length] = '\0';
    s->message = text;
    return s;
}

ACCYRT_API accyrt_code accyrt_status_code(const accyrt_status *status)
{
    return status == NULL ? ACCYRT_OK : status->code;
}

ACCYRT_API const char *accyrt_status_message(const accyrt_status *status)
{
    return status == NULL ? "" : status->message;
}

ACCYRT_API void accyrt_status_free(accyrt_status *status)
{
    if (status != NULL && !status->is_static)
        free(status);
}

ACCYRT_API accyrt_status *accyrt_status_new(accyrt_code code, const char *message)
{
    if (message == NULL)
        message = "";
    if (code <= ACCYRT_OK || code > ACCYRT_IO)    /* a failure needs a failure's code */
        return rt_status(ACCYRT_INVALID_ARGUMENT,
                         "accyrt_status_new: %d is not an error code (message: %s)",
                         (int)code, message);
    return make(code, message, strlen(message));
}

accyrt_status *rt_vstatus(accyrt_code code, const char *format, va_list args)
{
    char small[256];
    va_list again;
    va_copy(again, args);
    int n = vsnprintf(small, sizeof small, format, args);
    if (n < 0) {
        va_end(again);
        return make(code, format, strlen(format));
    }
    if ((size_t)n < sizeof small) {
        va_end(again);
        return make(code, small, (size_t)n);
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        va_end(again);
        return &rt_out_of_memory;
    }
    vsnprintf(big, (size_t)n + 1, format, again);
    va_end(again);
    accyrt_status *s = make(code, big, (size_t)n);
    free(big);
    return s;
}

accyrt_status *rt_status(accyrt_code code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    accyrt_status *s = rt_vstatus(code, format, args);
    va_end(args);
    return s;
}

void rt_vformat(char *out, size_t size, const char *format, va_list args)
{
    if (vsnprintf(out, size, format, args) < 0)
        out[0] = '\0';
}

accyrt_status *rt_wrap(accyrt_status *inner, const char *format, ...)
{
    char context[512];
    va_list args;
    va_start(args, format);
    rt_vformat(context, sizeof context, format, args);
    va_end(args);
    accyrt_code code = inner->code;
    if (code <= ACCYRT_OK || code > ACCYRT_IO)   /* a device's struct is never a bad code, */
        code = ACCYRT_DEVICE;                    /* but a hand-made one might be */
    accyrt_status *s = rt_status(code, "%s: %s", context, inner->message);
    if (s == &rt_out_of_memory)
        return inner;           /* keep the device's own message rather than lose it */
    accyrt_status_free(inner);
    return s;
}
