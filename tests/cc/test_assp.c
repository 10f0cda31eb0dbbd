/* test_assp.c - ASSP's equations, switching rule and table against hand-computed values
 * (lib/cc/assp.c, spec/assp.md). The scenarios are in test_assp_scenarios.c. */
#include <amcc/assp.h>
#include <amcc/controller.h>
#include <string.h>
#include "amtest.h"

#define SEC AMCC_NS_PER_S

static void
test_params (void)
{
  amcc_assp_params p, q;

  amcc_assp_params_init (&p);
  AMT_CHECK (p.beta == 0.7 && p.lambda == 1.2 && p.kappa == 0.8 && p.a == 0.3);
  AMT_CHECK (p.delta_t == 5 * SEC && amcc_assp_params_validate (&p) == AMCC_OK);
  q = p; q.beta = 0;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  q = p; q.kappa = 1.5;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  q = p; q.lambda = 0.9;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  q = p; q.a = 0;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  q = p; q.delta_t = 0;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  q = p; q.up_hold = 20;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  q = p; q.settle = 17;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
  AMT_CHECK (p.settle == 1);
  AMT_CHECK (amcc_assp_params_validate (NULL) == AMCC_ERR_PARAM);
}

/* eq. 6 and eq. 3 by hand */
static void
test_averages (void)
{
  amcc_assp_avg v;
  amcc_time dt = 5 * SEC;

  AMT_NEAR (amcc_assp_ewma (100, 200, 0.3), 130, 1e-9);
  amcc_assp_avg_init (&v);
  AMT_CHECK (amcc_assp_avg_sample (&v, 1 * SEC, 100, dt) == 0);
  AMT_NEAR (amcc_assp_avg_value (&v), 100, 1e-9);         /* no window closed yet */
  AMT_CHECK (amcc_assp_avg_sample (&v, 3 * SEC, 300, dt) == 0);
  /* window [0, 5) seen from 1 s: 100 x 2 s + 300 x 2 s over 4 s = 200 */
  AMT_CHECK (amcc_assp_avg_sample (&v, 6 * SEC, 300, dt) == 1);
  AMT_NEAR (amcc_assp_avg_value (&v), 200, 1e-9);
  AMT_CHECK (amcc_assp_avg_sample (&v, 8 * SEC, 500, dt) == 0);
  /* window [5, 10): 300 x 3 s + 500 x 2 s over 5 s = 380 */
  AMT_CHECK (amcc_assp_avg_sample (&v, 10 * SEC, 500, dt) == 1);
  AMT_NEAR (amcc_assp_avg_value (&v), 380, 1e-9);
  /* windows passed whole at 500 */
  AMT_CHECK (amcc_assp_avg_sample (&v, 31 * SEC, 100, dt) == 1);
  AMT_NEAR (amcc_assp_avg_value (&v), 500, 1e-9);
  /* bad input changes nothing */
  AMT_CHECK (amcc_assp_avg_sample (&v, 32 * SEC, -1, dt) == 0);
  AMT_CHECK (amcc_assp_avg_sample (&v, 32 * SEC, 100, 0) == 0);
  AMT_NEAR (amcc_assp_avg_value (&v), 500, 1e-9);
}

/* The paper's streams: 100-200, 200-500, 600-1000 kbit/s */
static void
paper_table (amcc_assp_table *t)
{
  memset (t, 0, sizeof *t);
  t->count = 3;
  t->join = 1;
  t->s[0] = (amcc_assp_stream) { 180e3, 100e3, 200e3 };
  t->s[1] = (amcc_assp_stream) { 400e3, 200e3, 500e3 };
  t->s[2] = (amcc_assp_stream) { 700e3, 600e3, 1000e3 };
}

