/* test_fec.c - the FEC overhead policy (lib/cc/fec.c) against hand-computed matrices: none
 * without loss, the cheapest row FEC that reaches the residual target at 1 % loss, within 1.3 x
 * the overhead a real-valued L would need, a 4 x 4 matrix at 3 % when the cap binds, and the
 * delay and standard's limits respected; the target's split between media and parity. */
#include "amtest.h"
#include <math.h>
#include <amcc/fec.h>
#include <amcc/asmp.h>
#include <amcc/controller.h>

static amcc_fec_choice
choose (double loss, double pps)
{
  amcc_fec_params p;
  amcc_fec_choice c;
  amcc_fec_params_default (&p);
  AMT_CHECK (amcc_fec_choose (&p, loss, pps, &c) == AMCC_OK);
  return c;
}

/* amcc_fec_need at the default parameters, the target given as packets/s */
static double
row_need (double p, double pps)
{
  amcc_fec_params prm;
  amcc_fec_params_default (&prm);
  return amcc_fec_need (&prm, p, pps);
}

static void
test_no_loss_no_fec (void)
{
  amcc_fec_choice c = choose (0.0, 100);
  AMT_CHECK (c.columns == 0 && c.rows == 0);
  AMT_NEAR (c.overhead, 0.0, 0);
  /* 1e-4 at 100 pkt/s is below the target 1/(100 x 30) = 3.33e-4: FEC buys nothing */
  c = choose (1e-4, 100);
  AMT_CHECK (c.columns == 0);
  AMT_NEAR (c.target, 1.0 / 3000, 1e-12);
}

static void
test_one_percent (void)
{
  /* 100 pkt/s: target 3.333e-4; 1 - 0.99^L <= 0.0333 -> L <= 3.373 -> L = 3, row only (any
   * column FEC has D >= 4 and L x D <= 0.15 s x 100 = 15: none fits) */
  amcc_fec_choice c = choose (0.01, 100);
  AMT_CHECK (c.columns == 3 && c.rows == 0);
  AMT_NEAR (c.overhead, 0.25, 1e-12);
  AMT_NEAR (c.residual, 0.01 * (1 - 0.970299), 1e-9);
  AMT_CHECK (c.meets_target);
  AMT_NEAR (row_need (0.01, 100), 0.2287, 1e-4);
  AMT_CHECK (c.overhead <= 1.3 * row_need (0.01, 100));
  /* 50 pkt/s: target 6.667e-4 -> L <= 6.865 -> L = 6: overhead 1/7 */
  c = choose (0.01, 50);
  AMT_CHECK (c.columns == 6 && c.rows == 0);
  AMT_NEAR (c.overhead, 1.0 / 7, 1e-12);
  AMT_NEAR (c.residual, 0.01 * (1 - 0.9414801), 1e-9);
  AMT_CHECK (c.overhead <= 1.3 * row_need (0.01, 50));
}

/* the need: 0 at or below the target, L = 1's 0.5 when row FEC cannot reach it, NaN on bad
 * input; 1 % at 50 packet/s: L = 6.865 (hand-computed above), 1 / 7.865 */
static void
test_need (void)
{
  amcc_fec_params prm;
  amcc_fec_params_default (&prm);
  AMT_NEAR (amcc_fec_need (&prm, 0.0, 100), 0.0, 0);
  AMT_NEAR (amcc_fec_need (&prm, 1.0 / 3000, 100), 0.0, 0);
  AMT_NEAR (amcc_fec_need (&prm, 0.01, 50), 1.0 / 7.865, 2e-4);
  AMT_NEAR (amcc_fec_need (&prm, 0.03, 200), 0.5, 0);
  AMT_NEAR (amcc_fec_need (&prm, 1.0, 100), 0.5, 0);
  AMT_CHECK (isnan (amcc_fec_need (&prm, -0.1, 100)) && isnan (amcc_fec_need (&prm, 0.01, NAN)));
  prm.residual_interval_s = 0;
  AMT_CHECK (isnan (amcc_fec_need (&prm, 0.01, 100)));
}

static void
test_three_percent (void)
{
  /* 200 pkt/s (span <= 30 packets), target 1.667e-4: row FEC cannot reach it (needs L < 1); within r <= 0.5 the
   * least residual is 4 x 4: 0.03 x 0.1147072^2 = 3.947e-4 (2 x row: 1.773e-3; 5 x 4: 4.86e-4) */
  amcc_fec_choice c = choose (0.03, 200);
  AMT_CHECK (c.columns == 4 && c.rows == 4);
  AMT_CHECK (!c.meets_target);
  AMT_NEAR (c.overhead, 1.0 / 3, 1e-12);
  AMT_NEAR (c.residual, 0.03 * 0.1147072 * 0.1147072, 1e-8);
  /* 60 pkt/s: a 4 x 4 matrix spans 16 packets > 0.15 s x 60 = 9: row FEC, L = 2 */
  c = choose (0.03, 60);
  AMT_CHECK (c.columns == 2 && c.rows == 0);
  AMT_NEAR (c.residual, 0.03 * 0.0591, 1e-7);
}

