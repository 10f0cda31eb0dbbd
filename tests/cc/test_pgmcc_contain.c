/* test_pgmcc_contain.c - containment of PGMCC's receivers (issue 14 item 2; docs/pgmcc.md
 * section 5): each rule alone with hand-computed values, then the attacks on the simulated
 * network of ctl_sim.h.
 *   elect_confirm      an acker switch needs a second winning report of the same receiver at
 *                      least half an RTCP interval later (0: one report switches, the paper);
 *   acker_loss_*       an acker whose ACK bitmaps claim far more loss than its own reports and
 *                      every other receiver's state is demoted within the bound, the rate its
 *                      halvings took is given back, and it is not elected again for the hold
 *                      time (factor 0: never, the paper);
 *   acker_vouch_rtt    another receiver's p counts in that line only at the acker's RTT: a
 *                      member stating a high p with no echo or a short one vouches for nothing;
 *   report_limit and proofs apply to PGMCC's reports and ACKs as to the other protocols'.
 * Closed loop: a real slow acker (5, 15, 25 % random loss) and a fast one (up to 2 500
 * packets/s) stay the acker and are never demoted, the rate the same as with the check off; an
 * attacker forging election reports and false losses is demoted, the honest receivers' mean
 * target within 10 % of the run without it, also with an accomplice stating 30 % without echo
 * (acker_vouch_rtt 0: not demoted); one forging its p as well is not (documented). */
#include <amcc/pgmcc.h>
#include "ctl_sim.h"

#define GAP (10 * MS)                  /* the unit tests send a 1000-byte packet every 10 ms */
#define A 0xAu
#define B 0xBu
#define C 0xCu
#define D 0xDu

static int make_vouch = 1;          /* acker_vouch_rtt of the next make () */

/* A PGMCC sender (RTCP 1 s, so the receiver timeout is 3 s) with the given rules, the others
 * (plausibility, damping: no rate in PGMCC's reports) at their defaults. */
static amcc_sender *
make (double confirm, double factor, uint32_t limit, uint32_t proofs)
{
  amcc_ctl_config c;

  amcc_ctl_config_init (&c);
  c.ssrc = SENDER_SSRC;
  c.rtcp_interval = SEC;
  c.elect_confirm = confirm;
  c.acker_loss_factor = factor;
  c.report_limit = limit;
  c.proofs = proofs;
  c.acker_vouch_rtt = make_vouch;
  return amcc_sender_new (amcc_protocol_find ("pgmcc"), &c, 0);
}

/* Packets #1, #2, ... at 10 ms, 20 ms, ...: packet #n leaves at n x 10 ms; all up to `until`. */
static void
send_until (amcc_sender *s, uint64_t *n, amcc_time until)
{
  while ((amcc_time) (*n + 1) * GAP <= until)
    amcc_sender_on_rtp_sent (s, (amcc_time) ++*n * GAP, 1000);
}

static amcc_sender_stats
stats (amcc_sender *s, amcc_time now)
{
  amcc_sender_stats st;
  amcc_sender_get_stats (s, now, &st);
  return st;
}

static uint32_t
acker (amcc_sender *s, amcc_time now)
{
  amcc_sender_stats st = stats (s, now);
  return st.have_slowest ? st.slowest_ssrc : 0;
}

/* A report from ssrc: loss p, echoing the packet sent `rtt` ago with no hold, so its RTT in
 * packets is rtt / 10 ms; rtt 0: no echo (no RTT: it can switch nobody). */
static amcc_app_result
report (amcc_sender *s, amcc_time now, uint32_t ssrc, double p, amcc_time rtt)
{
  struct amcc_pgmcc_feedback fb = { .loss = p, .rx_max = (uint32_t) (now / GAP) };
  uint8_t buf[64];
  int n;

  if (rtt > 0) {
    fb.has_echo = true;
    fb.echo_ts_us = (uint32_t) ((now - rtt) / AMCC_NS_PER_US);
  }
  AMT_CHECK ((n = amcc_pgmcc_report_encode (&fb, buf, sizeof buf)) > 0);
  return amcc_sender_on_app (s, now, ssrc, AMCC_PGMCC_APP_NAME, AMCC_PGMCC_SUB_REPORT, buf,
      (size_t) n);
}

/* Election, elect_confirm 0.5 at a 1 s interval: a switch needs a second winning report 0.5 s
 * or more after the first. Every RTT is 5 packets (50 ms at one packet per 10 ms), so
 * T = 1 / (5 sqrt p):
 *   A p 1 %: T 2 (elected at once: nobody acked);
 *   B p 4 %: T 1 < 2/3 x 2: wins; held at 1.1 and 1.5 s (0.4 s), elected at 1.6 s;
 *   C p 10 %: T 0.632 < 2/3 x 1 = 0.667: wins at 1.7 s, but its 5 % report at 1.9 s (T 0.894)
 *     does not: the claim is withdrawn; 10 % again at 2.3 s starts anew (0.6 s after its first
 *     report it is not elected), 2.7 s held, 2.8 s elected;
 *   D p 50 %: T 0.283 < 2/3 x 0.632 = 0.422: wins at 3.0 s, and again at 6.5 s, past the 3 s
 *     receiver timeout: a new claim, elected at 7.0 s.
 * With elect_confirm 0 (the paper) B's first report switches. */
