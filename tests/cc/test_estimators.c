/* test_estimators.c - loss filter (ASMP eq. 2-3), loss history (RFC 5348 5.4), loss events,
 * RFC 3550 sequence tracking and jitter (A.1, A.3, A.8; ASMP eq. 4-5), cumulative jitter and
 * the congestion indicator (eq. 15-19), RTT (eq. 6-11). */
#include <math.h>
#include <stdlib.h>
#include "amtest.h"
#include "amcc/loss.h"
#include "amcc/seq.h"
#include "amcc/jitter.h"
#include "amcc/rtt.h"

static void
test_loss_filter (void)
{
  amcc_loss_filter f;
  amcc_loss_filter_init (&f);
  AMT_CHECK (amcc_loss_filter_value (&f) == 0.0);
  /* one sample: l = 1*0.06 / 1 */
  AMT_NEAR (amcc_loss_filter_push (&f, 0.06), 0.06, 1e-15);
  /* two: (1*0.0 + 1*0.06) / 2 = 0.03 */
  AMT_NEAR (amcc_loss_filter_push (&f, 0.0), 0.03, 1e-15);
  /* fill to 8 with zeros: 0.06 is now l_7, weight 0.2; sum w = 4 + 0.8+0.6+0.4+0.2 = 6
   * eq. 2: 0.2 * 0.06 / 6 = 0.002 */
  for (int i = 0; i < 6; i++)
    amcc_loss_filter_push (&f, 0.0);
  AMT_NEAR (amcc_loss_filter_value (&f), 0.002, 1e-15);
  /* the ninth sample pushes it out */
  AMT_NEAR (amcc_loss_filter_push (&f, 0.0), 0.0, 1e-15);
  /* weights by age: newest 0.12 then seven zeros: 1*0.12/6 = 0.02; then 0.12 at age 4 (w 0.8):
   * push 4 zeros -> 0.8*0.12/6 = 0.016 */
  amcc_loss_filter_push (&f, 0.12);
  AMT_NEAR (amcc_loss_filter_value (&f), 0.02, 1e-15);
  for (int i = 0; i < 4; i++)
    amcc_loss_filter_push (&f, 0.0);
  AMT_NEAR (amcc_loss_filter_value (&f), 0.016, 1e-15);
  /* clamping and NaN */
  amcc_loss_filter_init (&f);
  AMT_NEAR (amcc_loss_filter_push (&f, 5.0), 1.0, 0);
  AMT_NEAR (amcc_loss_filter_push (&f, NAN), 1.0, 0);
  AMT_CHECK (f.count == 1);
}

/* RFC 5348 5.4 with I_1..I_8 = 80,70,...,10 (newest first):
 *   without I_0: 80+70+60+50 + 0.8*40 + 0.6*30 + 0.4*20 + 0.2*10 = 320 -> 320/6 = 53.333
 *   with I_0 = 100: 100+80+70+60 + 0.8*50 + 0.6*40 + 0.4*30 + 0.2*20 = 390 -> 65
 *   with I_0 = 5: 5+80+70+60+40+24+12+4 = 295 -> 49.17 < 53.33, so avg = 53.33 */
