/* test_avmrc.c - AVMRC / RMRC / VMRC (lib/cc/avmrc.c): each equation and rule against values
 * worked out by hand from papers/003 (the arithmetic is in the comments), the slot clock, the
 * stamp codec, and the controller-interface glue. */
#include <string.h>
#include "amcc/avmrc.h"
#include "amcc/controller.h"
#include "amcc/tcpmodel.h"
#include "amtest.h"

#define MS AMCC_NS_PER_MS

/* 4.2: 256, 384, 576, 864, 1296, 1944, 2916, 4374, 6561 kb/s */
static void
test_layer_rates (void)
{
  static const double want[9] = { 256e3, 384e3, 576e3, 864e3, 1296e3, 1944e3, 2916e3, 4374e3,
    6561e3 };
  double b[AMCC_AVMRC_MAX_LAYERS + 1];
  AMT_CHECK (amcc_avmrc_layer_rates (b, 9, 256e3, 1.5) == AMCC_OK);
  for (int i = 0; i < 9; i++)
    AMT_NEAR (b[i], want[i], 1e-6);
  AMT_CHECK (amcc_avmrc_layer_rates (b, 0, 256e3, 1.5) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_avmrc_layer_rates (b, AMCC_AVMRC_MAX_LAYERS + 1, 256e3, 1.5) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_avmrc_layer_rates (b, 9, 256e3, 1.0) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_avmrc_layer_rates (b, 9, -1, 1.5) == AMCC_ERR_PARAM);
}

/* 3.3: slot = (now - start) / tau, flagged every n_add = 20 slots */
static void
test_slot_clock (void)
{
  amcc_avmrc_params p;
  amcc_avmrc_clock c;
  int f = -1;
  amcc_avmrc_params_init (&p);
  amcc_avmrc_clock_init (&c, 1000 * MS, &p);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 1000 * MS, &f) == 0 && f == 1);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 1150 * MS, &f) == 1 && f == 0);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 2999 * MS, &f) == 19 && f == 0);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 3000 * MS, &f) == 20 && f == 1);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 3050 * MS, &f) == 20 && f == 1);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 3100 * MS, &f) == 21 && f == 0);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 5000 * MS, &f) == 40 && f == 1);
  AMT_CHECK (amcc_avmrc_clock_at (&c, 0, &f) == 0);           /* before the start */
}

/* the stamp: 01 80 03 00 | A0 B0 C0 D0 | 01 02 03 04 05 06 07 08 */
static void
test_stamp_wire (void)
{
  static const uint8_t want[16] = { 0x01, 0x80, 0x03, 0x00, 0xA0, 0xB0, 0xC0, 0xD0,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
  amcc_avmrc_stamp s = { .send_time = 0x0102030405060708, .slot = 0xA0B0C0D0, .flagged = 1,
    .layer = 3 }, d;
  uint8_t buf[32];
  AMT_CHECK (amcc_avmrc_stamp_encode (&s, buf, sizeof buf) == AMCC_AVMRC_STAMP_LEN);
  AMT_CHECK (memcmp (buf, want, 16) == 0);
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, buf, 16) == AMCC_OK);
  AMT_CHECK (d.send_time == s.send_time && d.slot == s.slot && d.flagged == 1 && d.layer == 3);
  for (size_t n = 0; n < 16; n++)
    AMT_CHECK (amcc_avmrc_stamp_decode (&d, buf, n) == AMCC_ERR_TRUNCATED);
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, buf, 17) == AMCC_ERR_FIELD);
  AMT_CHECK (amcc_avmrc_stamp_encode (&s, buf, 15) == AMCC_ERR_NOSPACE);
  uint8_t bad[16];
  memcpy (bad, want, 16);
  bad[0] = 2;
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, bad, 16) == AMCC_ERR_VERSION);
  memcpy (bad, want, 16);
  bad[1] = 0x81;                                                 /* a reserved flag */
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, bad, 16) == AMCC_ERR_FIELD);
  memcpy (bad, want, 16);
  bad[3] = 1;                                                    /* the reserved byte */
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, bad, 16) == AMCC_ERR_FIELD);
  memcpy (bad, want, 16);
  bad[2] = AMCC_AVMRC_MAX_LAYERS;
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, bad, 16) == AMCC_ERR_FIELD);
  memcpy (bad, want, 16);
  bad[8] = 0x80;                                                 /* time past INT64_MAX */
  AMT_CHECK (amcc_avmrc_stamp_decode (&d, bad, 16) == AMCC_ERR_FIELD);
  s.layer = AMCC_AVMRC_MAX_LAYERS;
  AMT_CHECK (amcc_avmrc_stamp_encode (&s, buf, sizeof buf) == AMCC_ERR_PARAM);
  s.layer = 0;
  s.send_time = -1;
  AMT_CHECK (amcc_avmrc_stamp_encode (&s, buf, sizeof buf) == AMCC_ERR_PARAM);
}

