/* test_pgmcc.c - PGMCC's pieces against values computed by hand (docs/pgmcc.md): the
 * throughput equation and the switch threshold c, window growth per ACK (slow start and
 * congestion avoidance), halving and the one-RTT hold read from ACK bitmaps, RTT in packets
 * from echoed sender timestamps, the stall timeout, the receiver's loss filter, bitmap and ACK
 * aggregation, and the "PGMC" codecs (round trips, every truncation, bad fields). */
#include <amcc/pgmcc.h>
#include <amcc/controller.h>
#include <math.h>
#include <string.h>
#include "amtest.h"

#define MS AMCC_NS_PER_MS

static void
test_throughput_and_switch (void)
{
  AMT_NEAR (amcc_pgmcc_throughput (10, 0.01), 1, 1e-12);         /* 1 / (10 x 0.1) */
  AMT_NEAR (amcc_pgmcc_throughput (4, 0.25), 0.5, 1e-12);        /* 1 / (4 x 0.5) */
  AMT_CHECK (amcc_pgmcc_throughput (10, 0) == INFINITY);
  /* acker: RTT 10, p 1 % -> T = 1; c T = 0.667 */
  AMT_CHECK (amcc_pgmcc_should_switch (10, 0.04, 10, 0.01, 2.0 / 3));   /* T 0.5 */
  AMT_CHECK (!amcc_pgmcc_should_switch (10, 0.02, 10, 0.01, 2.0 / 3));  /* 0.707: worse, not by c */
  /* the boundary: T_c / T_a = sqrt (p_a / p_c) = 2/3 at p_c = 2.25 % */
  AMT_CHECK (amcc_pgmcc_should_switch (10, 0.0230, 10, 0.01, 2.0 / 3));
  AMT_CHECK (!amcc_pgmcc_should_switch (10, 0.0220, 10, 0.01, 2.0 / 3));
  /* the RTT counts as much as sqrt(p): twice the RTT at the same loss is half the throughput */
  AMT_CHECK (amcc_pgmcc_should_switch (20, 0.01, 10, 0.01, 2.0 / 3));
  AMT_CHECK (!amcc_pgmcc_should_switch (14, 0.01, 10, 0.01, 2.0 / 3));
  /* c = 1 (OpenPGM's rule): any worse receiver takes over */
  AMT_CHECK (amcc_pgmcc_should_switch (10, 0.0101, 10, 0.01, 1));
  /* a loss-free candidate never; a loss-free acker loses to any lossy candidate */
  AMT_CHECK (!amcc_pgmcc_should_switch (100, 0, 1, 0.5, 2.0 / 3));
  AMT_CHECK (amcc_pgmcc_should_switch (1, 1e-4, 100, 0, 2.0 / 3));
}

/* The paper's values of the parameters for a rate-following sender behind a slow actuator. */
static void
paper_actuator (struct amcc_pgmcc_params *p)
{
  p->hold_rate = 0;
  p->actuator_hold = 0;
  p->actuator_growth = 0;
  p->tested_fraction = 0;
}

static void
sender_new (struct amcc_pgmcc_sender *s, double ssthresh)
{
  struct amcc_pgmcc_params p;

  amcc_pgmcc_params_init (&p);
  paper_actuator (&p);
  p.initial_ssthresh = ssthresh;
  p.start_from_initial_rate = 0;
  p.app_limit_factor = INFINITY;
  amcc_pgmcc_sender_init (s, &p, 0);
}

static void
test_window_growth (void)
{
  static struct amcc_pgmcc_sender s;

  sender_new (&s, INFINITY);
  AMT_NEAR (s.w, 1, 0);
  AMT_NEAR (s.tokens, 1, 0);
  amcc_pgmcc_window_ack (&s, 3);                /* slow start: W + 1, T + 2 per ACK, T <= W */
  AMT_NEAR (s.w, 4, 1e-12);
  AMT_NEAR (s.tokens, 4, 1e-12);
  s.ssthresh = 4;                               /* congestion avoidance: W + 1/W per ACK */
  s.tokens = 2;
  amcc_pgmcc_window_ack (&s, 1);
  AMT_NEAR (s.w, 4.25, 1e-12);
  AMT_NEAR (s.tokens, 3.25, 1e-12);             /* 2 + 1 + 1/4 */
  amcc_pgmcc_window_ack (&s, 1);
  AMT_NEAR (s.w, 4.25 + 1 / 4.25, 1e-12);       /* 4.485294 */
  AMT_NEAR (s.tokens, 3.25 + 1 + 1 / 4.25, 1e-12);
  /* halving: W / 2, ssthresh = W, T - W (not below 0), W >= 1 */
  s.w = 10;
  s.tokens = 6;
  amcc_pgmcc_window_loss (&s);
  AMT_NEAR (s.w, 5, 0);
  AMT_NEAR (s.ssthresh, 5, 0);
  AMT_NEAR (s.tokens, 1, 0);
  AMT_CHECK (amcc_pgmcc_sender_may_send (&s));
  s.tokens = 3;
  amcc_pgmcc_window_loss (&s);
  AMT_NEAR (s.w, 2.5, 0);
  AMT_NEAR (s.tokens, 0.5, 0);
  AMT_CHECK (!amcc_pgmcc_sender_may_send (&s));
  s.w = 1.5;
  amcc_pgmcc_window_loss (&s);
  AMT_NEAR (s.w, 1, 0);
  AMT_NEAR (s.tokens, 0, 0);
  /* each packet sent takes a token */
  s.tokens = 1;
  amcc_pgmcc_sender_on_sent (&s, 0, 1000);
  AMT_NEAR (s.tokens, 0, 0);
}