static void
test_loss_history (void)
{
  amcc_loss_history h;
  amcc_loss_history_init (&h);
  AMT_CHECK (amcc_loss_history_p (&h, NULL) == 0.0);
  for (int i = 1; i <= 8; i++)
    amcc_loss_history_push (&h, 10.0 * i);
  AMT_CHECK (amcc_loss_history_count (&h) == 8);
  amcc_loss_history_set_open (&h, 100);
  AMT_NEAR (amcc_loss_history_mean (&h, 0, NULL), 320.0 / 6, 1e-12);
  AMT_NEAR (amcc_loss_history_mean (&h, 1, NULL), 65.0, 1e-12);
  AMT_NEAR (amcc_loss_history_avg (&h, NULL), 65.0, 1e-12);
  AMT_NEAR (amcc_loss_history_p (&h, NULL), 1.0 / 65, 1e-15);
  amcc_loss_history_set_open (&h, 5);
  AMT_NEAR (amcc_loss_history_avg (&h, NULL), 320.0 / 6, 1e-12);
  /* a ninth interval drops I_8 = 10: I = 90,80,...,20: 90+80+70+60+0.8*50+0.6*40+0.4*30+0.2*20
   * = 380 -> 63.333 */
  amcc_loss_history_push (&h, 90);
  AMT_CHECK (amcc_loss_history_count (&h) == 8);
  AMT_NEAR (amcc_loss_history_mean (&h, 0, NULL), 380.0 / 6, 1e-12);
  /* discount hook: df = 0.5 on I_1 only: (0.5*90 + 290 + 80) / (0.5 + 5) = 415/5.5 */
  double df[9] = { 1, 0.5, 1, 1, 1, 1, 1, 1, 1 };
  AMT_NEAR (amcc_loss_history_mean (&h, 0, df), (0.5 * 90 + 70 + 60 + 80 + 40 + 24 + 12 + 4) / 5.5, 1e-12);
  /* RFC 5348 5.5 general DF: I_0 = 200 > 2 * 63.33 -> DF = 126.67 / 200 = 0.6333 */
  amcc_loss_history_set_open (&h, 200);
  AMT_NEAR (amcc_loss_history_general_df (&h), 2 * (380.0 / 6) / 200, 1e-12);
  amcc_loss_history_set_open (&h, 1e6);
  AMT_NEAR (amcc_loss_history_general_df (&h), 0.5, 0);
  amcc_loss_history_set_open (&h, 100);
  AMT_NEAR (amcc_loss_history_general_df (&h), 1.0, 0);
  /* partial history: two intervals 300 (newest), 200; I_0 = 400 -> without: 250, with: 300 */
  amcc_loss_history_init (&h);
  amcc_loss_history_push (&h, 200);
  amcc_loss_history_push (&h, 300);
  amcc_loss_history_set_open (&h, 400);
  AMT_NEAR (amcc_loss_history_mean (&h, 0, NULL), 250, 1e-12);
  AMT_NEAR (amcc_loss_history_mean (&h, 1, NULL), 300, 1e-12);
  /* bad input does not poison it */
  amcc_loss_history_push (&h, NAN);
  amcc_loss_history_set_open (&h, -3);
  AMT_CHECK (isfinite (amcc_loss_history_avg (&h, NULL)));
}

/* 1000 packets every 10 ms, window (RTT) 100 ms; lost: 100, 101 (10 ms apart: one event),
 * 300 (new event, interval 300 - 100 = 200), 600 (interval 300). I_0 = 999 - 600 + 1 = 400.
 * Without I_0: (300 + 200)/2 = 250; with: (400 + 300 + 200)/3 = 300 -> p = 1/300. */
