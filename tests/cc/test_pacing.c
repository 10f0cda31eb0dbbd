/* test_pacing.c - amcc_pacing_interval: RFC 4654 3.7's 8 s / X, the pacing factor, and bad
 * input (no wait, never overflow). */
#include <amcc/pacing.h>
#include <amcc/tfmcc.h>
#include <math.h>
#include <stdint.h>
#include "amtest.h"

static void test_eight_s_over_x (void)
{
  /* 1200 B at 600 kbit/s: 9600 bit / 600000 bit/s = 16 ms */
  AMT_CHECK (amcc_pacing_interval (1200, 600000, 1.0) == 16 * AMCC_NS_PER_MS);
  /* factor 1.5: X = 900 kbit/s, 9600 / 900000 s */
  AMT_NEAR (amcc_pacing_interval (1200, 600000, 1.5), 9600.0 / 900000.0 * 1e9, 1);
  /* 1 byte at 8 bit/s: one second */
  AMT_CHECK (amcc_pacing_interval (1, 8, 1.0) == AMCC_NS_PER_S);
  AMT_CHECK (amcc_pacing_interval (0, 600000, 1.0) == 0);
}

/* a 20 kB key frame in 1200 B packets at 500 kbit/s x 1.5 spans 8 * 20000 / 750000 s */
static void test_key_frame_span (void)
{
  amcc_time sum = 0;
  size_t left = 20000;
  while (left > 0) {
    size_t b = left > 1200 ? 1200 : left;
    sum += amcc_pacing_interval (b, 500000, 1.5);
    left -= b;
  }
  AMT_NEAR (amcc_time_to_s (sum), 8.0 * 20000 / 750000.0, 20e-9);   /* rounding: 1 ns/packet */
}

/* the same 8 s / X as the TFMCC sender's own helper, at the sender's initial rate */
static void test_matches_tfmcc_sender (void)
{
  struct amcc_tfmcc_params p;
  struct amcc_tfmcc_sender *tx;
  amcc_tfmcc_params_init (&p);
  p.initial_rate_bps = 400000;
  tx = amcc_tfmcc_sender_new (&p, 0);
  AMT_CHECK (tx != NULL);
  if (!tx)
    return;
  AMT_CHECK (amcc_tfmcc_sender_pacing_interval (tx, 0, 1000)
      == amcc_pacing_interval (1000, amcc_tfmcc_sender_rate (tx, 0), 1.0));
  amcc_tfmcc_sender_free (tx);
}

static void test_bad_input_no_wait (void)
{
  AMT_CHECK (amcc_pacing_interval (1200, 0, 1.5) == 0);
  AMT_CHECK (amcc_pacing_interval (1200, -1, 1.5) == 0);
  AMT_CHECK (amcc_pacing_interval (1200, NAN, 1.5) == 0);
  AMT_CHECK (amcc_pacing_interval (1200, INFINITY, 1.5) == 0);
  AMT_CHECK (amcc_pacing_interval (1200, 600000, 0) == 0);
  AMT_CHECK (amcc_pacing_interval (1200, 600000, NAN) == 0);
  /* saturates rather than wrapping negative */
  AMT_CHECK (amcc_pacing_interval (SIZE_MAX, 1e-300, 1.0) == INT64_MAX);
  AMT_CHECK (amcc_pacing_interval (SIZE_MAX, 1, 1.0) > 0);
}

int main (void)
{
  AMT_RUN (test_eight_s_over_x);
  AMT_RUN (test_key_frame_span);
  AMT_RUN (test_matches_tfmcc_sender);
  AMT_RUN (test_bad_input_no_wait);
  return amt_summary ();
}
