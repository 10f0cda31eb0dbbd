/* test_controller.c - every protocol of the registry driven through amcc/controller.h alone: one
 * sender and a few receivers exchange RTP facts, report blocks and the APP payloads the roles
 * make, on a simulated network (per receiver: a drop-tail bottleneck, random loss, a one-way
 * delay; RTCP every 500 ms plus the early packets the roles ask for). Only the registry test
 * and one TFMCC wire check name a protocol: a new protocol is tested by registering it.
 * Asserted for each protocol: the rate rises on a clean path and falls when loss appears;
 * it settles near a bottleneck; a receiver gone silent is dropped after the timeout and stops
 * holding the rate down; limits changed while running clamp at once (and what the sender
 * advertises follows); bad APPs are counted as such. Deterministic: simulated clock, seeded
 * random numbers. Also the proof of reception's pure helpers (amcc/proof.h) at hand-computed
 * values: the SR memory, the DLSR bound with and without slack, the unproven budget. */
#include "ctl_sim.h"

/* ------------------------------------------------------------------------------------------ */

static void
test_registry (void)
{
  const amcc_protocol *a = amcc_protocol_find ("asmp"), *t = amcc_protocol_find ("tfmcc");
  amcc_ctl_config c;

  AMT_CHECK (a && t && a != t && amcc_protocol_find ("nosuch") == NULL);
  AMT_CHECK (amcc_protocol_find (NULL) == NULL && amcc_protocol_find ("asm") == NULL);
  AMT_CHECK (amcc_protocol_count () >= 2 && amcc_protocol_at (0) == a
      && amcc_protocol_at (amcc_protocol_count ()) == NULL);
  /* TFMCC cannot work without early RTCP; ASMP can */
  AMT_CHECK (a->rtp_profile == AMCC_RTP_AVP && t->rtp_profile == AMCC_RTP_AVPF);
  amcc_ctl_config_init (&c);
  c.min_bps = 2 * c.max_bps;
  AMT_CHECK (amcc_sender_new (a, &c, 0) == NULL);
  amcc_ctl_config_init (&c);
  c.rtcp_interval = 0;
  AMT_CHECK (amcc_sender_new (t, &c, 0) == NULL && amcc_receiver_new (t, &c, 0) == NULL);
}

/* A clean path: the rate grows from a low start. 5 % random loss: it falls well below. */
static void
check_rise_and_fall (const amcc_protocol *p)
{
  sim S;
  double r0, r_clean, r_lossy;

  sim_init (&S, p, 2, 300e3, 20e6);
  r0 = rate (&S);
  sim_run (&S, 15 * SEC);
  r_clean = rate (&S);
  for (int i = 0; i < S.nn; i++)
    S.n[i].loss = 0.05;
  sim_run (&S, 40 * SEC);
  r_lossy = mean_rate (&S, 45 * SEC);   /* a mean: a window protocol's sawtooth (PGMCC) spans
                                           0.25-2.8 Mbit/s here, as TCP's would */
  printf ("  %s: start %.0f, clean 15 s %.0f, 5 %% loss mean of 40-45 s %.0f bit/s\n", p->name, r0,
      r_clean, r_lossy);
  CHECK (r_clean > 2 * r0);
  CHECK (r_lossy < 0.5 * r_clean);
  CHECK (r_lossy < 1.5e6);              /* TCP's rate at 5 % loss, 40 ms: ~0.5 Mbit/s */
  sim_free (&S);
}

/* A 1 Mbit/s bottleneck with a 100 ms queue: the rate ends near it, not far above or below. */
static void
check_bottleneck (const amcc_protocol *p)
{
  sim S;
  double mean;

  sim_init (&S, p, 2, 500e3, 20e6);
  S.n[1].cap_bps = 1e6;
  sim_run (&S, 20 * SEC);
  mean = mean_rate (&S, 40 * SEC);
  printf ("  %s: mean rate over [20, 40) s behind 1 Mbit/s: %.0f bit/s\n", p->name, mean);
  CHECK (mean > 0.5e6 && mean < 1.3e6);
  sim_free (&S);
}