static void
test_loss_events (void)
{
  amcc_loss_events e;
  amcc_loss_events_init (&e);
  int first = 0, news = 0;
  for (uint64_t s = 0; s < 1000; s++) {
    if (s == 100 || s == 101 || s == 300 || s == 600)
      continue;
    int m = amcc_loss_events_on_packet (&e, (amcc_time) s * 10 * AMCC_NS_PER_MS, s + 70000,
        100 * AMCC_NS_PER_MS);
    if (m & AMCC_LOSS_EV_FIRST)
      first++;
    if (m & AMCC_LOSS_EV_NEW)
      news++;
  }
  AMT_CHECK (first == 1);
  AMT_CHECK (news == 3);
  AMT_CHECK (e.events == 3);
  AMT_CHECK (e.lost == 4);
  AMT_CHECK (amcc_loss_history_count (&e.hist) == 2);
  AMT_NEAR (e.hist.interval[1], 300, 0);
  AMT_NEAR (e.hist.interval[2], 200, 0);
  AMT_NEAR (e.hist.interval[0], 400, 0);
  AMT_NEAR (amcc_loss_events_p (&e), 1.0 / 300, 1e-15);

  /* reordering by up to NDUPACK - 1 = 2 positions is not loss; 4 positions late is */
  amcc_loss_events_init (&e);
  uint64_t order[] = { 0, 1, 2, 4, 5, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
    amcc_loss_events_on_packet (&e, (amcc_time) i * AMCC_NS_PER_MS, order[i], AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 0);
  uint64_t late[] = { 20, 22, 23, 24, 21, 25 };  /* 21 arrives after 3 later packets */
  for (unsigned i = 0; i < 6; i++)
    amcc_loss_events_on_packet (&e, (amcc_time) (20 + i) * AMCC_NS_PER_MS, late[i], AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 4);   /* 17, 18, 19 (never sent) and 21 */
  /* RFC 5348 5.2 interpolated loss times, window 1 ms: 17 at 16 + 4 ms * 1/4 = 17 ms (first
   * event), 18 at 18 ms (joins: 1 ms after 17), 19 at 19 ms (2 ms after: new event, interval
   * 19 - 17 = 2), 21 between 20 (20 ms) and 22 (21 ms) at 20.5 ms (new event, interval 2) */
  AMT_CHECK (e.events == 3);
  AMT_NEAR (e.hist.interval[1], 2, 0);
  AMT_NEAR (e.hist.interval[2], 2, 0);
  AMT_CHECK (e.event_time == 20500 * AMCC_NS_PER_US);
}

/* RFC 5348 5.1 / RFC 4654 5: a packet is lost once at least NDUPACK = 3 packets with higher
 * sequence numbers have ARRIVED, not once the highest sequence number is 3 above it. */
static void
test_loss_burst (void)
{
  amcc_loss_events e;
  amcc_loss_events_init (&e);
  const amcc_time ms = AMCC_NS_PER_MS;
  for (uint64_t s = 0; s < 10; s++)           /* 0..9 at 0..9 ms */
    amcc_loss_events_on_packet (&e, (amcc_time) s * ms, s, 100 * ms);
  /* burst: 10..19 lost; 20, 21, 22 arrive at 20, 21, 22 ms */
  int m = amcc_loss_events_on_packet (&e, 20 * ms, 20, 100 * ms);
  AMT_CHECK (m == 0 && e.lost == 0);          /* one later arrival: nothing is lost yet */
  m = amcc_loss_events_on_packet (&e, 21 * ms, 21, 100 * ms);
  AMT_CHECK (m == 0 && e.lost == 0);          /* two */
  m = amcc_loss_events_on_packet (&e, 22 * ms, 22, 100 * ms);
  AMT_CHECK (e.lost == 10);                   /* three: the whole burst at once */
  AMT_CHECK ((m & AMCC_LOSS_EV_FIRST) && e.events == 1);
  /* RFC 5348 5.2: 10 interpolated between 9 (9 ms) and 20 (20 ms): 9 + 11 ms * 1/11 = 10 ms */
  AMT_CHECK (e.event_time == 10 * ms && e.event_seq == 10);
  AMT_NEAR (e.hist.interval[0], 22 - 10 + 1, 0);
  /* a burst longer than the 64-packet ring: 23..199 lost, then 200, 201, 202 */
  for (uint64_t s = 200; s <= 202; s++)
    amcc_loss_events_on_packet (&e, (amcc_time) s * ms, s, 1000 * ms);
  AMT_CHECK (e.lost == 10 + 177);
  AMT_CHECK (e.events == 1);                  /* all within 1 s of the first loss (10 ms) */
}

/* Reordering: 0..5, then 9, then the late 6, 7, 8. At 9's arrival 6 has one later arrival, so
 * it is not lost; the late ones are all received. */
static void
test_loss_reorder (void)
{
  amcc_loss_events e;
  amcc_loss_events_init (&e);
  uint64_t order[] = { 0, 1, 2, 3, 4, 5, 9, 6, 7, 8, 10, 11, 12 };
  for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
    amcc_loss_events_on_packet (&e, (amcc_time) i * AMCC_NS_PER_MS, order[i], AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 0 && e.events == 0);
  /* 13 missing while 14 and 15 arrive, then 13 (two later arrivals only): not lost */
  uint64_t more[] = { 14, 15, 13, 16 };
  for (unsigned i = 0; i < 4; i++)
    amcc_loss_events_on_packet (&e, (amcc_time) (20 + i) * AMCC_NS_PER_MS, more[i], AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 0);
  /* duplicates of decided and of pending packets change nothing */
  AMT_CHECK (amcc_loss_events_on_packet (&e, 30 * AMCC_NS_PER_MS, 5, AMCC_NS_PER_MS) == 0);
  AMT_CHECK (amcc_loss_events_on_packet (&e, 30 * AMCC_NS_PER_MS, 16, AMCC_NS_PER_MS) == 0);
  /* 17 and 18 missing, 19 arrives, then 83 = 19 + 64 needs 19's ring slot: 17 and 18 are decided
   * (lost) early rather than the ring losing 19; 20..82 wait for a third later arrival */
  amcc_loss_events_on_packet (&e, 31 * AMCC_NS_PER_MS, 19, AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 0);
  amcc_loss_events_on_packet (&e, 32 * AMCC_NS_PER_MS, 19 + AMCC_LOSS_WINDOW, AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 2);
  amcc_loss_events_on_packet (&e, 33 * AMCC_NS_PER_MS, 84, AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 2);
  amcc_loss_events_on_packet (&e, 34 * AMCC_NS_PER_MS, 85, AMCC_NS_PER_MS);
  AMT_CHECK (e.lost == 2 + 63);
}

/* Against a brute-force reading of RFC 5348 5.1 on random traces (bursts of up to 20 losses,
 * packets displaced by up to 8 positions): after every arrival, the packets declared lost are
 * exactly the never-arrived ones with at least 3 arrivals above them. */
static void
test_loss_rule_random (void)
{
  enum { N = 3000 };
  static uint8_t arrived[N], lost_ref[N];
  static uint64_t order[N];
  uint32_t x = 12345;
  int bad = 0;
  for (int run = 0; run < 20; run++) {
    int n = 0;
    for (int s = 0; s < N && n < N; s++) {
      x = x * 1103515245u + 12345u;
      if ((x >> 16) % 50 == 0) {             /* a burst of 1..20 losses */
        s += (int) ((x >> 8) % 20);
        continue;
      }
      order[n++] = (uint64_t) s;
    }
    for (int i = 0; i + 1 < n; i++) {        /* displace some packets later by up to 8 */
      x = x * 1103515245u + 12345u;
      if ((x >> 16) % 10 == 0) {
        int j = i + 1 + (int) ((x >> 4) % 8);
        if (j >= n)
          j = n - 1;
        uint64_t t = order[i];
        for (int k = i; k < j; k++)
          order[k] = order[k + 1];
        order[j] = t;
      }
    }
    amcc_loss_events e;
    amcc_loss_events_init (&e);
    for (int s = 0; s < N; s++)
      arrived[s] = lost_ref[s] = 0;
    uint64_t ref_lost = 0;
    int first = (int) order[0];
    for (int i = 0; i < n; i++) {
      int q = (int) order[i];
      if (!lost_ref[q])
        arrived[q] = 1;                      /* a packet declared lost stays lost */
      amcc_loss_events_on_packet (&e, (amcc_time) i * AMCC_NS_PER_MS, order[i], AMCC_NS_PER_MS);
      int above = 0;
      for (int s = N - 1; s >= first; s--) {
        if (arrived[s])
          above++;
        else if (above >= AMCC_LOSS_NDUPACK && !lost_ref[s]) {
          lost_ref[s] = 1;
          ref_lost++;
        }
      }
      if (e.lost != ref_lost)
        bad++;
    }
  }
  AMT_CHECK (bad == 0);
}

/* RFC 3550 A.1 / A.3 */
static void
test_seq (void)
{
  amcc_seq s;
  amcc_seq_init (&s);
  uint64_t ext = 0;
  /* probation: the first packet validates nothing, the second (sequential) starts statistics */
  AMT_CHECK (amcc_seq_update (&s, 65530, &ext) == AMCC_SEQ_PROBATION);
  AMT_CHECK (amcc_seq_update (&s, 65531, &ext) == AMCC_SEQ_NEW);
  AMT_CHECK (ext == 65531);
  for (uint32_t q = 65532; q < 65536 + 11; q++)          /* through the wrap to seq 10 */
    AMT_CHECK (amcc_seq_update (&s, (uint16_t) q, &ext) == AMCC_SEQ_NEW);
  AMT_CHECK (ext == 65536 + 10);
  AMT_CHECK (amcc_seq_extended_max (&s) == 65546);
  /* expected = 65546 - 65531 + 1 = 16, received 16 */
  AMT_CHECK (amcc_seq_expected (&s) == 16);
  AMT_CHECK (amcc_seq_lost (&s) == 0);
  /* duplicate of the max and of an older one */
  AMT_CHECK (amcc_seq_update (&s, 10, NULL) == AMCC_SEQ_DUPLICATE);
  AMT_CHECK (amcc_seq_update (&s, 5, NULL) == AMCC_SEQ_DUPLICATE);
  AMT_CHECK (amcc_seq_update (&s, 65533, NULL) == AMCC_SEQ_DUPLICATE);
  AMT_CHECK (s.received == 16 && s.duplicates == 3);
  amcc_seq_interval iv;
  amcc_seq_interval_close (&s, &iv);
  AMT_CHECK (iv.expected == 16 && iv.received == 16 && iv.lost == 0 && iv.fraction == 0.0);
  /* next interval: 11..30 with 13 and 14 missing, 12 arriving late (after 15) */
  for (uint16_t q = 11; q <= 30; q++) {
    if (q == 12 || q == 13 || q == 14)
      continue;
    amcc_seq_update (&s, q, NULL);
    if (q == 15)
      AMT_CHECK (amcc_seq_update (&s, 12, &ext) == AMCC_SEQ_REORDERED && ext == 65536 + 12);
  }
  /* A.3: expected 20, received 18, lost 2, fraction 0.1 */
  amcc_seq_interval_close (&s, &iv);
  AMT_CHECK (iv.expected == 20 && iv.received == 18 && iv.lost == 2);
  AMT_NEAR (iv.fraction, 0.1, 1e-15);
  AMT_CHECK (amcc_seq_lost (&s) == 2);
  /* empty interval */
  amcc_seq_interval_close (&s, &iv);
  AMT_CHECK (iv.expected == 0 && iv.fraction == 0.0);
  /* a large jump is BAD once, then RESYNC when the next one follows; numbering stays monotone */
  uint64_t before = amcc_seq_extended_max (&s);
  AMT_CHECK (amcc_seq_update (&s, 30 + 10000, NULL) == AMCC_SEQ_BAD);
  AMT_CHECK (amcc_seq_update (&s, 30 + 10001, &ext) == AMCC_SEQ_RESYNC);
  AMT_CHECK (ext > before);
  AMT_CHECK (amcc_seq_expected (&s) == 1 && s.received == 1);
  /* a packet from before the restart is not counted */
  AMT_CHECK (amcc_seq_update (&s, 30 + 9999, NULL) == AMCC_SEQ_TOO_OLD);
  /* a gap of MAX_DROPOUT - 1 is accepted as loss */
  AMT_CHECK (amcc_seq_update (&s, (uint16_t) (30 + 10001 + AMCC_SEQ_MAX_DROPOUT - 1), NULL) == AMCC_SEQ_NEW);
  AMT_CHECK (amcc_seq_lost (&s) == AMCC_SEQ_MAX_DROPOUT - 2);

  /* a source that never sends two sequential packets stays on probation */
  amcc_seq_init (&s);
  for (int i = 0; i < 20; i++)
    AMT_CHECK (amcc_seq_update (&s, (uint16_t) (i * 7919), NULL) == AMCC_SEQ_PROBATION);
  AMT_CHECK (amcc_seq_expected (&s) == 0);
  /* ... but a gap of up to AMCC_SEQ_PROBATION_GAP counts (a path losing most packets) */
  amcc_seq_init (&s);
  AMT_CHECK (amcc_seq_update (&s, 100, NULL) == AMCC_SEQ_PROBATION);
  AMT_CHECK (amcc_seq_update (&s, 100 + AMCC_SEQ_PROBATION_GAP + 1, NULL) == AMCC_SEQ_PROBATION);
  AMT_CHECK (amcc_seq_update (&s, 117 + AMCC_SEQ_PROBATION_GAP, &ext) == AMCC_SEQ_NEW);
  AMT_CHECK (ext == 117 + AMCC_SEQ_PROBATION_GAP && amcc_seq_expected (&s) == 1);
  AMT_CHECK (amcc_seq_update (&s, 120 + AMCC_SEQ_PROBATION_GAP, NULL) == AMCC_SEQ_NEW);
  AMT_CHECK (amcc_seq_expected (&s) == 4 && amcc_seq_lost (&s) == 2);
}

/* RFC 3550 A.8, eq. 4-5, 90 kHz: packets 3000 ticks apart arriving 3000 ticks apart -> D = 0.
 * One packet 900 ticks (10 ms) late: D = +900, J = 900/16 = 56.25; the next on time:
 * D = -900, J = 56.25 + (900 - 56.25)/16 = 108.984375. */
static void
test_interarrival (void)
{
  amcc_interarrival j;
  amcc_interarrival_init (&j);
  uint32_t base = 4294960000u;     /* arrival clock wraps during the test */
  AMT_CHECK (amcc_interarrival_update (&j, base, 1000) == 0);
  AMT_CHECK (amcc_interarrival_update (&j, base + 3000, 4000) == 0);
  AMT_CHECK (amcc_interarrival_update (&j, base + 6000 + 900, 7000) == 900);
  AMT_NEAR (j.jitter, 56.25, 1e-12);
  AMT_CHECK (amcc_interarrival_update (&j, base + 9000, 10000) == -900);
  AMT_NEAR (j.jitter, 108.984375, 1e-12);
  AMT_CHECK (amcc_interarrival_rr_field (&j) == 108);
  /* time -> RTP units: 1.5 s at 90 kHz = 135000; negative times floor */
  AMT_CHECK (amcc_time_to_rtp_units (1500 * AMCC_NS_PER_MS, 90000) == 135000);
  AMT_CHECK (amcc_time_to_rtp_units (-AMCC_NS_PER_S, 90000) == (uint32_t) -90000);
  AMT_CHECK (amcc_time_to_rtp_units (INT64_C(100000) * AMCC_NS_PER_S, 90000) == (uint32_t) (UINT64_C(100000) * 90000));
}

/* eq. 15-19 */
static void
test_cumjitter (void)
{
  /* eq. 17 on CJ = 1, 2, 3: A = 1, 1.5, 2 (eq. 16: (1+2+3)/3) */
  double a = 0;
  a = amcc_running_mean_update (a, 1, 0);
  AMT_NEAR (a, 1, 0);
  a = amcc_running_mean_update (a, 2, 1);
  AMT_NEAR (a, 1.5, 0);
  a = amcc_running_mean_update (a, 3, 2);
  AMT_NEAR (a, 2, 1e-15);

  amcc_cumjitter c;
  amcc_cumjitter_init (&c, 0);
  /* constant delay: D = 0 -> CJ = 0 = A_short = A_long. The paper: constant cumulative jitter is
   * UNLOADED (spec's ">=" would say CONGESTED; the paper's intent wins, see jitter.h) */
  for (int i = 0; i < 50; i++)
    amcc_cumjitter_add (&c, 0.0);
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_UNLOADED);
  /* a growing queue: each packet 1 ms later than the previous -> CJ = 1..50 ms.
   * A_long = mean(0 x50, 1..50 ms) = 12.75 ms, A_short = 25.5 ms > A_long -> CONGESTED */
  for (int i = 1; i <= 50; i++)
    amcc_cumjitter_add (&c, 0.001);
  AMT_NEAR (c.a_long, 0.01275, 1e-12);
  AMT_NEAR (c.a_short, 0.0255, 1e-12);
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_CONGESTED);
  AMT_NEAR (c.last_short, 0.0255, 1e-12);
  /* the queue drains back: CJ falls 50 -> 0 ms: A_short = 24.5 ms, A_long = 16.5 ms: still
   * above (the standing average lags); then a long flat period at 0 brings A_short below */
  for (int i = 1; i <= 50; i++)
    amcc_cumjitter_add (&c, -0.001);
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_CONGESTED);
  for (int i = 0; i < 50; i++)
    amcc_cumjitter_add (&c, 0.0);
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_UNLOADED);
  /* no sample: state kept */
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_UNLOADED);
  /* margin: A_short must exceed A_long by more than the margin */
  amcc_cumjitter_init (&c, 0.005);
  amcc_cumjitter_add (&c, 0);
  amcc_cumjitter_assess (&c);
  amcc_cumjitter_add (&c, 0.004);       /* A_long = 2 ms, A_short = 4 ms: +2 ms < 5 ms */
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_UNLOADED);
  /* the spec's literal ">=" (ge = 1): constant delay reads CONGESTED */
  amcc_cumjitter_init (&c, 0);
  c.ge = 1;
  for (int i = 0; i < 10; i++)
    amcc_cumjitter_add (&c, 0.0);
  AMT_CHECK (amcc_cumjitter_assess (&c) == AMCC_CI_CONGESTED);
  /* eq. 19 */
  AMT_NEAR (amcc_ci_gamma (AMCC_CI_CONGESTED, 0.9, 0.2), 0.2, 0);
  AMT_NEAR (amcc_ci_gamma (AMCC_CI_UNLOADED, 0.9, 0.2), 0.9, 0);
}

