/* Sessions: a bundle's modules, arena, scratch and constants on a device, and the host
 * program run over them with the caller's buffers. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct accyrt_session {
    const accyrt_bundle *b;
    accyrt_device dev;          /* the caller's table, copied */
    void *module;               /* the ptx section's (or the cubin's) module, or NULL */
    void **kernel_modules;      /* per kernel: a kernel_call's own module, or NULL */
    void **functions;           /* per kernel */
    uint64_t *base;             /* per slot: its address (a state slot: as its loop bound it) */
    uint8_t *allocated;         /* per slot: allocated by the session */
    uint64_t *param_values;     /* every launch's parameters, as their 8 bytes */
    void **param_pointers;      /* &param_values[i] */
};

static int runs_cubin(const accyrt_bundle *b, int major, int minor)
{
    if (b->target_specific)
        return major == b->target_major && minor == b->target_minor;
    return major == b->target_major && minor >= b->target_minor;
}

static int runs_ptx(const accyrt_bundle *b, int major, int minor)
{
    if (b->target_specific)
        return major == b->target_major && minor == b->target_minor;
    return major > b->target_major || (major == b->target_major && minor >= b->target_minor);
}

ACCYRT_API void accyrt_session_free(accyrt_session *s)
{
    if (s == NULL)
        return;
    const accyrt_bundle *b = s->b;
    /* a failure to free is not the caller's to handle: the memory is given up either way */
    if (s->allocated != NULL)
        for (uint32_t i = 0; i < b->num_slots; i++)
            if (s->allocated[i])
                accyrt_status_free(s->dev.free(s->dev.self, s->base[i]));
    if (s->kernel_modules != NULL)
        for (uint32_t k = 0; k < b->num_kernels; k++)
            if (s->kernel_modules[k] != NULL)
                accyrt_status_free(s->dev.unload_module(s->dev.self, s->kernel_modules[k]));
    if (s->module != NULL)
        accyrt_status_free(s->dev.unload_module(s->dev.self, s->module));
    free(s->kernel_modules);
    free(s->functions);
    free(s->base);
    free(s->allocated);
    free(s->param_values);
    free(s->param_pointers);
    free(s);
}

static accyrt_status *check_device(const accyrt_device *d)
{
    if (d->struct_size != sizeof(accyrt_device))
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_create: device->struct_size "
                         "is %zu, not sizeof(accyrt_device) (%zu)", d->struct_size,
                         sizeof(accyrt_device));
    const struct {
        int missing;
        const char *name;
    } entries[] = {
        {d->load_module == NULL, "load_module"}, {d->unload_module == NULL, "unload_module"},
        {d->get_function == NULL, "get_function"}, {d->alloc == NULL, "alloc"},
        {d->free == NULL, "free"}, {d->copy_htod == NULL, "copy_htod"},
        {d->copy_dtoh == NULL, "copy_dtoh"}, {d->copy_dtod == NULL, "copy_dtod"},
        {d->memset == NULL, "memset"}, {d->launch == NULL, "launch"},
        {d->synchronize == NULL, "synchronize"}};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i].missing)
            return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_create: the device's %s "
                             "is NULL (only capability may be)", entries[i].name);
    return NULL;
}

/* Load the modules and get every kernel's function. */
static accyrt_status *load(accyrt_session *s)
{
    const accyrt_bundle *b = s->b;
    const accyrt_device *d = &s->dev;
    accyrt_status *e;
    int generated = 0;
    for (uint32_t k = 0; k < b->num_kernels; k++)
        generated |= b->kernels[k].module == 0;
    if (generated) {
        int use_cubin = 0;
        if (d->capability != NULL) {
            int major = 0, minor = 0;
            if ((e = d->capability(d->self, &major, &minor)) != NULL)
                return rt_wrap(e, "session: the device's capability");
            use_cubin = b->cubin != NULL && runs_cubin(b, major, minor);
            if (!use_cubin && !runs_ptx(b, major, minor))
                return rt_status(ACCYRT_UNSUPPORTED, "session: the bundle was compiled for %s, "
                                 "which a device of compute capability %d.%d cannot run: "
                                 "compile it for that device's arch", b->target, major, minor);
        }
        const void *image = use_cubin ? (const void *)b->cubin : (const void *)b->ptx;
        size_t size = use_cubin ? b->cubin_size : b->ptx_size;
        if ((e = d->load_module(d->self, image, size, use_cubin, &s->module)) != NULL) {
            s->module = NULL;
            return rt_wrap(e, "session: loading the %s (%zu bytes)", use_cubin ? "cubin" : "PTX",
                           size);
        }
    }
    for (uint32_t k = 0; k < b->num_kernels; k++) {
        const rt_kernel *kernel = &b->kernels[k];
        void *module = s->module;
        if (kernel->module == 1) {
            if ((e = d->load_module(d->self, kernel->ptx, kernel->ptx_size, 0,
                                    &s->kernel_modules[k])) != NULL) {
                s->kernel_modules[k] = NULL;
                return rt_wrap(e, "session: loading kernel '%s''s module", kernel->name);
            }
            module = s->kernel_modules[k];
        }
        if ((e = d->get_function(d->self, module, kernel->name, &s->functions[k])) != NULL)
            return rt_wrap(e, "session: getting kernel '%s'", kernel->name);
    }
    return NULL;
}