static void
test_elect_confirm (void)
{
  static const struct { double t, p; uint32_t who, acker; uint64_t held; } ev[] = {
    { 1.0, 0.01, A, A, 0 }, { 1.1, 0.04, B, A, 1 }, { 1.5, 0.04, B, A, 2 },
    { 1.6, 0.04, B, B, 2 }, { 1.7, 0.10, C, B, 3 }, { 1.9, 0.05, C, B, 3 },
    { 2.3, 0.10, C, B, 4 }, { 2.7, 0.10, C, B, 5 }, { 2.8, 0.10, C, C, 5 },
    { 3.0, 0.50, D, C, 6 }, { 6.5, 0.50, D, C, 7 }, { 7.0, 0.50, D, D, 7 },
  };
  amcc_sender *s = make (0.5, 0, 0, 0);
  uint64_t n = 0;

  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
    amcc_time t = amcc_time_from_s (ev[i].t);
    send_until (s, &n, t);
    CHECK (report (s, t, ev[i].who, ev[i].p, 50 * MS) == AMCC_APP_TAKEN);
    if (acker (s, t) != ev[i].acker || stats (s, t).held != ev[i].held)
      fprintf (stderr, "  event %zu at %.1f s: acker %x held %llu\n", i, ev[i].t,
          acker (s, t), (unsigned long long) stats (s, t).held);
    CHECK (acker (s, t) == ev[i].acker && stats (s, t).held == ev[i].held);
  }
  amcc_sender_free (s);

  s = make (0, 0, 0, 0);                        /* off: the paper */
  n = 0;
  send_until (s, &n, SEC);
  CHECK (report (s, SEC, A, 0.01, 50 * MS) == AMCC_APP_TAKEN && acker (s, SEC) == A);
  send_until (s, &n, 1100 * MS);
  CHECK (report (s, 1100 * MS, B, 0.04, 50 * MS) == AMCC_APP_TAKEN);
  CHECK (acker (s, 1100 * MS) == B && stats (s, 1100 * MS).held == 0);
  amcc_sender_free (s);

  /* out-of-range parameters are refused */
  amcc_ctl_config c;
  amcc_ctl_config_init (&c);
  CHECK (c.elect_confirm == 0.5 && c.acker_loss_factor == 2 && c.acker_loss_time == 2 * SEC
      && c.acker_hold == 60 * SEC);
  c.elect_confirm = -0.5;
  CHECK (amcc_sender_new (amcc_protocol_find ("pgmcc"), &c, 0) == NULL);
  c.elect_confirm = 0.5;
  c.acker_loss_factor = NAN;
  CHECK (amcc_sender_new (amcc_protocol_find ("pgmcc"), &c, 0) == NULL);
  c.acker_loss_factor = 2;
  c.acker_loss_time = -1;
  CHECK (amcc_sender_new (amcc_protocol_find ("pgmcc"), &c, 0) == NULL);
}

/* The sender's copy of the receivers' loss filter (a = 1/64) over what the bitmaps judged:
 * the acker's p at its election, then per judged sequence number p += (x - p) / 64; sequence
 * numbers no ACK covered are skipped. */
static void
test_claim_filter (void)
{
  static struct amcc_pgmcc_sender s;
  struct amcc_pgmcc_params p;
  struct amcc_pgmcc_ack a;
  const double k = 63.0 / 64;

  amcc_pgmcc_params_init (&p);
  amcc_pgmcc_sender_init (&s, &p, 0);
  memset (&a, 0, sizeof a);
  a.fb.loss = 0.2;
  a.fb.rx_max = 100;
  a.bitmap = 0xffffffffu;
  amcc_pgmcc_sender_on_feedback (&s, 0, 7, &a.fb, &a);  /* elected with p 0.2: the reference */
  AMT_NEAR (s.claim_p, 0.2, 0);
  a.fb.rx_max = 108;                            /* 105 missing: judged 101..105 */
  a.bitmap = ~(UINT32_C (1) << (108 - 1 - 105));
  amcc_pgmcc_sender_on_feedback (&s, MS, 7, &a.fb, &a);
  double c = 0.2 * k * k * k * k * k + 1.0 / 64;          /* 0.197..., 4 received, 1 lost */
  AMT_NEAR (s.claim_p, c, 1e-12);
  a.fb.rx_max = 150;                            /* covers 118..150: 109..117 unknown */
  a.bitmap = 0xffffffffu;
  amcc_pgmcc_sender_on_feedback (&s, 2 * MS, 7, &a.fb, &a);
  AMT_NEAR (s.claim_p, c * pow (k, 3 + 30), 1e-12);      /* 106..108 and 118..147 received */
  /* a new acker starts from the p it was elected with */
  a.fb.loss = 0.9;
  AMT_CHECK (amcc_pgmcc_sender_on_feedback (&s, 3 * MS, 8, &a.fb, NULL) == 0);   /* no RTT */
  amcc_pgmcc_sender_on_bye (&s, 7);
  amcc_pgmcc_sender_on_feedback (&s, 4 * MS, 8, &a.fb, NULL);
  AMT_CHECK (s.acker == 8);
  AMT_NEAR (s.claim_p, 0.9, 0);
}