/* 3.2 EWMA, p_st, RTT := delta + R; eq. 1-3 through amcc_avmrc_model_bps */
static void
test_equations (void)
{
  AMT_NEAR (amcc_avmrc_ewma (0.100, 0.140, 0.25), 0.110, 1e-12);   /* .25 x .14 + .75 x .1 */
  AMT_NEAR (amcc_avmrc_ewma (0.100, 0.110, 0.05), 0.1005, 1e-12);
  AMT_NEAR (amcc_avmrc_p_st (250), 0.004, 1e-15);
  AMT_NEAR (amcc_avmrc_p_st (0), 1.0, 0);
  AMT_NEAR (amcc_avmrc_rtt (0.02, 0.1), 0.12, 1e-12);
  AMT_NEAR (amcc_avmrc_rtt (-0.01, 0.1), 0.1, 1e-12);
  /* eq. 2: beta / delta = 10 / 0.05 = 200 packets/s x 8000 bit = 1.6 Mb/s */
  AMT_NEAR (amcc_avmrc_model_bps (AMCC_AVMRC_VEGAS_ADAPTIVE, 0, 0.05, 10, 0.1, 4, 1000), 1.6e6,
      1e-6);
  /* delta -> 0 is floored at 1 ms: 10 / 0.001 x 8000 = 80 Mb/s, finite */
  AMT_NEAR (amcc_avmrc_model_bps (AMCC_AVMRC_VEGAS_STATIC, 0, 0, 10, 0.1, 4, 1000), 80e6, 1e-3);
  /* eq. 3, p = 0.01, delta = 0.05, alpha = beta = 10, RTT = 0.15, TO = 0.6: W = 0.15 x 20 / 0.1
   * = 30, p_to = 0.0480331, n = 19.81898, N = 120.19927, Lambda = 20.819 x (99 + 30) /
   * (120.199 x 0.15 + 0.6) = 144.15804 packets/s = 1153264.3 bit/s */
  AMT_NEAR (amcc_avmrc_model_bps (AMCC_AVMRC_VEGAS_ADAPTIVE, 0.01, 0.05, 10, 0.1, 4, 1000),
      1153264.3, 1.0);
  /* eq. 1, p = 0.01, RTT = 0.15, TO = 0.6: 1000 / (0.15 sqrt(0.02/3) + 0.6 x 0.1837 x 0.01 x
   * 1.0032) = 74888.156 B/s = 599105.25 bit/s; no loss: no limit */
  AMT_NEAR (amcc_avmrc_model_bps (AMCC_AVMRC_RENO, 0.01, 0.05, 10, 0.1, 4, 1000), 599105.25, 0.5);
  AMT_CHECK (amcc_avmrc_model_bps (AMCC_AVMRC_RENO, 0, 0.05, 10, 0.1, 4, 1000)
      >= AMCC_RATE_UNBOUNDED);
}

