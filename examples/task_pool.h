/* A small pthread pool behind crowdsteer_task_system: what an engine's job
 * system provides, in a hundred lines. worker_count - 1 threads wait on a
 * condition variable (asleep, never spinning: they cost the host nothing
 * between tasks) and the thread that calls finish works on its own task
 * too, so a pool of 1 runs everything on the caller. Several host threads
 * may use one pool at once: tasks wait in a list. Header-only so the
 * example and the tests share it; static inline, as every demo file
 * includes it (examples/demo.h) and one uses it. */
#ifndef CROWDSTEER_TASK_POOL_H
#define CROWDSTEER_TASK_POOL_H

#include <pthread.h>
#include <stdlib.h>

#include "crowdsteer.h"

typedef struct pool_task {
  crowdsteer_task_fn *fn;
  void *context;
  uint32_t items, range;
  uint32_t next; /* first item not yet claimed */
  uint32_t left; /* items not yet finished */
  struct pool_task *later;
} pool_task;

typedef struct task_pool {
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  pool_task *queue; /* tasks with items left to claim, oldest first */
  int stopping;
  int thread_count;
  pthread_t *threads;
  crowdsteer_task_system system; /* what crowdsteer is given */
} task_pool;

/* Claims the next range of `t` and runs it with the lock released; the
 * lock is held on entry and on return. */
static inline void pool_run_range(task_pool *p, pool_task *t) {
  const uint32_t first = t->next;
  const uint32_t last = t->items - first > t->range ? first + t->range : t->items;
  t->next = last;
  if (last == t->items) { /* nothing left to claim: off the queue */
    pool_task **at = &p->queue;
    while (*at != t)
      at = &(*at)->later;
    *at = t->later;
  }
  pthread_mutex_unlock(&p->lock);
  t->fn(first, last, t->context);
  pthread_mutex_lock(&p->lock);
  t->left -= last - first;
  if (!t->left) pthread_cond_broadcast(&p->done);
}

static inline void *pool_worker(void *arg) {
  task_pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->queue && !p->stopping)
      pthread_cond_wait(&p->work, &p->lock);
    if (p->stopping) break;
    pool_run_range(p, p->queue);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static inline void *pool_enqueue(crowdsteer_task_fn *fn, uint32_t items,
                                 uint32_t min_range, void *context, void *host) {
  task_pool *p = host;
  if (p->thread_count == 0) { /* a pool of one: the caller does it all */
    fn(0, items, context);
    return NULL;
  }
  pool_task *t = malloc(sizeof *t);
  if (!t) { /* no memory for the bookkeeping: run it here */
    fn(0, items, context);
    return NULL;
  }
  /* About four ranges per worker, so a busy worker holds back little. */
  const uint32_t workers = (uint32_t)p->thread_count + 1;
  uint32_t range = items / (4 * workers);
  if (range < min_range) range = min_range;
  if (range < 1) range = 1;
  *t = (pool_task){fn, context, items, range, 0, items, NULL};
  pthread_mutex_lock(&p->lock);
  pool_task **at = &p->queue;
  while (*at)
    at = &(*at)->later;
  *at = t;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  return t;
}

static inline void pool_finish(void *handle, void *host) {
  task_pool *p = host;
  pool_task *t = handle;
  pthread_mutex_lock(&p->lock);
  while (t->next < t->items) /* help with our own task */
    pool_run_range(p, t);
  while (t->left)
    pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  free(t);
}

/* A pool of `workers` (1 or more: the caller of finish is one of them);
 * 0 on success. */
static inline int task_pool_start(task_pool *p, int workers) {
  if (workers < 1) return -1;
  p->queue = NULL;
  p->stopping = 0;
  p->thread_count = 0;
  p->threads = malloc(sizeof *p->threads * (size_t)workers);
  if (!p->threads) return -1;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done, NULL);
  for (int w = 0; w < workers - 1; w++) {
    if (pthread_create(&p->threads[w], NULL, pool_worker, p) != 0) break;
    p->thread_count++;
  }
  p->system = (crowdsteer_task_system){pool_enqueue, pool_finish,
                                       (uint32_t)p->thread_count + 1, p};
  return 0;
}

static inline void task_pool_stop(task_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->stopping = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  for (int w = 0; w < p->thread_count; w++)
    pthread_join(p->threads[w], NULL);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p->threads);
}

#endif