/* Demotion undoes the demoted acker's window reactions at or after undo_from by adding back the
 * rate each took (the growth between them and another acker's reactions stay): at 200 kbit/s
 * after its halvings at 1 s (took 400 k) and 2 s (took 150 k), with another acker's (300 k) at
 * 1.5 s: from 0 s 200 + 400 + 150 = 750 kbit/s, from 1.5 s 350, from 2.5 s 200 (nothing).
 * Nobody acks afterwards (announced); counted; undone once. */
static void
test_demote_undo (void)
{
  static struct amcc_pgmcc_sender s;
  struct amcc_pgmcc_params p;
  static const amcc_time from[] = { 0, 1500 * MS, 2500 * MS };
  static const double want[] = { 750e3, 350e3, 200e3 };

  for (int c = 0; c < 3; c++) {
    amcc_pgmcc_params_init (&p);
    amcc_pgmcc_sender_init (&s, &p, 0);
    s.has_acker = true;
    s.acker = 7;
    s.srtt_s = 0.1;
    s.mean_size = 1000;
    s.w = 2.5;                                  /* 2.5 x 8000 / 0.1 = 200 kbit/s */
    s.x_bps = 200e3;
    s.undo[0].t = 1 * SEC, s.undo[0].acker = 7, s.undo[0].taken = 400e3;
    s.undo[1].t = 1500 * MS, s.undo[1].acker = 9, s.undo[1].taken = 300e3;
    s.undo[2].t = 2 * SEC, s.undo[2].acker = 7, s.undo[2].taken = 150e3;
    s.undo_n = s.undo_next = 3;
    s.announce = false;
    amcc_pgmcc_sender_demote (&s, 3 * SEC, from[c]);
    AMT_NEAR (amcc_pgmcc_sender_window_rate (&s), want[c], 1e-6);
    AMT_NEAR (s.w, want[c] * 0.1 / 8000, 1e-9);
    if (c < 2)
      AMT_NEAR (s.ssthresh, s.w, 0);            /* congestion avoidance from there */
    AMT_CHECK (!s.has_acker && s.announce && s.demotions == 1);
    AMT_CHECK (s.undo[1].taken == 300e3 && s.undo[2].taken == (c < 2 ? 0 : 150e3));
  }
}

/* ---------------------------------------------------------------- the acker's losses */

/* The lies: packets #n with (n - 96) mod 10 in {1, 4, 6} "lost": 30 % of every ACK's 10. */
static int
lie_lost (uint32_t n)
{
  uint32_t r = (n - 96) % 10;
  return n > 96 && (r == 1 || r == 4 || r == 6);
}

/* An ACK from `who` at t (ms): RX_MAX = the packet sent 40 ms ago (#t/10 - 4), echoed with no
 * hold (RTT 40 ms), its bitmap with the lies (lie = 1) or none, its own p `own`. */
static amcc_app_result
send_ack (amcc_sender *s, uint64_t *n, uint32_t who, int64_t t_ms, int lie, double own)
{
  amcc_time t = t_ms * MS;
  struct amcc_pgmcc_ack a;
  uint8_t buf[64];
  int len;

  send_until (s, n, t);
  memset (&a, 0, sizeof a);
  a.fb.loss = own;
  a.fb.rx_max = (uint32_t) (t_ms / 10 - 4);
  a.fb.has_echo = true;
  a.fb.echo_ts_us = (uint32_t) ((t_ms - 40) * 1000);
  for (uint32_t i = 0; i < 32; i++)
    if (!(lie && lie_lost (a.fb.rx_max - 1 - i)))
      a.bitmap |= UINT32_C (1) << i;
  for (uint32_t x = 1; x <= a.fb.rx_max; x++)
    a.received += !(lie && lie_lost (x));
  AMT_CHECK ((len = amcc_pgmcc_ack_encode (&a, buf, sizeof buf)) > 0);
  return amcc_sender_on_app (s, t, who, AMCC_PGMCC_APP_NAME, AMCC_PGMCC_SUB_ACK, buf,
      (size_t) len);
}

/* A elected at 1.0 s (its first ACK, p 0), then an ACK every 100 ms whose bitmap claims 30 %
 * of the packets lost while its p says 0: its claimed loss (1/64 after the first hole) is over
 * 2 x 0 + 0.01 from the first lying ACK at 1.1 s on, which adds the 0.1 s since the previous
 * ACK to the suspicion: 2 s in all at the 20th, 3.0 s; at 2.9 s A still acks. Then: the
 * window's rate is the one before its first halving (1.1 s), A may not be elected (held) while
 * B may; A's hold ends at 3.0 + 60 s (its entry kept across the idle minute). */
