/* The library's own worker threads. An OpenMP region ends at a barrier that
 * waits for every part a worker has claimed, and a worker whose core a busy
 * host process holds stalls the whole call; here the caller claims parts
 * itself from the same counter, never waits for a worker that has not
 * started one, and idle workers sleep instead of spinning on a shared core. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "internal.h"
#include "pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

enum {
  /* The team is clamped below this (MAX_TASK_WORKERS's bound too). */
  MOST_WORKERS = 1023,
  /* Pauses a worker polls for the next part of a call before it sleeps
   * (about 10 us): a step's passes follow each other closely, and waking a
   * sleeping thread costs more than that. */
  WORKER_SPIN = 100,
  /* Pauses the caller polls for parts still in flight before it sleeps:
   * sleeping frees its core, where the scheduler can then move a worker
   * that a busy process keeps from running. */
  CALLER_SPIN = 200
};

/* One call's parts at a time. A 64-bit word carries the call's number
 * (high half) with what is left to take (low half), so a worker that
 * slept through a whole call can never take a part of the next one by
 * mistake: its compare-and-swap names the old call. */
static struct {
  _Atomic uint64_t parts; /* call << 32 | parts not yet claimed */
  _Atomic uint64_t seats; /* call << 32 | workers that may still join */
  atomic_size_t done;     /* parts finished */
  /* The call's work; rewritten only when no part of the last call is
   * running (its caller waited for all of them). */
  _Atomic(cs_items_fn *) fn;
  _Atomic(void *) context;
  atomic_size_t items, range, count;
  atomic_int owner;   /* a caller is using the pool */
  atomic_int workers; /* threads started */
  atomic_int sleepers;
  atomic_int caller_sleeps;
  atomic_int stopping;
  pthread_mutex_t lock;
  pthread_cond_t wake, finished;
  pthread_t threads[MOST_WORKERS];
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .finished = PTHREAD_COND_INITIALIZER};

static uint32_t call_of(uint64_t word) { return (uint32_t)(word >> 32); }
static uint32_t left_of(uint64_t word) { return (uint32_t)word; }

/* Takes one from the low half of *word while it still names `call`;
 * returns the low half it took from, 0 if nothing was left. */
static uint32_t take(_Atomic uint64_t *word, uint32_t call) {
  uint64_t seen = atomic_load(word);
  while (call_of(seen) == call && left_of(seen))
    if (atomic_compare_exchange_weak(word, &seen, seen - 1)) return left_of(seen);
  return 0;
}

/* Claims and runs parts of `call` until none is left; a part claimed
 * keeps the call's fields as they are until it is counted done. */
static void work_on(uint32_t call) {
  uint32_t left;
  while ((left = take(&pool.parts, call)) != 0) {
    const size_t count = atomic_load_explicit(&pool.count, memory_order_relaxed);
    const size_t items = atomic_load_explicit(&pool.items, memory_order_relaxed);
    const size_t range = atomic_load_explicit(&pool.range, memory_order_relaxed);
    cs_items_fn *const fn = atomic_load_explicit(&pool.fn, memory_order_relaxed);
    void *const context = atomic_load_explicit(&pool.context, memory_order_relaxed);
    const size_t first = (count - left) * range;
    fn(context, first, items - first > range ? first + range : items);
    if (atomic_fetch_add(&pool.done, 1) + 1 == count &&
        atomic_load(&pool.caller_sleeps)) {
      pthread_mutex_lock(&pool.lock);
      pthread_cond_broadcast(&pool.finished);
      pthread_mutex_unlock(&pool.lock);
    }
  }
}

/* The number of the next call after `seen`, or 0 when stopping. */
static uint32_t next_call(uint32_t seen) {
  for (int spin = 0; spin < WORKER_SPIN; spin++) {
    if (call_of(atomic_load_explicit(&pool.parts, memory_order_relaxed)) != seen) break;
    CPU_RELAX();
  }
  uint32_t call = call_of(atomic_load(&pool.parts));
  if (call == seen) {
    pthread_mutex_lock(&pool.lock);
    atomic_fetch_add(&pool.sleepers, 1);
    while ((call = call_of(atomic_load(&pool.parts))) == seen &&
           !atomic_load(&pool.stopping))
      pthread_cond_wait(&pool.wake, &pool.lock);
    atomic_fetch_sub(&pool.sleepers, 1);
    pthread_mutex_unlock(&pool.lock);
  }
  return atomic_load(&pool.stopping) ? 0 : call;
}

