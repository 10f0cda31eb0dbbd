/* rmanp_receiver.c - an RMANP receiver (papers/004 2.1-2.2): puts the stream back in order in a
 * window of window_packets, ACKs cumulatively (at once when it advances, again every ack_repeat;
 * an ACK of 0 at start registers it with its parent), NACKs missing packets every nack_interval,
 * and signals congestion: a gap revealed by an unmarked packet, or a packet NACKed more than
 * nack_ci_threshold times (a lost repair shows no gap), sends a CI with the rate x Da. */
#include <stdlib.h>
#include <string.h>
#include "rmanp_impl.h"

struct rslot {
  uint32_t seq;
  int present;
  uint16_t len;
  uint8_t fin;
  uint32_t nacks;                     /* NACKs sent for it in a row */
  amcc_time asked;
  uint8_t *data;
};

struct amcc_rmanp_receiver {
  struct amcc_rmanp_params p;
  uint32_t node;
  struct rslot *win;                  /* seq % window_packets, holds [rd, rd + window) */
  uint32_t rd, rd_off;                /* next packet (and byte in it) the reader gets */
  uint32_t cum;                       /* every packet below received */
  int have_hi, have_fin;
  uint32_t hi, fin_seq, last_rate;
  int ci_pending, ack_sent_once;
  uint32_t ci_rate, ci_seq, ack_sent;
  amcc_time ack_at;
  struct amcc_rmanp_stats st;
};

amcc_rmanp_receiver *
amcc_rmanp_receiver_new (const struct amcc_rmanp_params *p, uint32_t node, amcc_time now)
{
  if (amcc_rmanp_params_check (p) != AMCC_OK)
    return NULL;
  amcc_rmanp_receiver *r = calloc (1, sizeof *r);
  if (!r)
    return NULL;
  uint32_t pay = amcc_rmanp_payload_max (p);
  r->p = *p;
  r->node = node;
  r->win = calloc (p->window_packets, sizeof *r->win);
  uint8_t *mem = calloc (p->window_packets, pay);
  if (!r->win || !mem) {
    free (mem);
    amcc_rmanp_receiver_free (r);
    return NULL;
  }
  for (uint32_t i = 0; i < p->window_packets; i++) {
    r->win[i].data = mem + (size_t) i * pay;
    r->win[i].seq = UINT32_MAX;
  }
  r->ack_at = now;
  return r;
}

void
amcc_rmanp_receiver_free (amcc_rmanp_receiver *r)
{
  if (!r)
    return;
  if (r->win)
    free (r->win[0].data);
  free (r->win);
  free (r);
}

static struct rslot *at (amcc_rmanp_receiver *r, uint32_t seq) { return &r->win[seq % r->p.window_packets]; }

static int
have (amcc_rmanp_receiver *r, uint32_t seq)
{
  struct rslot *s = at (r, seq);
  return s->seq == seq && s->present;
}

static void
want_ci (amcc_rmanp_receiver *r, double rate, uint32_t seq)
{
  uint32_t w = rmanp_wire_rate (rate);
  if (!r->ci_pending || w < r->ci_rate) {
    r->ci_rate = w;
    r->ci_seq = seq;
  }
  r->ci_pending = 1;
}

int
amcc_rmanp_receiver_on_packet (amcc_rmanp_receiver *r, amcc_time now, const uint8_t *buf,
    size_t len)
{
  struct amcc_rmanp_pkt k;
  int e;

  (void) now;
  if (!r)
    return AMCC_ERR_PARAM;
  if ((e = amcc_rmanp_decode (&k, buf, len)) != AMCC_OK
      || (e = rmanp_fits (&r->p, &k)) != AMCC_OK) {
    r->st.malformed++;
    return e;
  }
  if (k.type != AMCC_RMANP_DATA || (r->have_fin && k.seq > r->fin_seq)
      || (k.flags & AMCC_RMANP_F_FIN && r->have_fin && k.seq != r->fin_seq)) {
    r->st.ignored++;                  /* control is not for receivers; past the end: bogus */
    return AMCC_OK;
  }
  if (k.seq < r->rd || have (r, k.seq)) {
    r->st.duplicates++;
    return AMCC_OK;
  }
  if (k.seq - r->rd >= r->p.window_packets) {
    r->st.ignored++;                  /* beyond the window (the reader is behind) */
    return AMCC_OK;
  }
  r->last_rate = k.value;
  uint64_t next = r->have_hi ? (uint64_t) r->hi + 1 : 0;
  if (!(k.flags & AMCC_RMANP_F_RETX) && k.seq > next) {
    r->st.gaps++;                     /* 2.1 */
    if (!(k.flags & AMCC_RMANP_F_MARK))
      want_ci (r, amcc_rmanp_adjusted_rate (&r->p, k.value), k.seq);
  }
  if (!r->have_hi || k.seq > r->hi) {
    r->hi = k.seq;
    r->have_hi = 1;
  }
  struct rslot *s = at (r, k.seq);
  *s = (struct rslot) { .seq = k.seq, .present = 1, .len = k.len, .data = s->data,
    .fin = (k.flags & AMCC_RMANP_F_FIN) != 0 };
  memcpy (s->data, k.payload, k.len);
  if (s->fin) {
    r->have_fin = 1;
    r->fin_seq = k.seq;
  }
  while (r->cum - r->rd < r->p.window_packets && have (r, r->cum))
    r->cum++;
  return AMCC_OK;
}