/* eq. 4-5 on both sides of each bound */
static void
test_decide (void)
{
  amcc_assp_params p;
  amcc_assp_table t;

  amcc_assp_params_init (&p);
  paper_table (&t);
  /* stream 0 -> 1 needs > 0.7 x 400k = 280k and > 1.2 x 200k = 240k */
  AMT_CHECK (amcc_assp_decide (&p, 281e3, &t, 0) == 1);
  AMT_CHECK (amcc_assp_decide (&p, 279e3, &t, 0) == 0);
  t.s[1].avg_bps = 300e3;                 /* now lambda binds: 0.7 x 300k = 210k < 240k */
  AMT_CHECK (amcc_assp_decide (&p, 241e3, &t, 0) == 1);
  AMT_CHECK (amcc_assp_decide (&p, 239e3, &t, 0) == 0);
  AMT_CHECK (amcc_assp_decide (&p, 10e3, &t, 0) == 0);   /* no stream below 0 */
  /* stream 1 -> 2 needs > 490k and > 720k; down below 0.8 x 200k = 160k */
  AMT_CHECK (amcc_assp_decide (&p, 721e3, &t, 1) == 1);
  AMT_CHECK (amcc_assp_decide (&p, 719e3, &t, 1) == 0);
  AMT_CHECK (amcc_assp_decide (&p, 161e3, &t, 1) == 0);
  AMT_CHECK (amcc_assp_decide (&p, 159e3, &t, 1) == -1);
  /* top stream: never up; down below 480k */
  AMT_CHECK (amcc_assp_decide (&p, 5e6, &t, 2) == 0);
  AMT_CHECK (amcc_assp_decide (&p, 479e3, &t, 2) == -1);
  AMT_CHECK (amcc_assp_decide (&p, 479e3, &t, 3) == 0);  /* no such stream */
}

static void
table_round (amcc_assp_table *t, uint16_t round, int join)
{
  t->round = round;
  t->join = join;
}

/* Decisions on J (or, late_j, the round's first table heard), once per round, none while a switch is pending; up_hold after a
 * failed move up doubles up to its maximum, and a move up that held clears it. */
