/* ev_progress.h - progress lines on stderr for long runs: at most one line every 2 s, whole lines
 * (readable when stderr is a log or merged into another tool's output). */
#ifndef EV_PROGRESS_H
#define EV_PROGRESS_H
#include <stdio.h>
#include <time.h>

typedef struct { double start, last; } ev_progress;

static inline double ev_progress_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void ev_progress_report(ev_progress *p, const char *tool, const char *what,
                                      size_t done, size_t total)
{
  double now = ev_progress_now();
  if (p->start == 0) p->start = p->last = now;
  if (now - p->last < 2.0) return;
  p->last = now;
  fprintf(stderr, "%s: %s %zu/%zu frames (%.0f%%, %.0f s)\n", tool, what, done, total,
          total ? 100.0 * (double)done / (double)total : 100.0, now - p->start);
}
#endif