/* The slow receiver falls silent without a BYE: after the timeout it is not counted and no
 * longer holds the rate down. A BYE removes a receiver at once. */
static void
check_timeout (const amcc_protocol *p)
{
  sim S;
  amcc_time timeout, quiet;
  double held, freed;

  sim_init (&S, p, 2, 500e3, 20e6);
  timeout = amcc_sender_receiver_timeout (S.s);
  CHECK (timeout == 3 * IV);
  S.n[1].cap_bps = 400e3;
  sim_run (&S, 15 * SEC);
  held = mean_rate (&S, 20 * SEC);
  CHECK (receivers (&S) == 2);
  quiet = S.now;
  S.n[1].silent = 1;
  sim_run (&S, quiet + timeout / 2);
  CHECK (receivers (&S) == 2);
  sim_run (&S, quiet + timeout + IV);
  CHECK (receivers (&S) == 1);
  sim_run (&S, quiet + 25 * SEC);
  freed = mean_rate (&S, quiet + 30 * SEC);
  printf ("  %s: mean behind 400 kbit/s %.0f; 25-30 s after it fell silent %.0f bit/s\n",
      p->name, held, freed);
  CHECK (held < 800e3);
  CHECK (freed > 4 * held);
  amcc_sender_on_bye (S.s, S.now, S.n[0].ssrc);
  CHECK (receivers (&S) == 0);
  sim_free (&S);
}

/* The slowest receiver expires without a BYE (its reports may only have been lost): the rate it
 * held down is held 3 intervals more, then freed by at most 10 % per RTCP interval; after a BYE
 * at once. */
static void
check_expiry_ramp (const amcc_protocol *p)
{
  double expiry_worst = 0;

  for (int bye = 0; bye < 2; bye++) {
    sim S;
    double held, r, worst = 0;
    amcc_time quiet, timeout, t;

    sim_init (&S, p, 2, 500e3, 20e6);
    timeout = amcc_sender_receiver_timeout (S.s);
    S.n[1].cap_bps = 400e3;
    sim_run (&S, 15 * SEC);
    held = amcc_sender_rate (S.s, S.now);
    quiet = S.now;
    S.n[1].silent = 1;
    if (bye)
      amcc_sender_on_bye (S.s, S.now, S.n[1].ssrc);
    for (t = quiet + IV / 4; t < quiet + timeout + 6 * IV; t += IV / 4) {
      sim_run (&S, t);
      r = amcc_sender_rate (S.s, S.now);
      if (!bye && t > quiet + timeout + IV) {
        /* held for 3 intervals after the expiry, then at most 1.1^k over what it was (timeout
         * + 1 interval of slack for when it is noticed) */
        double k = (double) (t - quiet - timeout) / (double) IV - 3;
        CHECK (r <= held * 1.25 * pow (1.1, k > 0 ? k : 0));
        if (t <= quiet + timeout + 3 * IV)
          CHECK (r <= held * 1.25);
      }
      worst = r > worst ? r : worst;
    }
    printf ("  %s %s: held %.0f, at most %.0f bit/s within %.1f s\n", p->name,
        bye ? "BYE" : "expiry", held, worst, (double) (timeout + 6 * IV) / 1e9);
    /* ASMP's own rate jumps to the fast receiver's at once: after a BYE it must, after an
     * expiry it must not (TFMCC rises by its own slow increase either way) */
    if (bye && !strcmp (p->name, "asmp"))
      CHECK (worst > 1.5 * expiry_worst);
    if (!bye)
      expiry_worst = worst;
    sim_free (&S);
  }
  /* a BYE that comes after the expiry (the receiver's last RR dropped it first) frees the rate
   * at once, as a BYE does */
  sim S;
  sim_init (&S, p, 2, 500e3, 20e6);
  amcc_time timeout = amcc_sender_receiver_timeout (S.s);
  S.n[1].cap_bps = 400e3;
  sim_run (&S, 15 * SEC);
  double held = amcc_sender_rate (S.s, S.now);
  amcc_time quiet = S.now;
  S.n[1].silent = 1;
  sim_run (&S, quiet + timeout + 2 * IV);
  double before = amcc_sender_rate (S.s, S.now);
  amcc_sender_on_bye (S.s, S.now, S.n[1].ssrc);
  sim_run (&S, S.now + IV);
  double after = amcc_sender_rate (S.s, S.now);
  printf ("  %s BYE after the expiry: held %.0f, %.0f before the BYE, %.0f after\n", p->name,
      held, before, after);
  CHECK (before <= held * 1.25);
  if (!strcmp (p->name, "asmp"))
    CHECK (after > 1.3 * held);      /* the hold would keep it at held */
  sim_free (&S);
}