static void
test_rule (void)
{
  amcc_assp_params p, q;
  amcc_assp_rule r;
  amcc_assp_table t;

  amcc_assp_params_init (&p);
  AMT_CHECK (p.up_hold == 3 && p.up_hold_max == 12 && p.late_j == 1);
  p.up_hold = 2;                          /* the sequence below by hand */
  p.up_hold_max = 16;
  p.late_j = 0;                           /* the paper's J; late_j below */
  paper_table (&t);
  amcc_assp_rule_init (&r, &p);
  table_round (&t, 1, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0);      /* no estimate yet */
  amcc_assp_rule_on_estimate (&r, 1e6, 0);
  AMT_NEAR (r.avg_rx, 1e6, 1e-9);                         /* the first estimate as is */
  amcc_assp_rule_on_estimate (&r, 1.1e6, 0);
  AMT_NEAR (r.avg_rx, 1.03e6, 1e-6);                      /* eq. 6 */
  amcc_assp_rule_on_estimate (&r, 2e6, 0);   /* counts as lambda x the top limit, 1.2 Mbit/s */
  AMT_NEAR (r.avg_rx, 0.7 * 1.03e6 + 0.3 * 1.2e6, 1e-6);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0);      /* round 1 was used */
  table_round (&t, 2, 0);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0);      /* no J */
  table_round (&t, 2, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1 && r.ups == 1);
  table_round (&t, 3, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1 && r.ups == 1);   /* switch pending */
  amcc_assp_rule_set_stream (&r, 1);
  /* stream 1 fails at once: down in round 4 -> hold 2 rounds: no move up before round 6 */
  r.avg_rx = 100e3;
  table_round (&t, 4, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0 && r.downs == 1 && r.hold == 2);
  amcc_assp_rule_set_stream (&r, 0);
  r.avg_rx = 1e6;
  table_round (&t, 5, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0);
  table_round (&t, 6, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1);
  amcc_assp_rule_set_stream (&r, 1);
  r.avg_rx = 100e3;                       /* fails again: hold 4 */
  table_round (&t, 7, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0 && r.hold == 4);
  amcc_assp_rule_set_stream (&r, 0);
  r.avg_rx = 1e6;
  table_round (&t, 10, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0);
  table_round (&t, 11, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1);
  amcc_assp_rule_set_stream (&r, 1);
  /* this time stream 1 holds past up_hold rounds: the hold is cleared */
  r.avg_rx = 400e3;
  table_round (&t, 12, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1);
  table_round (&t, 14, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1 && r.hold == 0);
  /* the round counter wraps */
  table_round (&t, 65535, 1);
  r.avg_rx = 100e3;
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0 && r.downs == 3);
  amcc_assp_rule_set_stream (&r, 0);
  r.avg_rx = 1e6;
  table_round (&t, 0, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1);
  /* settle: after a move down, no second one at the next round */
  amcc_assp_rule_init (&r, &p);
  amcc_assp_rule_set_stream (&r, 2);
  amcc_assp_rule_on_estimate (&r, 100e3, 0);
  table_round (&t, 20, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1);
  amcc_assp_rule_set_stream (&r, 1);
  table_round (&t, 21, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1);      /* settling */
  table_round (&t, 22, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0 && r.downs == 2);
  /* up_hold = 0, settle = 0: the paper's rule, no waiting */
  p.settle = 0;
  p.up_hold = 0;
  amcc_assp_rule_init (&r, &p);
  amcc_assp_rule_on_estimate (&r, 1e6, 0);
  for (uint16_t k = 1; k < 9; k++) {
    table_round (&t, k, 1);
    AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == (k % 2 ? 1 : 0));
    amcc_assp_rule_set_stream (&r, r.wanted);
    r.avg_rx = k % 2 ? 100e3 : 1e6;
  }
  AMT_CHECK (r.ups == 4 && r.downs == 4);
  /* late_j: round 31's J lost, its next table decides; later ones of the round do not */
  p.late_j = 1;
  amcc_assp_rule_init (&r, &p);
  amcc_assp_rule_set_stream (&r, 2);
  amcc_assp_rule_on_estimate (&r, 400e3, 1);              /* below 0.8 x 600k */
  table_round (&t, 30, 1);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1 && r.downs == 1);
  amcc_assp_rule_set_stream (&r, 1);
  r.avg_rx = 100e3;                                       /* below 0.8 x 200k */
  table_round (&t, 31, 0);                                /* settle = 0 from above */
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0 && r.downs == 2);
  amcc_assp_rule_set_stream (&r, 0);
  r.avg_rx = 1e6;
  table_round (&t, 31, 1);                                /* round 31 was decided */
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0 && r.ups == 0);
  table_round (&t, 32, 0);
  AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 1 && r.ups == 1);
  /* late_j = 0: tables without J never decide */
  p.late_j = 0;
  amcc_assp_rule_init (&r, &p);
  amcc_assp_rule_on_estimate (&r, 1e6, 0);
  for (uint16_t k = 40; k < 45; k++) {
    table_round (&t, k, 0);
    AMT_CHECK (amcc_assp_rule_on_table (&r, &t) == 0);
  }
  q = p;
  q.late_j = 2;
  AMT_CHECK (amcc_assp_params_validate (&q) == AMCC_ERR_PARAM);
}