/* An ACK from ssrc 7 at `now`: rx_max and the sequence numbers missing among the 32 before. */
static void
ack (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t rx_max, const uint32_t *missing,
    int nmissing)
{
  struct amcc_pgmcc_ack a;

  memset (&a, 0, sizeof a);
  a.fb.rx_max = rx_max;
  a.bitmap = 0xffffffffu;
  for (int i = 0; i < nmissing; i++)
    a.bitmap &= ~(UINT32_C (1) << (rx_max - 1 - missing[i]));
  AMT_CHECK (amcc_pgmcc_sender_on_feedback (s, now, 7, &a.fb, &a) == 1);
}

static void
test_losses_from_bitmaps (void)
{
  static struct amcc_pgmcc_sender s;
  double w;

  sender_new (&s, 0);                           /* congestion avoidance from the start */
  ack (&s, 0, 100, NULL, 0);                    /* elects 7; the first ACK: one, a reference */
  AMT_CHECK (s.has_acker && s.acker == 7);
  AMT_NEAR (s.w, 2, 1e-12);                     /* 1 + 1/1 */
  ack (&s, 1 * MS, 104, NULL, 0);               /* 101..104: four ACKs */
  AMT_NEAR (s.w, 3.553010, 1e-6);               /* 2 -> 2.5 -> 2.9 -> 3.244828 -> 3.553010 */
  AMT_CHECK (s.acks == 5 && s.losses == 0);
  ack (&s, 2 * MS, 103, NULL, 0);               /* an older ACK: nothing new */
  AMT_NEAR (s.w, 3.553010, 1e-6);
  /* 105 missing, 106..108 received: followed by 3 -> lost, halve */
  s.acker_rtt_pkts = 8;                         /* the hold: until past 108 + 8 */
  uint32_t m1[] = { 105 };
  ack (&s, 3 * MS, 108, m1, 1);
  AMT_NEAR (s.w, 3.553010 / 2, 1e-6);
  AMT_CHECK (s.losses == 1 && s.reactions == 1 && s.holding && s.recover == 116);
  /* 109 lost inside the hold: counted, no second halving, no growth */
  uint32_t m2[] = { 105, 109 };
  ack (&s, 4 * MS, 112, m2, 2);
  AMT_NEAR (s.w, 3.553010 / 2, 1e-6);
  AMT_CHECK (s.losses == 2 && s.reactions == 1);
  /* 113..116 fine: still the hold (not past 116), no growth */
  ack (&s, 5 * MS, 116, m2, 2);
  AMT_NEAR (s.w, 3.553010 / 2, 1e-6);
  /* 117 fine: past the hold -> growth again (105 and 109 stay lost at the acker) */
  ack (&s, 6 * MS, 117, m2, 2);
  w = 3.553010 / 2;
  AMT_NEAR (s.w, w + 1 / w, 1e-6);
  AMT_CHECK (!s.holding);
  /* a new loss after the hold halves again; a hole only 2 deep is not judged yet */
  w = s.w;
  uint32_t m3[] = { 105, 109, 119 };
  ack (&s, 7 * MS, 121, m3, 3);                 /* 119 followed by 120, 121 only */
  AMT_CHECK (s.reactions == 1);
  w += 1 / w;                                   /* 118, 120, 121 acked */
  w += 1 / w;
  w += 1 / w;
  AMT_NEAR (s.w, w, 1e-9);
  ack (&s, 8 * MS, 122, m3, 3);                 /* now 3 after it */
  AMT_CHECK (s.reactions == 2 && s.losses == 3);
  AMT_NEAR (s.w, fmax (w / 2, 1), 1e-9);
  /* a late ACK filling 119 (reordering at the acker) does not undo it, nor count twice */
  uint64_t acks = s.acks;
  ack (&s, 9 * MS, 122, m2, 2);
  AMT_CHECK (s.acks == acks + 1 && s.losses == 3);
  /* ACKs lost: a jump of 40 leaves 123..129 uncovered by any bitmap: unknown, not lost; a
   * hole inside the bitmap still is */
  ack (&s, 10 * MS, 162, m2, 0);
  AMT_CHECK (s.losses == 3 && s.reactions == 2);
  uint32_t m4[] = { 190 };
  ack (&s, 11 * MS, 200, m4, 1);
  AMT_CHECK (s.losses == 4);
  acks = s.acks;
  /* an ACK half the sequence space away (d = INT32_MIN, found by fuzz_wire): old, ignored */
  uint32_t hi = s.ack_hi;
  ack (&s, 10 * MS, hi + 0x80000000u, NULL, 0);
  AMT_CHECK (s.ack_hi == hi && s.acks == acks && s.losses == 4);
}

