/* test_encrate.c - encoder rate matching (lib/cc/encrate.c): the setting converges to what makes
 * the modelled encoder's output match the target, within the gain bounds, and short or broken
 * windows change nothing. */
#include "amtest.h"
#include <amcc/encrate.h>

#define FPS 25
#define FRAME (AMCC_NS_PER_S / FPS)

/* One GOP of 25 frames from an encoder whose output is `k` x its setting (a key frame of 5x a
 * delta frame); returns the next setting for `target`. */
static double
gop (amcc_encrate *e, amcc_time *pts, double set, double k, double target)
{
  double frame_bytes = k * set / 8.0 / FPS;
  double delta = frame_bytes * FPS / (FPS + 4.0);
  for (int i = 0; i < FPS; i++, *pts += FRAME)
    amcc_encrate_on_frame (e, *pts, (size_t) (i == 0 ? 5 * delta : delta));
  return amcc_encrate_setting (e, *pts, target);
}

static void
test_converges (void)
{
  /* an encoder 12 % under its setting (x264, 80 ms VBV) and one 10 % over (a long VBV spending
   * what easy scenes left) */
  const double ks[] = { 0.88, 1.10, 1.0 };
  for (size_t n = 0; n < sizeof ks / sizeof ks[0]; n++) {
    amcc_encrate e;
    amcc_encrate_init (&e);
    amcc_time pts = 0;
    double set = amcc_encrate_setting (&e, AMCC_TIME_NONE, 500e3);
    AMT_NEAR (set, 500e3, 1);
    for (int g = 0; g < 15; g++)
      set = gop (&e, &pts, set, ks[n], 500e3);
    AMT_NEAR (set * ks[n], 500e3, 5e3);   /* output within 1 % of the target */
  }
}

static void
test_bounds_and_windows (void)
{
  amcc_encrate e;
  amcc_encrate_init (&e);
  amcc_time pts = 0;
  double set = amcc_encrate_setting (&e, AMCC_TIME_NONE, 500e3);
  for (int g = 0; g < 20; g++)
    set = gop (&e, &pts, set, 0.4, 500e3);   /* a static picture: cannot use the rate */
  AMT_NEAR (set, 1.33 * 500e3, 1);
  /* a window under 0.5 s (key frames close together) keeps the gain */
  for (int i = 0; i < 5; i++, pts += FRAME)
    amcc_encrate_on_frame (&e, pts, 100000);
  AMT_NEAR (amcc_encrate_setting (&e, pts, 400e3), 1.33 * 400e3, 1);
  /* a jump in media time (a gap of 60 s) measures nothing */
  amcc_encrate_on_frame (&e, pts, 100000);
  pts += 60 * AMCC_NS_PER_S;
  AMT_NEAR (amcc_encrate_setting (&e, pts, 400e3), 1.33 * 400e3, 1);
  /* no target: no setting */
  AMT_CHECK (amcc_encrate_setting (&e, pts, 0) == 0);
}

int
main (void)
{
  AMT_RUN (test_converges);
  AMT_RUN (test_bounds_and_windows);
  return amt_summary ();
}