/* 3.3 with gamma = 0.5 between 576 and 864 kb/s */
static void
test_rules (void)
{
  /* add to 864: min >= 864 + 0.5 x 288 = 1008 kb/s */
  AMT_CHECK (amcc_avmrc_should_add (1008e3, 2e6, 576e3, 864e3, 0.5));
  AMT_CHECK (!amcc_avmrc_should_add (1007e3, 2e6, 576e3, 864e3, 0.5));
  AMT_CHECK (!amcc_avmrc_should_add (2e6, 1007e3, 576e3, 864e3, 0.5));
  /* drop from 864: (min after a recent add, else max) < 864 - 0.5 x 288 = 720 kb/s */
  AMT_CHECK (amcc_avmrc_should_drop (700e3, 800e3, 576e3, 864e3, 0.5, 1));
  AMT_CHECK (!amcc_avmrc_should_drop (700e3, 800e3, 576e3, 864e3, 0.5, 0));
  AMT_CHECK (amcc_avmrc_should_drop (700e3, 719e3, 576e3, 864e3, 0.5, 0));
  AMT_CHECK (!amcc_avmrc_should_drop (720e3, 900e3, 576e3, 864e3, 0.5, 1));
  /* 3.4: 0.95 x 864 = 820.8 kb/s */
  AMT_CHECK (amcc_avmrc_slowstart_ok (820.8e3, 864e3, 0.95));
  AMT_CHECK (!amcc_avmrc_slowstart_ok (820.7e3, 864e3, 0.95));
}

/* ---- the receiver driven slot by slot ---- */

typedef struct {
  amcc_avmrc_rx rx;
  uint16_t seq[AMCC_AVMRC_MAX_LAYERS];
  int skip_seq0;                 /* drop the next packet of layer 0 with this index (1-based) */
} drv;

/* Slot k: the layers wanted (joins act at once) send (B_j - B_(j-1)) tau / 8 bytes in 1000-byte
 * packets, all sent at k tau and received 1 ms apart from k tau + 20 ms; the TSD is the same
 * for every packet (delta = 0) unless extra_ms delays the slot's packets. max_layers caps what
 * arrives (a path that cannot carry more). */
static void
feed_slot (drv *d, uint32_t k, uint32_t max_layers, double extra_ms)
{
  amcc_time sent = (amcc_time) k * 100 * MS, t = sent + 20 * MS + (amcc_time) (extra_ms * 1e6);
  for (uint32_t j = 0; j < d->rx.layers; j++) {
    if (j >= amcc_avmrc_rx_level (&d->rx) || j >= max_layers)
      break;
    double bytes = (d->rx.rate[j + 1] - d->rx.rate[j]) * 0.1 / 8.0;
    for (; bytes > 0.5; bytes -= 1000) {
      amcc_avmrc_stamp st = { .send_time = sent, .slot = k, .flagged = k % 20 == 0, .layer = j };
      uint16_t seq = d->seq[j]++;
      if (j == 0 && d->skip_seq0 && --d->skip_seq0 == 0)
        continue;                                /* lost */
      (void) amcc_avmrc_rx_on_packet (&d->rx, t, j, seq, bytes > 1000 ? 1000 : (uint32_t) bytes,
          &st);
      t += MS;
    }
  }
}

static void
drv_init (drv *d, const amcc_avmrc_params *p)
{
  memset (d, 0, sizeof *d);
  AMT_CHECK (amcc_avmrc_rx_init (&d->rx, p, NULL, 0) == AMCC_OK);
}

/* 3.2: short-term TSD per packet (0.25 new), long-term per slot (0.05), delta against the min */
static void
test_tsd (void)
{
  amcc_avmrc_params p;
  amcc_avmrc_rx r;
  amcc_avmrc_stamp s = { .send_time = 0, .slot = 0 };
  amcc_avmrc_params_init (&p);
  AMT_CHECK (amcc_avmrc_rx_init (&r, &p, NULL, 0) == AMCC_OK);
  amcc_avmrc_rx_on_packet (&r, 50 * MS, 0, 1, 1000, &s);       /* TSD 0.050 */
  AMT_NEAR (r.tsd_st, 0.050, 1e-12);
  s.send_time = 10 * MS;
  amcc_avmrc_rx_on_packet (&r, 100 * MS, 0, 2, 1000, &s);      /* 0.090: .25 x .09 + .75 x .05 */
  AMT_NEAR (r.tsd_st, 0.060, 1e-12);
  s.send_time = 20 * MS;
  amcc_avmrc_rx_on_packet (&r, 50 * MS, 0, 3, 1000, &s);       /* 0.030: .0075 + .045 */
  AMT_NEAR (r.tsd_st, 0.0525, 1e-12);
  AMT_NEAR (r.tsd_min, 0.030, 1e-12);
  AMT_NEAR (r.tsd_lt, 0.050, 1e-12);                          /* the first sample */
  s.slot = 1;                                                  /* closes slot 0 */
  s.send_time = 100 * MS;
  AMT_CHECK (amcc_avmrc_rx_on_packet (&r, 230 * MS, 0, 4, 1000, &s) == 1);
  AMT_NEAR (r.tsd_lt, 0.05 * 0.0525 + 0.95 * 0.050, 1e-12);     /* 0.050125 */
  AMT_NEAR (r.delta_st, 0.0225, 1e-12);
  AMT_NEAR (r.delta_lt, 0.020125, 1e-12);
  AMT_NEAR (r.tsd_st, 0.25 * 0.130 + 0.75 * 0.0525, 1e-12);   /* then the new packet */
}

