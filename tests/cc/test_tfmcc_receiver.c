/* test_tfmcc_receiver.c - TFMCC receiver (RFC 4654 sections 2.1, 4, 5): the rate equation
 * against hand computations, the Average Loss Interval with weights and discounting (errata),
 * loss events and reordering, first-loss seeding, RTT filter and one-way adjustment, feedback
 * timer, suppression, CLR reporting and leaving. */
#include <amcc/tfmcc.h>
#include <amcc/tcpmodel.h>
#include <math.h>
#include <string.h>
#include "amtest.h"

#define MS AMCC_NS_PER_MS
#define S AMCC_NS_PER_S
#define ME 0xAAu

static void test_equation (void)
{
  /* RFC 4654 2.1, s = 1000 B, R = 0.1 s, p = 0.01:
   * sqrt(2p/3) = 0.0816497; 12 sqrt(3p/8) p (1 + 32p^2) = 0.7348469 * 0.01 * 1.0032 = 0.0073720;
   * X = 8000 / (0.1 * 0.0890217) = 898 658 bit/s */
  AMT_NEAR (amcc_tfmcc_rate (1000, 0.1, 0.01), 898658, 1.0);
  /* s = 1200, R = 0.05, p = 0.1: 0.2581989 + 2.3237900 * 0.1 * 1.32 = 0.5649392;
   * X = 9600 / (0.05 * 0.5649392) = 339 860 bit/s */
  AMT_NEAR (amcc_tfmcc_rate (1200, 0.05, 0.1), 339860, 1.0);
  /* the seeding inverse gives p back (RFC 5348 6.3.1) */
  AMT_NEAR (amcc_tfmcc_loss_for_rate (898657.87, 1000, 0.1), 0.01, 1e-7);
}

/* RFC 5348 5.4 weights 1,1,1,1,.8,.6,.4,.2 with I_1..I_8 = 10..80 (I_1 newest):
 * without I_0: (10+20+30+40 + .8*50 + .6*60 + .4*70 + .2*80) / 6 = 220/6 = 36.667
 * with I_0 = 5: (5+10+20+30 + .8*40 + .6*50 + .4*60 + .2*70) / 6 = 165/6 = 27.5 -> p = 6/220 */
static void test_average_loss_interval (void)
{
  amcc_loss_history h;
  amcc_loss_history_init (&h);
  AMT_CHECK (amcc_tfmcc_history_p (&h, NULL, true) == 0);          /* no loss yet */
  for (int i = 8; i >= 1; i--)
    amcc_loss_history_push (&h, 10.0 * i);
  amcc_loss_history_set_open (&h, 5);
  AMT_NEAR (amcc_tfmcc_history_p (&h, NULL, true), 6.0 / 220.0, 1e-12);
  /* a long open interval counts: I_0 = 200, no discounting:
   * with = (200+10+20+30 + .8*40+.6*50+.4*60+.2*70)/6 = 360/6 = 60 -> p = 1/60 */
  amcc_loss_history_set_open (&h, 200);
  AMT_NEAR (amcc_tfmcc_history_p (&h, NULL, false), 1.0 / 60.0, 1e-12);
  /* discounting (RFC 4654 5.4): I_0 > 2 I_mean -> DF = max(0.5, 2*36.667/200) = 0.5 on I_1..I_7;
   * W_tot accumulates the discounted weights (errata): 1 + 0.5*(3 + 2.0) = 3.5,
   * with = (200 + 0.5*(60 + 100)) / 3.5 = 80 -> p = 1/80 */
  AMT_NEAR (amcc_tfmcc_history_p (&h, NULL, true), 1.0 / 80.0, 1e-12);
  /* per-interval factors DF_i multiply both means: DF_1..8 = 0.5 for the "without" mean leaves
   * it at 36.667 (a common factor cancels), and with general DF 0.5 again... */
  double df[AMCC_LOSS_N + 1];
  for (int i = 0; i <= AMCC_LOSS_N; i++)
    df[i] = 0.5;
  /* without = 36.667 (common factor); DF = 0.5; with = (200 + 0.25*160) / (1 + 0.25*5) = 106.67 */
  AMT_NEAR (amcc_tfmcc_history_p (&h, df, true), 2.25 / 240.0, 1e-12);
  /* fewer than 8 intervals: only those held count. I_1 = 100, I_0 = 20 -> max(100, 60) */
  amcc_loss_history_init (&h);
  amcc_loss_history_push (&h, 100);
  amcc_loss_history_set_open (&h, 20);
  AMT_NEAR (amcc_tfmcc_history_p (&h, NULL, false), 0.01, 1e-12);
}

