/* A small C interface over Google Benchmark (implemented in shim.cpp), so
 * that every benchmark in bench/ is written in C like the library itself. */
#ifndef CROWDSTEER_BENCH_SHIM_H
#define CROWDSTEER_BENCH_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle on a running benchmark (a benchmark::State). */
typedef struct csb_state csb_state;
/** A benchmark body: runs `while (csb_keep_running(state)) ...` once. */
typedef void (*csb_function)(csb_state *state, const void *arg);

/** Parses and removes --benchmark_* flags from argv. */
void csb_initialize(int *argc, char **argv);
/** Reports any argument left after csb_initialize; nonzero if there was one. */
int csb_report_unrecognized_arguments(int argc, char **argv);
/** Adds a key/value pair to the run's context (JSON "context" object). */
void csb_add_context(const char *key, const char *value);

/** Registers `function(state, arg)` as `name/<a>` for each a in args[0..n_args)
 *  (the argument is read back with csb_range). `name` is copied; `arg` is
 *  kept and must outlive the run. */
void csb_register(const char *name, csb_function function, const void *arg,
                  const int64_t *args, size_t n_args);

/** As csb_register, but rates and times use wall-clock time: for code that
 *  runs on several threads (CPU time counts only the calling thread). */
void csb_register_wall_clock(const char *name, csb_function function, const void *arg,
                             const int64_t *args, size_t n_args);

/** Runs the benchmarks selected by --benchmark_filter; returns how many ran. */
size_t csb_run_specified(void);
/** Releases the library's global state (call once, at the end). */
void csb_shutdown(void);

/* ---- inside a benchmark body ---------------------------------------------- */

/** The keep-running loop: nonzero while more iterations are wanted. */
int csb_keep_running(csb_state *state);
/** The registered argument number `index` (0 for the first). */
int64_t csb_range(const csb_state *state, size_t index);
/** Iterations run so far (valid after the loop). */
int64_t csb_iterations(const csb_state *state);
/** Stop / restart the timer around work that must not be measured. */
void csb_pause_timing(csb_state *state);
void csb_resume_timing(csb_state *state);
/** Totals over all iterations; reported as rates (items/s, bytes/s). */
void csb_set_items_processed(csb_state *state, int64_t items);
void csb_set_bytes_processed(csb_state *state, int64_t bytes);
/** A user counter; `is_rate` divides it by the measured time. */
void csb_set_counter(csb_state *state, const char *name, double value, int is_rate);
/** A free-text label shown next to the result. */
void csb_set_label(csb_state *state, const char *label);
/** Marks the run as failed with `message`; leave the loop after this. */
void csb_skip_with_error(csb_state *state, const char *message);

/** Makes the compiler assume `pointer` (and what it points to) escapes: the
 *  C-callable form of benchmark::DoNotOptimize. */
void csb_do_not_optimize(const void *pointer);
/** A compiler barrier that forces pending memory writes to happen
 *  (benchmark::ClobberMemory). */
void csb_clobber_memory(void);

#ifdef __cplusplus
}
#endif

#endif /* CROWDSTEER_BENCH_SHIM_H */