/* Every receiver falls silent (no BYE): past the receiver timeout the target halves, and halves
 * again every further timeout, to the minimum; it never holds or rises meanwhile. When
 * reports come back the protocol's own rate takes over again. */
static void
check_all_silent (const amcc_protocol *p)
{
  sim S;
  amcc_time timeout, quiet;
  double heard, prev, r;

  sim_init (&S, p, 2, 500e3, 20e6);
  timeout = amcc_sender_receiver_timeout (S.s);
  sim_run (&S, 15 * SEC);
  heard = amcc_sender_rate (S.s, S.now);
  quiet = S.now;
  S.n[0].silent = S.n[1].silent = 1;
  prev = heard;
  for (amcc_time t = quiet + IV / 4; t < quiet + 8 * timeout; t += IV / 4) {
    sim_run (&S, t);
    r = amcc_sender_rate (S.s, S.now);
    if (t > quiet + timeout + IV)           /* receivers heard within the timeout count */
      CHECK (r <= prev * 1.0001);           /* never rises once nobody is heard */
    prev = r;
  }
  r = amcc_sender_rate (S.s, S.now);
  printf ("  %s: %.0f bit/s while heard, %.0f after 8 silent timeouts\n", p->name, heard, r);
  CHECK (r <= heard / 64 || r <= 64e3 * 1.0001);
  S.n[0].silent = S.n[1].silent = 0;
  sim_run (&S, S.now + 20 * SEC);
  CHECK (amcc_sender_rate (S.s, S.now) > 2 * r);
  sim_free (&S);
}

/* A restarted sender (new SSRC) is a new session for the receiver: packets of another SSRC are
 * ignored while ours sends; once ours has been silent for an RTCP interval the new one takes
 * over and the protocol's state starts afresh (nothing measured or reported on B yet). */
static void
check_sender_change (const amcc_protocol *p)
{
  amcc_ctl_config c;
  amcc_receiver *r;
  amcc_receiver_stats st;
  amcc_time t = 0;
  uint8_t buf[CAP];
  amcc_app app;
  uint16_t seq_a = 100, seq_b = 40000;

  amcc_ctl_config_init (&c);
  c.rtcp_interval = IV;
  c.ssrc = 0x100;
  r = amcc_receiver_new (p, &c, 0);
  for (; t < 10 * SEC; t += 10 * MS) {      /* A at 1 Mbit/s, B now and then */
    amcc_packet a = { .ssrc = 0xA, .seq = seq_a++, .rtp_ts = (uint32_t) (t / 100000 * 9),
      .bytes = 1250, .send_time = t - 20 * MS };
    amcc_receiver_on_rtp (r, t, &a);
    if (t % (500 * MS) == 0) {
      amcc_packet b = { .ssrc = 0xB, .seq = seq_b++, .rtp_ts = 7, .bytes = 1250,
        .send_time = t - 20 * MS };
      amcc_receiver_on_rtp (r, t, &b);
    }
    if (t % IV == 0)
      amcc_receiver_next_app (r, t, buf, sizeof buf, &app);
  }
  amcc_receiver_get_stats (r, t, &st);
  CHECK (st.sender_ssrc == 0xA && st.sender_changes == 0);
  CHECK (st.rate_bps > 0);                  /* it has reported on A */
  /* A stops; B within the interval is still not measured, after it B takes over */
  t += IV / 2;
  amcc_packet b = { .ssrc = 0xB, .seq = seq_b++, .rtp_ts = 9, .bytes = 1250, .send_time = t };
  amcc_receiver_on_rtp (r, t, &b);
  amcc_receiver_get_stats (r, t, &st);
  CHECK (st.sender_ssrc == 0xA && st.sender_changes == 0);
  t += IV;
  b.seq = seq_b++;
  amcc_receiver_on_rtp (r, t, &b);
  amcc_receiver_get_stats (r, t, &st);
  CHECK (st.sender_ssrc == 0xB && st.sender_changes == 1);
  CHECK (st.rate_bps == 0);                 /* fresh state: nothing reported on B yet */
  amcc_receiver_free (r);
}

