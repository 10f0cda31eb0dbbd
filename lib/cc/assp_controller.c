/* assp_controller.c - ASSP behind the controller interface (amcc/controller.h, amcc/assp.h).
 * Sender: one ASMP sender per stream (eq. 2 = ASMP's minimum clamped to the stream's limits by
 * the shared policy); its SR APP is the stream table of the whole group (eq. 3 averages, limits,
 * J on the first SR of each window) followed by ASMP's RTT echo for the stream's receivers.
 * Receiver: ASMP's receiver on the current stream reports as usual; each report feeds eq. 6 and
 * each J round eq. 4-5, which set the stream wanted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/assp.h"
#include "amcc/tcpmodel.h"
#include "asmp_controller.h"

/* ---------------------------------------------------------------- sender */

typedef struct {
  asmp_tx asmp;                 /* first: the ASMP functions take this struct */
  amcc_assp_params p;
  amcc_assp_avg avg;            /* eq. 3 of this stream */
  int have_join;
  int64_t join_window;          /* window whose J this session sent */
} assp_tx;

static amcc_sender *
tx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  assp_tx *a = calloc (1, sizeof *a);

  if (!a)
    return NULL;
  if (amcc_asmp_tx_init (&a->asmp, cfg, now) != AMCC_OK) {
    free (a);
    return NULL;
  }
  amcc_assp_params_init (&a->p);
  amcc_assp_avg_init (&a->avg);
  return &a->asmp.base;
}

static amcc_app_result
tx_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4], uint8_t subtype,
    const uint8_t *data, size_t len)
{
  if (memcmp (name, AMCC_ASSP_APP_NAME, 4) == 0)
    return AMCC_APP_IGNORED;    /* another sender's table */
  return amcc_asmp_tx_on_app (s, now, ssrc, name, subtype, data, len);
}

static int
tx_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  assp_tx *a = (assp_tx *) s;
  amcc_time dt = a->p.delta_t;
  amcc_assp_table t;
  size_t tl = 0;
  amcc_app echo;
  int ret;

  /* eq. 3 of every stream, each at the target it has had since its last rate call */
  for (uint32_t i = 0; i < s->group_n; i++) {
    amcc_sender *g = s->group[i];
    double r = g == s ? amcc_sender_rate (s, now) : amcc_sender_last_rate (g);
    amcc_assp_avg_sample (&((assp_tx *) g)->avg, now, r, dt);
  }
  memset (&t, 0, sizeof t);
  t.count = s->group_n;
  t.stream = s->stream;
  int64_t w = a->avg.window;
  t.join = !a->have_join || w != a->join_window;        /* the first SR of each window */
  t.round = (uint16_t) w;
  for (uint32_t i = 0; i < t.count; i++) {
    amcc_sender *g = s->group[i];
    t.s[i].avg_bps = amcc_assp_avg_value (&((assp_tx *) g)->avg);
    t.s[i].low_bps = g->cfg.min_bps < g->cfg.max_bps ? g->cfg.min_bps : g->cfg.max_bps;
    t.s[i].high_bps = g->cfg.max_bps;
  }
  if ((ret = amcc_assp_table_encode (&t, buf, cap, &tl)) != AMCC_OK)
    return ret;
  if ((ret = amcc_asmp_tx_next_app (s, now, buf + tl, cap - tl, &echo)) < 0)
    return ret;
  a->have_join = 1;
  a->join_window = w;
  return amcc_app_made (out, AMCC_ASSP_APP_NAME, AMCC_ASSP_SUBTYPE_TABLE, tl + echo.len);
}

static const amcc_sender_ops sender_ops = {
  .create = tx_create, .destroy = amcc_asmp_tx_destroy,
  .on_report_block = amcc_asmp_tx_on_report_block, .on_app = tx_on_app,
  .on_bye = amcc_asmp_tx_on_bye, .rate = amcc_asmp_tx_rate, .next_app = tx_next_app,
  .get_stats = amcc_asmp_tx_get_stats,
  /* containment (contain.c): a stream's receivers send ASMP reports, judged as ASMP's are
   * against this stream's sending; a damped rate is still clamped to the stream's limits */
  .claim = amcc_asmp_tx_claim, .set_claim_rate = amcc_asmp_tx_set_claim_rate,
};

/* ---------------------------------------------------------------- receiver */