static struct amcc_tfmcc_receiver rx;

static void mk (void)
{
  struct amcc_tfmcc_params p;
  amcc_tfmcc_params_init (&p);
  amcc_tfmcc_receiver_init (&rx, &p, ME, 0);
}

/* packets seq0.. every dt from t0, skipping those for which drop(seq) is true */
static amcc_time feed (amcc_time t0, uint32_t seq0, int n, amcc_time dt, size_t bytes,
                       bool (*drop) (uint32_t))
{
  for (int i = 0; i < n; i++) {
    uint32_t s = seq0 + (uint32_t) i;
    if (!drop || !drop (s))
      amcc_tfmcc_receiver_on_rtp (&rx, t0 + i * dt, (uint16_t) s, bytes, false, 0);
  }
  return t0 + n * dt;
}

static bool drop_group (uint32_t s) { return s == 1100 || s == 1105 || s == 1120 || s == 1300; }

static void test_loss_events (void)
{
  mk ();   /* no echo yet: the RTT is R_max = 0.5 s */
  feed (0, 1000, 400, 10 * MS, 1000, drop_group);
  /* 1100, 1105, 1120 lie within 0.2 s < RTT of the first: one event; 1300 (2 s later) another */
  AMT_CHECK (rx.ev.lost == 4);
  AMT_CHECK (rx.ev.events == 2);
  /* closed interval 1100..1299 = 200 packets on top of the seeded one */
  AMT_CHECK (amcc_loss_history_count (&rx.ev.hist) == 2);
  AMT_NEAR (rx.ev.hist.interval[1], 200, 0);
  AMT_NEAR (rx.ev.hist.interval[0], 1399 - 1300 + 1, 0);
}

static void test_reordering (void)
{
  mk ();
  const uint16_t order[] = { 10, 11, 12, 13, 15, 16, 14,        /* 14 overtaken by 2: kept */
                             17, 19, 18, 20, 21, 22, 23,        /* 18 overtaken by 1: kept */
                             25, 26, 27, 24, 28, 29, 30 };      /* 24 overtaken by 3: lost */
  for (size_t i = 0; i < sizeof order / sizeof *order; i++)
    amcc_tfmcc_receiver_on_rtp (&rx, (amcc_time) i * 10 * MS, order[i], 1000, false, 0);
  AMT_CHECK (rx.ev.lost == 1 && rx.ev.events == 1);
  /* a duplicate is neither a packet nor a loss */
  uint64_t n = rx.packets;
  amcc_tfmcc_receiver_on_rtp (&rx, 300 * MS, 30, 1000, false, 0);
  AMT_CHECK (rx.packets == n && rx.ev.lost == 1);
}

static bool drop_3000 (uint32_t s) { return s == 3000; }