static void
test_limits (void)
{
  amcc_fec_params p;
  amcc_fec_choice c;

  amcc_fec_params_default (&p);
  /* a slow stream: 10 pkt/s and 0.15 s allow L = 1 only, which the parity cap excludes */
  AMT_CHECK (amcc_fec_choose (&p, 0.01, 10, &c) == AMCC_OK);
  AMT_CHECK (c.columns == 0 && c.rows == 0 && !c.meets_target);
  p.max_delay_s = 0.25;       /* L <= 2 */
  AMT_CHECK (amcc_fec_choose (&p, 0.01, 10, &c) == AMCC_OK);
  AMT_CHECK (c.columns == 2 && c.rows == 0);
  p.max_delay_s = 0.15;
  /* a tighter parity cap: 0.2 -> L >= 5 */
  p.max_parity = 0.2;
  AMT_CHECK (amcc_fec_choose (&p, 0.01, 100, &c) == AMCC_OK);
  AMT_CHECK (c.columns == 5 && c.rows == 0 && !c.meets_target);
  /* bad input */
  AMT_CHECK (amcc_fec_choose (&p, -0.1, 100, &c) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_fec_choose (&p, NAN, 100, &c) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_fec_choose (&p, 0.01, INFINITY, &c) == AMCC_ERR_PARAM);
  p.min_columns = 0;
  AMT_CHECK (amcc_fec_choose (&p, 0.01, 100, &c) == AMCC_ERR_PARAM);
  /* the model: without FEC the loss itself; duplication squares it */
  AMT_NEAR (amcc_fec_residual (0.02, 0, 0), 0.02, 0);
  AMT_NEAR (amcc_fec_residual (0.02, 1, 0), 0.0004, 1e-12);
  AMT_NEAR (amcc_fec_parity_ratio (5, 4), 0.45, 1e-12);
}

/* Hysteresis: at 1 % and 100 pkt/s the best is L = 3 (overhead 1/4); L = 2 in force (residual
 * 0.01 x 0.0199 = 1.99e-4 <= 3.33e-4, overhead 1/3 <= 1.5 x 1/4) stays; L = 4 (3.94e-4) does not
 * meet the target, 4 x 4 spans 16 > 15 packets: both give way to L = 3. */
static void
test_update_keeps (void)
{
  amcc_fec_params p;
  amcc_fec_choice cur = { 0 }, c;
  amcc_fec_params_default (&p);
  cur.columns = 2;
  AMT_CHECK (amcc_fec_update (&p, 0.01, 100, &cur, &c) == AMCC_OK);
  AMT_CHECK (c.columns == 2 && c.rows == 0 && c.meets_target);
  AMT_NEAR (c.overhead, 1.0 / 3, 1e-12);
  AMT_NEAR (c.residual, 0.01 * 0.0199, 1e-12);
  cur.columns = 4;
  AMT_CHECK (amcc_fec_update (&p, 0.01, 100, &cur, &c) == AMCC_OK && c.columns == 3);
  cur.rows = 4;
  AMT_CHECK (amcc_fec_update (&p, 0.01, 100, &cur, &c) == AMCC_OK && c.columns == 3 && c.rows == 0);
  /* no loss, or loss below the target: off whatever is in force */
  cur.columns = 3;
  cur.rows = 0;
  AMT_CHECK (amcc_fec_update (&p, 0.0, 100, &cur, &c) == AMCC_OK && c.columns == 0);
  AMT_CHECK (amcc_fec_update (&p, 1e-4, 100, &cur, &c) == AMCC_OK && c.columns == 0);
  /* keep_ratio 1.0: always the best */
  p.keep_ratio = 1.0;
  cur.columns = 2;
  AMT_CHECK (amcc_fec_update (&p, 0.01, 100, &cur, &c) == AMCC_OK && c.columns == 3);
  p.keep_ratio = 0.9;
  AMT_CHECK (amcc_fec_update (&p, 0.01, 100, &cur, &c) == AMCC_ERR_PARAM);
}

/* Parity bytes a receiver takes in count in the interval's bytes (the rate received), not in
 * the mean packet size of eq. 12; through the controller only once a sender is measured. */