size_t
amcc_rmanp_receiver_read (amcc_rmanp_receiver *r, uint8_t *buf, size_t cap)
{
  size_t got = 0;
  while (r && got < cap && r->rd < r->cum) {
    struct rslot *s = at (r, r->rd);
    size_t n = s->len - r->rd_off < cap - got ? s->len - r->rd_off : cap - got;
    memcpy (buf + got, s->data + r->rd_off, n);
    got += n;
    r->rd_off += (uint32_t) n;
    if (r->rd_off == s->len) {
      s->present = 0;
      s->seq = UINT32_MAX;
      r->rd++;
      r->rd_off = 0;
    }
  }
  return got;
}

int
amcc_rmanp_receiver_done (const amcc_rmanp_receiver *r)
{
  return r && r->have_fin && r->rd > r->fin_seq;
}

/* The first run of missing packets below hi not asked for within nack_interval. */
static int
nack (amcc_rmanp_receiver *r, amcc_time now, uint8_t *buf, size_t cap)
{
  uint32_t first = 0, n = 0;
  if (!r->have_hi)
    return 0;
  for (uint32_t q = r->cum; q < r->hi; q++) {
    struct rslot *s = at (r, q);
    int due = !have (r, q) && (s->seq != q || now - s->asked >= r->p.nack_interval);
    if (due) {
      if (s->seq != q)
        *s = (struct rslot) { .seq = q, .data = s->data };
      s->asked = now;
      if (++s->nacks == r->p.nack_ci_threshold + 1)   /* 2.1: lost repairs */
        want_ci (r, amcc_rmanp_adjusted_rate (&r->p, r->last_rate), q);
      if (!n)
        first = q;
      n++;
    }
    if ((!due && n) || n == AMCC_RMANP_NACK_MAX)
      break;
  }
  if (!n)
    return 0;
  r->st.nacks_sent++;
  return rmanp_encode_ctl (AMCC_RMANP_NACK, r->node, first, n, buf, cap);
}

int
amcc_rmanp_receiver_poll (amcc_rmanp_receiver *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_rmanp_dir *dir)
{
  int n;
  if (!r || !buf || !dir)
    return AMCC_ERR_PARAM;
  *dir = AMCC_RMANP_UP;
  if ((n = nack (r, now, buf, cap)) != 0)
    return n;
  if (r->ci_pending) {                /* after the NACK: the NACK may have raised one */
    r->ci_pending = 0;
    r->st.ci_sent++;
    return rmanp_encode_ctl (AMCC_RMANP_CI, r->node, r->ci_seq, r->ci_rate, buf, cap);
  }
  if (!r->ack_sent_once || r->cum > r->ack_sent || now - r->ack_at >= r->p.ack_repeat) {
    r->ack_sent_once = 1;
    r->ack_sent = r->cum;
    r->ack_at = now;
    r->st.acks_sent++;
    return rmanp_encode_ctl (AMCC_RMANP_ACK, r->node, r->cum, 0, buf, cap);
  }
  return 0;
}

amcc_time
amcc_rmanp_receiver_next_due (amcc_rmanp_receiver *r, amcc_time now)
{
  amcc_time t = r->ack_at + r->p.ack_repeat;
  if (r->ci_pending || !r->ack_sent_once || r->cum > r->ack_sent)
    return now;
  for (uint32_t q = r->cum; r->have_hi && q < r->hi; q++) {
    struct rslot *s = at (r, q);
    if (!have (r, q)) {
      amcc_time d = s->seq != q ? now : s->asked + r->p.nack_interval;
      if (d < t)
        t = d;
    }
  }
  return t;
}

void
amcc_rmanp_receiver_get_stats (const amcc_rmanp_receiver *r, struct amcc_rmanp_stats *st)
{
  *st = r->st;
  st->rate_bps = r->last_rate;
  st->acked = r->cum;
}