/* The arena, scratch and constants. */
static accyrt_status *allocate(accyrt_session *s)
{
    const accyrt_bundle *b = s->b;
    const accyrt_device *d = &s->dev;
    accyrt_status *e;
    for (uint32_t i = 0; i < b->num_slots; i++) {
        const rt_slot *slot = &b->slots[i];
        if (slot->kind != RT_SLOT_CONSTANT && slot->kind != RT_SLOT_ARENA &&
            slot->kind != RT_SLOT_SCRATCH)
            continue;
        if ((e = d->alloc(d->self, slot->nbytes, &s->base[i])) != NULL)
            return rt_wrap(e, "session: allocating slot %u (%llu bytes)", i,
                           (unsigned long long)slot->nbytes);
        s->allocated[i] = 1;
        if (slot->kind == RT_SLOT_CONSTANT && slot->nbytes > 0 &&
            (e = d->copy_htod(d->self, s->base[i], slot->data, slot->nbytes, NULL)) != NULL)
            return rt_wrap(e, "session: uploading constant slot %u", i);
    }
    /* the uploads are done before any stream of the caller's runs the kernels */
    if ((e = d->synchronize(d->self, NULL)) != NULL)
        return rt_wrap(e, "session: synchronizing after the uploads");
    return NULL;
}

