/* encrate.c - encoder rate matching (amcc/encrate.h). */
#include <math.h>
#include "amcc/encrate.h"

void
amcc_encrate_init (amcc_encrate *e)
{
  e->min_gain = 0.75;
  e->max_gain = 1.33;
  e->weight = 0.3;
  e->ratio = 1.0;
  e->set_bps = 0;
  e->bytes = 0;
  e->start = AMCC_TIME_NONE;
  e->windows = 0;
}

void
amcc_encrate_on_frame (amcc_encrate *e, amcc_time pts, size_t bytes)
{
  if (e->start == AMCC_TIME_NONE)
    e->start = pts;
  e->bytes += (double) bytes;
}

/* What the encoder produced per bit/s of setting over one GOP. */
static double
gop_ratio (double bytes, double secs, double set_bps)
{
  return 8.0 * bytes / secs / set_bps;
}

double
amcc_encrate_setting (amcc_encrate *e, amcc_time pts, double target_bps)
{
  if (e->start != AMCC_TIME_NONE && e->set_bps > 0) {
    double secs = amcc_time_to_s (pts - e->start);
    if (secs >= 0.5 && secs <= 10.0 && e->bytes > 0) {
      double r = gop_ratio (e->bytes, secs, e->set_bps);
      e->ratio = e->windows ? (1.0 - e->weight) * e->ratio + e->weight * r : r;
      e->windows++;
    }
  }
  double gain = e->ratio > 0 && isfinite (e->ratio) ? 1.0 / e->ratio : 1.0;
  gain = fmin (e->max_gain, fmax (e->min_gain, gain));
  e->set_bps = target_bps > 0 ? target_bps * gain : 0;
  e->bytes = 0;
  e->start = AMCC_TIME_NONE;
  return e->set_bps;
}