static void
ack_counted (struct amcc_pgmcc_sender *s, uint32_t rx_max, uint32_t bitmap, uint32_t received)
{
  struct amcc_pgmcc_ack a;

  memset (&a, 0, sizeof a);
  a.fb.rx_max = rx_max;
  a.bitmap = bitmap;
  a.received = received;
  amcc_pgmcc_sender_on_feedback (s, 0, 7, &a.fb, &a);
}

/* The cumulative counter acknowledges what no bitmap reached: ACKs 100 packets apart (the
 * elements' 50 ms early-RTCP gap at 2000 packets/s) still grow W per packet. */
static void
test_received_counter (void)
{
  static struct amcc_pgmcc_sender s;
  double w = 2;

  sender_new (&s, 0);
  ack_counted (&s, 100, 0xffffffffu, 100);
  AMT_NEAR (s.w, 2, 1e-12);
  ack_counted (&s, 200, 0xffffffffu, 200);      /* 101..200: 100 received, 33 in the bitmap */
  for (int i = 0; i < 100; i++)
    w += 1 / w;
  AMT_NEAR (s.w, w, 1e-9);
  AMT_CHECK (s.acks == 101 && s.losses == 0);   /* 101..166: unknown, not lost */
  /* 203..207 lost: the counter says 5 more, the bitmap 5 fresh; 5 losses, one halving */
  ack_counted (&s, 210, 0xffffffffu & ~(0x1fu << 2), 205);
  AMT_CHECK (s.acks == 106 && s.losses == 5 && s.reactions == 1);
  AMT_NEAR (s.w, w / 2, 1e-9);
  /* a counter that jumps beyond what the sequence numbers allow: the bitmap's count only */
  ack_counted (&s, 220, 0xffffffffu, 5000);
  AMT_CHECK (s.acks == 106 + 15 && s.received == 5000);   /* 203..207 filled late + 211..220 */
}

static void
test_rtt_in_packets_and_election (void)
{
  static struct amcc_pgmcc_sender s;
  struct amcc_pgmcc_feedback fb;

  sender_new (&s, INFINITY);
  for (int i = 0; i < 20; i++)                  /* packet #n sent at (n - 1) x 10 ms */
    amcc_pgmcc_sender_on_sent (&s, i * 10 * MS, 1000);
  memset (&fb, 0, sizeof fb);
  fb.has_echo = true;
  fb.echo_ts_us = 20000;                        /* #3 */
  fb.hold_us = 5000;
  AMT_NEAR (amcc_pgmcc_sender_rtt_packets (&s, 75 * MS, &fb), 5, 1e-9);   /* #8 at 70 ms */
  fb.hold_us = 10000;
  AMT_NEAR (amcc_pgmcc_sender_rtt_packets (&s, 85 * MS, &fb), 5.5, 1e-9); /* 75 ms: #8.5 */
  fb.has_echo = false;
  AMT_CHECK (amcc_pgmcc_sender_rtt_packets (&s, 85 * MS, &fb) < 0);
  fb.has_echo = true;
  fb.hold_us = 90000;                           /* held longer than its age: bogus */
  AMT_CHECK (amcc_pgmcc_sender_rtt_packets (&s, 85 * MS, &fb) < 0);

  /* election at 75 ms, every RTT 5 packets: A (p 1 %) first, B (4 %: T half of A's) takes
   * over, C (6 %: 0.816 of B's, above c = 2/3) does not, D (10 %: 0.632 of B's) does */
  fb.hold_us = 5000;
  fb.loss = 0.01;
  AMT_CHECK (amcc_pgmcc_sender_on_feedback (&s, 75 * MS, 0xA, &fb, NULL) == 1);
  AMT_CHECK (s.acker == 0xA && s.acker_switches == 0 && s.announce);
  fb.loss = 0.04;
  AMT_CHECK (amcc_pgmcc_sender_on_feedback (&s, 75 * MS, 0xB, &fb, NULL) == 1);
  AMT_CHECK (s.acker == 0xB && s.acker_switches == 1);
  fb.loss = 0.06;
  AMT_CHECK (amcc_pgmcc_sender_on_feedback (&s, 75 * MS, 0xC, &fb, NULL) == 0);
  AMT_CHECK (s.acker == 0xB);
  fb.loss = 0.10;
  AMT_CHECK (amcc_pgmcc_sender_on_feedback (&s, 75 * MS, 0xD, &fb, NULL) == 1);
  AMT_CHECK (s.acker == 0xD && s.acker_switches == 2);
  /* the acker's RTT is smoothed by 1/8: a 13-packet sample moves 5 to 6 */
  fb.hold_us = 0;
  fb.echo_ts_us = 60000;                        /* #7 ... */
  AMT_NEAR (amcc_pgmcc_sender_rtt_packets (&s, 190 * MS, &fb), 13, 1e-9);  /* ... to #20 */
  amcc_pgmcc_sender_on_feedback (&s, 190 * MS, 0xD, &fb, NULL);
  AMT_NEAR (s.acker_rtt_pkts, 6, 1e-9);
  /* a BYE of the acker: none, announced */
  s.announce = false;
  amcc_pgmcc_sender_on_bye (&s, 0xD);
  AMT_CHECK (!s.has_acker && s.announce);
}