/* 3.2: losses within tau of an event's first loss are one event; intervals from the last loss
 * of one event to the first of the next, counted in packets received until the loss is seen */
static void
test_loss_events (void)
{
  amcc_avmrc_params p;
  amcc_avmrc_rx r;
  amcc_avmrc_params_init (&p);
  AMT_CHECK (amcc_avmrc_rx_init (&r, &p, NULL, 0) == AMCC_OK);
  for (uint16_t q = 0; q < 240; q++) {                /* one packet per ms, no stamp */
    if (q == 10 || q == 12 || q == 200)
      continue;
    amcc_avmrc_rx_on_packet (&r, q * MS, 0, q, 1000, NULL);
    if (q == 14) {
      /* 10 is lost once 11, 13, 14 arrived: 13 packets (0-9, 11, 13, 14) since joining */
      AMT_CHECK (r.events == 1 && r.lost == 1 && r.hist.interval[1] == 13);
      AMT_NEAR (r.since_loss, 1, 0);
    }
    if (q == 15)                                      /* 12, 1 ms later: the same event */
      AMT_CHECK (r.events == 1 && r.lost == 2);
    if (q == 203) {
      /* 200 is seen at 203 (188 ms after 15 > tau): a new event after 16-199, 201-203 */
      AMT_CHECK (r.events == 2 && r.lost == 3);
      AMT_NEAR (r.hist.interval[1], 188, 0);
      AMT_NEAR (r.hist.interval[2], 13, 0);
      /* ALI: max(mean(188, 13), mean(1, 188)) = 100.5 */
      AMT_NEAR (amcc_loss_history_p (&r.hist, NULL), 1 / 100.5, 1e-12);
    }
  }
  AMT_NEAR (r.since_loss, 37, 0);                     /* 203 (the one seen with it)..239 */
  AMT_CHECK (r.unstamped == 237 && r.have_slot == 0);
}

/* 3.4 slow start, with ss_expect_lag = 0 (the paper's B_curr) and joins acting at once: one
 * layer per slot to the top (9 layers at slot 8), then the start-up phase */
static void
test_slow_start_to_top (void)
{
  amcc_avmrc_params p;
  drv d;
  amcc_avmrc_params_init (&p);
  p.ss_expect_lag = 0;
  drv_init (&d, &p);
  for (uint32_t k = 0; k <= 9; k++) {
    feed_slot (&d, k, 99, 0);
    AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == (k + 1 < 9 ? k + 1 : 9));
    AMT_CHECK (d.rx.phase == (k < 9 ? AMCC_AVMRC_SLOW_START : AMCC_AVMRC_STARTUP));
  }
  AMT_CHECK (d.rx.adds == 8 && d.rx.drops == 0 && d.rx.lost == 0);
  /* 3.1, no loss: beta from beta_min = 256e3 x 0.1 / 8000 = 3.2 moves 5 % a slot toward
   * beta_max = 6561e3 x 0.1 / 8000 = 82.0125: after the first slot 3.04 + 4.100625 */
  amcc_avmrc_params_init (&p);
  drv_init (&d, &p);
  AMT_NEAR (d.rx.beta, 3.2, 1e-12);
  amcc_avmrc_stamp st = { .send_time = 0, .slot = 0 };
  for (uint16_t q = 0; q < 4; q++)                  /* 1000-byte packets: the mean stays 1000 */
    amcc_avmrc_rx_on_packet (&d.rx, (20 + q) * MS, 0, q, 1000, &st);
  st.slot = 1;
  st.send_time = 100 * MS;
  AMT_CHECK (amcc_avmrc_rx_on_packet (&d.rx, 120 * MS, 0, 4, 1000, &st) == 1);
  AMT_NEAR (d.rx.beta, 7.140625, 1e-9);
}

