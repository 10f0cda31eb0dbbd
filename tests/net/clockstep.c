/* clockstep.c - LD_PRELOAD shim for tests/net/test_clockstep.py: the wall clock of one process
 * steps, as an NTP step (or an administrator's `date -s`) would step a host's clock.
 *
 * Network namespaces share CLOCK_REALTIME and stepping the machine's clock would move every
 * other process on it, so the step is made where a host's processes read the clock:
 * clock_gettime (CLOCK_REALTIME and _COARSE), gettimeofday and time return the real wall clock
 * plus the sum of the steps whose instant has passed. CLOCK_MONOTONIC is untouched (a step
 * never moves it on Linux either).
 *
 *   AMCAST_CLOCKSTEP="AT_S:STEP_S[,AT_S:STEP_S...]"   AT_S absolute CLOCK_MONOTONIC seconds
 *
 * The first wall-clock read after each step writes one line to stderr
 * ("clockstep: wall clock stepped by +30.000 s ..."), so a test can tell that the process read
 * its clock after the step and saw it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 8

typedef int (*clock_gettime_fn) (clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime;
static struct { double at_s, step_s; } steps[MAX_STEPS];
static int n_steps;
static atomic_int announced;     /* steps already written to stderr */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
init (void)
{
  const char *spec = getenv ("AMCAST_CLOCKSTEP");
  char *end;

  real_clock_gettime = (clock_gettime_fn) dlsym (RTLD_NEXT, "clock_gettime");
  while (spec && *spec && n_steps < MAX_STEPS) {
    double at = strtod (spec, &end);
    if (end == spec || *end != ':')
      break;                    /* malformed: the steps parsed so far stand */
    spec = end + 1;
    double step = strtod (spec, &end);
    if (end == spec)
      break;
    steps[n_steps].at_s = at;
    steps[n_steps].step_s = step;
    n_steps++;
    spec = *end == ',' ? end + 1 : end;
  }
}

/* The offset to add to the real wall clock now: the sum of the steps that have happened. */
static long long
offset_ns (void)
{
  struct timespec m;
  double now_s, sum = 0;
  int i, due = 0;

  pthread_once (&once, init);
  if (!n_steps || real_clock_gettime (CLOCK_MONOTONIC, &m) != 0)
    return 0;
  now_s = m.tv_sec + m.tv_nsec / 1e9;
  for (i = 0; i < n_steps; i++)
    if (steps[i].at_s <= now_s) {
      sum += steps[i].step_s;
      due = i + 1;
    }
  for (int a = atomic_load (&announced); a < due; a = atomic_load (&announced))
    if (atomic_compare_exchange_weak (&announced, &a, a + 1)) {
      char line[160];
      int len = snprintf (line, sizeof line, "clockstep: wall clock stepped by %+.3f s at "
          "monotonic %.3f s (step %d, total %+.3f s)\n", steps[a].step_s, now_s, a + 1, sum);
      if (len > 0 && write (2, line, (size_t) len) < 0)
        break;
    }
  return (long long) (sum * 1e9);
}

static void
shift (struct timespec *ts, long long off)
{
  long long ns = (long long) ts->tv_sec * 1000000000LL + ts->tv_nsec + off;

  ts->tv_sec = (time_t) (ns / 1000000000LL);
  ts->tv_nsec = (long) (ns % 1000000000LL);
  if (ts->tv_nsec < 0) {
    ts->tv_nsec += 1000000000L;
    ts->tv_sec--;
  }
}

int
clock_gettime (clockid_t id, struct timespec *ts)
{
  int ret;

  pthread_once (&once, init);
  ret = real_clock_gettime (id, ts);
  if (ret == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
    shift (ts, offset_ns ());
  return ret;
}

int
gettimeofday (struct timeval *restrict tv, void *restrict tz)
{
  struct timespec ts;

  (void) tz;                    /* obsolete; Linux fills it with zeros at most */
  if (clock_gettime (CLOCK_REALTIME, &ts) != 0)
    return -1;
  tv->tv_sec = ts.tv_sec;       /* glibc declares tv nonnull */
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}

time_t
time (time_t *t)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  if (t)
    *t = ts.tv_sec;
  return ts.tv_sec;
}
