/* The library's worker pool (src/pool.c) on its own: every item runs
 * exactly once whatever the team, item count and range, while four host
 * threads call it at once (one has the pool, the others run alone), and a
 * call made inside a part runs alone instead of waiting for the pool it
 * is part of. Run under ThreadSanitizer too. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../common/check.h"

/* The pool's internal entry (src/pool.h; the tests link the static
 * library). */
typedef void cs_items_fn(void *context, size_t first, size_t last);
void cs_pool_run(int threads, size_t items, size_t range, cs_items_fn *fn, void *context);
int cs_pool_workers(void);

enum { MOST_ITEMS = 5000, HOSTS = 4, ROUNDS = 60 };

typedef struct tally {
  atomic_uchar seen[MOST_ITEMS];
  size_t range; /* every range but the last has this many items */
  size_t items;
  atomic_int bad_ranges;
} tally;

static void count_items(void *context, size_t first, size_t last) {
  tally *t = context;
  if (last <= first || last > t->items || first % t->range ||
      (last - first != t->range && last != t->items))
    atomic_fetch_add(&t->bad_ranges, 1);
  for (size_t i = first; i < last && i < t->items; i++)
    atomic_fetch_add(&t->seen[i], 1);
}

/* One call over `items` in ranges of `range` on a team of `threads`:
 * 0 when every item ran exactly once in well-formed ranges. */
static int one_call(int threads, size_t items, size_t range) {
  static _Thread_local tally t;
  for (size_t i = 0; i < items; i++)
    atomic_store(&t.seen[i], 0);
  t.range = range;
  t.items = items;
  atomic_store(&t.bad_ranges, 0);
  cs_pool_run(threads, items, range, count_items, &t);
  int wrong = atomic_load(&t.bad_ranges);
  for (size_t i = 0; i < items; i++)
    wrong += atomic_load(&t.seen[i]) != 1;
  return wrong;
}

static void *host(void *arg) {
  const int me = (int)(size_t)arg;
  int *wrong = malloc(sizeof *wrong);
  *wrong = 0;
  for (int r = 0; r < ROUNDS; r++) {
    const int threads = 1 + (r + me) % 9;
    const size_t items = 1 + (size_t)(r * 997 + me * 131) % MOST_ITEMS;
    const size_t range = 1 + (size_t)(r * 7 + me) % 64;
    *wrong += one_call(threads, items, range);
  }
  return wrong;
}

/* A part that calls the pool again: the inner call must not wait for the
 * pool its own part holds. */
static atomic_int inner_wrong;
static void nested(void *context, size_t first, size_t last) {
  (void)context;
  for (size_t i = first; i < last; i++)
    atomic_fetch_add(&inner_wrong, one_call(2, 300, 7));
}

int main(void) {
  CHECK_MSG(one_call(2, 1000, 10) == 0, "a team of 2: an item ran other than once");
  CHECK_MSG(one_call(8, 4999, 3) == 0, "a team of 8: an item ran other than once");
  CHECK_MSG(one_call(3, 1, 1) == 0, "one item");
  CHECK_MSG(one_call(4, 100, 1000) == 0, "one range");
  if (crowdsteer_step_max_threads() > 1) CHECK(cs_pool_workers() >= 7);
  pthread_t hosts[HOSTS];
  for (int h = 0; h < HOSTS; h++)
    CHECK(pthread_create(&hosts[h], NULL, host, (void *)(size_t)h) == 0);
  for (int h = 0; h < HOSTS; h++) {
    void *wrong = NULL;
    CHECK(pthread_join(hosts[h], &wrong) == 0);
    CHECK_MSG(wrong && *(int *)wrong == 0, "host thread %d: %d items ran other than once",
              h, wrong ? *(int *)wrong : -1);
    free(wrong);
  }
  cs_pool_run(2, 4, 1, nested, NULL);
  CHECK_MSG(atomic_load(&inner_wrong) == 0, "a call inside a part went wrong");
  return check_report("test_pool");
}