/* eq. 6-11 */
static void
test_rtt (void)
{
  amcc_rtt_est r;
  amcc_rtt_init (&r, 0.5, 0.25);
  AMT_NEAR (amcc_rtt_get (&r), 0.25, 0);          /* default before anything */
  AMT_NEAR (amcc_rtt_instant (&r), 0.25, 0);
  amcc_rtt_on_oneway (&r, 0.03);                   /* eq. 6: T_oneway = 30 ms */
  AMT_CHECK (amcc_rtt_on_echo (&r, 0.1) == AMCC_OK);
  /* eq. 10: a = 0.1 / 0.03 - 1 = 2.3333; eq. 8: (1 + a) * 0.03 = 0.1 */
  AMT_NEAR (r.a, 0.1 / 0.03 - 1, 1e-12);
  AMT_NEAR (amcc_rtt_update (&r), 0.1, 1e-12);    /* first sample taken as is */
  /* the one-way delay grows to 50 ms (queue): inst = 3.3333 * 0.05 = 0.16667;
   * eq. 11: 0.5 * 0.16667 + 0.5 * 0.1 = 0.13333 */
  amcc_rtt_on_oneway (&r, 0.05);
  AMT_NEAR (amcc_rtt_update (&r), 0.5 * (0.1 / 0.03 * 0.05) + 0.5 * 0.1, 1e-12);
  /* the instant sample is the mean over the interval: 40 and 60 ms -> 50 ms */
  amcc_rtt_on_oneway (&r, 0.04);
  amcc_rtt_on_oneway (&r, 0.06);
  AMT_NEAR (amcc_rtt_instant (&r), 0.1 / 0.03 * 0.05, 1e-12);
  /* clock offset: receiver behind the sender -> T_oneway <= 0; the echo is used as is */
  amcc_rtt_init (&r, 0.5, 0.25);
  amcc_rtt_on_oneway (&r, -2.0);
  amcc_rtt_on_echo (&r, 0.08);
  AMT_CHECK (!r.have_a);
  AMT_NEAR (amcc_rtt_update (&r), 0.08, 1e-15);
  /* invalid echoes are refused */
  AMT_CHECK (amcc_rtt_on_echo (&r, 0) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_rtt_on_echo (&r, NAN) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_rtt_on_echo (&r, 61) == AMCC_ERR_PARAM);
  amcc_rtt_on_oneway (&r, NAN);
  AMT_CHECK (r.oneway_last == -2.0);
  /* clamp (default 8x the last echo): a = 0.1 / 0.002 - 1 = 49 from a 2 ms one-way delay (clock
   * offset); a 10 ms one-way delay then gives (1 + a) 0.01 = 0.5 s, 5x the echo: kept; 40 ms
   * gives 2 s = 20x: clamped to 0.8 s; with clamp = 0 (the paper's literal eq. 8) it is 2 s */
  amcc_rtt_init (&r, 0.5, 0.25);
  AMT_NEAR (r.clamp, 8.0, 0);
  amcc_rtt_on_oneway (&r, 0.002);
  amcc_rtt_on_echo (&r, 0.1);
  amcc_rtt_update (&r);
  amcc_rtt_on_oneway (&r, 0.01);
  AMT_NEAR (amcc_rtt_instant (&r), 0.5, 1e-12);
  amcc_rtt_update (&r);
  amcc_rtt_on_oneway (&r, 0.04);
  AMT_NEAR (amcc_rtt_instant (&r), 0.8, 1e-12);
  r.clamp = 0;
  AMT_NEAR (amcc_rtt_instant (&r), 2.0, 1e-12);
}