/* 3.4: the slot after an addition brings only 3 of 4 layers: 576 < 0.95 x 864 kb/s ends slow
 * start with a drop to 3; the start-up phase then adds in any slot */
static void
test_slow_start_rate_test (void)
{
  amcc_avmrc_params p;
  drv d;
  amcc_avmrc_params_init (&p);
  p.ss_expect_lag = 0;
  drv_init (&d, &p);
  feed_slot (&d, 0, 99, 0);
  feed_slot (&d, 1, 99, 0);
  feed_slot (&d, 2, 99, 0);
  feed_slot (&d, 3, 3, 0);                 /* level 4 since slot 3's first packet; 3 arrive */
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4);
  feed_slot (&d, 4, 99, 0);
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 3 && d.rx.phase == AMCC_AVMRC_STARTUP);
  AMT_NEAR (d.rx.b_recp, 576e3, 1);        /* 7200 bytes between first packets 0.1 s apart */
  /* start-up: no loss, delta = 0 (floored): Lambda = beta / 1 ms is far above any threshold,
   * so the next slots add again without waiting for an add slot */
  feed_slot (&d, 5, 99, 0);
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4);
}

/* the same with the paper's literal B_curr when joins take a slot to reach the router (the
 * first slot after a join lacks the new layer): slow start stops at once - what
 * ss_expect_lag = 1 (the default) is for */
static void
test_slow_start_lag (void)
{
  amcc_avmrc_params p;
  drv d;
  for (int lag = 0; lag <= 1; lag++) {
    amcc_avmrc_params_init (&p);
    p.ss_expect_lag = (uint32_t) lag;
    p.n_startup = 0;                       /* no start-up phase: only slow start adds */
    drv_init (&d, &p);
    uint32_t had = 1;
    for (uint32_t k = 0; k < 6; k++) {
      feed_slot (&d, k, had, 0);           /* the layers held before this slot's decision */
      had = amcc_avmrc_rx_level (&d.rx);
    }
    if (lag == 0)           /* slot 1 brought B_1 where B_2 was expected: back to 1, done */
      AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 1 && d.rx.phase == AMCC_AVMRC_STEADY);
    else
      AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 6 && d.rx.phase == AMCC_AVMRC_SLOW_START);
  }
}

/* 3.4: a loss ends slow start with a drop; 3.3 weak synchronisation: after the start-up phase
 * (n_startup = 0 here) additions only in flagged slots (every 20th) */
static void
test_loss_then_add_slots (void)
{
  amcc_avmrc_params p;
  drv d;
  amcc_avmrc_params_init (&p);
  p.n_startup = 0;
  drv_init (&d, &p);
  feed_slot (&d, 0, 99, 0);
  feed_slot (&d, 1, 99, 0);
  d.skip_seq0 = 2;                          /* slot 2 loses its second base-layer packet */
  feed_slot (&d, 2, 99, 0);                 /* 2 of 3 later packets in slot 2: not seen yet */
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 3 && d.rx.lost == 0);
  feed_slot (&d, 3, 99, 0);                 /* seen after slot 3's decision (add) */
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4 && d.rx.lost == 1 && d.rx.events == 1);
  feed_slot (&d, 4, 99, 0);                 /* slow start ends on the loss: drop to 3 */
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 3 && d.rx.phase == AMCC_AVMRC_STEADY);
  for (uint32_t k = 5; k < 20; k++) {
    feed_slot (&d, k, 99, 0);
    AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 3);
  }
  feed_slot (&d, 20, 99, 0);                /* the add slot */
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4);
  feed_slot (&d, 21, 99, 0);
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4);
  /* a loss right after the addition: p_st = 1 / s_0 with s_0 tiny and the delay of slot 22 up
   * 200 ms; the recent addition makes the drop rule take min(L_st, L_lt): back to 3 */
  d.skip_seq0 = 1;
  feed_slot (&d, 22, 99, 200);
  feed_slot (&d, 23, 99, 200);
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 3 && d.rx.drops == 2);
}