static void
test_rate_and_stall (void)
{
  static struct amcc_pgmcc_sender s;
  struct amcc_pgmcc_params p;
  struct amcc_pgmcc_ack a;

  amcc_pgmcc_params_init (&p);
  paper_actuator (&p);
  p.packet_size = 1000;
  amcc_pgmcc_sender_init (&s, &p, 0);
  AMT_NEAR (amcc_pgmcc_sender_rate (&s, 0), 500e3, 0);          /* no RTT yet: initial */
  for (int i = 0; i < 10; i++)
    amcc_pgmcc_sender_on_sent (&s, i * 10 * MS, 1000);
  memset (&a, 0, sizeof a);
  a.fb.rx_max = 1;
  a.fb.has_echo = true;
  a.fb.echo_ts_us = 0;
  a.fb.hold_us = 0;
  a.bitmap = 0;
  amcc_pgmcc_sender_on_feedback (&s, 100 * MS, 9, &a.fb, &a);
  AMT_NEAR (s.srtt_s, 0.1, 1e-12);
  /* W from the initial rate: 500e3 x 0.1 / 8000 = 6.25, + 1 (slow start, the first ACK) */
  AMT_NEAR (s.w, 7.25, 1e-12);
  AMT_NEAR (amcc_pgmcc_sender_rate (&s, 100 * MS), 7.25 * 8000 / 0.1, 1e-6);    /* W s / RTT */
  /* the max limit holds the window too */
  s.p.max_rate_bps = 400e3;
  AMT_NEAR (amcc_pgmcc_sender_rate (&s, 100 * MS), 400e3, 1e-6);
  AMT_NEAR (s.w, 5, 1e-12);
  s.p.max_rate_bps = 1e12;
  /* no ACK for max(4 RTT, 1 s): a stall -> W 1, slow start to W/2, no acker */
  AMT_NEAR (amcc_pgmcc_sender_rate (&s, 1099 * MS), 5 * 8000 / 0.1, 1e-6);
  AMT_CHECK (s.timeouts == 0);
  AMT_NEAR (amcc_pgmcc_sender_rate (&s, 1100 * MS), 1 * 8000 / 0.1, 1e-6);
  AMT_CHECK (s.timeouts == 1 && !s.has_acker && s.announce);
  AMT_NEAR (s.ssthresh, 2.5, 1e-12);
}

/* An ACK from ssrc 7 at `now` covering rx_max and the 32 before, none missing, echoing the
 * packet sent at echo_us (hold 0). */
static void
ack_echo (struct amcc_pgmcc_sender *s, amcc_time now, uint32_t rx_max, uint32_t echo_us)
{
  struct amcc_pgmcc_ack a;

  memset (&a, 0, sizeof a);
  a.fb.rx_max = rx_max;
  a.fb.has_echo = true;
  a.fb.echo_ts_us = echo_us;
  a.bitmap = 0xffffffffu;
  amcc_pgmcc_sender_on_feedback (s, now, 7, &a.fb, &a);
}

/* hold_rate: a larger RTT moves W, not the window's rate (nor where slow start ends). */
static void
test_hold_rate (void)
{
  static struct amcc_pgmcc_sender s;

  for (int hold = 0; hold <= 1; hold++) {
    sender_new (&s, 8);                         /* 1200-byte packets (params default) */
    s.p.hold_rate = hold;
    s.p.rtt_gain = 1;                           /* srtt = the last sample */
    s.srtt_s = 0.1;
    s.w = 10;
    s.x_bps = 10 * 9600 / 0.1;                  /* 960 kbit/s */
    ack_echo (&s, 1000 * MS, 100, 800000);      /* RTT 0.2 s; the first ACK acks one */
    AMT_NEAR (s.srtt_s, 0.2, 1e-12);
    if (hold) {                                 /* W 20 at 0.2 s is 960 kbit/s, + 1/20 */
      AMT_NEAR (s.w, 20.05, 1e-9);
      AMT_NEAR (s.ssthresh, 16, 1e-9);
      AMT_NEAR (amcc_pgmcc_sender_window_rate (&s), 20.05 * 9600 / 0.2, 1e-6);
    } else {                                    /* the paper: W 10 + 1/10 at 0.2 s */
      AMT_NEAR (s.w, 10.1, 1e-9);
      AMT_NEAR (s.ssthresh, 8, 0);
      AMT_NEAR (amcc_pgmcc_sender_window_rate (&s), 10.1 * 9600 / 0.2, 1e-6);
    }
  }
}

