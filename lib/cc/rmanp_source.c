/* rmanp_source.c - RMANP's source (papers/004 2.2-2.4): packetizes the byte stream into a ring of
 * window_packets unACKed packets, sends at its rate (starting at Rm, + Is Rm per packet ACKed, set
 * to a CI's rate when lower), retransmits NACKed packets ahead of new ones at the same rate, and
 * falls back on an ACK timeout: no ACK progress for ack_timeout while packets are outstanding is
 * congestion (rate x Da) and the last packet sent goes out again (a lost tail shows no gap).
 * Memory: the ring and the children table, allocated at _new. */
#include <stdlib.h>
#include <string.h>
#include "rmanp_impl.h"

struct slot {
  uint32_t seq;
  uint16_t len;
  uint8_t fin, retx_pending;
  amcc_time sent_at;            /* last (re)transmission, AMCC_TIME_NONE = never */
  uint8_t *data;
};

struct amcc_rmanp_source {
  struct amcc_rmanp_params p;
  double rate;
  struct slot *ring;            /* seq % window */
  uint32_t *retx;               /* FIFO of seqs to retransmit (each at most once: retx_pending) */
  uint32_t retx_head, retx_n;
  uint32_t base;                /* every packet below is ACKed by every child in the session */
  uint32_t next_new;            /* the packet being filled */
  uint32_t next_send;           /* the next packet to send for the first time */
  int finishing, fin_made;
  uint32_t fin_seq;
  amcc_time next_tx, last_progress;
  struct rmanp_children kids;
  struct amcc_rmanp_stats st;
};

amcc_rmanp_source *
amcc_rmanp_source_new (const struct amcc_rmanp_params *p, amcc_time now)
{
  if (amcc_rmanp_params_check (p) != AMCC_OK)
    return NULL;
  amcc_rmanp_source *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->p = *p;
  s->ring = calloc (p->window_packets, sizeof *s->ring);
  s->retx = calloc (p->window_packets, sizeof *s->retx);
  uint8_t *mem = calloc (p->window_packets, amcc_rmanp_payload_max (p));
  s->kids.c = calloc (p->max_children, sizeof *s->kids.c);
  s->kids.cap = p->max_children;
  if (!s->ring || !s->retx || !mem || !s->kids.c) {
    free (mem);
    amcc_rmanp_source_free (s);
    return NULL;
  }
  for (uint32_t i = 0; i < p->window_packets; i++) {
    s->ring[i].data = mem + (size_t) i * amcc_rmanp_payload_max (p);
    s->ring[i].sent_at = AMCC_TIME_NONE;
  }
  s->rate = p->rm_bps;              /* 2: the session starts at Rm */
  s->next_tx = now;
  s->last_progress = now;
  return s;
}

void
amcc_rmanp_source_free (amcc_rmanp_source *s)
{
  if (!s)
    return;
  if (s->ring)
    free (s->ring[0].data);
  free (s->ring);
  free (s->retx);
  free (s->kids.c);
  free (s);
}

static struct slot *at (amcc_rmanp_source *s, uint32_t seq) { return &s->ring[seq % s->p.window_packets]; }

static int
room (const amcc_rmanp_source *s)
{
  return s->next_new - s->base < s->p.window_packets;
}

static void
open_slot (amcc_rmanp_source *s)
{
  struct slot *k = at (s, s->next_new);
  k->seq = s->next_new;
  k->len = 0;
  k->fin = k->retx_pending = 0;
  k->sent_at = AMCC_TIME_NONE;
}

/* Closes the packet being filled (made = below next_new). */
static void
close_slot (amcc_rmanp_source *s)
{
  s->next_new++;
  if (room (s))
    open_slot (s);
}

static void
try_finish (amcc_rmanp_source *s)
{
  if (!s->finishing || s->fin_made)
    return;
  if (room (s) && (at (s, s->next_new)->len > 0 || s->next_send == s->next_new)) {
    at (s, s->next_new)->fin = 1;     /* the partial packet, or an empty one */
    s->fin_seq = s->next_new;
    close_slot (s);
  } else if (s->next_send < s->next_new) {
    at (s, s->next_new - 1)->fin = 1; /* the last packet is not out yet */
    s->fin_seq = s->next_new - 1;
  } else {
    return;                           /* no room yet */
  }
  s->fin_made = 1;
}