static void
test_wire (void)
{
  amcc_assp_table t, d;
  uint8_t buf[128];
  size_t n = 0, used = 0;

  paper_table (&t);
  t.stream = 2;
  t.round = 0xBEEF;
  AMT_CHECK (amcc_assp_table_encode (&t, buf, sizeof buf, &n) == AMCC_OK);
  AMT_CHECK (n == AMCC_ASSP_TABLE_LEN (3) && n == 44);
  AMT_CHECK (buf[0] == AMCC_ASSP_WIRE_VERSION && buf[1] == 1 && buf[2] == 3 && buf[3] == 2);
  static const uint8_t head[20] = { 0x01, 0x01, 0x03, 0x02, 0xBE, 0xEF, 0x00, 0x00, 0x00, 0x02,
    0xBF, 0x20, 0x00, 0x01, 0x86, 0xA0, 0x00, 0x03, 0x0D, 0x40 };   /* docs/wire-formats.md */
  AMT_CHECK (memcmp (buf, head, sizeof head) == 0);
  AMT_CHECK (amcc_assp_table_decode (buf, n, &d, &used) == AMCC_OK && used == n);
  AMT_CHECK (d.count == 3 && d.stream == 2 && d.join && d.round == 0xBEEF);
  for (int i = 0; i < 3; i++)
    AMT_CHECK (d.s[i].avg_bps == t.s[i].avg_bps && d.s[i].low_bps == t.s[i].low_bps
        && d.s[i].high_bps == t.s[i].high_bps);
  /* trailing bytes are the echo: not the table's */
  AMT_CHECK (amcc_assp_table_decode (buf, n + 4, &d, &used) == AMCC_OK && used == n);
  /* every truncation is rejected, reading nothing past the end */
  for (size_t k = 0; k < n; k++)
    AMT_CHECK (amcc_assp_table_decode (buf, k, &d, &used) == AMCC_ERR_TRUNCATED);
  uint8_t bad[64];
  memcpy (bad, buf, n);
  bad[0] = 2;
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_VERSION);
  memcpy (bad, buf, n);
  bad[1] = 0x81;
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_FIELD);
  memcpy (bad, buf, n);
  bad[2] = 0;
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_FIELD);
  bad[2] = 9;
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_FIELD);
  memcpy (bad, buf, n);
  bad[3] = 3;                             /* stream >= count */
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_FIELD);
  memcpy (bad, buf, n);
  bad[7] = 1;                             /* reserved */
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_FIELD);
  memcpy (bad, buf, n);
  bad[12] = 0xFF;                         /* stream 0's low above its high */
  AMT_CHECK (amcc_assp_table_decode (bad, n, &d, &used) == AMCC_ERR_FIELD);
  /* encoder: bad values and room */
  AMT_CHECK (amcc_assp_table_encode (&t, buf, n - 1, &n) == AMCC_ERR_NOSPACE);
  t.s[1].avg_bps = 5e9;
  AMT_CHECK (amcc_assp_table_encode (&t, buf, sizeof buf, &n) == AMCC_ERR_FIELD);
  t.s[1].avg_bps = NAN;
  AMT_CHECK (amcc_assp_table_encode (&t, buf, sizeof buf, &n) == AMCC_ERR_FIELD);
  paper_table (&t);
  t.s[0].low_bps = 300e3;
  AMT_CHECK (amcc_assp_table_encode (&t, buf, sizeof buf, &n) == AMCC_ERR_FIELD);
  paper_table (&t);
  t.stream = 3;
  AMT_CHECK (amcc_assp_table_encode (&t, buf, sizeof buf, &n) == AMCC_ERR_PARAM);
}