static void
test_acker_demoted (void)
{
  amcc_sender *s = make (0, 2, 0, 0);
  uint64_t n = 0;

  CHECK (send_ack (s, &n, A, 1000, 0, 0) == AMCC_APP_TAKEN);
  CHECK (acker (s, SEC) == A);
  double r0 = amcc_sender_rate (s, SEC);
  int64_t t = 1000;
  for (int k = 1; k <= 19; k++)
    CHECK (send_ack (s, &n, A, t += 100, 1, 0) == AMCC_APP_TAKEN);
  double low = amcc_sender_rate (s, t * MS);
  CHECK (acker (s, t * MS) == A && stats (s, t * MS).demoted == 0);
  CHECK (send_ack (s, &n, A, t += 100, 1, 0) == AMCC_APP_TAKEN);
  CHECK (t == 3000 && acker (s, 3 * SEC) == 0 && stats (s, 3 * SEC).demoted == 1);
  double back = amcc_sender_rate (s, 3 * SEC);
  printf ("  liar: %.0f bit/s before, %.0f after 1.9 s of its losses, %.0f once demoted\n", r0,
      low, back);
  CHECK (low < 0.5 * r0 && fabs (back - r0) <= 1e-6 * r0);
  CHECK (report (s, 3050 * MS, A, 0, 0) == AMCC_APP_TAKEN && acker (s, 3050 * MS) == 0);
  CHECK (stats (s, 3050 * MS).held == 1);
  CHECK (report (s, 3100 * MS, B, 0.01, 0) == AMCC_APP_TAKEN && acker (s, 3100 * MS) == B);
  amcc_sender_on_bye (s, 3200 * MS, B);
  CHECK (stats (s, 40 * SEC).demoted == 1);     /* A silent 37 s: kept while demoted */
  CHECK (report (s, 62990 * MS, A, 0, 0) == AMCC_APP_TAKEN && acker (s, 62990 * MS) == 0);
  CHECK (report (s, 63 * SEC, A, 0, 0) == AMCC_APP_TAKEN && acker (s, 63 * SEC) == A);
  amcc_sender_free (s);
}

/* report () at t_ms with the packets up to then sent (its echo's RTT in packets needs them) */
static amcc_app_result
report_at (amcc_sender *s, uint64_t *n, int64_t t_ms, uint32_t ssrc, double p, amcc_time rtt)
{
  send_until (s, n, t_ms * MS);
  return report (s, t_ms * MS, ssrc, p, rtt);
}

/* What does not demote, over 40 lying ACKs (4 s, claim 30 %): the rule off (factor 0: the paper,
 * the rate collapses); an acker whose p states the loss its bitmaps claim (0.3: claim <= 2 x 0.3
 * + 0.01); an acker whose p says 10 % while another receiver C reports 20 % at the acker's RTT
 * (40 ms: vouched 0.2, claim <= 0.41; T_C = 1 / (4 sqrt 0.2) = 0.56 is not below 2/3 x
 * 1 / (4 sqrt 0.1) = 0.53, so C does not take the acker); the same with C's echo missing or at
 * 10 ms when acker_vouch_rtt is 0 (its p as stated). */
static void
test_acker_not_demoted (void)
{
  for (int c = 0; c < 5; c++) {
    make_vouch = c < 3;
    amcc_sender *s = make (0, c == 0 ? 0 : 2, 0, 0);
    make_vouch = 1;
    uint64_t n = 0;
    int64_t t = 1000;
    double own = c == 1 ? 0.3 : c >= 2 ? 0.1 : 0;
    amcc_time c_rtt = c == 2 ? 40 * MS : c == 3 ? 0 : 10 * MS;

    CHECK (send_ack (s, &n, A, t, 0, own) == AMCC_APP_TAKEN);
    if (c >= 2)
      CHECK (report_at (s, &n, t + 50, C, 0.2, c_rtt) == AMCC_APP_TAKEN);
    double r0 = amcc_sender_rate (s, t * MS);
    for (int k = 1; k <= 40; k++) {
      if (c >= 2 && k % 20 == 0)             /* within the receiver timeout */
        CHECK (report_at (s, &n, t + 50, C, 0.2, c_rtt) == AMCC_APP_TAKEN);
      CHECK (send_ack (s, &n, A, t += 100, 1, own) == AMCC_APP_TAKEN);
    }
    if (acker (s, t * MS) != A || stats (s, t * MS).demoted != 0)
      fprintf (stderr, "  case %d: acker %x demoted %llu\n", c, acker (s, t * MS),
          (unsigned long long) stats (s, t * MS).demoted);
    CHECK (acker (s, t * MS) == A && stats (s, t * MS).demoted == 0);
    if (c == 0) {
      double r = amcc_sender_rate (s, t * MS);
      printf ("  rule off: %.0f bit/s before, %.0f after 4 s of false losses\n", r0, r);
      CHECK (r < 0.5 * r0);       /* W at its 1-packet floor: 8000 bit / 40 ms = 200 kbit/s */
    }
    amcc_sender_free (s);
  }
}

/* acker_vouch_rtt (on by default): the liar of test_acker_not_demoted (p 10 %, claim 30 %) and a
 * second member C that states 20 % but never competes for the acker: no echo (no RTT: vouches
 * nothing), or an echo held to a 10 ms RTT (0.2 x (10/40)^2 = 1.25 %). A is demoted at the same
 * lying ACK as with nobody beside it (2 s over in all, from the first ACK whose claim passed
 * 2 x 0.1 + 0.01). */
