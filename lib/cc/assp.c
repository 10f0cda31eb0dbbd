/* assp.c - ASSP's stream averages, switching rule and table (spec/assp.md, papers/001 2.2-2.3).
 * Rates are bit/s. */
#include <math.h>
#include <string.h>
#include "amcc/assp.h"
#include "amcc/rtcp_app.h"

#define FLAG_JOIN 0x01

void
amcc_assp_params_init (amcc_assp_params *p)
{
  p->beta = 0.7;
  p->lambda = 1.2;
  p->kappa = 0.8;
  p->a = 0.3;
  p->delta_t = 5 * AMCC_NS_PER_S;
  p->up_hold = 3;
  p->up_hold_max = 12;
  p->settle = 1;
  p->lossy_down = 0.5;
  p->knee_hold = 60 * AMCC_NS_PER_S;
  p->floor_competing = 1;
  p->late_j = 1;
}

static int
in01 (double v)
{
  return v > 0 && v <= 1;
}

int
amcc_assp_params_validate (const amcc_assp_params *p)
{
  if (!p || !in01 (p->beta) || !in01 (p->kappa) || !in01 (p->a) || !(p->lambda >= 1)
      || !isfinite (p->lambda) || p->delta_t <= 0 || p->up_hold > p->up_hold_max
      || p->up_hold_max > 0x4000 || p->settle > 16 || !(p->lossy_down >= 0)
      || p->lossy_down > 1 || p->knee_hold < 0
      || (p->floor_competing != 0 && p->floor_competing != 1)
      || (p->late_j != 0 && p->late_j != 1))
    return AMCC_ERR_PARAM;
  return AMCC_OK;
}

/* ---------------------------------------------------------------- eq. 3 */

void
amcc_assp_avg_init (amcc_assp_avg *v)
{
  memset (v, 0, sizeof *v);
  v->at = AMCC_TIME_NONE;
}

/* floor (t / dt) for any sign of t */
static int64_t
window_of (amcc_time t, amcc_time dt)
{
  return t >= 0 ? t / dt : -((-t + dt - 1) / dt);
}

int
amcc_assp_avg_sample (amcc_assp_avg *v, amcc_time now, double rate, amcc_time dt)
{
  int closed = 0;

  if (dt <= 0 || !(rate >= 0) || !isfinite (rate))
    return 0;
  if (v->at == AMCC_TIME_NONE || now < v->at) {   /* first sample (or time ran back): restart */
    v->at = v->from = now;
    v->rate = rate;
    v->area = 0;
    v->window = window_of (now, dt);
    return 0;
  }
  int64_t w = window_of (now, dt);
  if (w > v->window) {
    /* eq. 3 over the window that closed: its area plus the rate held to its end, over the part
     * of it we saw (all of it but the first); windows passed whole since were all v->rate */
    amcc_time end = (v->window + 1) * dt;
    double area = v->area + v->rate * amcc_time_to_s (end - v->at);
    v->avg = w > v->window + 1 || end <= v->from ? v->rate : area / amcc_time_to_s (end - v->from);
    v->have = closed = 1;
    v->window = w;
    v->from = w * dt;
    v->area = v->rate * amcc_time_to_s (now - v->from);
  } else {
    v->area += v->rate * amcc_time_to_s (now - v->at);
  }
  v->at = now;
  v->rate = rate;
  return closed;
}

double
amcc_assp_avg_value (const amcc_assp_avg *v)
{
  return v->have ? v->avg : v->rate;
}

/* eq. 6 */
double
amcc_assp_ewma (double avg, double inst, double a)
{
  return (1.0 - a) * avg + a * inst;
}

/* ---------------------------------------------------------------- eq. 4-5 */

int
amcc_assp_decide (const amcc_assp_params *p, double avg_rx, const amcc_assp_table *t,
    uint32_t j)
{
  if (j >= t->count)
    return 0;
  if (j + 1 < t->count && avg_rx > p->beta * t->s[j + 1].avg_bps       /* eq. 4 */
      && avg_rx > p->lambda * t->s[j + 1].low_bps)
    return 1;
  if (j > 0 && avg_rx < p->kappa * t->s[j].low_bps)                     /* eq. 5 */
    return -1;
  return 0;
}

void
amcc_assp_rule_init (amcc_assp_rule *r, const amcc_assp_params *p)
{
  memset (r, 0, sizeof *r);
  r->p = *p;
}

void
amcc_assp_rule_on_estimate (amcc_assp_rule *r, double rx_inst_bps, int lossy)
{
  if (!(rx_inst_bps >= 0) || !isfinite (rx_inst_bps))
    return;
  r->reports++;
  r->lossy += lossy != 0;
  /* no decision depends on a share above lambda x the highest upper limit: an estimate grown
   * far past it on a lossless path would only slow the average's fall when the path degrades */
  if (r->ceiling > 0 && rx_inst_bps > r->ceiling)
    rx_inst_bps = r->ceiling;
  r->avg_rx = r->have_avg ? amcc_assp_ewma (r->avg_rx, rx_inst_bps, r->p.a) : rx_inst_bps;
  r->have_avg = 1;
}

/* rounds from a to b, mod 2^16 */
static int
rounds_since (uint16_t a, uint16_t b)
{
  return (int16_t) (uint16_t) (b - a);
}