/* actuator_growth: one step per RTT + 1 s instead of per RTT. */
static void
test_actuator_growth (void)
{
  static struct amcc_pgmcc_sender s;

  sender_new (&s, 0);
  s.p.actuator_growth = AMCC_NS_PER_S;
  s.srtt_s = 0.1;
  s.w = 10;
  s.tokens = 2;
  amcc_pgmcc_window_ack (&s, 1);                /* g = 0.1 / 1.1 = 0.090909; W += g / W */
  AMT_NEAR (s.w, 10 + 0.1 / 1.1 / 10, 1e-12);
  AMT_NEAR (s.tokens, 3 + 0.1 / 1.1 / 10, 1e-12);
  s.ssthresh = INFINITY;                        /* slow start: W += g */
  s.w = 4;
  amcc_pgmcc_window_ack (&s, 2);
  AMT_NEAR (s.w, 4 + 2 * 0.1 / 1.1, 1e-12);
  s.p.actuator_growth = 0;                      /* the paper */
  amcc_pgmcc_window_ack (&s, 1);
  AMT_NEAR (s.w, 5 + 2 * 0.1 / 1.1, 1e-12);
}

/* actuator_hold: losses of packets that left within 1 s of a reaction are the same event. */
static void
test_actuator_hold (void)
{
  static struct amcc_pgmcc_sender s;
  uint32_t m1[] = { 105 }, m2[] = { 105, 119 }, m3[] = { 119 }, m4[] = { 150 };

  for (int hold = 0; hold <= 1; hold++) {
    sender_new (&s, 0);
    s.p.actuator_hold = hold ? AMCC_NS_PER_S : 0;
    ack (&s, 0, 100, NULL, 0);
    ack (&s, 1 * MS, 104, NULL, 0);
    s.acker_rtt_pkts = 8;
    ack (&s, 3 * MS, 108, m1, 1);               /* 105 lost: halve, recover 116 */
    AMT_CHECK (s.reactions == 1 && s.recover == 116);
    ack (&s, 4 * MS, 112, m1, 1);               /* hold: recover 112 + 8 = 120 */
    AMT_CHECK (s.recover == (hold ? 120u : 116u));
    ack (&s, 6 * MS, 117, m1, 1);               /* paper: past 116, the hold is over */
    AMT_CHECK (s.holding == !!hold && s.recover == (hold ? 125u : 116u));
    ack (&s, 8 * MS, 122, m2, 2);               /* 119 lost: a new event for the paper only */
    AMT_CHECK (s.reactions == (hold ? 1u : 2u) && s.losses == 2);
    if (!hold)
      continue;
    AMT_CHECK (s.recover == 130);
    ack (&s, 1004 * MS, 140, m3, 1);            /* 1 s after the reaction: no longer extended */
    AMT_CHECK (s.recover == 130 && !s.holding);
    ack (&s, 1005 * MS, 153, m4, 1);            /* 150 lost: a new event */
    AMT_CHECK (s.reactions == 2 && s.losses == 3);
  }
}

/* tested_fraction: ACKs of packets sent below 0.9 x the window's rate do not grow W. */
static void
test_tested_fraction (void)
{
  static struct amcc_pgmcc_sender s;

  for (int gap = 10; gap <= 20; gap += 10) {    /* 960 kbit/s = one 1200-byte packet / 10 ms */
    sender_new (&s, 0);
    s.p.tested_fraction = 0.9;
    s.srtt_s = 0.1;
    s.w = 10;
    for (int t = 0; t <= 1000; t += gap)
      amcc_pgmcc_sender_on_sent (&s, t * MS, 1200);
    ack_echo (&s, 1000 * MS, 100, 900000);      /* RTT 0.1; the reference acks one: W 10.1 */
    AMT_NEAR (s.w, 10.1, 1e-9);
    ack_echo (&s, 1050 * MS, 105, 950000);      /* 101..105, sent at 850-950 ms */
    double w = 10.1;
    if (gap == 10)                              /* 10 packets in 0.1 s: the window's rate */
      for (int i = 0; i < 5; i++)
        w += 1 / w;
    AMT_NEAR (s.w, w, 1e-9);                    /* gap 20: half of it, untested: no growth */
    AMT_CHECK (s.acks == 6);
  }
}