/* The interface: grouping rules; a single-rate protocol has only stream 0. */
static void
test_grouping (void)
{
  const amcc_protocol *assp = amcc_protocol_find ("assp"), *asmp = amcc_protocol_find ("asmp");
  amcc_ctl_config c;
  amcc_sender *s[4];
  amcc_receiver *r;

  AMT_CHECK (assp && asmp && assp->max_streams == AMCC_ASSP_MAX_STREAMS && asmp->max_streams == 1);
  amcc_ctl_config_init (&c);
  for (int i = 0; i < 3; i++)
    s[i] = amcc_sender_new (assp, &c, 0);
  s[3] = amcc_sender_new (asmp, &c, 0);
  AMT_CHECK (amcc_sender_group (s, 0) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_sender_group (s + 2, 2) == AMCC_ERR_PARAM);   /* two protocols */
  amcc_sender *twice[2] = { s[0], s[0] };
  AMT_CHECK (amcc_sender_group (twice, 2) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_sender_group (s + 3, 1) == AMCC_OK);           /* a group of one */
  AMT_CHECK (amcc_sender_group (s, 3) == AMCC_OK);
  AMT_CHECK (amcc_sender_stream (s[0]) == 0 && amcc_sender_stream (s[2]) == 2);
  AMT_CHECK (amcc_sender_group (s, 2) == AMCC_ERR_PARAM);        /* already grouped */
  amcc_sender_free (s[1]);                                        /* unties the others */
  AMT_CHECK (amcc_sender_stream (s[2]) == 0);
  s[1] = s[2];
  AMT_CHECK (amcc_sender_group (s, 2) == AMCC_OK);
  amcc_sender_free (s[0]);
  amcc_sender_free (s[2]);
  amcc_sender_free (s[3]);

  r = amcc_receiver_new (asmp, &c, 0);
  AMT_CHECK (amcc_receiver_wanted_stream (r) == 0);
  AMT_CHECK (amcc_receiver_set_stream (r, 0, 1) == AMCC_ERR_PARAM);
  AMT_CHECK (amcc_receiver_set_stream (r, 0, 0) == AMCC_OK);
  amcc_receiver_free (r);
  r = amcc_receiver_new (assp, &c, 0);
  AMT_CHECK (amcc_receiver_set_stream (r, 0, 2) == AMCC_OK);
  AMT_CHECK (amcc_receiver_wanted_stream (r) == 2);
  AMT_CHECK (amcc_receiver_set_stream (r, 0, AMCC_ASSP_MAX_STREAMS) == AMCC_ERR_PARAM);
  amcc_receiver_free (r);
}

/* set_stream on the stream received cancels a wish and keeps the measurement; another stream
 * restarts it. */
static void
test_cancel_switch (void)
{
  const amcc_protocol *assp = amcc_protocol_find ("assp");
  amcc_ctl_config c;
  amcc_receiver_stats st;
  amcc_receiver *r;
  amcc_time t = 0;

  amcc_ctl_config_init (&c);
  r = amcc_receiver_new (assp, &c, 0);
  for (uint16_t q = 0; q < 200; q++) {
    amcc_packet p = { .ssrc = 0x1234, .seq = q, .rtp_ts = q * 3000u, .bytes = 1000,
                      .send_time = AMCC_TIME_NONE };
    t = (amcc_time) q * 10 * AMCC_NS_PER_MS;
    if (q % 50 != 49)                   /* a loss now and then */
      amcc_receiver_on_rtp (r, t, &p);
  }
  amcc_receiver_get_stats (r, t, &st);
  AMT_CHECK (st.sender_ssrc == 0x1234 && st.packets_lost == 3);
  AMT_CHECK (amcc_receiver_set_stream (r, t, 0) == AMCC_OK);
  amcc_receiver_get_stats (r, t, &st);
  AMT_CHECK (st.sender_ssrc == 0x1234 && st.packets_lost == 3 && st.stream == 0
             && st.wanted_stream == 0);
  AMT_CHECK (amcc_receiver_set_stream (r, t, 1) == AMCC_OK);
  amcc_receiver_get_stats (r, t, &st);
  AMT_CHECK (st.stream == 1 && st.packets_lost == 0);
  amcc_receiver_free (r);
}

int
main (void)
{
  AMT_RUN (test_params);
  AMT_RUN (test_averages);
  AMT_RUN (test_decide);
  AMT_RUN (test_rule);
  AMT_RUN (test_wire);
  AMT_RUN (test_grouping);
  AMT_RUN (test_cancel_switch);
  return amt_summary ();
}
