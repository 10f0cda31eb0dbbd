/* controller.c - the protocol registry and the policy every protocol shares: the target's
 * clamp to limits that may change while playing, the receiver timeout, the sender's receiver
 * views, own-SSRC filtering, random numbers. The protocols themselves are the adapters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "controller_impl.h"
#include "amcc/rtt.h"

/* A new protocol: one adapter file and one line here. The order gives the elements' enum values. */
static const amcc_protocol *const registry[] = {
  &amcc_asmp_protocol,
  &amcc_tfmcc_protocol,
  &amcc_assp_protocol,
  &amcc_pgmcc_protocol,
  &amcc_avmrc_protocol,
  &amcc_rmrc_protocol,
  &amcc_vmrc_protocol,
  &amcc_rmanp_protocol,          /* relay role only: max_streams 0 keeps it out of the elements' enum */
  &amcc_vmrc30_protocol,
};
#define N_PROTOCOLS (sizeof registry / sizeof registry[0])

#define PEER_VIEW_INTERVALS 10      /* stats forget a receiver silent for 10 RTCP intervals */
#define TIMEOUT_INTERVALS 3         /* a receiver is gone after 3 silent RTCP intervals (spec:
                                       "e.g. after 3 intervals") */
#define EXPIRY_RISE 0.10           /* after a receiver expired without BYE the target rises at
                                      most 10 % per RTCP interval (its reports may only be lost) */
#define EXPIRY_HOLD_INTERVALS 3    /* ... after holding for 3 more intervals: at 50 % RTCP loss
                                      3 reports in a row are lost 1 time in 8, 6 in 64 */

static int
same_name (const char *a, const char *b)
{
  while (*a && *a == *b)          /* no strcmp: lib/cc links libm and memory functions only */
    a++, b++;
  return *a == *b;
}

const amcc_protocol *
amcc_protocol_find (const char *name)
{
  for (size_t i = 0; name && i < N_PROTOCOLS; i++)
    if (same_name (registry[i]->name, name))
      return registry[i];
  return NULL;
}

size_t amcc_protocol_count (void) { return N_PROTOCOLS; }

const amcc_protocol *
amcc_protocol_at (size_t i)
{
  return i < N_PROTOCOLS ? registry[i] : NULL;
}

void
amcc_ctl_config_init (amcc_ctl_config *c)
{
  memset (c, 0, sizeof *c);
  c->initial_bps = 500e3;
  c->min_bps = 64e3;
  c->max_bps = 20e6;
  c->rtcp_interval = AMCC_NS_PER_S;
  c->clock_rate = 90000;
  c->outlier_ratio = 0.5;
  c->outlier_intervals = 10;
  c->plausible_margin = 0.25;
  c->damp_drop = 0.5;
  c->report_limit = 4;
  c->elect_confirm = 0.5;
  c->acker_loss_factor = 2;
  c->acker_loss_time = 2 * AMCC_NS_PER_S;
  c->acker_hold = 60 * AMCC_NS_PER_S;
  c->acker_vouch_rtt = 1;
}

