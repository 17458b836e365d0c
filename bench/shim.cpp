// The only C++ in crowdsteer: implements bench/shim.h on top of Google
// Benchmark so the benchmarks themselves stay C.
#include "shim.h"

#include <benchmark/benchmark.h>

#include <string>

namespace {
benchmark::State &unwrap(csb_state *state) {
  return *reinterpret_cast<benchmark::State *>(state);
}
const benchmark::State &unwrap(const csb_state *state) {
  return *reinterpret_cast<const benchmark::State *>(state);
}
} // namespace

extern "C" {

void csb_initialize(int *argc, char **argv) { benchmark::Initialize(argc, argv); }

int csb_report_unrecognized_arguments(int argc, char **argv) {
  return benchmark::ReportUnrecognizedArguments(argc, argv) ? 1 : 0;
}

void csb_add_context(const char *key, const char *value) {
  benchmark::AddCustomContext(key, value);
}

static benchmark::internal::Benchmark *
register_function(const char *name, csb_function function, const void *arg,
                  const int64_t *args, size_t n_args) {
  benchmark::internal::Benchmark *b =
      benchmark::RegisterBenchmark(name, [function, arg](benchmark::State &state) {
        function(reinterpret_cast<csb_state *>(&state), arg);
      });
  for (size_t k = 0; k < n_args; k++)
    b->Arg(args[k]);
  return b;
}

void csb_register(const char *name, csb_function function, const void *arg,
                  const int64_t *args, size_t n_args) {
  register_function(name, function, arg, args, n_args);
}

void csb_register_wall_clock(const char *name, csb_function function, const void *arg,
                             const int64_t *args, size_t n_args) {
  register_function(name, function, arg, args, n_args)->UseRealTime();
}

size_t csb_run_specified(void) { return benchmark::RunSpecifiedBenchmarks(); }

void csb_shutdown(void) { benchmark::Shutdown(); }

int csb_keep_running(csb_state *state) { return unwrap(state).KeepRunning() ? 1 : 0; }

int64_t csb_range(const csb_state *state, size_t index) {
  return unwrap(state).range(index);
}

int64_t csb_iterations(const csb_state *state) {
  return static_cast<int64_t>(unwrap(state).iterations());
}

void csb_pause_timing(csb_state *state) { unwrap(state).PauseTiming(); }
void csb_resume_timing(csb_state *state) { unwrap(state).ResumeTiming(); }

void csb_set_items_processed(csb_state *state, int64_t items) {
  unwrap(state).SetItemsProcessed(items);
}

void csb_set_bytes_processed(csb_state *state, int64_t bytes) {
  unwrap(state).SetBytesProcessed(bytes);
}

void csb_set_counter(csb_state *state, const char *name, double value, int is_rate) {
  unwrap(state).counters[name] = benchmark::Counter(
      value, is_rate ? benchmark::Counter::kIsRate : benchmark::Counter::kDefaults);
}

void csb_set_label(csb_state *state, const char *label) { unwrap(state).SetLabel(label); }

void csb_skip_with_error(csb_state *state, const char *message) {
  unwrap(state).SkipWithError(message);
}

// Out of line on purpose: a C caller cannot see through this call, and the
// inline asm inside DoNotOptimize tells this compiler the pointer escapes.
void csb_do_not_optimize(const void *pointer) { benchmark::DoNotOptimize(pointer); }

void csb_clobber_memory(void) { benchmark::ClobberMemory(); }

} // extern "C"