static void
test_extra_bytes (void)
{
  amcc_asmp_params p;
  amcc_asmp_receiver rx;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver_init (&rx, &p, 90000);
  for (int i = 0; i < 5; i++)     /* past the sequence probation */
    amcc_asmp_receiver_on_rtp (&rx, AMCC_NS_PER_S + i * 1000000, (uint16_t) (100 + i),
        (uint32_t) (3000 * i), AMCC_TIME_NONE, 1000);
  uint64_t before = rx.iv_bytes;
  double mean = rx.mean_pkt;
  AMT_CHECK (before >= 3000 && before % 1000 == 0);
  amcc_asmp_receiver_on_extra_bytes (&rx, 700);
  AMT_CHECK (rx.iv_bytes == before + 700);
  AMT_NEAR (rx.mean_pkt, mean, 0);

  amcc_ctl_config cfg;
  amcc_ctl_config_init (&cfg);
  amcc_receiver *r = amcc_receiver_new (amcc_protocol_find ("asmp"), &cfg, 0);
  AMT_CHECK (r != NULL);
  if (!r)
    return;
  amcc_receiver_on_extra_bytes (r, 1000, 500);    /* before any media: nobody to count for */
  amcc_packet pkt = { .ssrc = 7, .seq = 1, .rtp_ts = 0, .bytes = 1200, .send_time = AMCC_TIME_NONE };
  amcc_receiver_on_rtp (r, 2000, &pkt);
  amcc_receiver_on_extra_bytes (r, 3000, 300);
  amcc_receiver_free (r);
}

/* The target's split between media and parity (what asmpsink gives the encoder and the pacer):
 * the modelled share r / (1 + r) unless parity took more of the bytes. */
static void
test_target_share (void)
{
  /* no matrix: no share, whatever was measured */
  AMT_NEAR (amcc_fec_target_share (0, 0, 0.3), 0.0, 0);
  /* L = 5 row only: r = 1/5, share (1/5) / (6/5) = 1/6; measured 0.1 is less */
  AMT_NEAR (amcc_fec_target_share (5, 0, 0.1), 1.0 / 6, 1e-15);
  /* measured 0.2 > 1/6: parity packets longer than the media they cover */
  AMT_NEAR (amcc_fec_target_share (5, 0, 0.2), 0.2, 0);
  /* 4 x 4: r = 1/4 + 1/4, share 1/3 */
  AMT_NEAR (amcc_fec_target_share (4, 4, 0.1), 1.0 / 3, 1e-15);
  /* a measurement that is no share counts as none */
  AMT_NEAR (amcc_fec_target_share (5, 0, NAN), 1.0 / 6, 1e-15);
  AMT_NEAR (amcc_fec_target_share (5, 0, 1.5), 1.0 / 6, 1e-15);
  AMT_NEAR (amcc_fec_target_share (5, 0, -0.5), 1.0 / 6, 1e-15);

  AMT_NEAR (amcc_fec_byte_share (0, 0), 0.0, 0);
  AMT_NEAR (amcc_fec_byte_share (250, 750), 0.25, 1e-15);
  AMT_NEAR (amcc_fec_byte_share (100, 0), 1.0, 0);
  AMT_NEAR (amcc_fec_byte_share (0, 1000), 0.0, 0);

  AMT_CHECK (amcc_fec_media_rate (1000000, 0.25) == 750000);
  AMT_CHECK (amcc_fec_media_rate (1000000, 1.0 / 6) == 833333);   /* 833333.33 truncated */
  AMT_CHECK (amcc_fec_media_rate (1000000, 0.0) == 1000000);
  AMT_CHECK (amcc_fec_media_rate (4294967295u, 0.0) == 4294967295u);
  AMT_CHECK (amcc_fec_media_rate (3, 0.9) == 1);          /* 0.3 bit/s: at least 1 */
  AMT_CHECK (amcc_fec_media_rate (1000000, 1.0) == 1);
  AMT_CHECK (amcc_fec_media_rate (1000000, NAN) == 1000000);
  AMT_CHECK (amcc_fec_media_rate (1000000, -0.5) == 1000000);
  AMT_CHECK (amcc_fec_media_rate (1000000, 1.5) == 1000000);

  /* fec=auto's chain at 1 % loss, 100 pkt/s: L = 3 (test_one_percent), share 1/4, and of an
   * 800 kbit/s target the encoder gets 600 kbit/s */
  amcc_fec_choice c = choose (0.01, 100);
  double share = amcc_fec_target_share (c.columns, c.rows, amcc_fec_byte_share (1000, 4000));
  AMT_NEAR (share, 0.25, 1e-15);
  AMT_NEAR (share, c.overhead, 0);
  AMT_CHECK (amcc_fec_media_rate (800000, share) == 600000);
}

int
main (void)
{
  AMT_RUN (test_no_loss_no_fec);
  AMT_RUN (test_one_percent);
  AMT_RUN (test_need);
  AMT_RUN (test_three_percent);
  AMT_RUN (test_limits);
  AMT_RUN (test_update_keeps);
  AMT_RUN (test_extra_bytes);
  AMT_RUN (test_target_share);
  return amt_summary ();
}