typedef struct {
  asmp_rx asmp;                 /* first: the ASMP functions take this struct */
  amcc_assp_rule rule;
  double share;                 /* the last share given to eq. 6, bit/s */
  int64_t lost;                 /* packets lost on the current stream at the last report */
  double high;                  /* the current stream's upper limit (last table), 0 = unknown */
  double low;                   /* ... its lower limit */
  double avg_tx;                /* the current stream's eq. 3 average (last table), 0 = unknown */
  double peer_min;              /* lowest rate a peer on our stream reported lately */
  amcc_time peer_at;            /* ... when, AMCC_TIME_NONE = none */
  amcc_time share_at;           /* when share was set, AMCC_TIME_NONE = never */
  double knee;                  /* rate that arrived when the path last pushed back, bit/s */
  amcc_time knee_at;            /* ... when, AMCC_TIME_NONE = never */
  double stream_avg[AMCC_ASSP_MAX_STREAMS];     /* every stream's eq. 3 average (last table) */
} assp_rx;

/* The share eq. 6 smooths. eq. 4 moves up only on a share above lambda x the next stream's lower
 * limit, i.e. above what the current stream delivers, while ASMP's estimate stays near what
 * arrives (a single-rate sender follows it). So while our report is clean (no packet lost, no
 * standing queue; eq. 18's indicator flips with an encoder's bursts on an idle path, so it is
 * not asked) the share may run ahead of ASMP's estimate:
 *   - when something other than our path holds the stream back (its upper limit, a peer
 *     reporting a lower rate), as eq. 13 would: one nominal packet per RTT per report, from
 *     where it was;
 *   - when the encoder sends less than its target, up to that target (the rate the stream's
 *     receivers asked for; what arrives cannot show more of the path);
 *   - during ASMP's start-up (no queue or loss seen on the path yet; receivers with fast paths
 *     share the stream and hold it together) as fast as that start-up: x startup_gain per s.
 * Otherwise, and at any sign of congestion, it is ASMP's estimate: a receiver that holds its
 * stream itself measures its path directly. Within knee_hold of such a sign, neither probe goes
 * past the rate that arrived then (the knee, amcc_assp_params): clean is not room to spare.
 * floor_competing: at the stream's floor the sender cannot follow ASMP's drain, by which ASMP
 * tells a competitor's queue from its own; the share then is at least eq. 12's rate. */
#define PROBE_PKT_BYTES 1448.0          /* TCP's segment, as ASMP's nominal_pkt_bytes */
#define PROBE_QUEUE_S 0.02              /* ASMP's queue_target_s: a queue that stands */
#define HELD_FRAC 0.9                   /* "at the limit" / "a peer lower" by this margin */
#define PEER_MEMORY 3                   /* a peer's report counts for 3 RTCP intervals */
#define FLOOR_FRAC 1.05                 /* "at its lower limit" within this margin */

enum { HELD_BY_PATH, HELD_BY_LIMIT_OR_PEER, HELD_BY_ENCODER };

static int
held_by (const assp_rx *a, amcc_time now, double rate_bps)
{
  double recv_bps = a->asmp.rx.recv_Bps * 8.0;

  if (a->high > 0 && (recv_bps >= HELD_FRAC * a->high || a->avg_tx >= HELD_FRAC * a->high))
    return HELD_BY_LIMIT_OR_PEER;       /* the stream (or its target) at its upper limit */
  if (a->peer_at != AMCC_TIME_NONE
      && now - a->peer_at <= PEER_MEMORY * a->asmp.base.cfg.rtcp_interval
      && a->peer_min < HELD_FRAC * rate_bps)
    return HELD_BY_LIMIT_OR_PEER;
  if (a->avg_tx > 0 && recv_bps < HELD_FRAC * a->avg_tx)
    return HELD_BY_ENCODER;             /* the encoder does not use its target */
  return HELD_BY_PATH;
}

/* The knee: the most that arrived at a sign of congestion within knee_hold (a move down's
 * tail of losses arrives slower than the stream that congested), raised by clean reports that
 * arrive faster; +inf when there was none within knee_hold (or knee_hold is 0). */
static double
probe_cap (assp_rx *a, amcc_time now, int pushed_back)
{
  double recv_bps = a->asmp.rx.recv_Bps * 8.0;
  int fresh = a->knee_at != AMCC_TIME_NONE && now - a->knee_at < a->rule.p.knee_hold;

  if (a->rule.p.knee_hold <= 0)
    return INFINITY;
  if (pushed_back) {
    a->knee = fresh ? fmax (a->knee, recv_bps) : recv_bps;
    a->knee_at = now;
  } else if (a->knee_at != AMCC_TIME_NONE && recv_bps > a->knee) {
    a->knee = recv_bps;
  }
  if (a->knee_at == AMCC_TIME_NONE || now - a->knee_at >= a->rule.p.knee_hold)
    return INFINITY;
  return a->knee;
}