static void
test_acker_vouch_rtt (void)
{
  int at[3];

  for (int c = 0; c < 3; c++) {
    amcc_sender *s = make (0, 2, 0, 0);
    uint64_t n = 0;
    int64_t t = 1000;
    amcc_time c_rtt = c == 0 ? 0 : 10 * MS;
    int k;

    CHECK (send_ack (s, &n, A, t, 0, 0.1) == AMCC_APP_TAKEN);
    if (c < 2)
      CHECK (report_at (s, &n, t + 50, C, 0.2, c_rtt) == AMCC_APP_TAKEN);
    for (k = 1; k <= 40 && stats (s, t * MS).demoted == 0; k++) {
      if (c < 2 && k % 20 == 0)
        CHECK (report_at (s, &n, t + 50, C, 0.2, c_rtt) == AMCC_APP_TAKEN);
      CHECK (send_ack (s, &n, A, t += 100, 1, 0.1) == AMCC_APP_TAKEN);
    }
    at[c] = k - 1;
    CHECK (stats (s, t * MS).demoted == 1 && acker (s, t * MS) != A);
    amcc_sender_free (s);
  }
  printf ("  A demoted at its lying ACK %d (C without echo), %d (C at 10 ms), %d (no C)\n", at[0],
      at[1], at[2]);
  CHECK (at[0] == at[2] && at[1] == at[2] && at[2] <= 25);
  amcc_ctl_config cfg;
  amcc_ctl_config_init (&cfg);
  CHECK (cfg.acker_vouch_rtt == 1);
  cfg.acker_vouch_rtt = 2;
  CHECK (amcc_sender_new (amcc_protocol_find ("pgmcc"), &cfg, 0) == NULL);
}

/* Suspicion drains at a quarter of its pace: 10 lying ACKs (1.0 s), 20 with p 0.5 (not over:
 * -20 x 25 ms = 0.5 s left), then lying again with p 0: 2 s at the 15th, not the 10th (no
 * drain) nor the 20th (a reset). */
static void
test_acker_drain (void)
{
  amcc_sender *s = make (0, 2, 0, 0);
  uint64_t n = 0;
  int64_t t = 1000;

  send_ack (s, &n, A, t, 0, 0);
  for (int k = 1; k <= 10; k++)
    send_ack (s, &n, A, t += 100, 1, 0);
  for (int k = 1; k <= 20; k++)
    send_ack (s, &n, A, t += 100, 1, 0.5);
  for (int k = 1; k <= 14; k++)
    send_ack (s, &n, A, t += 100, 1, 0);
  CHECK (acker (s, t * MS) == A && stats (s, t * MS).demoted == 0);
  send_ack (s, &n, A, t += 100, 1, 0);
  CHECK (acker (s, t * MS) == 0 && stats (s, t * MS).demoted == 1);
  amcc_sender_free (s);
}

/* Suspicion stays while the receiver does not ack: A lies for 1.0 s (10 ACKs), B takes the
 * acker (A's p 0 loses to any lossy receiver), A wins it back 5 s later and is demoted at the
 * 11th ACK of its second tenure (the first counts no time, then 1.0 + 10 x 0.1 s), not the
 * 21st; after a gap longer than acker_hold (61 s) its old suspicion is forgotten: the 21st. */
static void
test_acker_tenures (void)
{
  for (int gap = 0; gap <= 1; gap++) {
    amcc_sender *s = make (0, 2, 0, 0);
    uint64_t n = 0;
    int64_t t = 1000;

    send_ack (s, &n, A, t, 0, 0);
    for (int k = 1; k <= 10; k++)
      send_ack (s, &n, A, t += 100, 1, 0);
    send_until (s, &n, (t += 50) * MS);
    CHECK (report (s, t * MS, B, 0.3, 40 * MS) == AMCC_APP_TAKEN && acker (s, t * MS) == B);
    t += gap ? 61000 : 5000;
    send_until (s, &n, t * MS);
    CHECK (report (s, t * MS, A, 0.9, 40 * MS) == AMCC_APP_TAKEN && acker (s, t * MS) == A);
    send_ack (s, &n, A, t += 100, 1, 0);          /* the first of the tenure */
    int k = 1;
    while (k < 30 && acker (s, t * MS) == A) {
      send_ack (s, &n, A, t += 100, 1, 0);
      k++;
    }
    printf ("  A demoted at its ACK %d of the second tenure (gap %d s)\n", k, gap ? 61 : 5);
    CHECK (k == (gap ? 21 : 11) && stats (s, t * MS).demoted == 1);
    amcc_sender_free (s);
  }
}

/* report_limit (4 per interval) and proofs hold for PGMCC too: the acker's ACKs every 10 ms
 * (the period is ack_interval_min) are never refused, a burst of 6 reports takes 4; with proofs
 * 1 a new SSRC's report elects nobody until a report block of it echoes one of our SRs. */
static void
test_limit_and_proofs (void)
{
  amcc_sender *s = make (0, 0, 4, 0);
  uint64_t n = 0;
  int taken = 0;

  for (int64_t t = 1000; t < 2000; t += 10)
    taken += send_ack (s, &n, A, t, 0, 0) == AMCC_APP_TAKEN;
  CHECK (taken == 100 && stats (s, 2 * SEC).limited == 0);
  taken = 0;
  for (int i = 0; i < 6; i++)
    taken += report (s, 2 * SEC, B, 0, 0) == AMCC_APP_TAKEN;
  CHECK (taken == 4 && stats (s, 2 * SEC).limited == 2);
  amcc_sender_free (s);

  s = make (0.5, 2, 4, 1);
  CHECK (report (s, SEC, B, 0.01, 0) == AMCC_APP_UNPROVEN && acker (s, SEC) == 0);
  uint32_t lsr = amcc_time_to_ntp_mid32 (SEC);
  amcc_sender_on_sr_sent (s, SEC, lsr);
  amcc_sender_on_report_block (s, 1040 * MS, B, SENDER_SSRC, lsr,
      amcc_time_to_ntp_mid32 (20 * MS), 0);
  CHECK (report (s, 1040 * MS, B, 0.01, 0) == AMCC_APP_TAKEN && acker (s, 1040 * MS) == B);
  amcc_sender_free (s);
}