static void
test_receiver (void)
{
  static struct amcc_pgmcc_receiver r;
  struct amcc_pgmcc_params p;
  struct amcc_pgmcc_sender_info si = { true, 0x55 };
  struct amcc_pgmcc_ack a;

  amcc_pgmcc_params_init (&p);
  amcc_pgmcc_receiver_init (&r, &p, 0x55);
  amcc_pgmcc_receiver_on_rtp (&r, 0, 1, true, 1000);
  amcc_pgmcc_receiver_on_rtp (&r, 1 * MS, 2, true, 2000);
  AMT_NEAR (r.loss, 0, 0);
  amcc_pgmcc_receiver_on_rtp (&r, 3 * MS, 4, true, 4000);       /* 3 missing */
  AMT_NEAR (r.loss, (1.0 / 64) * (63.0 / 64), 1e-12);          /* 0.015381 */
  AMT_CHECK (r.hi == 4 && r.bitmap == 6 && r.lost == 1 && r.received == 3);
  AMT_CHECK (amcc_pgmcc_receiver_ack_due (&r) == AMCC_TIME_NONE);        /* not the acker */
  amcc_pgmcc_receiver_on_sender_info (&r, &si);
  AMT_CHECK (r.is_acker && amcc_pgmcc_receiver_ack_due (&r) == 0);       /* first unacked */
  amcc_pgmcc_receiver_on_rtp (&r, 4 * MS, 3, true, 3000);       /* late: fills the hole */
  AMT_CHECK (r.bitmap == 7 && r.lost == 0 && r.received == 4 && r.hi == 4);
  amcc_pgmcc_receiver_on_rtp (&r, 5 * MS, 3, true, 3000);       /* duplicate */
  AMT_CHECK (r.received == 4);
  amcc_pgmcc_receiver_make_ack (&r, 6 * MS, &a);
  AMT_CHECK (a.fb.rx_max == 4 && a.bitmap == 7 && a.received == 4 && a.fb.has_echo);
  AMT_CHECK (a.fb.echo_ts_us == 4000 && a.fb.hold_us == 3000);  /* 4 arrived at 3 ms */
  AMT_CHECK (amcc_pgmcc_receiver_ack_due (&r) == AMCC_TIME_NONE);
  /* the ACK bound: the next one no sooner than 10 ms after this one */
  amcc_pgmcc_receiver_on_rtp (&r, 7 * MS, 5, true, 5000);
  AMT_CHECK (amcc_pgmcc_receiver_ack_due (&r) == 16 * MS);
  amcc_pgmcc_receiver_on_rtp (&r, 20 * MS, 40, true, 40000);    /* 6..39 lost: bitmap gone */
  AMT_CHECK (r.bitmap == 0 && r.lost == 34);
  amcc_pgmcc_receiver_on_rtp (&r, 21 * MS, 41, true, 41000);
  AMT_CHECK (r.bitmap == 1);
  amcc_pgmcc_receiver_on_rtp (&r, 22 * MS, 41 + 0x80000000u, true, 0);   /* d = INT32_MIN */
  AMT_CHECK (r.hi == 41 && r.bitmap == 1 && r.received == 7);
  /* the sender names another acker: reports from now on */
  si.acker_ssrc = 0x66;
  amcc_pgmcc_receiver_on_sender_info (&r, &si);
  AMT_CHECK (!r.is_acker && amcc_pgmcc_receiver_ack_due (&r) == AMCC_TIME_NONE);
}

