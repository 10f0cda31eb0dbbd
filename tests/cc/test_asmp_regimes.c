/* test_asmp_regimes.c - the ASMP receiver's regimes and packet size (lib/cc/README.md,
 * "Regimes"): start-up, DELAY (drain a standing queue, back off on a burst loss), COMPETING
 * (eq. 12-13 with TCP's segment size and loss events), and the transitions between them. The
 * stream is synthetic: 1000-byte packets at a given rate, a one-way delay of 10 ms plus the
 * queue, RTT at its 0.1 s default (no echo), a report every second. */
#include <math.h>
#include <string.h>
#include "amtest.h"
#include "amcc/asmp.h"
#include "amcc/tcpmodel.h"

#define MS AMCC_NS_PER_MS
#define SEC AMCC_NS_PER_S
#define BASE (10 * MS)

typedef struct { uint16_t seq; amcc_time t; uint32_t n; int after_loss; } stream;

/* The queueing delay of the packet right after a lost one: a drop-tail queue overflowed, so it
 * waited behind a full one (random_loss_q_s tells such losses from random ones by it); 0: the
 * path dropped it at random */
static double overflow_ms = 30;

/* one second at rate_Bps (bytes/s) with every queue_ms-delayed packet; lose_every-th packet
 * (counted over the whole stream) lost, 0 = none; then a report */
static amcc_asmp_report
second (amcc_asmp_receiver *rx, stream *s, double rate_Bps, double queue_ms, int lose_every)
{
  amcc_time dt = (amcc_time) (1000.0 / rate_Bps * 1e9), end = s->t + SEC;
  amcc_time owd = BASE + (amcc_time) (queue_ms * 1e6);
  for (; s->t < end; s->t += dt, s->seq++, s->n++) {
    if (lose_every > 0 && s->n % lose_every == (uint32_t) lose_every - 1) {
      s->after_loss = 1;
      continue;
    }
    amcc_time full = s->after_loss ? (amcc_time) (fmax (overflow_ms - queue_ms, 0) * 1e6) : 0;
    amcc_asmp_receiver_on_rtp (rx, s->t + owd + full, s->seq, (uint32_t) (s->t / (SEC / 90000)),
        s->t, 1000);
    s->after_loss = 0;
  }
  amcc_asmp_report r;
  amcc_asmp_receiver_make_report (rx, s->t + owd, &r);
  return r;
}

static void
start (amcc_asmp_receiver *rx, stream *s, const amcc_asmp_params *p0)
{
  amcc_asmp_params p = *p0;
  p.initial_rate_bps = 2e6;             /* above every stream here: start from what arrives */
  amcc_asmp_receiver_init (rx, &p, 90000);
  memset (s, 0, sizeof *s);
  s->t = 1 * SEC;
}

/* alone in DELAY: start-up's burst losses at 100 kB/s (to 0.9 x 98 kB/s), then `follow`
 * loss-free seconds in which the encoder sends what was reported */
static amcc_asmp_report
delay_alone (amcc_asmp_receiver *rx, stream *s, const amcc_asmp_params *p, int follow)
{
  start (rx, s, p);
  amcc_asmp_report r = second (rx, s, 100e3, 0, 0);
  for (int i = 0; i < 6; i++)
    r = second (rx, s, 100e3, 0, 50);
  for (int i = 0; i < follow; i++)
    r = second (rx, s, r.rate_bps / 8, 0, 0);
  return r;
}

static void
test_packet_size (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  AMT_NEAR (amcc_asmp_packet_size (&p, 568), 1448, 0);      /* small video packets: TCP's MSS */
  AMT_NEAR (amcc_asmp_packet_size (&p, 200), 800, 1e-9);    /* at most 4x TCP's packet rate */
  p.pkt_rate_ratio = 0;
  AMT_NEAR (amcc_asmp_packet_size (&p, 200), 1448, 0);
  p.nominal_pkt_bytes = 0;                                  /* the paper: the mean */
  AMT_NEAR (amcc_asmp_packet_size (&p, 568), 568, 0);
}

static void
test_params (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_OK);
  amcc_asmp_params_single_regime (&p);
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_OK);
  AMT_CHECK (p.adaptive_mode == 0 && p.nominal_pkt_bytes == 0 && p.loss_events == 0
      && p.startup_gain == 0 && p.step_frac == 0);
  double *fields[] = { &p.queue_target_s, &p.queue_hold_s, &p.drain_s, &p.compete_hold_s,
    &p.knee_step, &p.delay_rise, &p.knee_loss_frac, &p.foreign_margin, &p.send_gap_s,
    &p.queue_cap_hold_s, &p.burst_cut_max };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    amcc_asmp_params_init (&p);
    *fields[i] = -1;
    AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  }
  amcc_asmp_params_init (&p);
  p.startup_gain = 0.5;                   /* a "gain" below 1 is no start-up */
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  amcc_asmp_params_init (&p);
  p.delay_backoff = 1;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  amcc_asmp_params_init (&p);
  p.burst_cut_max = 1;                    /* a cut to 0 */
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
  amcc_asmp_params_init (&p);
  p.nominal_pkt_bytes = NAN;
  AMT_CHECK (amcc_asmp_params_validate (&p) == AMCC_ERR_PARAM);
}