static void test_first_loss_seeding (void)
{
  mk ();
  /* 100 packets/s of 1000 B = 800 kbit/s; RTT = R_max = 0.5 s, rate window 1..2 s */
  amcc_time t = feed (0, 2000, 1000, 10 * MS, 1000, NULL);
  /* no loss: X_r = 2 x receive rate (RFC 4654 3.6); one packet of slack per 100 in the window */
  AMT_NEAR (amcc_tfmcc_receiver_rate (&rx), 1.6e6, 1.6e6 * 0.02);
  AMT_CHECK (amcc_tfmcc_receiver_loss_event_rate (&rx) == 0);
  feed (t, 3000, 10, 10 * MS, 1000, drop_3000);
  /* first loss: the history is seeded so that the equation gives the receive rate */
  double p = amcc_tfmcc_receiver_loss_event_rate (&rx);
  AMT_CHECK (p > 0);
  AMT_NEAR (amcc_tfmcc_receiver_rate (&rx), 800e3, 800e3 * 0.02);
  AMT_NEAR (amcc_tfmcc_rate (rx.mean_size, 0.5, p), amcc_tfmcc_receiver_rate (&rx), 1e-6);
  struct amcc_tfmcc_report r;
  amcc_tfmcc_receiver_make_report (&rx, t + 100 * MS, &r);
  AMT_CHECK (r.have_loss && !r.have_rtt && r.loss_event_rate > 0);
  AMT_NEAR (r.recv_rate_bps, 800e3, 800e3 * 0.02);
  AMT_NEAR (amcc_tfmcc_receiver_recv_rate (&rx), r.recv_rate_bps, 1e-9);
  /* the seed used R_max (no RTT yet); the first RTT sample (0.1 s) re-seeds it so that the
   * equation still gives the receive rate of the first loss, now with the real RTT */
  double x_at_loss = rx.seed_rate_bps;
  struct amcc_tfmcc_sender_info i;
  memset (&i, 0, sizeof i);
  i.r_max_us = 500000;
  i.rate_bps = 1e6;
  i.has_echo = true;
  i.echo_ssrc = ME;
  i.echo_ts_us = r.ts_us;
  i.echo_hold_us = 0;
  amcc_tfmcc_receiver_on_sender_info (&rx, t + 200 * MS, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.1, 1e-9);
  AMT_NEAR (amcc_tfmcc_receiver_rate (&rx), x_at_loss, x_at_loss * 1e-6);
}

static bool drop_disc (uint32_t s) { return s == 5100 || s == 5200 || s == 5300 || s == 7000; }

/* RFC 5348 5.5: when a long loss-free interval closes, the older intervals keep the discount
 * DF that applied while it was open: DF = max(0.5, 2 I_mean / I_0) */
static void test_discount_shift (void)
{
  mk ();
  feed (0, 5000, 2100, 10 * MS, 1000, drop_disc);
  /* events at 5100 (seed), 5200, 5300, 7000: before 7000 closes I_0 = 7000 - 5300 = 1700,
   * I_mean without I_0 over (100, 100, seed): large I_0 -> DF_prev < 1 */
  AMT_CHECK (rx.ev.events == 4);
  double seed = rx.ev.hist.interval[4];      /* I_1 = 1700, I_2 = I_3 = 100, I_4 = seed */
  double mean = (100.0 + 100.0 + seed) / 3.0;
  double df = fmax (0.5, 2 * mean / 1699.0);   /* I_0 just before 7000 was detected: 1699..1702 */
  AMT_CHECK (df < 1.0);
  AMT_NEAR (rx.df[1], 1.0, 0);
  AMT_NEAR (rx.df[2], df, 0.01);
  AMT_NEAR (rx.df[3], df, 0.01);
  AMT_NEAR (rx.df[4], df, 0.01);
}

static struct amcc_tfmcc_sender_info info_at (uint16_t fb, uint32_t ts_us)
{
  struct amcc_tfmcc_sender_info i;
  memset (&i, 0, sizeof i);
  i.fb_nr = fb;
  i.ts_us = ts_us;
  i.r_max_us = 500000;
  i.rate_bps = 1e6;
  return i;
}

static void echo (struct amcc_tfmcc_sender_info *i, uint32_t ts, uint32_t hold, bool clr)
{
  i->has_echo = true;
  i->echo_ssrc = ME;
  i->echo_ts_us = ts;
  i->echo_hold_us = hold;
  i->echo_is_clr = clr;
}