/* steady at 3 layers (slow start ended by a loss, as in test_loss_then_add_slots), n_startup 0 */
static void
steady_at_3 (drv *d, double frac, uint32_t check)
{
  amcc_avmrc_params p;
  amcc_avmrc_params_init (&p);
  p.n_startup = 0;
  p.add_recp_frac = frac;
  p.add_recp_check = check;
  drv_init (d, &p);
  feed_slot (d, 0, 99, 0);
  feed_slot (d, 1, 99, 0);
  d->skip_seq0 = 2;
  for (uint32_t k = 2; k < 20; k++)
    feed_slot (d, k, 99, 0);
  AMT_CHECK (amcc_avmrc_rx_level (&d->rx) == 3 && d->rx.phase == AMCC_AVMRC_STEADY);
}

/* add_recp_check / add_recp_frac: the slots that carry an added layer must show the layers held
 * before it arriving at 0.8 of their rate, B_3 = 576 kb/s. Slot 20 (the add slot; feed_slot's
 * joins act at once) carries 4 layers; slot 21's first packet comes 30 ms late: layers 1-3
 * brought 7200 bytes in 0.13 s = 443 kb/s < 0.8 x 576 = 460.8: dropped at slot 21's decision
 * (with 0, the paper, kept). 20 ms late: 480 kb/s, kept at 0.8, dropped at 0.95 (547.2). */
static void
test_addition_check (void)
{
  drv d;
  for (uint32_t check = 0; check <= 2; check += 2) {
    steady_at_3 (&d, 0.8, check);
    feed_slot (&d, 20, 99, 0);
    AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4);
    feed_slot (&d, 21, 99, 30);
    AMT_NEAR (d.rx.b_held, 443.08e3, 10);
    AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == (check ? 3u : 4u));
    AMT_CHECK (d.rx.drops == (check ? 2u : 1u));  /* slow start's drop, then this one */
  }
  for (int f = 0; f < 2; f++) {
    steady_at_3 (&d, f ? 0.95 : 0.8, 2);
    feed_slot (&d, 20, 99, 0);
    feed_slot (&d, 21, 99, 20);
    AMT_NEAR (d.rx.b_held, 480e3, 1);
    AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == (f ? 3u : 4u));
  }
  /* counted from the added layer's first packet (a join that takes slots to reach the router):
   * slots 20 and 21 carry 3 layers, slot 21 late (not judged: the layer is not there yet),
   * slot 22 carries 4 on time, slot 23 30 ms late: slot 22 judged, dropped at slot 23 */
  steady_at_3 (&d, 0.8, 2);
  feed_slot (&d, 20, 3, 0);
  feed_slot (&d, 21, 3, 30);
  feed_slot (&d, 22, 99, 0);
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 4 && d.rx.add_seen && d.rx.add_seen_slot == 22);
  feed_slot (&d, 23, 99, 30);
  AMT_CHECK (amcc_avmrc_rx_level (&d.rx) == 3);
}

/* VMRC keeps alpha = beta static; RMRC seeds its history when slow start ends before a loss
 * (4.1): one interval of 1/p packets with eq. 1 (p) = the rate kept */
static void
test_variants (void)
{
  amcc_avmrc_params p;
  drv d;
  amcc_vmrc_params_init (&p, 30);
  drv_init (&d, &p);
  for (uint32_t k = 0; k < 5; k++)
    feed_slot (&d, k, 99, 0);
  AMT_NEAR (d.rx.beta, 30, 0);
  amcc_rmrc_params_init (&p);
  p.ss_expect_lag = 0;
  drv_init (&d, &p);
  for (uint32_t k = 0; k <= 8; k++)
    feed_slot (&d, k, 99, 0);
  AMT_CHECK (!d.rx.seeded && !d.rx.have_loss);
  amcc_avmrc_stamp st = { .send_time = 900 * MS, .slot = 9 };
  amcc_avmrc_rx_on_packet (&d.rx, 920 * MS, 0, d.seq[0], 1000, &st);    /* slot 9: at the top */
  AMT_CHECK (d.rx.seeded && amcc_loss_history_count (&d.rx.hist) == 1);
  /* the mean size before this 1000-byte packet; the RTT the step used */
  double pkt = (16 * d.rx.pkt_bytes - 1000) / 15, rtt = fmax (d.rx.delta_lt, 0.001) + 0.1;
  AMT_NEAR (8 * amcc_pftk_rate (pkt, rtt, 1 / d.rx.hist.interval[1]), 6561e3, 6561e3 * 1e-6);
  AMT_CHECK (d.rx.lost == 0 && d.rx.have_loss);
}