/* Start-up: x1.25 of what arrived per report, never above it when the sender does not follow
 * (an encoder below its target), and out at the first standing queue, which is drained. */
static void
test_startup_then_drain (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  amcc_asmp_report r = second (&rx, &s, 100e3, 0, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_STARTUP);
  AMT_NEAR (r.rate_bps, 1.25 * 8 * 100e3, 0.02 * 8 * 125e3);
  r = second (&rx, &s, 100e3, 0, 0);                 /* the sender did not follow */
  AMT_NEAR (r.rate_bps, 8 * 125e3, 0.02 * 8 * 125e3);
  r = second (&rx, &s, 125e3, 0, 0);
  AMT_NEAR (r.rate_bps, 8 * 156.25e3, 0.02 * 8 * 156.25e3);
  AMT_CHECK (r.mode == AMCC_ASMP_STARTUP);
  /* the bottleneck (125 kB/s) holds a 100 ms queue: drain it over drain_s (0.5 s) */
  r = second (&rx, &s, 125e3, 100, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  AMT_NEAR (r.queue_s, 0.1, 0.002);
  /* the step to a 100 ms queue stretched this interval to 1.1 s: 125 kB / 1.1 s arrived */
  AMT_NEAR (r.rate_bps, 8 * 125e3 / 1.1 * 0.8, 0.02 * 8 * 125e3);
  /* literal (startup_gain 0): the paper has no start-up; eq. 13 adds a packet per RTT */
  amcc_asmp_params_init (&p);
  p.startup_gain = 0;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  r = second (&rx, &s, 100e3, 0, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  AMT_CHECK (r.rate_bps < 8 * 112e3);
}

/* A queue just above queue_hold_s (5 ms, below the 20 ms target) ends start-up and stops
 * DELAY's rise: the bottleneck is reached, and the encoder takes a rise a GOP later, by when a
 * short buffer would overflow. queue_hold_s 0: DELAY rises through it (eq. 13). */
static void
test_queue_hold (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  amcc_asmp_report r = second (&rx, &s, 100e3, 0, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_STARTUP);
  r = second (&rx, &s, 100e3, 8, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  double held = r.rate_bps;
  for (int i = 0; i < 3; i++) {
    r = second (&rx, &s, 100e3, 8, 0);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY && r.rate_bps <= held + 1);
  }
  r = second (&rx, &s, held / 8, 2, 0);   /* the sender followed, the queue is gone: rise */
  AMT_CHECK (r.rate_bps > held);
  p.queue_hold_s = 0;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  r = second (&rx, &s, 100e3, 8, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_STARTUP);
}

/* DELAY rises by at most delay_rise (5 %) of what arrived over it: an encoder that ramps up
 * over seconds leaves no unspent target. delay_rise 0: eq. 13's P/t_RTT (10 kB/s here). */
static void
test_delay_rise (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.startup_gain = 0;
  amcc_asmp_receiver rx;
  stream s;
  for (int lit = 0; lit < 2; lit++) {
    p.delay_rise = lit ? 0 : 0.05;
    start (&rx, &s, &p);
    amcc_asmp_report r = second (&rx, &s, 100e3, 0, 0);
    for (int i = 0; i < 5; i++)
      r = second (&rx, &s, 100e3, 0, 0);     /* the encoder stays at 100 kB/s */
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
    if (!lit)
      AMT_NEAR (r.rate_bps, 8 * 105e3, 8 * 1e3);
    else
      AMT_CHECK (r.rate_bps > 8 * 108e3);
  }
}

/* Measured (foreign_margin 0.1): a queue that does not drain although the sender, following
 * our drained rate, sends 10 % below what the queue gave us is another flow's: COMPETING. A
 * queue that grows for seconds while the sender does not slow down (the encoder lags) is ours,
 * losses in it too: DELAY, where the timing rules went COMPETING. */
static void
test_foreign_queue (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  amcc_asmp_report r;
  double rate = 100e3;
  int reports = 0;
  do {                                    /* a competitor holds 80 ms; we follow our drain */
    r = second (&rx, &s, rate, 80, 0);
    rate = r.rate_bps / 8;
    reports++;
  } while (r.mode != AMCC_ASMP_COMPETING && reports < 10);
  AMT_CHECK (r.mode == AMCC_ASMP_COMPETING);
  AMT_CHECK (reports <= 3);               /* 80 ms drains 16 %: below 0.9 x 100 kB/s at once */
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  for (int i = 0; i < 6; i++) {           /* our own queue, growing, the sender not slowing */
    r = second (&rx, &s, 100e3, 40 + 10 * i, i >= 2 ? 50 : 0);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  }
}

/* A Reno flow's sawtooth (queue_cap_hold_s): the queue stands 3 reports of every 5 and drains
 * at each halving, and no packet of ours is lost (live, a drop-tail tbf takes our small
 * packets while it drops TCP's). Each episode alone never shows us fed 10 % below the
 * bottleneck (we get what we send); remembered across the drained reports, the first episode's
 * rate does: COMPETING in the second cycle. Forgotten (0), DELAY drains us cycle after cycle
 * (dumbbell-tcp live: 3 % of the share). Alone, a queue that comes back while we send at the
 * rate it stood at before is ours: DELAY. */
static void
test_sawtooth_queue (void)
{
  static const double q_ms[5] = { 40, 70, 90, 3, 3 };
  for (int hold = 0; hold < 2; hold++) {
    amcc_asmp_params p;
    amcc_asmp_params_init (&p);
    p.queue_cap_hold_s = hold ? 10.0 : 0;
    amcc_asmp_receiver rx;
    stream s;
    start (&rx, &s, &p);
    second (&rx, &s, 100e3, 0, 0);
    amcc_asmp_report r;
    double rate = 100e3;
    int competing_at = 0;
    for (int i = 0; i < 30 && !competing_at; i++) {
      r = second (&rx, &s, rate, q_ms[i % 5], 0);
      rate = r.rate_bps / 8;
      if (r.mode == AMCC_ASMP_COMPETING)
        competing_at = i + 1;
    }
    printf ("  queue_cap_hold_s %s: %s after %d reports, rate %.0f bit/s\n", hold ? "10" : "0",
        competing_at ? "COMPETING" : "DELAY", competing_at ? competing_at : 30, 8 * rate);
    if (hold)
      AMT_CHECK (competing_at > 0 && competing_at <= 10);
    else
      AMT_CHECK (!competing_at && rate < 0.3 * 100e3);      /* the spiral: this test can fail */
  }
  /* alone: our queue stood at 100 kB/s, we drained, and it stands again when we are back there */
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  amcc_asmp_report r = second (&rx, &s, 100e3, 60, 0);
  r = second (&rx, &s, 90e3, 20, 0);
  r = second (&rx, &s, 88e3, 2, 0);
  r = second (&rx, &s, 95e3, 2, 0);
  for (int i = 0; i < 3; i++) {
    r = second (&rx, &s, 98e3, 30 + 10 * i, 0);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  }
}

/* The rate a lossy interval was sent at counts its lost packets: a standing queue of ours
 * that overflows (1 packet in 5 lost, the sender not slowing) is not "fed 17 % below what it
 * gave us", so its losses are no competitor's: DELAY. Measured on what arrived alone, the
 * second such report went COMPETING. */
static void
test_lost_packets_were_sent (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  amcc_asmp_report r = second (&rx, &s, 100e3, 40, 0);
  for (int i = 0; i < 4; i++) {
    r = second (&rx, &s, 100e3, 40, 5);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  }
}

/* Timing rules (foreign_margin 0): a queue that stays while we drain is not ours: COMPETING
 * after compete_after_s (2 s); one that shrinks is ours (the encoder takes a new rate up to a
 * GOP later). */
static void
test_queue_not_ours (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.foreign_margin = 0;                   /* the timing rules (no send-rate measurement) */
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  amcc_asmp_report r;
  int first_competing = -1;
  for (int i = 0; i < 4; i++) {           /* shrinking: 80, 70, 60, 50 ms */
    r = second (&rx, &s, 100e3, 80 - 10 * i, 0);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  }
  r = second (&rx, &s, 100e3, 0, 0);
  for (int i = 0; i < 4; i++) {
    r = second (&rx, &s, 100e3, 80, 0);
    if (r.mode == AMCC_ASMP_COMPETING && first_competing < 0)
      first_competing = i;
    if (i < 1)                            /* draining: at most what arrived, less 15 % */
      AMT_CHECK (r.rate_bps <= 8 * 100e3 * 0.85 && r.mode == AMCC_ASMP_DELAY);
  }
  AMT_CHECK (first_competing == 1);       /* standing since the start of i = 0: 2 s when i = 1 ends */
  /* the queue stays drained for 3 loss-free reports: alone again (a Reno queue drains for one) */
  r = second (&rx, &s, 100e3, 2, 0);
  r = second (&rx, &s, 100e3, 2, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_COMPETING);
  r = second (&rx, &s, 100e3, 2, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
}

/* Alone, loss comes from bursts (the least queueing delay stays 0): DELAY backs off 10 % and
 * rises slowly near that rate; it never counts as competition. */
static void
test_burst_loss_alone (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  amcc_asmp_report r = second (&rx, &s, 100e3, 0, 0);
  for (int i = 0; i < 6; i++) {
    r = second (&rx, &s, 100e3, 0, 50);   /* two losses a second, no queue */
    AMT_CHECK (r.mode != AMCC_ASMP_COMPETING);
  }
  /* what arrived less 10 %, once: repeated bursts do not compound the cut */
  AMT_NEAR (r.rate_bps, 8 * 98e3 * 0.9, 0.01 * 8 * 100e3);     /* 2 % of it lost */
  r = second (&rx, &s, r.rate_bps / 8, 0, 0);  /* the last loss is found in this interval */
  double before = r.rate_bps;
  r = second (&rx, &s, before / 8, 0, 0);     /* loss-free, within 10 % of the knee: +2 % at most */
  AMT_CHECK (r.rate_bps > before && r.rate_bps <= before * 1.02 + 1);
}

/* random_loss_q_s (5 ms): losses whose next packet waited in no queue are the path's, not an
 * overflow. At 1 % random loss (every 100th packet, 100 kB/s) nothing backs off: 10 s later
 * the rate is still at least what arrived, and no regime saw a loss (start-up goes on); eq. 12
 * at the filtered loss fraction (1 %: 1.22 x 1448 / (0.1 s x 0.1) = 177 kB/s) is above it.
 * At 2.5 % and a 0.5 s RTT eq. 12 (about 22 kB/s) bounds it: under half of what arrived. At
 * 20 % (above random_loss_max, 3 % over the last 8 reports: an overload whose queue was there
 * from the first packet looks the same) every loss is congestion again. The same 1 % as
 * overflows (the next packet 30 ms late), or with random_loss_q_s 0 (the paper: every loss
 * event is congestion), backs off below 0.95 x. */
static void
test_random_loss (void)
{
  static const struct { double q_s, overflow; int every; double rtt; } c[] = {
    { 0.005, 0, 100, 0.1 }, { 0.005, 0, 40, 0.5 }, { 0.005, 0, 5, 0.1 }, { 0.005, 30, 100, 0.1 },
    { 0, 0, 100, 0.1 },
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    amcc_asmp_params p;
    amcc_asmp_params_init (&p);
    AMT_CHECK (p.random_loss_q_s == 0.005 && p.random_loss_max == 0.03);
    p.random_loss_q_s = c[i].q_s;
    p.default_rtt_s = c[i].rtt;
    amcc_asmp_receiver rx;
    stream s;
    overflow_ms = c[i].overflow;
    start (&rx, &s, &p);
    amcc_asmp_report r = second (&rx, &s, 100e3, 0, 0);
    double lowest = INFINITY;
    for (int k = 0; k < 10; k++) {
      r = second (&rx, &s, 100e3, 0, c[i].every);
      lowest = fmin (lowest, r.rate_bps);
    }
    printf ("# random_loss_q_s %.3f, next packet %2.0f ms late, 1 in %3d lost, RTT %.1f s: "
        "lowest %.0f, last %.0f bit/s (%s), %llu random\n", c[i].q_s, c[i].overflow, c[i].every,
        c[i].rtt, lowest, r.rate_bps, r.mode == AMCC_ASMP_STARTUP ? "startup"
        : r.mode == AMCC_ASMP_DELAY ? "delay" : "competing", (unsigned long long) rx.random_losses);
    if (i == 0)
      AMT_CHECK (lowest >= 8 * 100e3 * 0.99 && r.mode == AMCC_ASMP_STARTUP
          && rx.random_losses >= 9);
    else if (i == 1)
      AMT_CHECK (r.rate_bps < 0.5 * 8 * 100e3 && rx.random_losses >= 9);
    else
      AMT_CHECK (lowest < 0.95 * 8 * 100e3 && rx.random_losses == 0);
  }
  overflow_ms = 30;
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.random_loss_q_s = -1;
  AMT_CHECK (amcc_asmp_params_validate (&p) != AMCC_OK);
  amcc_asmp_params_init (&p);
  p.random_loss_max = 1.5;
  AMT_CHECK (amcc_asmp_params_validate (&p) != AMCC_OK);
}

/* random_loss_max looks at the last 8 reports (eq. 2-3's filtered loss fraction), not at the
 * whole history: after 3 s of overflows (1 in 5 lost, the next packet 30 ms late: a start-up
 * overshoot into a full queue) the same 1 % of random loss as above is taken as random again
 * once those 3 s have left the filter. Counted since the receiver began (the rule before), the
 * 60 overflow losses kept the fraction above 3 % for all 15 s (4.2 % at the end) and every
 * random loss backed off: the demo with FEC at 1 % random loss (a start-up with 3-12 % loss
 * toward the slow receiver) sat at 90 kbit/s of its 600 for 35 s. */
static void
test_random_loss_after_burst (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  amcc_asmp_report r = second (&rx, &s, 100e3, 0, 0);
  overflow_ms = 30;
  for (int k = 0; k < 3; k++)
    r = second (&rx, &s, 100e3, 0, 5);
  uint64_t after_burst = rx.random_losses;
  overflow_ms = 0;
  uint64_t by_report[15];
  for (int k = 0; k < 15; k++) {
    r = second (&rx, &s, 100e3, 0, 100);
    by_report[k] = rx.random_losses - after_burst;
  }
  overflow_ms = 30;
  printf ("# 3 s of overflows, then 15 s of 1 %% random loss: %llu random after 8 s, %llu after "
      "15 s; rate %.0f bit/s (%s)\n", (unsigned long long) by_report[7],
      (unsigned long long) by_report[14], r.rate_bps, r.mode == AMCC_ASMP_DELAY ? "delay"
      : r.mode == AMCC_ASMP_STARTUP ? "startup" : "competing");
  AMT_CHECK (after_burst == 0);                 /* the overflows themselves were never random */
  AMT_CHECK (by_report[14] - by_report[7] >= 6);      /* the last 7 s: random again */
}

/* A burst loss in an interval that read low (no key frame in it: 30 % under the rate) takes at
 * most burst_cut_max (20 %) of r_prev while the path is drained. Without the bound it is 0.9 x
 * the two-report mean (0.75 x here); from that interval's rate alone (the rule before both) it
 * was 0.63 x, and the lone receiver of net-asmp-elements fell 536 -> 348 kbit/s and stayed under
 * 0.85 x its link for the test's window. Over a queue (10 ms, above queue_hold_s: loss-based
 * flows keep one) neither holds: 0.9 x one interval (0.62 x). */
static void
test_burst_cut_bounded (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  for (int k = 0; k < 3; k++) {
    int off = k == 1, queued = k == 2;
    p.burst_cut_max = off ? 0 : 0.2;
    amcc_asmp_report r = delay_alone (&rx, &s, &p, 8);
    double before = r.rate_bps;
    r = second (&rx, &s, 0.7 * before / 8, queued ? 10 : 0, 50);
    printf ("# burst_cut_max %.1f, queue %d ms: %.0f -> %.0f bit/s\n", p.burst_cut_max,
        queued ? 10 : 0, before, r.rate_bps);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
    if (!off && !queued)
      AMT_NEAR (r.rate_bps, 0.8 * before, 0.01 * before);
    else
      AMT_CHECK (r.rate_bps < 0.78 * before);
  }
}

/* knee_hold_s: after a burst loss alone the rate stays at most knee_hold_frac (0.95) x the
 * target it came at for 20 s, then probes again; the loss found a report late is the same
 * burst. Probing back every ~7 s lost 2-5 packets each time in the demo (0.66 % of the slow
 * receiver's). With knee_hold_s 0 the rate passes that level within the 20 s. */
static void
test_knee_hold (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  for (int off = 0; off < 2; off++) {
    p.knee_hold_s = off ? 0 : 20;
    amcc_asmp_report r = delay_alone (&rx, &s, &p, 25);       /* past the start-up's hold */
    double level = r.rate_bps;
    r = second (&rx, &s, level / 8, 0, 50);                   /* a burst at that target */
    r = second (&rx, &s, r.rate_bps / 8, 0, 50);              /* found late: the same one */
    double most = 0;
    for (int i = 0; i < 18; i++) {
      r = second (&rx, &s, r.rate_bps / 8, 0, 0);
      most = fmax (most, r.rate_bps);
    }
    printf ("# knee_hold_s %.0f: burst at %.0f bit/s, most over the 18 s after %.0f\n",
        p.knee_hold_s, level, most);
    if (off) {
      AMT_CHECK (most > 0.96 * level);
    } else {
      AMT_CHECK (most <= 0.951 * level && most >= 0.9 * level);
      for (int i = 0; i < 4; i++)
        r = second (&rx, &s, r.rate_bps / 8, 0, 0);
      AMT_CHECK (r.rate_bps > 0.96 * level);                  /* the hold is over */
    }
  }
}

/* knee_hold_s's level is the lower of the target (the higher of the last two) and what arrived.
 * A burst that reads above the target (the demo's first loss read 598 kbit/s at a 500 kbit/s
 * target) held at 0.95 x 598, above the link, and the slow receiver lost packets every 7-8 s
 * for the hold's 20 s: here the rate stays at the target (no cut: what arrived less 10 % is
 * above it), where by that level it rose 11 %. A target the encoder did not follow (start-up
 * overshot to 624-668 kbit/s while 533 arrived) holds at 0.95 x what arrived. The higher of the
 * last two targets counts for a stalled sender's backlog, lost after a cut to the floor
 * (test_asmp_stall). */
static void
test_knee_hold_level (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  for (int under = 0; under < 2; under++) {
    amcc_asmp_report r = delay_alone (&rx, &s, &p, 25);
    double target = r.rate_bps, sent = under ? 0.85 * target : 1.2 * target;
    for (int i = 0; i < 2 * under; i++)
      r = second (&rx, &s, sent / 8, 0, 0);             /* the encoder stays under its target */
    r = second (&rx, &s, sent / 8, 0, 50);              /* a burst loss */
    r = second (&rx, &s, r.rate_bps / 8, 0, 0);
    double most = 0;
    for (int i = 0; i < 18; i++) {
      r = second (&rx, &s, r.rate_bps / 8, 0, 0);
      most = fmax (most, r.rate_bps);
    }
    printf ("# loss read at %.0f, target %.0f bit/s: most over the 18 s after %.0f\n", sent,
        target, most);
    AMT_CHECK (most <= (under ? 0.96 * sent : 1.001 * target));
  }
}

/* A loss measured above the target on a drained path (a burst the bottleneck let through: the
 * demo's start-up read 607-701 kbit/s behind a 600 kbit/s link) sets knee_loss_frac's knee at
 * most at the target: later burst losses 3 % under the target are not "10 % below the knee",
 * and the lone receiver stays in DELAY (it went COMPETING, 1.2 x over its link, in every demo
 * run whose target passed the link; without the cap this test fails). */
static void
test_knee_at_most_target (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  amcc_asmp_report r = delay_alone (&rx, &s, &p, 8);
  double R = r.rate_bps / 8;
  second (&rx, &s, 1.2 * R, 0, 0);
  r = second (&rx, &s, 1.2 * R, 0, 50);                       /* lost, read 1.2 x the target */
  for (int i = 0; i < 3; i++) {
    second (&rx, &s, 0.97 * R, 0, 0);
    r = second (&rx, &s, 0.97 * R, 0, 50);                    /* 0.97 x the target, lossy */
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
  }
}

/* Losses that go on while the rate we receive falls below 0.9 x the rate of the previous loss
 * (a short buffer shared with Reno flows: the queue never stands 20 ms) are not bursts of ours:
 * the second such loss within compete_hold_s means COMPETING. knee_loss_frac 0: never. The
 * rates are means over two reports, so each level is held for two. */
static void
test_loss_below_knee (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  for (int off = 0; off < 2; off++) {
    p.knee_loss_frac = off ? 0 : 0.9;
    start (&rx, &s, &p);
    second (&rx, &s, 100e3, 0, 0);
    amcc_asmp_report r = second (&rx, &s, 100e3, 10, 50);     /* the knee: ~99 kB/s */
    r = second (&rx, &s, 100e3, 10, 0);                       /* the loss found late */
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
    second (&rx, &s, 85e3, 10, 0);
    r = second (&rx, &s, 85e3, 10, 50);                       /* below 0.9 x 99: once */
    r = second (&rx, &s, 85e3, 10, 0);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
    second (&rx, &s, 72e3, 10, 0);
    r = second (&rx, &s, 72e3, 10, 50);                       /* and again: COMPETING */
    r = second (&rx, &s, 72e3, 10, 0);
    AMT_CHECK (r.mode == (off ? AMCC_ASMP_DELAY : AMCC_ASMP_COMPETING));
  }
}

/* The knee is the highest rate a loss came at within compete_hold_s, not the last one: losses
 * that keep coming while we back off 7 % at a time (each within 0.9 x the one before) cross
 * 0.9 x the first at the third and the fourth: COMPETING. Judged against the last loss only,
 * ASMP starved next to ten Reno flows (ns-3 fairness-l2, seed 3: 8 % of its share). */
static void
test_loss_creeping_down (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  static const double level[] = { 100e3, 93e3, 86e3, 80e3 };
  amcc_asmp_report r;
  for (int i = 0; i < 4; i++) {
    second (&rx, &s, level[i], 10, 0);
    r = second (&rx, &s, level[i], 10, 50);
    r = second (&rx, &s, level[i], 10, 0);                    /* the loss found late */
    AMT_CHECK (r.mode == (i < 3 ? AMCC_ASMP_DELAY : AMCC_ASMP_COMPETING));
  }
}

/* Whether one interval's rate or the mean over two is judged depends on the queue: with the
 * path drained (0 ms) a loss in a dip 16 % below the knee is a key-frame swing (two-report
 * mean 92 kB/s, not below 0.9 x 99): DELAY; over a 10 ms queue (above queue_hold_s, as Reno
 * flows keep it) the same two dips are losses while we back off: COMPETING (with two-report
 * means there, ns-3 fairness-l1 seed 3 starved at 21 % of its share). */
static void
test_knee_interval_by_queue (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  for (int queued = 0; queued < 2; queued++) {
    double q = queued ? 10 : 0;
    start (&rx, &s, &p);
    second (&rx, &s, 100e3, 0, 0);
    second (&rx, &s, 100e3, q, 0);
    second (&rx, &s, 100e3, q, 50);                           /* the knee: ~99 kB/s */
    amcc_asmp_report r;
    for (int i = 0; i < 2; i++) {
      second (&rx, &s, 100e3, q, 0);
      second (&rx, &s, 100e3, q, 0);
      second (&rx, &s, 84e3, q, 50);                          /* a dip, a loss in it */
      r = second (&rx, &s, 100e3, q, 0);                      /* found late */
    }
    AMT_CHECK (r.mode == (queued ? AMCC_ASMP_COMPETING : AMCC_ASMP_DELAY));
  }
}

/* Alone, x264's output alternates per 0.5 s report between an interval with a key frame and
 * one without (here 110 and 80 kB/s, 1-s reports for the harness), with a rate between now and
 * then; a burst loss comes in a high interval or in a middling one (95 kB/s), at the same mean
 * rate over two reports (95-97.5 kB/s): DELAY. On one interval's rate each loss at 95 read
 * below 0.9 x the 110 of a loss before, and two went COMPETING (net-asmp-elements, 2 of 3
 * failed runs). */
static void
test_alternating_bursts_alone (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 95e3, 0, 0);
  static const double level[] = { 80e3, 110e3, 80e3, 110e3, 100e3, 95e3, 80e3, 110e3, 80e3,
    110e3, 100e3, 95e3 };
  static const int lose[] = { 0, 40, 0, 0, 0, 40, 0, 40, 0, 0, 0, 40 };
  for (int i = 0; i < 12; i++) {
    amcc_asmp_report r = second (&rx, &s, level[i], 0, lose[i]);
    AMT_CHECK (r.mode != AMCC_ASMP_COMPETING);
  }
}

/* A loss below the knee counts only while backing off has not let the rate recover: alone,
 * after two losses (the start-up overshoot, one 15 % lower) the target climbs back, loss-free,
 * by more than one backoff and the encoder follows it; the next burst loss comes over 10 %
 * below the knee, yet the rate rose to it: a burst of ours, DELAY. Counted (the rule before), it was
 * the second event within compete_hold_s and the lone receiver of net-faults went COMPETING and
 * overshot the 600 kbit/s link by 25 %. */
static void
test_loss_after_recovery_alone (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.compete_hold_s = 20;      /* 1-s reports climb half as fast as the live 0.5-s ones */
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  second (&rx, &s, 100e3, 0, 50);                             /* the knee: ~99 kB/s */
  second (&rx, &s, 85e3, 0, 0);
  second (&rx, &s, 85e3, 0, 50);
  amcc_asmp_report r = second (&rx, &s, 85e3, 0, 0);          /* below the knee: event 1 */
  double low = r.rate_bps;
  for (int i = 0; i < 9 && r.rate_bps < 1.12 * low; i++)
    r = second (&rx, &s, r.rate_bps / 8, 0, 0);               /* the encoder follows */
  AMT_CHECK (r.rate_bps >= 1.12 * low);
  double at = r.rate_bps / 8;
  AMT_CHECK (at < 0.9 * 99e3);
  second (&rx, &s, at, 0, 50);
  r = second (&rx, &s, at, 0, 0);
  AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
}

/* Loss after the queue stood compete_after_s / 2, twice within compete_hold_s: a loss-based
 * flow fills the queue until it overflows. A loss sooner into a queue (our own overshoot, which
 * draining removes) does not count. */
static void
test_queued_loss_competing (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  p.foreign_margin = 0;                   /* the timing rules (no send-rate measurement) */
  p.compete_after_s = 3;                  /* losses count 1.5 s into a queue; 2-s queues not held */
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, &p);
  second (&rx, &s, 100e3, 0, 0);
  amcc_asmp_report r;
  for (int i = 0; i < 3; i++) {           /* losses 1 s into a queue, three times */
    r = second (&rx, &s, 100e3, 60, 90);
    AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
    r = second (&rx, &s, 100e3, 0, 0);
  }
  for (int i = 0; i < 2; i++) {           /* losses 2 s into a queue, twice */
    r = second (&rx, &s, 100e3, 60, 0);
    r = second (&rx, &s, 100e3, 60, 90);
    if (i == 0) {
      AMT_CHECK (r.mode == AMCC_ASMP_DELAY);
      r = second (&rx, &s, 100e3, 0, 0);
    }
  }
  AMT_CHECK (r.mode == AMCC_ASMP_COMPETING);
  /* a Reno-like queue (2 s standing, one report drained) without loss: COMPETING holds for
   * compete_hold_s (10 s) after the last loss event (found one report late), then DELAY */
  for (int i = 0; i < 13; i++) {
    r = second (&rx, &s, 100e3, i % 3 == 2 ? 5 : 40, 0);
    if (i == 8)
      AMT_CHECK (r.mode == AMCC_ASMP_COMPETING);
  }
  AMT_CHECK (r.mode != AMCC_ASMP_COMPETING);
}

/* COMPETING, closed loop (the sender sends what was reported): with one loss every 100 packets
 * (100 kB) behind a 60 ms queue. Counted per packet (loss_per_segment 0) the rate settles at eq.
 * 12 with TCP's segment size and the loss-event rate 1/100 (within 15 %); counted per TCP-sized
 * segment (the default) at eq. 12 with 1.448/100, what a TCP flow losing the same bytes gets,
 * about 1/sqrt(1.448) of that. The paper's literal P (the 1000-byte mean) and packet-loss rate
 * give 1000/1448 of the per-packet rate (with the CONGESTED-only indicator and
 * standing_queue_cap, less). */
static double
closed_loop (const amcc_asmp_params *p, int seconds)
{
  amcc_asmp_receiver rx;
  stream s;
  start (&rx, &s, p);
  double rate = 100e3, sum = 0;
  int n = 0;
  second (&rx, &s, rate, 0, 0);          /* the queue was once empty: the base delay */
  for (int i = 0; i < seconds; i++) {
    amcc_asmp_report r = second (&rx, &s, rate, 60, 100);
    rate = r.rate_bps / 8;
    if (i >= seconds - 30) {
      sum += rate;
      n++;
    }
  }
  return sum / n;
}

static void
test_competing_share (void)
{
  amcc_asmp_params p;
  amcc_asmp_params_init (&p);
  double tcp = amcc_pftk_rate (1448, 0.1, 0.01);
  AMT_CHECK (p.loss_per_segment == 1);
  double seg = closed_loop (&p, 90);
  AMT_NEAR (seg / amcc_pftk_rate (1448, 0.1, 0.01448), 1.0, 0.15);
  p.loss_per_segment = 0;
  double got = closed_loop (&p, 90);
  AMT_NEAR (got / tcp, 1.0, 0.15);
  AMT_NEAR (seg / got, 1 / sqrt (1.448), 0.1);
  amcc_asmp_params_single_regime (&p);
  double literal = closed_loop (&p, 90);
  AMT_CHECK (literal < 0.8 * got);
}

int
main (void)
{
  AMT_RUN (test_packet_size);
  AMT_RUN (test_params);
  AMT_RUN (test_startup_then_drain);
  AMT_RUN (test_queue_hold);
  AMT_RUN (test_delay_rise);
  AMT_RUN (test_foreign_queue);
  AMT_RUN (test_lost_packets_were_sent);
  AMT_RUN (test_sawtooth_queue);
  AMT_RUN (test_queue_not_ours);
  AMT_RUN (test_burst_loss_alone);
  AMT_RUN (test_random_loss);
  AMT_RUN (test_random_loss_after_burst);
  AMT_RUN (test_burst_cut_bounded);
  AMT_RUN (test_knee_hold);
  AMT_RUN (test_knee_hold_level);
  AMT_RUN (test_knee_at_most_target);
  AMT_RUN (test_loss_below_knee);
  AMT_RUN (test_alternating_bursts_alone);
  AMT_RUN (test_loss_creeping_down);
  AMT_RUN (test_knee_interval_by_queue);
  AMT_RUN (test_loss_after_recovery_alone);
  AMT_RUN (test_queued_loss_competing);
  AMT_RUN (test_competing_share);
  return amt_summary ();
}