uint32_t
amcc_assp_rule_on_table (amcc_assp_rule *r, const amcc_assp_table *t)
{
  double top = 0;
  for (uint32_t i = 0; i < t->count && i < AMCC_ASSP_MAX_STREAMS; i++)
    top = t->s[i].high_bps > top ? t->s[i].high_bps : top;
  r->ceiling = r->p.lambda * top;
  if ((!t->join && !r->p.late_j) || (r->have_round && t->round == r->round))
    return r->wanted;
  r->have_round = 1;
  r->round = t->round;
  if (r->up_recent && rounds_since (r->up_round, t->round) > (int) r->p.up_hold) {
    r->up_recent = 0;           /* the last move up held: the next one need not wait */
    r->hold = 0;
  }
  uint32_t reports = r->reports, lossy = r->lossy;
  r->reports = r->lossy = 0;
  if (!r->have_avg || r->wanted != r->stream)
    return r->wanted;           /* nothing measured yet, or a switch still under way */
  int d = amcc_assp_decide (&r->p, r->avg_rx, t, r->stream);
  if (d == 0 && r->p.lossy_down > 0 && r->stream > 0 && r->stream < t->count && reports
      && r->avg_rx < t->s[r->stream].low_bps && lossy >= r->p.lossy_down * reports)
    d = -1;                     /* below the stream's floor and losing all along */
  if (d > 0 && r->hold && rounds_since (r->hold_until, t->round) < 0)
    d = 0;
  if (r->down_recent && rounds_since (r->down_round, t->round) > (int) r->p.settle)
    r->down_recent = 0;
  if (d < 0 && r->down_recent)
    d = 0;                      /* the last move down is still settling */
  if (d > 0) {
    r->wanted = r->stream + 1;
    r->up_round = t->round;
    r->up_recent = r->p.up_hold > 0;
    r->ups++;
  } else if (d < 0) {
    r->wanted = r->stream - 1;
    r->down_round = t->round;
    r->down_recent = r->p.settle > 0;
    if (r->up_recent) {         /* the move up failed: wait before the next, longer each time */
      r->hold = r->hold ? r->hold * 2 : r->p.up_hold;
      if (r->hold > r->p.up_hold_max)
        r->hold = r->p.up_hold_max;
      r->hold_until = (uint16_t) (t->round + r->hold);
      r->up_recent = 0;
    }
    r->downs++;
  }
  return r->wanted;
}

void
amcc_assp_rule_set_stream (amcc_assp_rule *r, uint32_t stream)
{
  r->stream = r->wanted = stream;
}

/* ---------------------------------------------------------------- wire */

static int
rate_field (double bps, uint32_t *out)
{
  if (!(bps >= 0) || bps > 4294967295.0)
    return AMCC_ERR_FIELD;
  *out = (uint32_t) llround (bps);
  return AMCC_OK;
}

int
amcc_assp_table_encode (const amcc_assp_table *t, uint8_t *buf, size_t cap, size_t *written)
{
  uint32_t v[3 * AMCC_ASSP_MAX_STREAMS];
  amcc_wr w;

  if (!t || !buf || t->count == 0 || t->count > AMCC_ASSP_MAX_STREAMS || t->stream >= t->count)
    return AMCC_ERR_PARAM;
  for (uint32_t i = 0; i < t->count; i++) {
    if (rate_field (t->s[i].avg_bps, &v[3 * i]) || rate_field (t->s[i].low_bps, &v[3 * i + 1])
        || rate_field (t->s[i].high_bps, &v[3 * i + 2]) || v[3 * i + 1] > v[3 * i + 2])
      return AMCC_ERR_FIELD;
  }
  if (cap < AMCC_ASSP_TABLE_LEN (t->count))
    return AMCC_ERR_NOSPACE;
  amcc_wr_init (&w, buf, cap);
  amcc_wr_u8 (&w, AMCC_ASSP_WIRE_VERSION);
  amcc_wr_u8 (&w, t->join ? FLAG_JOIN : 0);
  amcc_wr_u8 (&w, (uint8_t) t->count);
  amcc_wr_u8 (&w, (uint8_t) t->stream);
  amcc_wr_u16 (&w, t->round);
  amcc_wr_u16 (&w, 0);
  for (uint32_t i = 0; i < 3 * t->count; i++)
    amcc_wr_u32 (&w, v[i]);
  if (w.err)
    return w.err;
  if (written)
    *written = w.pos;
  return AMCC_OK;
}

int
amcc_assp_table_decode (const uint8_t *buf, size_t len, amcc_assp_table *t, size_t *used)
{
  amcc_rd d;

  if (!t || (!buf && len))
    return AMCC_ERR_PARAM;
  amcc_rd_init (&d, buf, len);
  uint8_t version = amcc_rd_u8 (&d), flags = amcc_rd_u8 (&d);
  uint8_t count = amcc_rd_u8 (&d), stream = amcc_rd_u8 (&d);
  uint16_t round = amcc_rd_u16 (&d), reserved = amcc_rd_u16 (&d);
  if (d.err)
    return d.err;
  if (version != AMCC_ASSP_WIRE_VERSION)
    return AMCC_ERR_VERSION;
  if ((flags & ~FLAG_JOIN) || reserved || count == 0 || count > AMCC_ASSP_MAX_STREAMS
      || stream >= count)
    return AMCC_ERR_FIELD;
  if (len < AMCC_ASSP_TABLE_LEN (count))
    return AMCC_ERR_TRUNCATED;
  memset (t, 0, sizeof *t);
  t->count = count;
  t->stream = stream;
  t->join = (flags & FLAG_JOIN) != 0;
  t->round = round;
  for (uint32_t i = 0; i < count; i++) {
    t->s[i].avg_bps = amcc_rd_u32 (&d);
    t->s[i].low_bps = amcc_rd_u32 (&d);
    t->s[i].high_bps = amcc_rd_u32 (&d);
    if (t->s[i].low_bps > t->s[i].high_bps)
      return AMCC_ERR_FIELD;
  }
  if (d.err)
    return d.err;
  if (used)
    *used = d.pos;
  return AMCC_OK;
}