/* the controller interface: registry, config checks, no APP, every layer's SSRC measured */
static void
test_controller (void)
{
  amcc_ctl_config c;
  const amcc_protocol *a = amcc_protocol_find ("avmrc");
  AMT_CHECK (a && amcc_protocol_find ("rmrc") && amcc_protocol_find ("vmrc")
      && amcc_protocol_find ("vmrc30"));
  AMT_CHECK (a->sender == NULL && a->max_layers == AMCC_MAX_LAYERS);
  amcc_ctl_config_init (&c);
  c.layers = 3;
  c.layer_bps[0] = 100e3;
  c.layer_bps[1] = 90e3;                    /* not cumulative */
  AMT_CHECK (amcc_receiver_new (a, &c, 0) == NULL);
  c.layer_bps[1] = 200e3;
  c.layer_bps[2] = 400e3;
  AMT_CHECK (amcc_receiver_new (amcc_protocol_find ("asmp"), &c, 0) == NULL);  /* not layered */
  amcc_receiver *r = amcc_receiver_new (a, &c, 0);
  AMT_CHECK (r != NULL && amcc_receiver_wanted_layers (r) == 1);
  uint8_t buf[64];
  amcc_app app;
  AMT_CHECK (amcc_receiver_next_app (r, 0, buf, sizeof buf, &app) == 0);
  AMT_CHECK (amcc_receiver_on_app (r, 0, 9, "ASMP", 1, buf, 8) == AMCC_APP_FOREIGN);
  /* layers of 100, 100 and 200 kb/s on their own SSRCs, one packet a slot each: slow start
   * climbs to the top, 3 */
  uint16_t seq[3] = { 0, 0, 0 };
  for (uint32_t k = 0; k < 4; k++)
    for (uint32_t j = 0; j < amcc_receiver_wanted_layers (r); j++) {
      double bytes = (c.layer_bps[j] - (j ? c.layer_bps[j - 1] : 0)) * 0.1 / 8;
      amcc_packet pk = { .ssrc = 0x100 + j, .seq = seq[j]++, .bytes = (uint32_t) bytes,
        .send_time = (amcc_time) k * 100 * MS, .has_slot = 1, .slot = k, .layer = j };
      amcc_receiver_on_rtp (r, (amcc_time) k * 100 * MS + 10 * MS + j * MS, &pk);
    }
  amcc_receiver_stats st;
  amcc_receiver_get_stats (r, 400 * MS, &st);
  AMT_CHECK (amcc_receiver_wanted_layers (r) == 3 && st.layers == 3 && st.stream_ups == 2);
  AMT_CHECK (strcmp (st.mode, "start-up") == 0);     /* slow start ended at the top layer */
  amcc_receiver_free (r);
  r = amcc_receiver_new (amcc_protocol_find ("asmp"), (amcc_ctl_config_init (&c), &c), 0);
  AMT_CHECK (r && amcc_receiver_wanted_layers (r) == 1);
  amcc_receiver_free (r);
}

int
main (void)
{
  AMT_RUN (test_layer_rates);
  AMT_RUN (test_slot_clock);
  AMT_RUN (test_stamp_wire);
  AMT_RUN (test_equations);
  AMT_RUN (test_rules);
  AMT_RUN (test_tsd);
  AMT_RUN (test_loss_events);
  AMT_RUN (test_slow_start_to_top);
  AMT_RUN (test_slow_start_rate_test);
  AMT_RUN (test_slow_start_lag);
  AMT_RUN (test_loss_then_add_slots);
  AMT_RUN (test_addition_check);
  AMT_RUN (test_variants);
  AMT_RUN (test_controller);
  return amt_summary ();
}