/* Limits changed while running take effect at once, in the rate and in what the sender
 * advertises; a higher max lets the rate grow past the old one. */
static void
check_limits (const amcc_protocol *p)
{
  sim S;
  double before, r;

  sim_init (&S, p, 1, 500e3, 800e3);
  sim_run (&S, 20 * SEC);
  before = rate (&S);
  CHECK (before <= 800e3 && before > 600e3);
  amcc_sender_set_limits (S.s, 64e3, 300e3);
  CHECK (rate (&S) == 300e3);
  sim_run (&S, S.now + 2 * SEC);
  CHECK (rate (&S) == 300e3);
  amcc_sender_set_limits (S.s, 1.2e6, 20e6);
  CHECK (rate (&S) == 1.2e6);
  amcc_sender_set_limits (S.s, 64e3, 20e6);
  sim_run (&S, S.now + 20 * SEC);
  r = rate (&S);
  printf ("  %s: max 800 k: %.0f; after max 300 k then 20 M for 20 s: %.0f bit/s\n", p->name,
      before, r);
  CHECK (r > 1.2e6);
  sim_free (&S);
}

/* Bad input is classified, never taken: foreign names, payloads of our name that do not
 * decode, our own APP looped back. */
static void
check_bad_apps (const amcc_protocol *p)
{
  sim S;
  uint8_t buf[CAP], junk[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  amcc_app sa, ra;
  node *n;

  sim_init (&S, p, 1, 500e3, 20e6);
  n = &S.n[0];
  sim_run (&S, 5 * SEC);
  CHECK (amcc_sender_on_app (S.s, S.now, 0x100, "XYZW", 0, junk, 8) == AMCC_APP_FOREIGN);
  CHECK (amcc_receiver_on_app (n->r, S.now, SENDER_SSRC, "XYZW", 0, junk, 8)
      == AMCC_APP_FOREIGN);
  CHECK (amcc_sender_next_app (S.s, S.now, buf, sizeof buf, &sa) == 1);
  CHECK (amcc_receiver_on_app (n->r, S.now, n->ssrc, sa.name, sa.subtype, buf, sa.len)
      == AMCC_APP_IGNORED);
  CHECK (amcc_receiver_on_app (n->r, S.now, SENDER_SSRC, sa.name, sa.subtype, junk, 8)
      == AMCC_APP_MALFORMED);
  /* the sender's own kind of APP heard from another sender is not for the sender role */
  CHECK (amcc_sender_on_app (S.s, S.now, 0x999, sa.name, sa.subtype, buf, sa.len)
      == AMCC_APP_IGNORED);
  /* a receiver APP name with a payload that does not decode */
  for (int tries = 0; tries < 200; tries++) {
    sim_run (&S, S.now + 10 * MS);
    if (amcc_receiver_next_app (n->r, S.now, buf, sizeof buf, &ra) == 1)
      break;
    ra.len = 0;
  }
  CHECK (ra.len > 0);
  CHECK (amcc_sender_on_app (S.s, S.now, n->ssrc, ra.name, ra.subtype, junk, 8)
      == AMCC_APP_MALFORMED);
  CHECK (amcc_sender_next_app (S.s, S.now, buf, 2, &sa) == AMCC_ERR_NOSPACE);
  CHECK (amcc_receiver_next_app (n->r, S.now, buf, 2, &ra) == AMCC_ERR_NOSPACE);
  sim_free (&S);
}

/* cfg.proofs (issue 14): a receiver's reports count once a report block of it echoed one of our
 * SRs (LSR) without claiming to have held it longer than since we sent it (DLSR); eq. 9's RTT
 * then comes from our own SR send time. A forger who never heard an SR stays unproven. */
static void
check_proofs (const amcc_protocol *p)
{
  sim S;
  uint8_t buf[CAP];
  amcc_app ra = { 0 };
  const amcc_peer *peer;
  size_t it = 0;
  uint32_t lsr;
  const uint32_t forger = 0x999;

  sim_proofs = 1;
  sim_init (&S, p, 1, 500e3, 20e6);
  sim_proofs = 0;
  sim_run (&S, 10 * SEC);
  CHECK (S.taken >= 5);
  CHECK (S.unproven <= 1);                  /* at most the report sent before any SR */
  for (int tries = 0; tries < 200 && !ra.len; tries++) {
    sim_run (&S, S.now + 10 * MS);
    if (amcc_receiver_next_app (S.n[0].r, S.now, buf, sizeof buf, &ra) != 1)
      ra.len = 0;
  }
  CHECK (ra.len > 0);
  lsr = S.n[0].lsr;
  CHECK (lsr != 0);
  /* never sent a block; a block with an LSR we never sent; a DLSR longer than since our SR */
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC, lsr ^ 0x5a5a, 0, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC, lsr, 0x7fff0000, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  /* a block about another SSRC proves nothing either */
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC + 1, lsr, 0, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_UNPROVEN);
  amcc_sender_on_report_block (S.s, S.now, forger, SENDER_SSRC, lsr, 0, 0);
  CHECK (amcc_sender_on_app (S.s, S.now, forger, ra.name, ra.subtype, buf, ra.len)
      == AMCC_APP_TAKEN);
  /* eq. 9 on our own clock: the receiver's RTT is the path's 2 x 20 ms (to DLSR's 1/65536 s) */
  if (p == amcc_protocol_find ("asmp")) {
    while ((peer = amcc_sender_next_peer (S.s, &it)) && peer->ssrc != S.n[0].ssrc)
      ;
    CHECK (peer != NULL);
    if (peer)
      AMT_NEAR (peer->sender_rtt_s, 0.040, 0.0002);
  }
  sim_free (&S);
}