size_t
amcc_rmanp_source_write (amcc_rmanp_source *s, const uint8_t *data, size_t len)
{
  size_t took = 0;
  uint32_t max = amcc_rmanp_payload_max (&s->p);

  if (!s || s->finishing || (!data && len))
    return 0;
  if (s->next_new == s->base && at (s, s->next_new)->seq != s->next_new)
    open_slot (s);
  while (took < len && room (s)) {
    struct slot *k = at (s, s->next_new);
    size_t n = len - took < max - k->len ? len - took : max - k->len;
    memcpy (k->data + k->len, data + took, n);
    k->len = (uint16_t) (k->len + n);
    took += n;
    if (k->len == max)
      close_slot (s);
  }
  return took;
}

void
amcc_rmanp_source_finish (amcc_rmanp_source *s)
{
  if (!s)
    return;
  if (s->next_new == s->base && at (s, s->next_new)->seq != s->next_new)
    open_slot (s);
  s->finishing = 1;
  try_finish (s);
}

/* The children's aggregated ACK advanced: free the ring below it, raise the rate (2.4). */
static void
advance (amcc_rmanp_source *s, amcc_time now)
{
  uint32_t min;
  if (!rmanp_children_min (&s->kids, &min) || min <= s->base)
    return;
  if (min > s->next_send)             /* ACKs never pass what was sent (checked at input) */
    min = s->next_send;
  uint32_t acked = min - s->base;
  s->rate = amcc_rmanp_source_increase (&s->p, s->rate, acked);
  s->base = min;
  s->last_progress = now;
  if (room (s) && at (s, s->next_new)->seq != s->next_new)
    open_slot (s);
  try_finish (s);
}

static void
on_nack (amcc_rmanp_source *s, amcc_time now, const struct amcc_rmanp_pkt *k)
{
  uint32_t end = k->seq + k->value < k->seq ? UINT32_MAX : k->seq + k->value;
  for (uint32_t q = k->seq > s->base ? k->seq : s->base; q < end && q < s->next_send; q++) {
    struct slot *x = at (s, q);
    if (x->retx_pending || s->retx_n == s->p.window_packets || (x->sent_at != AMCC_TIME_NONE
            && now - x->sent_at < s->p.repair_holdoff))
      continue;
    x->retx_pending = 1;
    s->retx[(s->retx_head + s->retx_n++) % s->p.window_packets] = q;
  }
}

int
amcc_rmanp_source_on_packet (amcc_rmanp_source *s, amcc_time now, const uint8_t *buf,
    size_t len)
{
  struct amcc_rmanp_pkt k;
  int e;

  if (!s)
    return AMCC_ERR_PARAM;
  if ((e = amcc_rmanp_decode (&k, buf, len)) != AMCC_OK) {
    s->st.malformed++;
    return e;
  }
  struct rmanp_child *c = k.type == AMCC_RMANP_DATA ? NULL
      : rmanp_children_get (&s->kids, k.node, now);
  if (k.type == AMCC_RMANP_DATA || (c && c->excluded)) {
    s->st.ignored++;                  /* not for a source, or from a child no longer with us */
    return AMCC_OK;
  }
  switch (k.type) {
  case AMCC_RMANP_CI:
    s->st.ci_received++;
    if (k.value < s->rate && s->rate > s->p.rm_bps) {     /* 2.3: only a worse rate counts */
      s->rate = k.value > s->p.rm_bps ? k.value : s->p.rm_bps;
      s->st.reactions++;
    } else {
      s->st.ci_filtered++;
    }
    break;
  case AMCC_RMANP_NACK:
    s->st.nacks_received++;
    on_nack (s, now, &k);
    break;
  case AMCC_RMANP_ACK:
    if (!c || k.seq > s->next_send) { /* table full, or an ACK of what we never sent */
      s->st.ignored++;
      break;
    }
    if (k.seq > c->cum)
      c->cum = k.seq;
    advance (s, now);
    break;
  }
  return AMCC_OK;
}