/* ---------------------------------------------------------------- closed loop */

typedef enum { HONEST, LIAR, ELECTION_ONLY, CONSISTENT, ACCOMPLICE } attack;
static const char *const attack_name[] = { "none", "forged election + false losses",
  "forged election only", "forged election + false losses + forged p",
  "forged election + false losses + an accomplice's p without echo" };
static attack the_attack;
static int attacker = -1;           /* the node that forges, from `attack_from` on */
static amcc_time attack_from;

/* The attacker is a member that receives the stream (its reports carry true echoes and pass
 * the proofs): its reports claim p 30 %, to win the election; its ACKs claim 30 % of the
 * packets lost (LIAR, ACCOMPLICE) or none (ELECTION_ONLY), with its true p or (CONSISTENT)
 * 30 %. ACCOMPLICE: a second member (node 3, fast path) states p 30 % in everything it sends,
 * with no echo, so it never competes for the acker but, taken as stated, would vouch for the
 * attacker's false holes (acker_vouch_rtt). */
static void
forge (sim *S, int i, msg *m)
{
  uint8_t buf[CAP];
  int n = -1;

  if (S->now < attack_from || memcmp (m->app.name, AMCC_PGMCC_APP_NAME, 4) != 0)
    return;
  if (i == 3 && the_attack == ACCOMPLICE
      && (m->app.subtype == AMCC_PGMCC_SUB_REPORT || m->app.subtype == AMCC_PGMCC_SUB_ACK)) {
    struct amcc_pgmcc_ack a;
    int ack = m->app.subtype == AMCC_PGMCC_SUB_ACK;
    AMT_CHECK ((ack ? amcc_pgmcc_ack_decode (&a, m->data, m->app.len)
            : amcc_pgmcc_report_decode (&a.fb, m->data, m->app.len)) == AMCC_OK);
    a.fb.loss = 0.3;
    a.fb.has_echo = false;
    a.fb.echo_ts_us = a.fb.hold_us = 0;
    n = ack ? amcc_pgmcc_ack_encode (&a, buf, sizeof buf)
        : amcc_pgmcc_report_encode (&a.fb, buf, sizeof buf);
    AMT_CHECK (n == (int) m->app.len);
    memcpy (m->data, buf, m->app.len);
    return;
  }
  if (i != attacker || the_attack == HONEST)
    return;
  if (m->app.subtype == AMCC_PGMCC_SUB_REPORT) {
    struct amcc_pgmcc_feedback fb;
    AMT_CHECK (amcc_pgmcc_report_decode (&fb, m->data, m->app.len) == AMCC_OK);
    fb.loss = 0.3;
    n = amcc_pgmcc_report_encode (&fb, buf, sizeof buf);
  } else if (m->app.subtype == AMCC_PGMCC_SUB_ACK) {
    struct amcc_pgmcc_ack a;
    AMT_CHECK (amcc_pgmcc_ack_decode (&a, m->data, m->app.len) == AMCC_OK);
    if (the_attack != ELECTION_ONLY)
      for (uint32_t k = 0; k < 32; k++)
        if ((a.fb.rx_max - 1 - k) % 10 == 1 || (a.fb.rx_max - 1 - k) % 10 == 4
            || (a.fb.rx_max - 1 - k) % 10 == 6)
          a.bitmap &= ~(UINT32_C (1) << k);
    if (the_attack == CONSISTENT)
      a.fb.loss = 0.3;
    n = amcc_pgmcc_ack_encode (&a, buf, sizeof buf);
  }
  AMT_CHECK (n == (int) m->app.len);
  memcpy (m->data, buf, m->app.len);
}

/* The mean target over [from, to), sampled every 100 ms, and the share of samples with node
 * `who` acking. */
static double
watch (sim *S, amcc_time from, amcc_time to, int who, double *share)
{
  double sum = 0;
  int k = 0, hit = 0;

  sim_run (S, from);
  for (; S->now < to; k++) {
    sim_run (S, S->now + 100 * MS);
    sum += rate (S);
    amcc_sender_stats st;
    amcc_sender_get_stats (S->s, S->now, &st);
    hit += who >= 0 && st.have_slowest && st.slowest_ssrc == S->n[who].ssrc;
  }
  if (share)
    *share = (double) hit / k;
  return sum / k;
}

static void slow_cfg (amcc_ctl_config *c) { c->min_bps = 10e3; }
static void slow_cfg_off (amcc_ctl_config *c) { c->min_bps = 10e3; c->acker_loss_factor = 0; }

/* A real slow receiver: random loss L on its path (5, 15, 25 %), two loss-free ones beside it,
 * 200 ms RTT, min-bitrate 10 kbit/s, proofs on. It is the acker (>= 95 % of the samples over
 * [10, 40) s), never demoted; the run is the same with the acker check off (it never fired),
 * and the rate follows its path: within [0.5, 1.5] x the TCP equation at L scaled by sqrt (k)
 * of the 1 s actuator growth (k = 0.2 / 1.2: test_pgmcc_scenario's test_lossy), or W's floor
 * of one packet per RTT (40 kbit/s) where that is higher: 89, 51 and 40 kbit/s. */