/* TFMCC's X travels to the receivers in its sender APP (RFC 4654 2.2.1): new limits clamp
 * what is advertised too, not only the target handed to the encoder. */
static void
test_tfmcc_advertises_limits (void)
{
  sim S;
  uint8_t buf[CAP];
  amcc_app app;
  struct amcc_tfmcc_sender_info info;

  pname = "tfmcc";
  sim_init (&S, amcc_protocol_find ("tfmcc"), 1, 500e3, 20e6);
  sim_run (&S, 10 * SEC);
  CHECK (rate (&S) > 1e6);
  amcc_sender_set_limits (S.s, 64e3, 300e3);
  CHECK (amcc_sender_next_app (S.s, S.now, buf, sizeof buf, &app) == 1);
  CHECK (memcmp (app.name, AMCC_TFMCC_APP_SENDER, 4) == 0);
  CHECK (amcc_tfmcc_sender_info_decode (&info, buf, app.len) >= 0);
  CHECK (info.rate_bps <= 300e3 * 1.001);         /* the wire rounds the rate */
  sim_free (&S);
  pname = "";
}

static void
for_each_protocol (void (*check) (const amcc_protocol *))
{
  for (size_t i = 0; i < amcc_protocol_count (); i++) {
    if (!amcc_protocol_at (i)->sender || !amcc_protocol_at (i)->receiver)
      continue;   /* receiver-driven (AVMRC: test_avmrc.c) or relay-only (RMANP: test_rmanp.c) */
    pname = amcc_protocol_at (i)->name;
    check (amcc_protocol_at (i));
  }
  pname = "";
}

static void test_rise_and_fall (void) { for_each_protocol (check_rise_and_fall); }
static void test_bottleneck (void) { for_each_protocol (check_bottleneck); }
static void test_timeout (void) { for_each_protocol (check_timeout); }
static void test_limits (void) { for_each_protocol (check_limits); }
static void test_bad_apps (void) { for_each_protocol (check_bad_apps); }
static void test_proofs (void) { for_each_protocol (check_proofs); }

