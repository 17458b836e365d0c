/* A bad CROWDSTEER_ISA is reported exactly once, even when 16 threads make
 * their first crowdsteer call at the same moment. Each try runs in a fresh
 * child process (the choice is made once per process) whose stderr goes to
 * a file; the race is tried many times, as a lost race is timing-dependent. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/check.h"

enum { THREADS = 16, TRIES = 40 };

static pthread_barrier_t start;

static void *first_call(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  crowdsteer_active_isa();
  return NULL;
}

/* In a child: races the first calls, returns how many warnings it printed. */
static int warnings_in_one_race(void) {
  FILE *captured = tmpfile();
  if (!captured || dup2(fileno(captured), STDERR_FILENO) < 0) return -1;
  setenv("CROWDSTEER_ISA", "no-such-isa", 1);
  pthread_t threads[THREADS];
  pthread_barrier_init(&start, NULL, THREADS);
  for (int t = 0; t < THREADS; t++)
    if (pthread_create(&threads[t], NULL, first_call, NULL) != 0) return -1;
  for (int t = 0; t < THREADS; t++)
    pthread_join(threads[t], NULL);
  fflush(stderr);
  rewind(captured);
  int warnings = 0;
  char line[512];
  while (fgets(line, sizeof line, captured))
    warnings += strstr(line, "CROWDSTEER_ISA=no-such-isa ignored") != NULL;
  return warnings;
}

int main(void) {
  int wrong = 0;
  for (int try = 0; try < TRIES; try++) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) _exit(warnings_in_one_race() & 0xFF);
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    const int warnings = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (warnings != 1) {
      wrong++;
      fprintf(stderr, "try %d: %d warnings (want exactly 1)\n", try, warnings);
    }
  }
  CHECK_MSG(wrong == 0, "%d of %d races printed the warning other than once", wrong,
            TRIES);
  return check_report("test_isa_warning");
}