/* eq. 9: A - LSR - DLSR in 16.16 seconds */
static void
test_rtcp_rtt (void)
{
  amcc_time rtt = 0;
  /* 1.0 - 0.5 - 0.25 = 0.25 s */
  AMT_CHECK (amcc_rtcp_rtt (0x00010000, 0x00008000, 0x00004000, &rtt) == AMCC_OK);
  AMT_CHECK (rtt == 250 * AMCC_NS_PER_MS);
  /* across the 32-bit wrap: 0x1000 - 0xFFFFF000 = 0x2000 = 0.125 s */
  AMT_CHECK (amcc_rtcp_rtt (0x00001000, 0xFFFFF000, 0, &rtt) == AMCC_OK);
  AMT_CHECK (rtt == 125 * AMCC_NS_PER_MS);
  AMT_CHECK (amcc_rtcp_rtt (0x00010000, 0, 0, &rtt) == AMCC_ERR_FIELD);          /* no SR yet */
  AMT_CHECK (amcc_rtcp_rtt (0x00010000, 0x00008000, 0x00009000, &rtt) == AMCC_ERR_FIELD); /* < 0 */
  AMT_CHECK (amcc_rtcp_rtt (0x00500000, 0x00008000, 0, &rtt) == AMCC_ERR_FIELD);  /* 80 s */
  /* time -> 16.16: 2.5 s = 0x00028000 */
  AMT_CHECK (amcc_time_to_ntp_mid32 (2500 * AMCC_NS_PER_MS) == 0x00028000);
  AMT_CHECK (amcc_ntp_mid32 (UINT64_C(0x0001234580000000)) == 0x23458000);
  /* Unix <-> NTP-64: 1970 is 2208988800 s after 1900; half a second is 2^31 */
  AMT_CHECK (amcc_ntp64_from_unix (0) >> 32 == UINT64_C(2208988800));
  AMT_CHECK (amcc_ntp64_from_unix (AMCC_NS_PER_S / 2) == (UINT64_C(2208988800) << 32 | 0x80000000u));
  amcc_time t = INT64_C(1795000000123456789);
  AMT_CHECK (llabs (amcc_unix_from_ntp64 (amcc_ntp64_from_unix (t)) - t) <= 1);
}