static void
test_sr_memory (void)
{
  amcc_sr_memory m = { 0 };
  const amcc_time s = AMCC_NS_PER_S, ms = AMCC_NS_PER_MS;
  amcc_time at = 0;

  /* nothing remembered, and LSR 0 ("no SR yet") never is */
  AMT_CHECK (!amcc_sr_memory_proves (&m, 10 * s, 0x1000, 0, 0, NULL));
  amcc_sr_memory_note (&m, 10 * s, 0);
  AMT_CHECK (!amcc_sr_memory_find (&m, 0, &at));
  /* the last AMCC_SR_MEMORY: SR k (k = 1..17) at 10 + k s with NTP mid32 0x1000 + k; the 17th
   * overwrote the first */
  for (unsigned k = 1; k <= AMCC_SR_MEMORY + 1; k++)
    amcc_sr_memory_note (&m, (10 + k) * s, 0x1000 + k);
  AMT_CHECK (!amcc_sr_memory_find (&m, 0x1001, &at));
  AMT_CHECK (amcc_sr_memory_find (&m, 0x1002, &at) && at == 12 * s);
  AMT_CHECK (amcc_sr_memory_find (&m, 0x1000 + AMCC_SR_MEMORY + 1, &at) && at == 27 * s);
  /* SR 17 left at 27 s; at 28 s a DLSR of 1 s (65536) proves, 1 s + 2 units does not (one unit
   * of slack for the truncation) */
  AMT_CHECK (amcc_sr_memory_proves (&m, 28 * s, 0x1011, 65536, 0, &at) && at == 27 * s);
  AMT_CHECK (amcc_sr_memory_proves (&m, 28 * s, 0x1011, 65537, 0, NULL));
  AMT_CHECK (!amcc_sr_memory_proves (&m, 28 * s, 0x1011, 65538, 0, NULL));
  /* with 500 ms of slack (a receiver judging a peer): up to 1.5 s (98304) */
  AMT_CHECK (amcc_sr_memory_proves (&m, 28 * s, 0x1011, 98304, 500 * ms, NULL));
  AMT_CHECK (!amcc_sr_memory_proves (&m, 28 * s, 0x1011, 98306, 500 * ms, NULL));
  /* an SR "sent" after now, another LSR, a negative slack: no proof */
  AMT_CHECK (!amcc_sr_memory_proves (&m, 26 * s, 0x1011, 0, 0, NULL));
  AMT_CHECK (!amcc_sr_memory_proves (&m, 28 * s, 0x2011, 0, 0, NULL));
  AMT_CHECK (!amcc_sr_memory_proves (&m, 28 * s, 0x1011, 0, -1, NULL));
  /* the budget: 0 = no limit; a packet adding no unproven member always passes */
  AMT_CHECK (amcc_unproven_admit (15, 1, 16) && !amcc_unproven_admit (16, 1, 16));
  AMT_CHECK (!amcc_unproven_admit (15, 2, 16) && amcc_unproven_admit (16, 0, 16));
  AMT_CHECK (amcc_unproven_admit (1000, 64, 0));
  AMT_CHECK (!amcc_unproven_admit (UINT32_MAX, 1, UINT32_MAX));
}
static void test_all_silent (void) { for_each_protocol (check_all_silent); }
static void test_expiry_ramp (void) { for_each_protocol (check_expiry_ramp); }
static void test_sender_change (void) { for_each_protocol (check_sender_change); }

int
main (void)
{
  AMT_RUN (test_registry);
  AMT_RUN (test_rise_and_fall);
  AMT_RUN (test_bottleneck);
  AMT_RUN (test_timeout);
  AMT_RUN (test_limits);
  AMT_RUN (test_bad_apps);
  AMT_RUN (test_proofs);
  AMT_RUN (test_sr_memory);
  AMT_RUN (test_all_silent);
  AMT_RUN (test_expiry_ramp);
  AMT_RUN (test_sender_change);
  AMT_RUN (test_tfmcc_advertises_limits);
  return amt_summary ();
}