static void
test_wire (void)
{
  uint8_t buf[64];
  struct amcc_pgmcc_sender_info si = { true, 0xdeadbeef }, si2;
  struct amcc_pgmcc_feedback fb = { 0.015381, 0x12345678, true, 0xcafe0001, 2500 }, fb2;
  struct amcc_pgmcc_ack a = { fb, 0xfffffffb, 4242 }, a2;

  AMT_CHECK (amcc_pgmcc_sender_info_encode (&si, buf, sizeof buf) == AMCC_PGMCC_SENDER_LEN);
  AMT_CHECK (buf[0] == 1 && buf[1] == 0x80 && buf[4] == 0xde && buf[7] == 0xef);
  AMT_CHECK (amcc_pgmcc_sender_info_decode (&si2, buf, AMCC_PGMCC_SENDER_LEN) == AMCC_OK);
  AMT_CHECK (si2.has_acker && si2.acker_ssrc == 0xdeadbeef);
  for (size_t n = 0; n < AMCC_PGMCC_SENDER_LEN; n++)
    AMT_CHECK (amcc_pgmcc_sender_info_decode (&si2, buf, n) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_pgmcc_sender_info_decode (&si2, buf, AMCC_PGMCC_SENDER_LEN + 4)
      == AMCC_ERR_FIELD);
  buf[1] = 0;                                   /* no acker but an SSRC */
  AMT_CHECK (amcc_pgmcc_sender_info_decode (&si2, buf, AMCC_PGMCC_SENDER_LEN) == AMCC_ERR_FIELD);
  buf[1] = 0x81;                                /* reserved bit */
  AMT_CHECK (amcc_pgmcc_sender_info_decode (&si2, buf, AMCC_PGMCC_SENDER_LEN) == AMCC_ERR_FIELD);
  buf[0] = 2;
  AMT_CHECK (amcc_pgmcc_sender_info_decode (&si2, buf, AMCC_PGMCC_SENDER_LEN) == AMCC_ERR_VERSION);
  AMT_CHECK (amcc_pgmcc_sender_info_encode (&si, buf, 7) == AMCC_ERR_NOSPACE);
  si.has_acker = false;
  AMT_CHECK (amcc_pgmcc_sender_info_encode (&si, buf, sizeof buf) == AMCC_ERR_PARAM);

  AMT_CHECK (amcc_pgmcc_report_encode (&fb, buf, sizeof buf) == AMCC_PGMCC_REPORT_LEN);
  static const uint8_t example[] = { 0x01, 0x80, 0x03, 0xf0, 0x12, 0x34, 0x56, 0x78,
    0xca, 0xfe, 0x00, 0x01, 0x00, 0x00, 0x09, 0xc4 };           /* docs/wire-formats.md */
  AMT_CHECK (memcmp (buf, example, sizeof example) == 0);     /* 0.015381 x 65535 = 0x3f0 */
  AMT_CHECK (amcc_pgmcc_report_decode (&fb2, buf, AMCC_PGMCC_REPORT_LEN) == AMCC_OK);
  AMT_NEAR (fb2.loss, 1008 / 65535.0, 1e-12);
  AMT_CHECK (fb2.rx_max == fb.rx_max && fb2.has_echo && fb2.echo_ts_us == fb.echo_ts_us
      && fb2.hold_us == fb.hold_us);
  for (size_t n = 0; n < AMCC_PGMCC_REPORT_LEN; n++)
    AMT_CHECK (amcc_pgmcc_report_decode (&fb2, buf, n) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_pgmcc_report_decode (&fb2, buf, AMCC_PGMCC_REPORT_LEN + 1) == AMCC_ERR_FIELD);
  buf[1] = 0;                                   /* an echo without its flag */
  AMT_CHECK (amcc_pgmcc_report_decode (&fb2, buf, AMCC_PGMCC_REPORT_LEN) == AMCC_ERR_FIELD);
  buf[1] = 0x80;
  buf[12] = 0xff;                               /* hold of 71 minutes: above 600 s */
  AMT_CHECK (amcc_pgmcc_report_decode (&fb2, buf, AMCC_PGMCC_REPORT_LEN) == AMCC_ERR_FIELD);
  fb.loss = NAN;
  AMT_CHECK (amcc_pgmcc_report_encode (&fb, buf, sizeof buf) == AMCC_ERR_PARAM);
  fb.loss = 1.5;
  AMT_CHECK (amcc_pgmcc_report_encode (&fb, buf, sizeof buf) == AMCC_ERR_PARAM);

  AMT_CHECK (amcc_pgmcc_ack_encode (&a, buf, sizeof buf) == AMCC_PGMCC_ACK_LEN);
  AMT_CHECK (amcc_pgmcc_ack_decode (&a2, buf, AMCC_PGMCC_ACK_LEN) == AMCC_OK);
  AMT_CHECK (a2.bitmap == 0xfffffffb && a2.received == 4242 && a2.fb.rx_max == 0x12345678);
  for (size_t n = 0; n < AMCC_PGMCC_ACK_LEN; n++)
    AMT_CHECK (amcc_pgmcc_ack_decode (&a2, buf, n) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_pgmcc_ack_decode (&a2, buf, AMCC_PGMCC_ACK_LEN + 4) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_pgmcc_ack_decode (&a2, buf, AMCC_PGMCC_REPORT_LEN) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_pgmcc_report_decode (&fb2, buf, AMCC_PGMCC_ACK_LEN) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_pgmcc_ack_encode (&a, buf, AMCC_PGMCC_ACK_LEN - 1) == AMCC_ERR_NOSPACE);
  AMT_CHECK (amcc_pgmcc_ack_decode (NULL, buf, AMCC_PGMCC_ACK_LEN) == AMCC_ERR_PARAM);
}

/* Impossible parameters are AMCC_ERR_PARAM (NaN, negative, out of range), the defaults and the
 * paper's values are not; the controller creates no receiver with them (amcc_receiver_new does
 * not check the rates itself). */