ACCYRT_API accyrt_status *accyrt_session_create(const accyrt_bundle *bundle,
                                                const accyrt_device *device,
                                                accyrt_session **out)
{
    if (out == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_create: out is NULL");
    *out = NULL;
    if (bundle == NULL || device == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_create: %s is NULL",
                         bundle == NULL ? "bundle" : "device");
    accyrt_status *e = check_device(device);
    if (e != NULL)
        return e;
    accyrt_session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return &rt_out_of_memory;
    s->b = bundle;
    s->dev = *device;
    size_t kernels = bundle->num_kernels ? bundle->num_kernels : 1;
    size_t slots = bundle->num_slots ? bundle->num_slots : 1;
    size_t params = bundle->num_launch_params ? bundle->num_launch_params : 1;
    s->kernel_modules = calloc(kernels, sizeof(void *));
    s->functions = calloc(kernels, sizeof(void *));
    s->base = calloc(slots, sizeof(uint64_t));
    s->allocated = calloc(slots, 1);
    s->param_values = calloc(params, sizeof(uint64_t));
    s->param_pointers = calloc(params, sizeof(void *));
    if (s->kernel_modules == NULL || s->functions == NULL || s->base == NULL ||
        s->allocated == NULL || s->param_values == NULL || s->param_pointers == NULL) {
        accyrt_session_free(s);
        return &rt_out_of_memory;
    }
    for (size_t i = 0; i < bundle->num_launch_params; i++)
        s->param_pointers[i] = &s->param_values[i];
    if ((e = load(s)) != NULL || (e = allocate(s)) != NULL) {
        accyrt_session_free(s);
        return e;
    }
    *out = s;
    return NULL;
}

/* ---- running ----------------------------------------------------------------------------- */

static uint64_t address(const accyrt_session *s, rt_ref ref)
{
    return s->base[ref.slot] + ref.offset;     /* unsigned: wraps, never undefined */
}

static accyrt_status *run_steps(accyrt_session *s, const rt_steps *steps, void *stream)
{
    const accyrt_device *d = &s->dev;
    accyrt_status *e;
    for (uint32_t i = 0; i < steps->count; i++) {
        const rt_step *step = &steps->steps[i];
        switch (step->tag) {
        case RT_STEP_LAUNCH: {
            uint64_t *values = s->param_values + step->u.launch.first_param;
            for (uint32_t j = 0; j < step->u.launch.num_params; j++) {
                const rt_param *p = &step->u.launch.params[j];
                values[j] = p->tag == RT_PARAM_REF ? address(s, p->ref) : (uint64_t)p->scalar;
            }
            uint32_t k = step->u.launch.kernel;
            e = d->launch(d->self, s->functions[k], step->u.launch.grid, step->u.launch.block,
                          step->u.launch.shared_bytes, stream,
                          s->param_pointers + step->u.launch.first_param,
                          step->u.launch.num_params);
            if (e != NULL)
                return rt_wrap(e, "session run: launching kernel '%s'", s->b->kernels[k].name);
            break;
        }
        case RT_STEP_MEMSET:
            e = d->memset(d->self, address(s, step->u.memset.target), step->u.memset.value,
                          step->u.memset.nbytes, stream);
            if (e != NULL)
                return rt_wrap(e, "session run: memset of %llu bytes",
                               (unsigned long long)step->u.memset.nbytes);
            break;
        case RT_STEP_COPY: {
            uint64_t target = address(s, step->u.copy.target);
            uint64_t source = address(s, step->u.copy.source);
            if (step->u.copy.nbytes == 0 || target == source)
                break;
            e = d->copy_dtod(d->self, target, source, step->u.copy.nbytes, stream);
            if (e != NULL)
                return rt_wrap(e, "session run: copy of %llu bytes",
                               (unsigned long long)step->u.copy.nbytes);
            break;
        }
        case RT_STEP_LOOP: {
            const rt_state *states = step->u.loop.states;
            uint32_t n = step->u.loop.num_states;
            for (uint32_t j = 0; j < n; j++) {
                s->base[states[j].current] = address(s, states[j].first);
                s->base[states[j].next] = address(s, states[j].second);
            }
            for (;;) {
                if ((e = run_steps(s, &step->u.loop.cond, stream)) != NULL)
                    return e;
                uint8_t flag = 0;
                e = d->copy_dtoh(d->self, &flag, address(s, step->u.loop.flag), 1, stream);
                if (e != NULL)
                    return rt_wrap(e, "session run: reading loop item %u's flag",
                                   step->u.loop.item);
                if (flag == 0)
                    break;
                if ((e = run_steps(s, &step->u.loop.body, stream)) != NULL)
                    return e;
                for (uint32_t j = 0; j < n; j++) {
                    uint64_t t = s->base[states[j].current];
                    s->base[states[j].current] = s->base[states[j].next];
                    s->base[states[j].next] = t;
                }
            }
            break;
        }
        default:        /* host steps are refused when the bundle is opened */
            return rt_status(ACCYRT_UNSUPPORTED, "session run: a host step");
        }
    }
    return NULL;
}

static accyrt_status *bind(accyrt_session *s, const uint64_t *inputs, size_t num_inputs,
                           const uint64_t *outputs, size_t num_outputs)
{
    const accyrt_bundle *b = s->b;
    if (num_inputs != b->num_arguments || num_outputs != b->num_results)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_run: %zu inputs and %zu "
                         "outputs given; the bundle takes %u and gives %u", num_inputs,
                         num_outputs, b->num_arguments, b->num_results);
    if ((inputs == NULL && num_inputs > 0) || (outputs == NULL && num_outputs > 0))
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_run: %s is NULL",
                         inputs == NULL && num_inputs > 0 ? "inputs" : "outputs");
    for (uint32_t i = 0; i < b->num_arguments; i++) {
        if (inputs[i] == 0 && b->arguments[i].nbytes > 0)
            return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_run: input %u is address "
                             "0 (it has %llu bytes)", i,
                             (unsigned long long)b->arguments[i].nbytes);
        if (b->argument_slots[i] >= 0)
            s->base[b->argument_slots[i]] = inputs[i];
    }
    for (uint32_t i = 0; i < b->num_results; i++)
        if (outputs[i] == 0 && b->results[i].nbytes > 0)
            return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_run: output %u is address "
                             "0 (it has %llu bytes)", i, (unsigned long long)b->results[i].nbytes);
    for (uint32_t i = 0; i < b->num_slots; i++)
        if (b->slots[i].kind == RT_SLOT_RESULT)
            s->base[i] = outputs[b->slots[i].position];
    return NULL;
}

ACCYRT_API accyrt_status *accyrt_session_run(accyrt_session *session, const uint64_t *inputs,
                                             size_t num_inputs, const uint64_t *outputs,
                                             size_t num_outputs, void *stream)
{
    if (session == NULL)
        return rt_status(ACCYRT_INVALID_ARGUMENT, "accyrt_session_run: session is NULL");
    accyrt_status *e = bind(session, inputs, num_inputs, outputs, num_outputs);
    if (e != NULL || (e = run_steps(session, &session->b->steps, stream)) != NULL)
        return e;
    /* a result whose operand lies outside its own result slot is copied into its buffer */
    const accyrt_bundle *b = session->b;
    const accyrt_device *d = &session->dev;
    for (uint32_t i = 0; i < b->num_results; i++) {
        uint64_t source = address(session, b->result_refs[i]);
        if (b->results[i].nbytes == 0 || source == outputs[i])
            continue;
        if ((e = d->copy_dtod(d->self, outputs[i], source, b->results[i].nbytes, stream)))
            return rt_wrap(e, "session run: copying result %u", i);
    }
    return NULL;
}