static double
share_estimate (assp_rx *a, amcc_time now, const amcc_asmp_report *rep, int lossy)
{
  int pushed_back = lossy || rep->queue_s >= PROBE_QUEUE_S;
  int clean = !pushed_back && a->share > 0;
  double rtt = rep->rtt_s > 0 ? rep->rtt_s : 0.1, r = rep->rate_bps;
  double recv_bps = a->asmp.rx.recv_Bps * 8.0;
  double secs = a->share_at != AMCC_TIME_NONE ? amcc_time_to_s (now - a->share_at) : 0;
  double cap = probe_cap (a, now, pushed_back);
  int held = clean ? held_by (a, now, rep->rate_bps) : HELD_BY_PATH;

  if (clean)
    r = fmax (r, recv_bps);     /* what the path carried cleanly (ASMP rises slowly after loss) */

  if (held == HELD_BY_LIMIT_OR_PEER)
    r = fmax (r, fmin (cap, a->share + 8.0 * PROBE_PKT_BYTES / rtt));          /* eq. 13 */
  else if (held == HELD_BY_ENCODER)
    r = fmax (r, fmin (cap, a->avg_tx));
  else if (clean && rep->mode == AMCC_ASMP_STARTUP)
    r = fmax (r, fmin (cap,
            a->share * (1.0 + (a->asmp.p.startup_gain - 1.0) * fmin (1.0, secs))));
  if (a->rule.p.floor_competing && pushed_back && a->low > 0 && rep->rate_bps < a->low
      && a->avg_tx > 0 && a->avg_tx <= FLOOR_FRAC * a->low && rep->mode != AMCC_ASMP_COMPETING
      && rep->loss_event_rate > 0)                                               /* eq. 12 */
    r = fmax (r, 8.0 * amcc_pftk_rate (PROBE_PKT_BYTES, rtt, rep->loss_event_rate));
  a->share = r;
  a->share_at = now;
  return r;
}

static amcc_receiver *
rx_create (const amcc_ctl_config *cfg, amcc_time now)
{
  assp_rx *a = calloc (1, sizeof *a);
  amcc_asmp_params p;
  amcc_assp_params ap;

  if (!a)
    return NULL;
  amcc_asmp_params_init (&p);
  /* the share probe (held_by: "at the stream's limit" at 0.9 x it) was tuned on the bytes
   * between reports, whose packet-count noise read an encoder filling 88 % of the limit as
   * 96 % (test_pairs_stay_put); the on-time measure reads 88 % and the pair never moves up */
  p.recv_least_delay = 0;
  /* the switching rule was tuned with a standing queue's rate forgotten at each drained report:
   * remembered (single-rate ASMP's default), a receiver next to 4 Reno flows went COMPETING
   * and its share fell below stream 2 (ns-3 sim-assp, seeds 2 and 3, 'down') */
  p.queue_cap_hold_s = 0;
  /* the stream choice holds its own knee (knee_hold, 60 s); with ASMP's knee_hold_s as well,
   * stream 2's target in test_accuracy (cc-assp-scenarios) fell out of its 200-300 kbit/s band */
  p.knee_hold_s = 0;
  amcc_asmp_rx_init (&a->asmp, cfg, &p);
  amcc_assp_params_init (&ap);
  amcc_assp_rule_init (&a->rule, &ap);
  a->peer_at = a->share_at = a->knee_at = AMCC_TIME_NONE;
  return &a->asmp.base;
}

/* a new sender (restart): a new session, from stream 0 */
static void
rx_reset (amcc_receiver *r, amcc_time now)
{
  assp_rx *a = (assp_rx *) r;

  amcc_asmp_rx_restart (&a->asmp);
  amcc_assp_rule_init (&a->rule, &a->rule.p);
  a->share = a->high = a->low = a->avg_tx = 0;
  a->lost = 0;
  a->knee = 0;
  memset (a->stream_avg, 0, sizeof a->stream_avg);
  a->peer_at = a->share_at = a->knee_at = AMCC_TIME_NONE;
}