static void
test_params_validate (void)
{
  struct amcc_pgmcc_params p, q;

  amcc_pgmcc_params_init (&p);
  AMT_CHECK (amcc_pgmcc_params_validate (&p) == AMCC_OK);
  AMT_CHECK (amcc_pgmcc_params_validate (NULL) == AMCC_ERR_PARAM);
  paper_actuator (&p);                          /* the paper's values are valid */
  p.app_limit_factor = INFINITY;
  p.start_from_initial_rate = 0;
  p.ack_interval_min = 0;
  p.switch_c = 1;                               /* OpenPGM's */
  p.packet_size = 0;                            /* 1200 */
  AMT_CHECK (amcc_pgmcc_params_validate (&p) == AMCC_OK);
#define BAD(field, value) do { \
    amcc_pgmcc_params_init (&q); \
    q.field = value; \
    AMT_CHECK (amcc_pgmcc_params_validate (&q) == AMCC_ERR_PARAM); \
  } while (0)
  BAD (switch_c, NAN);
  BAD (switch_c, 0);
  BAD (switch_c, 1.5);
  BAD (dupthresh, 0);
  BAD (dupthresh, 64);
  BAD (min_window, NAN);
  BAD (min_window, 0.5);
  BAD (min_window, INFINITY);
  BAD (initial_ssthresh, NAN);
  BAD (initial_ssthresh, 0.5);
  BAD (start_from_initial_rate, NAN);
  BAD (start_from_initial_rate, 2);
  BAD (app_limit_factor, NAN);
  BAD (app_limit_factor, 0.5);
  BAD (hold_rate, -1);
  BAD (actuator_hold, -1);
  BAD (actuator_growth, -AMCC_NS_PER_S);
  BAD (actuator_growth, 700 * AMCC_NS_PER_S);
  BAD (tested_fraction, NAN);
  BAD (tested_fraction, -0.1);
  BAD (tested_fraction, 1.1);
  BAD (rtt_gain, NAN);
  BAD (rtt_gain, 0);
  BAD (rtt_gain, 2);
  BAD (timeout_rtts, NAN);
  BAD (timeout_rtts, -4);
  BAD (timeout_rtts, INFINITY);
  BAD (timeout_min, 0);
  BAD (timeout_min, -1);
  BAD (loss_filter, NAN);
  BAD (loss_filter, 0);
  BAD (loss_filter, 1.5);
  BAD (ack_interval_min, -10 * MS);
  BAD (packet_size, 70000);
  BAD (initial_rate_bps, NAN);
  BAD (initial_rate_bps, 0);
  BAD (initial_rate_bps, INFINITY);
  BAD (min_rate_bps, NAN);
  BAD (min_rate_bps, -1);
  BAD (max_rate_bps, NAN);
  BAD (max_rate_bps, INFINITY);
  BAD (max_rate_bps, 0);
  amcc_pgmcc_params_init (&q);
  q.min_rate_bps = 2e6;
  q.max_rate_bps = 1e6;                         /* max below min */
  AMT_CHECK (amcc_pgmcc_params_validate (&q) == AMCC_ERR_PARAM);
#undef BAD

  const amcc_protocol *proto = amcc_protocol_find ("pgmcc");
  amcc_ctl_config c;
  amcc_receiver *r;
  amcc_ctl_config_init (&c);
  AMT_CHECK ((r = amcc_receiver_new (proto, &c, 0)) != NULL);
  amcc_receiver_free (r);
  c.max_bps = NAN;
  AMT_CHECK (amcc_receiver_new (proto, &c, 0) == NULL);
  amcc_ctl_config_init (&c);
  c.min_bps = -1;
  AMT_CHECK (amcc_receiver_new (proto, &c, 0) == NULL);
}

/* Through the controller: the registry knows it; bad APPs are MALFORMED, others' FOREIGN. */
static void
test_controller (void)
{
  const amcc_protocol *p = amcc_protocol_find ("pgmcc");
  amcc_ctl_config c;
  uint8_t buf[64] = { 1, 0x80 };

  AMT_CHECK (p && p->rtp_profile == AMCC_RTP_AVPF && p->max_streams == 1);
  amcc_ctl_config_init (&c);
  c.ssrc = 1;
  amcc_sender *s = amcc_sender_new (p, &c, 0);
  amcc_receiver *r = amcc_receiver_new (p, &c, 0);
  AMT_CHECK (s && r);
  AMT_CHECK (amcc_sender_on_app (s, 0, 2, "PGMC", 1, buf, 3) == AMCC_APP_MALFORMED);
  AMT_CHECK (amcc_sender_on_app (s, 0, 2, "PGMC", 9, buf, 16) == AMCC_APP_MALFORMED);
  AMT_CHECK (amcc_sender_on_app (s, 0, 2, "PGMC", 0, buf, 8) == AMCC_APP_IGNORED);
  AMT_CHECK (amcc_sender_on_app (s, 0, 2, "TFMR", 0, buf, 8) == AMCC_APP_FOREIGN);
  AMT_CHECK (amcc_receiver_on_app (r, 0, 2, "PGMC", 0, buf, 7) == AMCC_APP_MALFORMED);
  AMT_CHECK (amcc_receiver_on_app (r, 0, 2, "ASMR", 0, buf, 8) == AMCC_APP_FOREIGN);
  AMT_NEAR (amcc_sender_rate (s, 0), c.initial_bps, 0);
  amcc_sender_free (s);
  amcc_receiver_free (r);
}

int
main (void)
{
  AMT_RUN (test_throughput_and_switch);
  AMT_RUN (test_window_growth);
  AMT_RUN (test_losses_from_bitmaps);
  AMT_RUN (test_received_counter);
  AMT_RUN (test_rtt_in_packets_and_election);
  AMT_RUN (test_rate_and_stall);
  AMT_RUN (test_hold_rate);
  AMT_RUN (test_actuator_growth);
  AMT_RUN (test_actuator_hold);
  AMT_RUN (test_tested_fraction);
  AMT_RUN (test_receiver);
  AMT_RUN (test_wire);
  AMT_RUN (test_controller);
  AMT_RUN (test_params_validate);
  return amt_summary ();
}