static void test_rtt (void)
{
  mk ();
  feed (0, 1, 50, 10 * MS, 1000, NULL);
  struct amcc_tfmcc_report r;
  amcc_tfmcc_receiver_make_report (&rx, 1 * S, &r);
  AMT_CHECK (r.ts_us == 1000000 && !r.have_rtt);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.5, 1e-12);           /* R_max until measured */
  /* echo at 1.3 s of our 1.0 s timestamp, held 100 ms: sample 0.2 s (first: taken as is) */
  struct amcc_tfmcc_sender_info i = info_at (0, 7000000);
  echo (&i, r.ts_us, 100000, false);
  amcc_tfmcc_receiver_on_sender_info (&rx, 1300 * MS, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.2, 1e-9);
  /* non-CLR: q = 0.5; sample 0.4 -> 0.3 */
  amcc_tfmcc_receiver_make_report (&rx, 2 * S, &r);
  AMT_CHECK (r.have_rtt && r.has_echo && r.echo_ts_us == 7000000 && r.echo_hold_us == 700000);
  i = info_at (0, 8000000);
  echo (&i, r.ts_us, 100000, false);
  amcc_tfmcc_receiver_on_sender_info (&rx, 2500 * MS, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.3, 1e-9);
  /* as CLR: q = 0.9; sample 0.4 -> 0.9*0.3 + 0.1*0.4 = 0.31 */
  amcc_tfmcc_receiver_make_report (&rx, 3 * S, &r);
  i = info_at (0, 9000000);
  echo (&i, r.ts_us, 100000, true);
  amcc_tfmcc_receiver_on_sender_info (&rx, 3500 * MS, &i, 0.5);
  AMT_CHECK (rx.is_clr && amcc_tfmcc_receiver_is_clr (&rx));
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.31, 1e-9);
  /* one-way adjustment: the next sender timestamp is 450 ms later but arrives 500 ms later ->
   * the forward delay grew by 50 ms, so does the RTT used */
  i = info_at (0, 9450000);
  amcc_tfmcc_receiver_on_sender_info (&rx, 4000 * MS, &i, 0.5);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.36, 1e-9);
  /* ...also from an RTP packet carrying a sender timestamp: delay back to the echo's */
  amcc_tfmcc_receiver_on_rtp (&rx, 4100 * MS, 51, 1000, true, 9600000);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.31, 1e-9);
  /* the smoothed RTT itself is untouched by one-way changes */
  AMT_NEAR (rx.rtt_s, 0.31, 1e-9);
}

static void test_feedback_timer (void)
{
  mk ();
  /* the rate window (2 x R_max) is full 1 s after the first counted packet (the first one is
   * RFC 3550 probation) */
  feed (0, 1, 102, 10 * MS, 1000, NULL);
  double own = amcc_tfmcc_receiver_rate (&rx);
  AMT_CHECK (own > 0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == AMCC_TIME_NONE);
  /* T = 6 R_max = 3 s; x = 1 -> t = T */
  struct amcc_tfmcc_sender_info i = info_at (1, 0);
  amcc_tfmcc_receiver_on_sender_info (&rx, 1 * S, &i, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 4 * S);
  /* the same round again does not redraw */
  amcc_tfmcc_receiver_on_sender_info (&rx, 1100 * MS, &i, 0.01);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 4 * S);
  /* new round, x = 0.01 = N^(-1/2): t = T (1 - 1/2) = 1.5 s */
  i = info_at (2, 0);
  amcc_tfmcc_receiver_on_sender_info (&rx, 2 * S, &i, 0.01);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 3500 * MS);
  /* x <= 1/N: at once */
  i = info_at (3, 0);
  amcc_tfmcc_receiver_on_sender_info (&rx, 3 * S, &i, 1e-5);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 3 * S);
  /* suppression: X_supp above our rate keeps the timer, below cancels it */
  i = info_at (4, 0);
  amcc_tfmcc_receiver_on_sender_info (&rx, 4 * S, &i, 1.0);
  i.has_supp = true;
  i.x_supp_bps = own * 1.05;
  amcc_tfmcc_receiver_on_sender_info (&rx, 4100 * MS, &i, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 7 * S);
  i.x_supp_bps = own * 0.95;
  amcc_tfmcc_receiver_on_sender_info (&rx, 4200 * MS, &i, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == AMCC_TIME_NONE);
}

static void test_suppression_needs_rmax (void)
{
  mk ();
  feed (0, 1, 100, 10 * MS, 1000, NULL);
  struct amcc_tfmcc_report r;
  amcc_tfmcc_receiver_make_report (&rx, 1 * S, &r);
  struct amcc_tfmcc_sender_info i = info_at (1, 0);
  echo (&i, r.ts_us, 0, false);                 /* RTT 0.8 s > R_max 0.5 s */
  amcc_tfmcc_receiver_on_sender_info (&rx, 1800 * MS, &i, 1.0);
  AMT_NEAR (amcc_tfmcc_receiver_rtt (&rx), 0.8, 1e-9);
  i = info_at (1, 0);
  i.has_supp = true;
  i.x_supp_bps = 1.0;                           /* far below our rate */
  amcc_tfmcc_receiver_on_sender_info (&rx, 1900 * MS, &i, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) != AMCC_TIME_NONE);   /* must report */
}