static void *worker(void *first_seen) {
  /* The pool's own thread: the library's mode for good. */
  (void)cs_fpenv_enter();
  uint32_t call = (uint32_t)(uintptr_t)first_seen;
  while ((call = next_call(call)) != 0)
    if (take(&pool.seats, call)) work_on(call);
  return NULL;
}

/* Starts workers until there are `wanted` (fewer if the system refuses:
 * the caller then does more itself). Called by the pool's owner only. */
static void start_workers(int wanted, uint32_t seen) {
  int have = atomic_load(&pool.workers);
  if (have >= wanted) return;
  /* Workers take none of the host's signals; they start with every signal
   * blocked and keep that mask. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  for (; have < wanted; have++)
    if (pthread_create(&pool.threads[have], NULL, worker, (void *)(uintptr_t)seen) != 0)
      break;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  atomic_store(&pool.workers, have);
}

/* Waits for the parts still running on workers. */
static void wait_for_parts(size_t count) {
  for (int spin = 0; spin < CALLER_SPIN; spin++) {
    if (atomic_load_explicit(&pool.done, memory_order_acquire) == count) return;
    CPU_RELAX();
  }
  pthread_mutex_lock(&pool.lock);
  atomic_store(&pool.caller_sleeps, 1);
  while (atomic_load(&pool.done) != count)
    pthread_cond_wait(&pool.finished, &pool.lock);
  atomic_store(&pool.caller_sleeps, 0);
  pthread_mutex_unlock(&pool.lock);
}

/* A forked child has none of the workers, and a lock another thread held
 * at the fork stays held: it starts afresh. */
static void after_fork_in_child(void) {
  atomic_store(&pool.workers, 0);
  atomic_store(&pool.owner, 0);
  atomic_store(&pool.sleepers, 0);
  atomic_store(&pool.caller_sleeps, 0);
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.wake, NULL);
  pthread_cond_init(&pool.finished, NULL);
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void register_fork_handler(void) {
  pthread_atfork(NULL, NULL, after_fork_in_child);
}

void cs_pool_run(int threads, size_t items, size_t range, cs_items_fn *fn,
                 void *context) {
  size_t count = (items + range - 1) / range;
  if (count > UINT32_MAX) { /* the parts counter is 32 bits: bigger parts */
    range = items / UINT32_MAX + 1;
    count = (items + range - 1) / range;
  }
  int idle = 0;
  /* Another host thread's call holds the pool: this one runs alone, as a
   * step that finds its workspace in use allocates (same bits). */
  if (threads < 2 || count < 2 ||
      !atomic_compare_exchange_strong(&pool.owner, &idle, 1)) {
    const cs_fpenv here = cs_fpenv_enter();
    fn(context, 0, items);
    cs_fpenv_leave(here);
    return;
  }
  pthread_once(&fork_handler_once, register_fork_handler);
  int helpers = threads - 1 < MOST_WORKERS ? threads - 1 : MOST_WORKERS;
  if ((size_t)helpers > count - 1) helpers = (int)(count - 1);
  const uint32_t last = call_of(atomic_load(&pool.parts));
  const uint32_t call = last + 1 ? last + 1 : 1; /* 0 means stopping */
  start_workers(helpers, last);
  atomic_store_explicit(&pool.fn, fn, memory_order_relaxed);
  atomic_store_explicit(&pool.context, context, memory_order_relaxed);
  atomic_store_explicit(&pool.items, items, memory_order_relaxed);
  atomic_store_explicit(&pool.range, range, memory_order_relaxed);
  atomic_store_explicit(&pool.count, count, memory_order_relaxed);
  atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
  atomic_store(&pool.seats, (uint64_t)call << 32 | (uint32_t)helpers);
  atomic_store(&pool.parts, (uint64_t)call << 32 | (uint32_t)count); /* published */
  if (atomic_load(&pool.sleepers)) {
    pthread_mutex_lock(&pool.lock);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
  }
  work_on(call);
  wait_for_parts(count);
  atomic_store(&pool.owner, 0);
}

int cs_pool_workers(void) { return atomic_load(&pool.workers); }

/* Workers must not outlive the library's code (dlclose) or run on in a
 * process that is exiting: they are stopped and joined. */
__attribute__((destructor)) static void stop_workers(void) {
  const int workers = atomic_load(&pool.workers);
  if (!workers) return;
  pthread_mutex_lock(&pool.lock);
  atomic_store(&pool.stopping, 1);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (int w = 0; w < workers; w++)
    pthread_join(pool.threads[w], NULL);
  atomic_store(&pool.workers, 0);
}