static void
test_honest_slow_acker (void)
{
  static const double loss[] = { 0.05, 0.15, 0.25 };
  static sim S;

  pname = "pgmcc";
  for (size_t i = 0; i < 3; i++) {
    double mean[2] = { 0, 0 }, share = 0;
    amcc_sender_stats st;
    for (int off = 0; off <= 1; off++) {
      sim_proofs = 1;
      sim_config = off ? slow_cfg_off : slow_cfg;
      sim_init (&S, amcc_protocol_find ("pgmcc"), 3, 500e3, 20e6);
      sim_proofs = 0;
      sim_config = NULL;
      for (int j = 0; j < 3; j++)
        S.n[j].delay = 100 * MS;
      S.n[1].loss = loss[i];
      mean[off] = watch (&S, 10 * SEC, 40 * SEC, 1, off ? NULL : &share);
      if (!off)
        amcc_sender_get_stats (S.s, S.now, &st);
      sim_free (&S);
    }
    double eq = fmax (1.22 * 8.0 * PKT / (0.2 * sqrt (loss[i])) * sqrt (0.2 / 1.2),
        8.0 * PKT / 0.2);
    printf ("  slow acker at %.0f %% loss: mean target %.0f bit/s (acker check off %.0f; "
        "equation x sqrt (k) or W's floor %.0f), acker %.0f %% of the samples, demoted %llu, held %llu\n",
        100 * loss[i], mean[0], mean[1], eq, 100 * share, (unsigned long long) st.demoted,
        (unsigned long long) st.held);
    CHECK (share >= 0.95 && st.demoted == 0);
    CHECK (mean[0] == mean[1]);
    CHECK (mean[0] > 0.5 * eq && mean[0] < 1.5 * eq);
  }
}

/* An honest acker at high packet rates, behind a drop-tail bottleneck of 5, 10 or 20 Mbit/s
 * (100 ms queue, 40 ms RTT): up to 2500 packets/s, so an ACK (one per 50 ms at most) covers
 * 33 of up to 125 packets and the bitmaps only sample the losses; the loss bursts of the
 * queue's overflow then sit inside or outside the covered 33. Never demoted; the same run with
 * the check off. */
static void
test_honest_fast_acker (void)
{
  static const double cap[] = { 5e6, 10e6, 20e6 };
  static sim S;

  pname = "pgmcc";
  for (size_t i = 0; i < 3; i++) {
    double mean[2] = { 0, 0 }, share = 0;
    amcc_sender_stats st;
    for (int off = 0; off <= 1; off++) {
      sim_proofs = 1;
      sim_config = off ? slow_cfg_off : slow_cfg;
      sim_init (&S, amcc_protocol_find ("pgmcc"), 3, 500e3, 40e6);
      sim_proofs = 0;
      sim_config = NULL;
      S.n[0].cap_bps = cap[i];
      mean[off] = watch (&S, 10 * SEC, 60 * SEC, 0, off ? NULL : &share);
      if (!off)
        amcc_sender_get_stats (S.s, S.now, &st);
      sim_free (&S);
    }
    printf ("  acker behind %.0f Mbit/s: mean target %.0f bit/s (check off %.0f), acker %.0f %%,"
        " demoted %llu\n", cap[i] / 1e6, mean[0], mean[1], 100 * share,
        (unsigned long long) st.demoted);
    CHECK (st.demoted == 0 && mean[0] == mean[1] && share >= 0.95);
  }
}

/* Honest receivers behind 1 Mbit/s (the acker without attack) and on a fast path; the attacker
 * on a fast path too, forging from 10 s on; proofs on. Over [10, 40) s, sampled every 100 ms:
 * the mean target, the share of samples with the attacker acking, the slow receiver's packet
 * loss, and the first sample with the attacker acking and the first after its demotion. */
typedef struct {
  double mean, share, lost;
  amcc_time elected, demoted, acked;      /* acked: the attacker's time acking before that */
  amcc_sender_stats st;
} outcome;

static void vouch_off_cfg (amcc_ctl_config *c) { c->acker_vouch_rtt = 0; }

/* off: 0 the rules on, 1 all off, 2 only acker_vouch_rtt off */
static outcome
run_attack (attack a, int off, amcc_time from)
{
  static sim S;
  outcome o = { .elected = AMCC_TIME_NONE, .demoted = AMCC_TIME_NONE };
  amcc_receiver_stats r0, r1;
  int k = 0, hit = 0;

  the_attack = a;
  attacker = 2;
  attack_from = from;
  sim_tamper = forge;
  sim_proofs = 1;
  sim_contain_off = off == 1;
  sim_config = off == 2 ? vouch_off_cfg : NULL;
  sim_init (&S, amcc_protocol_find ("pgmcc"), a == ACCOMPLICE ? 4 : 3, 500e3, 20e6);
  sim_proofs = 0;
  sim_contain_off = 0;
  sim_config = NULL;
  S.n[0].cap_bps = 1e6;
  sim_run (&S, 10 * SEC);
  amcc_receiver_get_stats (S.n[0].r, S.now, &r0);
  uint32_t seq0 = S.seq;
  for (; S.now < 40 * SEC; k++) {
    sim_run (&S, S.now + 100 * MS);
    o.mean += rate (&S);
    amcc_sender_get_stats (S.s, S.now, &o.st);
    int acking = o.st.have_slowest && o.st.slowest_ssrc == S.n[2].ssrc;
    hit += acking;
    if (acking && o.elected == AMCC_TIME_NONE)
      o.elected = S.now;
    if (o.st.demoted && o.demoted == AMCC_TIME_NONE)
      o.demoted = S.now;
    if (acking && o.demoted == AMCC_TIME_NONE)
      o.acked += 100 * MS;
  }
  amcc_receiver_get_stats (S.n[0].r, S.now, &r1);
  o.mean /= k;
  o.share = (double) hit / k;
  o.lost = (double) (r1.packets_lost - r0.packets_lost) / (double) (S.seq - seq0);
  sim_free (&S);
  sim_tamper = NULL;
  return o;
}

