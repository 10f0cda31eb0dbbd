/* pacing.c - inter-packet interval for sender pacing (RFC 4654 3.7). */
#include <math.h>
#include <amcc/pacing.h>

amcc_time amcc_pacing_interval (size_t bytes, double rate_bps, double factor)
{
  double x = rate_bps * factor;
  if (!(x > 0) || !isfinite (x))
    return 0;
  return amcc_time_from_s (8.0 * (double) bytes / x);   /* RFC 4654 3.7: 8 s / X */
}