double
amcc_ctl_uniform (uint64_t *state)
{
  uint64_t z = (*state += UINT64_C (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94D049BB133111EB);
  z ^= z >> 31;
  return (double) (z >> 11) * 0x1.0p-53;
}

/* ---------------------------------------------------------------- sender */

static int
rates_valid (const amcc_ctl_config *c)
{
  return c->min_bps > 0 && c->max_bps >= c->min_bps && isfinite (c->max_bps)
      && c->initial_bps >= c->min_bps && c->initial_bps <= c->max_bps;
}

amcc_sender *
amcc_sender_new (const amcc_protocol *proto, const amcc_ctl_config *cfg, amcc_time now)
{
  if (!proto || !proto->sender || !cfg || !(cfg->rtcp_interval > 0) || !rates_valid (cfg)
      || !(cfg->outlier_ratio >= 0 && cfg->outlier_ratio < 1)
      || !(cfg->plausible_margin >= 0 && cfg->plausible_margin <= 1)
      || !(cfg->damp_drop >= 0 && cfg->damp_drop < 1)
      || !(cfg->elect_confirm >= 0 && cfg->elect_confirm <= 100)
      || !(cfg->acker_loss_factor >= 0 && cfg->acker_loss_factor <= 1e6)
      || cfg->acker_loss_time < 0 || cfg->acker_hold < 0
      || (cfg->acker_vouch_rtt != 0 && cfg->acker_vouch_rtt != 1))
    return NULL;
  amcc_ctl_config c = *cfg;
  if (c.receiver_timeout <= 0)
    c.receiver_timeout = TIMEOUT_INTERVALS * c.rtcp_interval;
  amcc_sender *s = proto->sender->create (&c, now);
  if (!s)
    return NULL;
  s->timeout_auto = cfg->receiver_timeout <= 0;
  s->proto = proto;
  s->cfg = c;
  memset (&s->peers, 0, sizeof s->peers);
  memset (&s->srs, 0, sizeof s->srs);
  s->last_heard = AMCC_TIME_NONE;
  s->rate_heard = c.initial_bps;
  s->live = 0;
  s->bye_seen = s->ramping = 0;
  s->last_rate = 0;
  s->outlier_on = 0;
  amcc_contain_init (s);
  memset (s->group, 0, sizeof s->group);
  s->group[0] = s;
  s->group_n = 1;
  s->stream = 0;
  return s;
}

static void
untie (amcc_sender *s)
{
  amcc_sender *g[AMCC_MAX_STREAMS];
  uint32_t n = s->group_n;

  memcpy (g, s->group, sizeof g);
  for (uint32_t i = 0; i < n; i++) {
    memset (g[i]->group, 0, sizeof g[i]->group);
    g[i]->group[0] = g[i];
    g[i]->group_n = 1;
    g[i]->stream = 0;
  }
}

int
amcc_sender_group (amcc_sender *const *streams, size_t n)
{
  if (!streams || n == 0 || n > AMCC_MAX_STREAMS || !streams[0]
      || n > streams[0]->proto->max_streams)
    return AMCC_ERR_PARAM;
  for (size_t i = 0; i < n; i++) {
    if (!streams[i] || streams[i]->proto != streams[0]->proto || streams[i]->group_n != 1)
      return AMCC_ERR_PARAM;
    for (size_t k = 0; k < i; k++)
      if (streams[k] == streams[i])
        return AMCC_ERR_PARAM;
  }
  for (size_t i = 0; i < n; i++) {
    memset (streams[i]->group, 0, sizeof streams[i]->group);
    memcpy (streams[i]->group, streams, n * sizeof *streams);
    streams[i]->group_n = (uint32_t) n;
    streams[i]->stream = (uint32_t) i;
  }
  return AMCC_OK;
}

uint32_t amcc_sender_stream (const amcc_sender *s) { return s->stream; }

double
amcc_sender_last_rate (const amcc_sender *s)
{
  return s->last_rate > 0 ? s->last_rate : s->cfg.initial_bps;
}

void
amcc_sender_free (amcc_sender *s)
{
  if (!s)
    return;
  untie (s);
  free (s->peers.slot);
  s->proto->sender->destroy (s);
}

const amcc_protocol *amcc_sender_protocol (const amcc_sender *s) { return s->proto; }
void amcc_sender_set_ssrc (amcc_sender *s, uint32_t ssrc) { s->cfg.ssrc = ssrc; }
amcc_time amcc_sender_receiver_timeout (const amcc_sender *s) { return s->cfg.receiver_timeout; }

void
amcc_sender_set_rtcp_interval (amcc_sender *s, amcc_time now, amcc_time interval)
{
  (void) now;
  if (s->timeout_auto && interval > 0)
    s->cfg.receiver_timeout = TIMEOUT_INTERVALS * (interval > s->cfg.rtcp_interval ? interval
        : s->cfg.rtcp_interval);
}

void
amcc_sender_on_rtp_sent (amcc_sender *s, amcc_time now, size_t bytes)
{
  amcc_contain_on_sent (s, now, bytes);
  if (s->proto->sender->on_rtp_sent)
    s->proto->sender->on_rtp_sent (s, now, bytes);
}

void
amcc_sender_on_sr_sent (amcc_sender *s, amcc_time now, uint32_t ntp_mid32)
{
  amcc_sr_memory_note (&s->srs, now, ntp_mid32);
}

void
amcc_sender_on_report_block (amcc_sender *s, amcc_time now, uint32_t reporter, uint32_t about,
    uint32_t lsr, uint32_t dlsr, uint32_t a_ntp32)
{
  amcc_time at;
  amcc_peer *p;

  if (about != s->cfg.ssrc)
    return;
  if ((p = amcc_peers_find (&s->peers, reporter)) && p->excluded)
    return;
  s->last_heard = now;
  /* a proof: it echoes one of our SRs and did not hold it longer than since we sent it */
  if (amcc_sr_memory_proves (&s->srs, now, lsr, dlsr, 0, &at)) {
    a_ntp32 = lsr + amcc_time_to_ntp_mid32 (now - at);    /* A on our own clock (eq. 9) */
    if ((p = amcc_peers_get (&s->peers, reporter))) {
      p->proofs++;
      p->proven = now;
    }
  }
  s->proto->sender->on_report_block (s, now, reporter, lsr, dlsr, a_ntp32);
}

amcc_app_result
amcc_sender_on_app (amcc_sender *s, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  const amcc_peer *p = amcc_peers_find (&s->peers, ssrc);
  uint8_t damped[AMCC_CLAIM_MAX_LEN];
  const uint8_t *use;

  if (p && p->excluded)
    return AMCC_APP_EXCLUDED;
  /* a report counts once its sender has proven it hears us (issue 14: a blind forger cannot) */
  if (s->cfg.proofs && ssrc != s->cfg.ssrc
      && (!p || p->proofs < s->cfg.proofs))
    return AMCC_APP_UNPROVEN;
  amcc_app_result r = amcc_contain_check (s, now, ssrc, name, subtype, data, len, damped,
      sizeof damped, &use);
  if (r != AMCC_APP_TAKEN) {
    s->elect_held = 0;
    return r;
  }
  r = s->proto->sender->on_app (s, now, ssrc, name, subtype, use, len);
  s->elect_held = 0;
  if (r == AMCC_APP_TAKEN)
    s->last_heard = now;
  return r;
}

int
amcc_sender_exclude (amcc_sender *s, amcc_time now, uint32_t ssrc, int exclude)
{
  amcc_peer *p = exclude ? amcc_peers_get (&s->peers, ssrc) : amcc_peers_find (&s->peers, ssrc);

  if (!p)
    return exclude ? AMCC_ERR_NOMEM : AMCC_OK;
  if (exclude && !p->excluded)
    s->proto->sender->on_bye (s, now, ssrc);  /* forgotten; bye_seen stays: the expiry ramp */
  p->excluded = exclude != 0;
  return AMCC_OK;
}

void
amcc_sender_on_bye (amcc_sender *s, amcc_time now, uint32_t ssrc)
{
  s->proto->sender->on_bye (s, now, ssrc);
  amcc_peers_remove (&s->peers, ssrc);
  s->bye_seen = 1;
  /* a BYE soon after a receiver was dropped says the drop was a leave (its last RR, without a
   * rate, can drop it before the BYE comes): free the rate at once, as a BYE does */
  if (s->ramping && now - s->ramp_at <= s->cfg.receiver_timeout)
    s->ramping = 0;
}

/* The most the target may be once every receiver has been silent past the receiver timeout:
 * half of what it was while they were heard, and half again every further timeout. Feedback
 * that stops (a partition, dead receivers, an attacker's flood delaying RTCP) must slow the
 * sender down, as TCP's timeout does, never leave it holding or rising. */
static double
silence_cap (const amcc_sender *s, amcc_time now)
{
  if (s->last_heard == AMCC_TIME_NONE || now - s->last_heard <= s->cfg.receiver_timeout)
    return INFINITY;
  return s->rate_heard * exp2 (-(double) (now - s->last_heard)
      / (double) s->cfg.receiver_timeout);
}

static double
clamp_rate (const amcc_sender *s, double r)
{
  if (!(r >= s->cfg.min_bps))
    r = s->cfg.min_bps;
  return r > s->cfg.max_bps ? s->cfg.max_bps : r;
}

/* A receiver that fell silent without a BYE may have lost its reports only (three in a row at
 * 50 % RTCP loss expire it several times a minute): the rate it held down is held for
 * EXPIRY_HOLD_INTERVALS more, then freed by steps of EXPIRY_RISE per RTCP interval, not at once;
 * a BYE frees it at once. */
static double
expiry_ramp (amcc_sender *s, amcc_time now, double r)
{
  amcc_sender_stats st;

  memset (&st, 0, sizeof st);
  s->proto->sender->get_stats (s, now, &st);
  if (st.receivers < s->live && !s->bye_seen && s->last_rate > 0 && r > s->last_rate) {
    s->ramping = 1;
    s->ramp_from = s->last_rate;
    s->ramp_at = now;
  }
  s->live = st.receivers;
  s->bye_seen = 0;
  if (!s->ramping)
    return r;
  double k = now > s->ramp_at ? (double) (now - s->ramp_at) / (double) s->cfg.rtcp_interval : 0;
  k = k > EXPIRY_HOLD_INTERVALS ? k - EXPIRY_HOLD_INTERVALS : 0;
  double step = clamp_rate (s, s->ramp_from * pow (1 + EXPIRY_RISE, k));
  if (r <= step)
    s->ramping = 0;
  return r < step ? r : step;
}

double
amcc_sender_rate (amcc_sender *s, amcc_time now)
{
  double r = expiry_ramp (s, now, clamp_rate (s, s->proto->sender->rate (s, now)));
  double cap = silence_cap (s, now);
  if (cap == INFINITY)
    s->rate_heard = r;
  r = cap < r ? clamp_rate (s, cap) : r;
  s->last_rate = r;
  return r;
}

void
amcc_sender_set_limits (amcc_sender *s, double min_bps, double max_bps)
{
  s->cfg.min_bps = min_bps;
  s->cfg.max_bps = max_bps;
  if (s->proto->sender->set_limits)
    s->proto->sender->set_limits (s, min_bps, max_bps);
}

int
amcc_sender_next_app (amcc_sender *s, amcc_time now, uint8_t *buf, size_t cap, amcc_app *out)
{
  return s->proto->sender->next_app (s, now, buf, cap, out);
}

amcc_time
amcc_sender_early_due (amcc_sender *s, amcc_time now)
{
  return s->proto->sender->early_due ? s->proto->sender->early_due (s, now) : AMCC_TIME_NONE;
}

/* The slowest live receiver when its rate stayed below cfg.outlier_ratio x the next slowest's
 * for cfg.outlier_intervals RTCP intervals: one path (or one liar) holding the group far below
 * everyone else, which the application may want to exclude (issue 14). Counts the excluded. */
static void
find_outlier (amcc_sender *s, amcc_time now, amcc_sender_stats *st)
{
  const amcc_peer *lo = NULL;
  double next = INFINITY;

  for (size_t i = 0; i < s->peers.cap; i++) {
    const amcc_peer *p = &s->peers.slot[i].p;
    if (!s->peers.slot[i].used)
      continue;
    if (p->excluded) {
      st->excluded++;
      continue;
    }
    amcc_time seen = p->heard > p->reported ? p->heard : p->reported;
    if (p->reported == AMCC_TIME_NONE || !(p->rate_bps > 0)
        || now - seen > s->cfg.receiver_timeout)
      continue;
    if (!lo || p->rate_bps < lo->rate_bps) {
      next = lo ? fmin (next, lo->rate_bps) : next;
      lo = p;
    } else
      next = fmin (next, p->rate_bps);
  }
  if (!lo || !isfinite (next) || !(lo->rate_bps < s->cfg.outlier_ratio * next)) {
    s->outlier_on = 0;
    return;
  }
  if (!s->outlier_on || s->outlier != lo->ssrc) {
    s->outlier_on = 1;
    s->outlier = lo->ssrc;
    s->outlier_since = now;
  }
  if (now - s->outlier_since >= (amcc_time) s->cfg.outlier_intervals * s->cfg.rtcp_interval) {
    st->have_outlier = 1;
    st->outlier_ssrc = lo->ssrc;
    st->outlier_rate_bps = lo->rate_bps;
    st->next_rate_bps = next;
  }
}

void
amcc_sender_get_stats (amcc_sender *s, amcc_time now, amcc_sender_stats *st)
{
  amcc_time forget = PEER_VIEW_INTERVALS * s->cfg.rtcp_interval;

  memset (st, 0, sizeof *st);
  s->proto->sender->get_stats (s, now, st);
  for (size_t i = 0; i < s->peers.cap;) {
    const amcc_peer *p = &s->peers.slot[i].p;
    amcc_time seen = p->heard > p->reported ? p->heard : p->reported;
    seen = p->proven > seen ? p->proven : seen;
    seen = p->tokens_at > seen ? p->tokens_at : seen;
    int held = p->demoted_until != AMCC_TIME_NONE && now < p->demoted_until;
    if (s->peers.slot[i].used && !p->excluded && !held && seen != AMCC_TIME_NONE
        && now - seen > forget)
      amcc_peers_remove (&s->peers, p->ssrc);  /* a later entry may move here: look again */
    else
      i++;
  }
  find_outlier (s, now, st);
  st->implausible = s->implausible;
  st->damped = s->damped;
  st->limited = s->limited;
  st->held = s->held;
  st->demoted = s->demoted;
}

const amcc_peer *
amcc_sender_next_peer (const amcc_sender *s, size_t *it)
{
  while (*it < s->peers.cap) {
    const amcc_peer_slot *e = &s->peers.slot[(*it)++];
    if (e->used && e->p.reported != AMCC_TIME_NONE)
      return &e->p;
  }
  return NULL;
}

/* ---------------------------------------------------------------- receiver */

amcc_receiver *
amcc_receiver_new (const amcc_protocol *proto, const amcc_ctl_config *cfg, amcc_time now)
{
  if (!proto || !proto->receiver || !cfg || !(cfg->rtcp_interval > 0))
    return NULL;
  if (cfg->layers > AMCC_MAX_LAYERS || (cfg->layers && cfg->layers > proto->max_layers))
    return NULL;
  for (uint32_t i = 0; i < cfg->layers; i++)
    if (!(cfg->layer_bps[i] > (i ? cfg->layer_bps[i - 1] : 0)) || !isfinite (cfg->layer_bps[i]))
      return NULL;                  /* layer rates: cumulative, increasing, finite */
  amcc_ctl_config c = *cfg;
  if (!c.clock_rate)
    c.clock_rate = 90000;
  amcc_receiver *r = proto->receiver->create (&c, now);
  if (!r)
    return NULL;
  r->proto = proto;
  r->cfg = c;
  r->rng = c.seed;
  r->have_sender = 0;
  r->sender_changes = 0;
  r->stream = 0;
  r->rtcp_computed = 0;
  return r;
}

void
amcc_receiver_free (amcc_receiver *r)
{
  if (r)
    r->proto->receiver->destroy (r);
}

const amcc_protocol *amcc_receiver_protocol (const amcc_receiver *r) { return r->proto; }

void
amcc_receiver_set_ssrc (amcc_receiver *r, uint32_t ssrc)
{
  r->cfg.ssrc = ssrc;
  if (r->proto->receiver->set_ssrc)
    r->proto->receiver->set_ssrc (r, ssrc);
}

void
amcc_receiver_on_rtp (amcc_receiver *r, amcc_time now, const amcc_packet *pkt)
{
  if (r->proto->max_layers) {
    r->proto->receiver->on_rtp (r, now, pkt);       /* one SSRC per layer: all are measured */
    return;
  }
  if (r->have_sender && pkt->ssrc != r->sender) {
    if (now - r->sender_last <= r->cfg.rtcp_interval)
      return;                       /* another sender while ours still sends: not measured */
    if (r->proto->receiver->reset)
      r->proto->receiver->reset (r, now);
    r->sender_changes++;
  }
  r->have_sender = 1;
  r->sender = pkt->ssrc;
  r->sender_last = now;
  r->proto->receiver->on_rtp (r, now, pkt);
}

int
amcc_receiver_sender (const amcc_receiver *r, uint32_t *ssrc)
{
  if (!r->have_sender || r->proto->max_layers)
    return 0;
  *ssrc = r->sender;
  return 1;
}

void
amcc_receiver_on_extra_bytes (amcc_receiver *r, amcc_time now, size_t bytes)
{
  if (r->have_sender && r->proto->receiver->on_extra_bytes)
    r->proto->receiver->on_extra_bytes (r, now, bytes);
}

void
amcc_receiver_on_sender_report (amcc_receiver *r, amcc_time now, uint32_t ssrc,
    uint32_t members)
{
  if (ssrc != r->cfg.ssrc && r->proto->receiver->on_sender_report)
    r->proto->receiver->on_sender_report (r, now, ssrc, members);
}

void
amcc_receiver_set_rtcp_interval (amcc_receiver *r, amcc_time now, amcc_time interval)
{
  (void) now;
  if (interval > 0)
    r->rtcp_computed = interval;
}

amcc_time
amcc_receiver_rtcp_interval (const amcc_receiver *r)
{
  return r->rtcp_computed > 0 ? r->rtcp_computed : r->cfg.rtcp_interval;
}

amcc_app_result
amcc_receiver_on_app (amcc_receiver *r, amcc_time now, uint32_t ssrc, const char name[4],
    uint8_t subtype, const uint8_t *data, size_t len)
{
  if (ssrc == r->cfg.ssrc)
    return AMCC_APP_IGNORED;        /* our own, looped back */
  return r->proto->receiver->on_app (r, now, ssrc, name, subtype, data, len);
}

int
amcc_receiver_next_app (amcc_receiver *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_app *out)
{
  return r->proto->receiver->next_app (r, now, buf, cap, out);
}

amcc_time
amcc_receiver_early_due (amcc_receiver *r, amcc_time now)
{
  return r->proto->receiver->early_due ? r->proto->receiver->early_due (r, now)
      : AMCC_TIME_NONE;
}

void
amcc_receiver_get_stats (amcc_receiver *r, amcc_time now, amcc_receiver_stats *st)
{
  memset (st, 0, sizeof *st);
  st->mode = "";
  r->proto->receiver->get_stats (r, now, st);
  st->sender_ssrc = r->have_sender ? r->sender : 0;
  st->sender_changes = r->sender_changes;
}

uint32_t
amcc_receiver_wanted_stream (amcc_receiver *r)
{
  return r->proto->receiver->wanted_stream ? r->proto->receiver->wanted_stream (r) : 0;
}

int
amcc_receiver_set_stream (amcc_receiver *r, amcc_time now, uint32_t stream)
{
  if (stream >= r->proto->max_streams || (stream && !r->proto->receiver->set_stream))
    return AMCC_ERR_PARAM;
  if (stream != r->stream)
    r->have_sender = 0;             /* the new stream's sender is ours at once */
  r->stream = stream;
  if (r->proto->receiver->set_stream)
    r->proto->receiver->set_stream (r, now, stream);
  return AMCC_OK;
}

uint32_t
amcc_receiver_wanted_layers (amcc_receiver *r)
{
  return r->proto->receiver->wanted_layers ? r->proto->receiver->wanted_layers (r) : 1;
}
/* ---------------------------------------------------------------- relay */

amcc_relay *
amcc_relay_new (const amcc_protocol *proto, const amcc_ctl_config *cfg, amcc_time now)
{
  if (!proto || !proto->relay || !cfg || !(cfg->min_bps > 0))
    return NULL;
  amcc_relay *r = proto->relay->create (cfg, now);
  if (r)
    r->proto = proto;
  return r;
}

void
amcc_relay_free (amcc_relay *r)
{
  if (r)
    r->proto->relay->destroy (r);
}

const amcc_protocol *amcc_relay_protocol (const amcc_relay *r) { return r->proto; }

int
amcc_relay_on_packet (amcc_relay *r, amcc_time now, int from_parent, const uint8_t *buf,
    size_t len)
{
  return r->proto->relay->on_packet (r, now, from_parent, buf, len);
}

int
amcc_relay_poll (amcc_relay *r, amcc_time now, uint8_t *buf, size_t cap, int *to_parent)
{
  return r->proto->relay->poll (r, now, buf, cap, to_parent);
}

amcc_time
amcc_relay_next_due (amcc_relay *r, amcc_time now)
{
  return r->proto->relay->next_due (r, now);
}

double amcc_relay_rate (amcc_relay *r, amcc_time now) { return r->proto->relay->rate (r, now); }
