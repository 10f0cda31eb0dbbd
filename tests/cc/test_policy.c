/* test_policy.c - the policy lib/cc's controller adds to every protocol, beyond the checks of
 * test_controller.c: the outlier in the sender's stats and the application's exclusion of a
 * receiver (issue 14), on the simulated network of ctl_sim.h. */
#include "ctl_sim.h"

/* An ASMP member reporting 20 kbit/s in its own name (a liar, or a path far worse than the
 * rest): after cfg.outlier_intervals RTCP intervals below half the next slowest report it is the
 * outlier in the stats; excluded, its reports are refused and the target rises (by the expiry
 * ramp); readmitted, it holds the group down again. */
static int forged_refused;

static void
forge_report (sim *S, uint32_t ssrc, double bps)
{
  /* 30 % loss at 40 ms: eq. 12 gives 39 kbit/s, so 20 kbit/s is plausible (contain.c) */
  amcc_asmp_report r = { .rate_bps = bps, .loss = 0.3, .rtt_s = 0.04,
    .report_seq = (uint32_t) (S->now / IV) };
  uint8_t buf[64];
  size_t w;

  AMT_CHECK (amcc_asmp_report_encode (&r, buf, sizeof buf, &w) == AMCC_OK);
  amcc_sender_on_report_block (S->s, S->now, ssrc, SENDER_SSRC, 0, 0, 0);
  forged_refused += amcc_sender_on_app (S->s, S->now, ssrc, AMCC_ASMP_APP_NAME,
      AMCC_ASMP_SUBTYPE_REPORT, buf, w) == AMCC_APP_EXCLUDED;
}

static void
run_forging (sim *S, amcc_time until, uint32_t ssrc)
{
  amcc_sender_stats st;

  while (S->now < until) {
    forge_report (S, ssrc, 20e3);
    sim_run (S, S->now + IV);
    amcc_sender_get_stats (S->s, S->now, &st);   /* as the elements, at every RTCP packet */
  }
}

static void
test_outlier_exclude (void)
{
  sim S;
  amcc_sender_stats st;
  const uint32_t liar = 0x999;
  double held, freed, back;
  amcc_time onset;

  pname = "asmp";
  sim_init (&S, amcc_protocol_find ("asmp"), 2, 500e3, 2e6);
  sim_run (&S, 10 * SEC);
  amcc_sender_get_stats (S.s, S.now, &st);
  CHECK (!st.have_outlier && st.excluded == 0);         /* two honest peers: no outlier */
  onset = S.now;
  run_forging (&S, onset + 4 * SEC, liar);              /* 8 intervals: not yet */
  amcc_sender_get_stats (S.s, S.now, &st);
  CHECK (!st.have_outlier);
  run_forging (&S, onset + 6 * SEC, liar);              /* 12 intervals */
  amcc_sender_get_stats (S.s, S.now, &st);
  held = rate (&S);
  printf ("  outlier: liar at 20 kbit/s, target %.0f, next slowest %.0f bit/s\n", held,
      st.next_rate_bps);
  CHECK (st.have_outlier && st.outlier_ssrc == liar && st.outlier_rate_bps == 20e3);
  CHECK (st.next_rate_bps > 2 * 20e3 && held < 100e3);
  CHECK (amcc_sender_exclude (S.s, S.now, liar, 1) == AMCC_OK);
  CHECK (forged_refused == 0);
  run_forging (&S, S.now + 20 * SEC, liar);
  CHECK (forged_refused == 40);                          /* every forged APP refused */
  amcc_sender_get_stats (S.s, S.now, &st);
  freed = rate (&S);
  CHECK (!st.have_outlier && st.excluded == 1 && st.receivers == 2);
  CHECK (freed > 4 * held);
  CHECK (amcc_sender_exclude (S.s, S.now, liar, 0) == AMCC_OK);
  run_forging (&S, S.now + 2 * SEC, liar);
  back = rate (&S);
  amcc_sender_get_stats (S.s, S.now, &st);
  printf ("  excluded: target %.0f after 20 s; readmitted: %.0f bit/s\n", freed, back);
  CHECK (st.excluded == 0 && back < 100e3);
  sim_free (&S);

  /* invalid ratios are refused */
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  c.outlier_ratio = 1;
  CHECK (amcc_sender_new (amcc_protocol_find ("asmp"), &c, 0) == NULL);
  c.outlier_ratio = -0.1;
  CHECK (amcc_sender_new (amcc_protocol_find ("asmp"), &c, 0) == NULL);
}

int
main (void)
{
  AMT_RUN (test_outlier_exclude);
  return amt_summary ();
}