/* nearest 32-bit extension of 16-bit sequence numbers (no extension from the sender) */
static void
test_seq_ext (void)
{
  amcc_seq_ext s = { 0 };
  AMT_CHECK (amcc_seq_ext_update (&s, 65534) == 65534);
  AMT_CHECK (amcc_seq_ext_update (&s, 65535) == 65535);
  AMT_CHECK (amcc_seq_ext_update (&s, 0) == 65536);         /* wrap */
  AMT_CHECK (amcc_seq_ext_update (&s, 65535) == 65535);     /* reordered across the wrap */
  AMT_CHECK (amcc_seq_ext_update (&s, 2) == 65538);
  AMT_CHECK (s.last == 65538);                              /* the late one did not move it */
  AMT_CHECK (amcc_seq_ext_update (&s, 40000) == 40000);     /* > 2^15 back: previous cycle */
  AMT_CHECK (s.last == 65538);
}

int
main (void)
{
  AMT_RUN (test_loss_filter);
  AMT_RUN (test_loss_history);
  AMT_RUN (test_loss_events);
  AMT_RUN (test_loss_burst);
  AMT_RUN (test_loss_reorder);
  AMT_RUN (test_loss_rule_random);
  AMT_RUN (test_seq);
  AMT_RUN (test_interarrival);
  AMT_RUN (test_cumjitter);
  AMT_RUN (test_rtt);
  AMT_RUN (test_rtcp_rtt);
  AMT_RUN (test_seq_ext);
  return amt_summary ();
}