static int
send_slot (amcc_rmanp_source *s, amcc_time now, struct slot *x, int retx, uint8_t *buf,
    size_t cap)
{
  struct amcc_rmanp_pkt k = { .type = AMCC_RMANP_DATA, .seq = x->seq,
    .value = rmanp_wire_rate (s->rate), .payload = x->data, .len = x->len,
    .flags = (uint8_t) ((retx ? AMCC_RMANP_F_RETX : 0) | (x->fin ? AMCC_RMANP_F_FIN : 0)) };
  int n = amcc_rmanp_encode (&k, buf, cap);
  if (n <= 0)
    return n;
  amcc_time gap = amcc_time_from_s (8.0 * n / s->rate);
  s->next_tx = (s->next_tx < now - gap ? now : s->next_tx) + gap;   /* late by < 1 packet: kept */
  x->sent_at = now;
  if (retx)
    s->st.retransmitted++;
  else
    s->st.sent++;
  return n;
}

int
amcc_rmanp_source_poll (amcc_rmanp_source *s, amcc_time now, uint8_t *buf, size_t cap,
    amcc_rmanp_dir *dir)
{
  if (!s || !buf || !dir)
    return AMCC_ERR_PARAM;
  *dir = AMCC_RMANP_DOWN;
  if (rmanp_children_check (&s->kids, &s->p, now, s->next_send)) {
    s->st.excluded = s->kids.excluded;
    advance (s, now);
  }
  if (s->base < s->next_send && now - s->last_progress >= s->p.ack_timeout) {
    /* 2.2 fallback: silence of the ACKs is congestion */
    double r = amcc_rmanp_adjusted_rate (&s->p, s->rate);
    s->rate = r > s->p.rm_bps ? r : s->p.rm_bps;
    s->st.ack_timeouts++;
    s->last_progress = now;
    struct slot *x = at (s, s->next_send - 1);
    if (!x->retx_pending && s->retx_n < s->p.window_packets) {
      x->retx_pending = 1;
      s->retx[(s->retx_head + s->retx_n++) % s->p.window_packets] = s->next_send - 1;
    }
  }
  if (now < s->next_tx)
    return 0;
  while (s->retx_n) {                 /* 2.3: repairs go ahead of new packets */
    uint32_t q = s->retx[s->retx_head];
    s->retx_head = (s->retx_head + 1) % s->p.window_packets;
    s->retx_n--;
    struct slot *x = at (s, q);
    x->retx_pending = 0;
    if (q >= s->base && x->seq == q)
      return send_slot (s, now, x, 1, buf, cap);
  }
  if (s->next_send < s->next_new) {
    if (s->base == s->next_send)
      s->last_progress = now;         /* the timeout counts from the first outstanding packet */
    int n = send_slot (s, now, at (s, s->next_send), 0, buf, cap);
    if (n > 0)
      s->next_send++;
    return n;
  }
  return 0;
}

amcc_time
amcc_rmanp_source_next_due (amcc_rmanp_source *s, amcc_time now)
{
  amcc_time t = AMCC_TIME_NONE;
#define SOONER(x) do { amcc_time x_ = (x); if (t == AMCC_TIME_NONE || x_ < t) t = x_; } while (0)
  if (s->retx_n || s->next_send < s->next_new)
    SOONER (s->next_tx > now ? s->next_tx : now);
  if (s->base < s->next_send)
    SOONER (s->last_progress + s->p.ack_timeout);
  if (rmanp_children_due (&s->kids, &s->p) != AMCC_TIME_NONE)
    SOONER (rmanp_children_due (&s->kids, &s->p));
#undef SOONER
  return t;
}

int
amcc_rmanp_source_done (const amcc_rmanp_source *s)
{
  uint32_t min;
  return s && s->fin_made && rmanp_children_min (&s->kids, &min) && min > s->fin_seq;
}

double amcc_rmanp_source_rate (const amcc_rmanp_source *s) { return s ? s->rate : 0; }

void
amcc_rmanp_source_get_stats (const amcc_rmanp_source *s, struct amcc_rmanp_stats *st)
{
  *st = s->st;
  st->rate_bps = s->rate;
  st->queued = s->next_new - s->base;
  st->repair_queued = s->retx_n;
  st->children = s->kids.n - s->kids.excluded;
  st->excluded = s->kids.excluded;
  st->acked = s->base;
}