static amcc_app_result
rx_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  assp_rx *a = (assp_rx *) r;
  amcc_assp_table t;
  size_t used = 0;

  if (memcmp (name, AMCC_ASSP_APP_NAME, 4) != 0) {
    amcc_asmp_report rep;
    amcc_app_result res = amcc_asmp_rx_on_app (r, now, ssrc, name, subtype, data, len);
    /* a peer's report on our stream: who holds the stream back */
    if (res == AMCC_APP_TAKEN && subtype == AMCC_ASMP_SUBTYPE_REPORT
        && amcc_asmp_report_decode (data, len, &rep) == AMCC_OK) {
      if (a->peer_at == AMCC_TIME_NONE || rep.rate_bps < a->peer_min
          || now - a->peer_at > PEER_MEMORY * r->cfg.rtcp_interval)
        a->peer_min = rep.rate_bps;
      a->peer_at = now;
    }
    return res;
  }
  if (subtype != AMCC_ASSP_SUBTYPE_TABLE || amcc_assp_table_decode (data, len, &t, &used) != AMCC_OK)
    return AMCC_APP_MALFORMED;
  /* the echo for this stream's receivers; another session's (during a switch) is not ours */
  if (t.stream == a->rule.stream
      && amcc_asmp_rx_on_app (r, now, ssrc, AMCC_ASMP_APP_NAME, AMCC_ASMP_SUBTYPE_ECHO,
          data + used, len - used) == AMCC_APP_MALFORMED)
    return AMCC_APP_MALFORMED;
  if (a->rule.stream < t.count) {
    a->high = t.s[a->rule.stream].high_bps;
    a->low = t.s[a->rule.stream].low_bps;
    a->avg_tx = t.s[a->rule.stream].avg_bps;
  }
  for (uint32_t i = 0; i < t.count; i++)
    a->stream_avg[i] = t.s[i].avg_bps;
  amcc_assp_rule_on_table (&a->rule, &t);
  return AMCC_APP_TAKEN;
}

static int
rx_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  assp_rx *a = (assp_rx *) r;
  int ret = amcc_asmp_rx_next_app (r, now, buf, cap, out);

  if (ret >= 0 && a->asmp.have_last) {
    int64_t lost = amcc_seq_lost (&a->asmp.rx.seq);
    int lossy = lost > a->lost;
    amcc_assp_rule_on_estimate (&a->rule, share_estimate (a, now, &a->asmp.last, lossy), lossy);
    a->lost = lost;
  }
  return ret;
}

static void
rx_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st)
{
  assp_rx *a = (assp_rx *) r;

  amcc_asmp_rx_get_stats (r, now, st);
  st->stream = a->rule.stream;
  st->wanted_stream = a->rule.wanted;
  st->stream_ups = a->rule.ups;
  st->stream_downs = a->rule.downs;
  st->share_bps = a->rule.have_avg ? a->rule.avg_rx : 0;
}

static uint32_t
rx_wanted_stream (amcc_receiver *r)
{
  return ((assp_rx *) r)->rule.wanted;
}

/* eq. 6's average bridges the switch; the new stream's packets are measured afresh. The stream
 * already received: a pending wish is dropped (the caller gave up the switch), nothing restarts. */
static void
rx_set_stream (amcc_receiver *r, amcc_time now, uint32_t stream)
{
  assp_rx *a = (assp_rx *) r;

  if (stream == a->rule.stream) {
    a->rule.wanted = stream;
    return;
  }
  amcc_asmp_rx_restart (&a->asmp);
  /* its start-up climbs from the new stream's rate, not the configured initial rate (500 kbit/s
   * by default, which a first interval under 0.2 s keeps until the path pushes back) */
  if (stream < AMCC_ASSP_MAX_STREAMS && a->stream_avg[stream] > 0)
    a->asmp.p.initial_rate_bps = a->asmp.rx.p.initial_rate_bps = a->stream_avg[stream];
  a->lost = 0;
  a->high = a->low = a->avg_tx = 0;
  a->peer_at = AMCC_TIME_NONE;        /* peers of the old stream */
  amcc_assp_rule_set_stream (&a->rule, stream);
}

static const amcc_receiver_ops receiver_ops = {
  .create = rx_create, .destroy = amcc_asmp_rx_destroy, .on_rtp = amcc_asmp_rx_on_rtp,
  .on_sender_report = amcc_asmp_rx_on_sender_report, .on_app = rx_on_app,
  .next_app = rx_next_app, .early_due = amcc_asmp_rx_early_due, .get_stats = rx_get_stats,
  .reset = rx_reset, .wanted_stream = rx_wanted_stream, .set_stream = rx_set_stream,
};

const amcc_protocol amcc_assp_protocol = {
  .name = "assp",
  .description = "ASSP (Adaptive Smooth Simulcast Protocol)",
  .rtp_profile = AMCC_RTP_AVP,
  .max_streams = AMCC_ASSP_MAX_STREAMS,
  .sender = &sender_ops,
  .receiver = &receiver_ops,
};

int
amcc_assp_receiver_set_params (struct amcc_receiver *r, const amcc_assp_params *p)
{
  if (!r || r->proto != &amcc_assp_protocol || amcc_assp_params_validate (p) != AMCC_OK)
    return AMCC_ERR_PARAM;
  ((assp_rx *) r)->rule.p = *p;
  return AMCC_OK;
}