static void test_clr_reports_every_rtt (void)
{
  mk ();
  feed (0, 1, 100, 10 * MS, 1000, NULL);
  struct amcc_tfmcc_report r;
  amcc_tfmcc_receiver_make_report (&rx, 1 * S, &r);
  struct amcc_tfmcc_sender_info i = info_at (1, 0);
  echo (&i, r.ts_us, 100000, true);             /* we are the CLR, RTT 0.2 s */
  amcc_tfmcc_receiver_on_sender_info (&rx, 1300 * MS, &i, 1.0);
  AMT_CHECK (rx.is_clr);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 1300 * MS);   /* last + RTT passed */
  amcc_tfmcc_receiver_make_report (&rx, 1300 * MS, &r);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 1500 * MS);
  /* X_supp below our rate and a new round do not silence the CLR */
  i = info_at (2, 0);
  i.has_supp = true;
  i.x_supp_bps = 1.0;
  amcc_tfmcc_receiver_on_sender_info (&rx, 1400 * MS, &i, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 1500 * MS);
  /* another receiver echoed as CLR: we are not the CLR any more */
  i = info_at (2, 0);
  i.has_echo = true;
  i.echo_ssrc = 0xBB;
  i.echo_is_clr = true;
  amcc_tfmcc_receiver_on_sender_info (&rx, 1450 * MS, &i, 1.0);
  AMT_CHECK (!rx.is_clr);
}

static void test_leave (void)
{
  mk ();
  feed (0, 1, 100, 10 * MS, 1000, NULL);
  amcc_tfmcc_receiver_leave (&rx, 2 * S);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 2 * S);
  struct amcc_tfmcc_sender_info ni = info_at (9, 0);   /* a new round must not cancel it */
  ni.has_supp = true;
  ni.x_supp_bps = 1.0;
  amcc_tfmcc_receiver_on_sender_info (&rx, 2 * S, &ni, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == 2 * S);
  struct amcc_tfmcc_report r;
  amcc_tfmcc_receiver_make_report (&rx, 2 * S, &r);
  AMT_CHECK (r.leaving);
  AMT_CHECK (amcc_tfmcc_receiver_next_report_time (&rx) == AMCC_TIME_NONE);
  /* below one packet per 8 s (8 s bits / 8 s = s bit/s, s >= 1000 B here) for 120 s leaves */
  mk ();
  /* one 1000-B packet per 20 s; the first is RFC 3550 probation and the window keeps the other
   * 5 (fewer than recv_window_packets): 2 x 5 x 8000 bit / 80 s = 1000 bit/s */
  for (int k = 0; k <= 5; k++)
    amcc_tfmcc_receiver_on_rtp (&rx, (amcc_time) k * 20 * S, (uint16_t) (100 + k), 1000, false, 0);
  struct amcc_tfmcc_sender_info i = info_at (1, 0);
  amcc_tfmcc_receiver_on_sender_info (&rx, 100 * S, &i, 1.0);
  AMT_NEAR (amcc_tfmcc_receiver_rate (&rx), 1000, 1e-9);
  AMT_CHECK (amcc_tfmcc_receiver_rate (&rx) < rx.mean_size);
  AMT_CHECK (!amcc_tfmcc_receiver_should_leave (&rx, 219 * S));
  amcc_tfmcc_receiver_on_sender_info (&rx, 220 * S, &i, 1.0);
  AMT_CHECK (amcc_tfmcc_receiver_should_leave (&rx, 220 * S));
}

int main (void)
{
  AMT_RUN (test_equation);
  AMT_RUN (test_average_loss_interval);
  AMT_RUN (test_loss_events);
  AMT_RUN (test_reordering);
  AMT_RUN (test_first_loss_seeding);
  AMT_RUN (test_discount_shift);
  AMT_RUN (test_rtt);
  AMT_RUN (test_feedback_timer);
  AMT_RUN (test_suppression_needs_rmax);
  AMT_RUN (test_clr_reports_every_rtt);
  AMT_RUN (test_leave);
  return amt_summary ();
}