/* Each attack from 10 s, 10.106 s and 10.583 s: where its first forged report falls in the
 * slow receiver's loss cycle decides whether it wins (the slow receiver's p above about 1 %
 * beats a forged 30 % at its longer RTT) and how many tenures it gets. */
static void
test_attacks (void)
{
  static const amcc_time offset[] = { 0, 106 * MS, 583 * MS };
  outcome clean_off = run_attack (HONEST, 1, 10 * SEC), clean = run_attack (HONEST, 0, 10 * SEC);

  pname = "pgmcc";
  printf ("  no attack: mean target %.0f bit/s, slow receiver's loss %.2f %% (rules off %.0f, "
      "%.2f %%); held %llu, demoted %llu, limited %llu\n", clean.mean, 100 * clean.lost,
      clean_off.mean, 100 * clean_off.lost, (unsigned long long) clean.st.held,
      (unsigned long long) clean.st.demoted, (unsigned long long) clean.st.limited);
  CHECK (clean.st.demoted == 0 && clean.st.limited == 0);
  /* the accomplice's runs have a fourth receiver: their own baseline, no forging before 40 s */
  outcome clean4 = run_attack (ACCOMPLICE, 0, 100 * SEC);
  printf ("  no attack, four receivers: mean target %.0f bit/s\n", clean4.mean);
  CHECK (clean4.st.demoted == 0 && clean4.st.limited == 0);
  for (size_t j = 0; j < sizeof offset / sizeof offset[0]; j++)
    for (attack a = LIAR; a <= ACCOMPLICE; a++) {
      amcc_time from = 10 * SEC + offset[j];
      const outcome *base = a == ACCOMPLICE ? &clean4 : &clean;
      outcome on = run_attack (a, 0, from), off = run_attack (a, a == ACCOMPLICE ? 2 : 1, from);
      printf ("  %s from %.3f s: mean target %.0f bit/s = %.1f %% of no attack, slow receiver's"
          " loss %.2f %%, attacker acking %.0f %% of the time (%s: %.0f = %.1f %%, %.2f %%,"
          " %.0f %%); held %llu, demoted %llu", attack_name[a], amcc_time_to_s (from), on.mean,
          100 * on.mean / base->mean, 100 * on.lost, 100 * on.share,
          a == ACCOMPLICE ? "acker_vouch_rtt off" : "rules off", off.mean,
          100 * off.mean / base->mean, 100 * off.lost, 100 * off.share,
          (unsigned long long) on.st.held, (unsigned long long) on.st.demoted);
      if (on.elected != AMCC_TIME_NONE)
        printf ("; elected at %.1f s", amcc_time_to_s (on.elected));
      if (on.demoted != AMCC_TIME_NONE)
        printf (", demoted at %.1f s after acking %.1f s", amcc_time_to_s (on.demoted),
            amcc_time_to_s (on.acked));
      printf ("\n");
      if (a == CONSISTENT) {    /* not contained: an honest-looking slow receiver (docs) */
        CHECK (on.st.demoted == 0);
        continue;
      }
      CHECK (fabs (on.mean - base->mean) <= 0.10 * base->mean && on.st.demoted == 1);
      if (a == LIAR) {
        /* elected within 2.1 s (two forged reports 0.5 s apart win, unless the slow receiver
         * then loses more than about 1 %); demoted once its claims were over for the 2 s
         * bound: 2.5-2.8 s acking in two or three tenures, the slow receiver reclaiming the
         * acker between them (its p > 0 beats the attacker's true p = 0 in its ACKs), and
         * 0.2 s from each election to the attacker's first ACK, which count nothing */
        CHECK (on.elected != AMCC_TIME_NONE && on.elected - from <= 2100 * MS);
        CHECK (on.demoted != AMCC_TIME_NONE && on.acked <= 3 * SEC);
        CHECK (on.lost <= clean.lost + 0.005 && off.mean < 0.5 * clean.mean);
      }
      if (a == ACCOMPLICE)      /* the accomplice's p taken as stated covers the liar */
        CHECK (off.st.demoted == 0 && off.mean < 0.5 * clean4.mean);
    }
}

int
main (void)
{
  AMT_RUN (test_elect_confirm);
  AMT_RUN (test_claim_filter);
  AMT_RUN (test_demote_undo);
  AMT_RUN (test_acker_demoted);
  AMT_RUN (test_acker_not_demoted);
  AMT_RUN (test_acker_vouch_rtt);
  AMT_RUN (test_acker_drain);
  AMT_RUN (test_acker_tenures);
  AMT_RUN (test_limit_and_proofs);
  AMT_RUN (test_honest_slow_acker);
  AMT_RUN (test_honest_fast_acker);
  AMT_RUN (test_attacks);
  return amt_summary ();
}
