/* rmanp.c - RMANP's parameters, its rate equations (papers/004 sections 2.2-2.4; the paper
 * numbers no equations, so the comments name the section) and the children table the source and
 * the relays share. */
#include <math.h>
#include "rmanp_impl.h"

void
amcc_rmanp_params_init (struct amcc_rmanp_params *p)
{
  p->rm_bps = 16e3;
  p->is = 0.005;
  p->in = 0.05;
  p->da = 0.8;
  p->dr = 0.99;
  p->packet_bytes = 1057;
  p->cache_packets = 100;
  p->queue_packets = 10;
  p->window_packets = 256;
  p->repair_packets = 32;
  p->max_children = 16;
  p->nack_ci_threshold = 3;
  p->ack_timeout = 2 * AMCC_NS_PER_S;
  p->nack_interval = AMCC_NS_PER_S;
  p->repair_holdoff = 500 * AMCC_NS_PER_MS;
  p->ack_repeat = AMCC_NS_PER_S;
  p->exclude_window = 30 * AMCC_NS_PER_S;
  p->exclude_fraction = 0.5;
}

int
amcc_rmanp_params_check (const struct amcc_rmanp_params *p)
{
  if (!p || !(p->rm_bps >= 1 && p->rm_bps < 4e9) || !(p->is >= 0 && p->is < 1e3)
      || !(p->in >= 0 && p->in < 1e3) || !(p->da > 0 && p->da <= 1) || !(p->dr > 0 && p->dr <= 1)
      || !(p->exclude_fraction >= 0 && p->exclude_fraction <= 1))
    return AMCC_ERR_PARAM;
  if (p->packet_bytes <= AMCC_RMANP_DATA_HDR || p->packet_bytes > 65535 + AMCC_RMANP_DATA_HDR
      || !p->cache_packets || !p->queue_packets || !p->window_packets || !p->repair_packets
      || !p->max_children || p->cache_packets > (1u << 20) || p->queue_packets > (1u << 20)
      || p->window_packets > (1u << 20) || p->repair_packets > (1u << 20)
      || p->max_children > (1u << 16) || !p->nack_ci_threshold)
    return AMCC_ERR_PARAM;
  if (p->ack_timeout <= 0 || p->nack_interval <= 0 || p->repair_holdoff < 0
      || p->ack_repeat <= 0 || p->exclude_window <= 0)
    return AMCC_ERR_PARAM;
  return AMCC_OK;
}

/* 2.4: the source adds Is x Rm per packet acknowledged */
double
amcc_rmanp_source_increase (const struct amcc_rmanp_params *p, double rate_bps, uint32_t acked)
{
  return rate_bps + p->is * p->rm_bps * acked;
}

/* 2.4: a relay adds In x Rm per packet acknowledged */
double
amcc_rmanp_relay_increase (const struct amcc_rmanp_params *p, double rate_bps, uint32_t acked)
{
  return rate_bps + p->in * p->rm_bps * acked;
}

/* 2.2: adjusted rate = rate the packet was sent at x Da */
double
amcc_rmanp_adjusted_rate (const struct amcc_rmanp_params *p, double sent_bps)
{
  return sent_bps * p->da;
}

/* 2.3: the rate a relay passes upstream = rate of the incoming CI x Dr */
double
amcc_rmanp_relayed_rate (const struct amcc_rmanp_params *p, double ci_bps)
{
  return ci_bps * p->dr;
}

uint32_t
amcc_rmanp_payload_max (const struct amcc_rmanp_params *p)
{
  return p->packet_bytes - AMCC_RMANP_DATA_HDR;
}

uint32_t
rmanp_wire_rate (double bps)
{
  if (!(bps >= 1))
    return 1;
  return bps >= 4294967295.0 ? UINT32_MAX : (uint32_t) lround (bps);
}

int
rmanp_fits (const struct amcc_rmanp_params *p, const struct amcc_rmanp_pkt *k)
{
  return k->type == AMCC_RMANP_DATA && k->len > amcc_rmanp_payload_max (p) ? AMCC_ERR_FIELD
      : AMCC_OK;
}

int
rmanp_encode_ctl (uint8_t type, uint32_t node, uint32_t seq, uint32_t value, uint8_t *buf,
    size_t cap)
{
  struct amcc_rmanp_pkt k = { .type = type, .node = node, .seq = seq, .value = value };
  return amcc_rmanp_encode (&k, buf, cap);
}

/* ---------------------------------------------------------------- children */

struct rmanp_child *
rmanp_children_get (struct rmanp_children *t, uint32_t node, amcc_time now)
{
  for (uint32_t i = 0; i < t->n; i++)       /* max_children is small (16): a scan */
    if (t->c[i].node == node)
      return &t->c[i];
  if (t->n == t->cap)
    return NULL;
  struct rmanp_child *c = &t->c[t->n++];
  *c = (struct rmanp_child) { .node = node };
  if (t->n == 1)
    t->win_start = now;
  return c;
}

int
rmanp_children_min (const struct rmanp_children *t, uint32_t *min)
{
  int any = 0;
  for (uint32_t i = 0; i < t->n; i++)
    if (!t->c[i].excluded && (!any || t->c[i].cum < *min)) {
      *min = t->c[i].cum;
      any = 1;
    }
  return any;
}

amcc_time
rmanp_children_due (const struct rmanp_children *t, const struct amcc_rmanp_params *p)
{
  return t->n > t->excluded ? t->win_start + p->exclude_window : AMCC_TIME_NONE;
}

uint32_t
rmanp_children_check (struct rmanp_children *t, const struct amcc_rmanp_params *p,
    amcc_time now, uint32_t next)
{
  /* Rm over the window, in packets: what a child that sustains Rm ACKs */
  double need = p->rm_bps * amcc_time_to_s (p->exclude_window) / (8.0 * p->packet_bytes);
  double slow = p->exclude_fraction * need, best = 0;
  uint32_t out = 0;

  if (!t->n || now - t->win_start < p->exclude_window)
    return 0;
  for (uint32_t i = 0; i < t->n; i++)
    if (!t->c[i].excluded && t->c[i].cum - t->c[i].win_cum > best)
      best = t->c[i].cum - t->c[i].win_cum;
  for (uint32_t i = 0; i < t->n; i++) {
    struct rmanp_child *c = &t->c[i];
    double offered = (double) (next - c->win_cum), acked = (double) (c->cum - c->win_cum);
    if (!c->excluded && offered >= need && acked < slow && best - acked >= slow
        && c->cum < next) {
      c->excluded = 1;
      t->excluded++;
      out++;
    }
    c->win_cum = c->cum;
  }
  t->win_start = now;
  return out;
}
