/* rmanp_relay.c - an RMANP active relay (papers/004 2.1-2.4): receives the session from its
 * parent and forwards it to its children at once; checks sequence numbers (a gap = congestion
 * upstream: a CI with the packet's rate x Da, the revealing packet marked downstream, a NACK
 * upstream); on a child's CI throttles its output to the lowest CI rate, queues the excess in
 * new_queue and passes the CI up x Dr; repairs its children from its cache, repairs first and
 * at the same controlled rate; raises its rate by In Rm per packet ACKed and stops controlling
 * once new_queue has drained. ACKs of its children are aggregated (their minimum goes up).
 *
 * Memory, all allocated at _new: the cache (cache_packets payloads, slot = seq % cache_packets),
 * new_queue and the repair queue (copies of the packets: a queued packet survives the cache
 * moving on), the children table and a ring of NACK ranges forwarded upstream. */
#include <stdlib.h>
#include <string.h>
#include "rmanp_impl.h"

#define FWD_NACKS 16                  /* NACK ranges for packets outside the cache, to forward */

struct cslot {                        /* a cache slot: packet seq present, or missing and asked */
  uint32_t seq, rate;
  int present, in_repairq;            /* a repair of it waits in the repair queue */
  uint16_t len;
  uint8_t fin;
  amcc_time asked, repaired;          /* our last NACK for it / last repair sent down */
  uint8_t *data;
};

struct qent { uint32_t seq, rate; uint16_t len; uint8_t flags; uint8_t *data; };
struct queue { struct qent *e; uint32_t cap, head, n; };

struct amcc_rmanp_relay {
  struct amcc_rmanp_params p;
  uint32_t node;
  struct cslot *cache;
  int have_hi;
  uint32_t hi;                        /* the highest seq heard from the parent */
  struct queue newq, repairq;
  int controlled, mark_next;
  double out_rate;
  amcc_time next_tx;
  int ci_pending;
  uint32_t ci_rate, ci_seq;
  int have_agg, ack_due;
  uint32_t agg;                       /* the children's aggregated ACK */
  amcc_time ack_at;
  struct { uint32_t seq, count; } fwd[FWD_NACKS];
  uint32_t fwd_n;
  struct rmanp_children kids;
  size_t memory;
  struct amcc_rmanp_stats st;
};

static void *
take (amcc_rmanp_relay *r, size_t n)
{
  r->memory += n;
  return calloc (1, n ? n : 1);
}

static int
queue_init (amcc_rmanp_relay *r, struct queue *q, uint32_t cap, uint32_t bytes)
{
  q->cap = cap;
  q->e = take (r, cap * sizeof *q->e);
  uint8_t *mem = take (r, (size_t) cap * bytes);
  if (!q->e || !mem) {
    free (mem);
    return 0;
  }
  for (uint32_t i = 0; i < cap; i++)
    q->e[i].data = mem + (size_t) i * bytes;
  return 1;
}

static void
queue_free (struct queue *q)
{
  if (q->e)
    free (q->e[0].data);
  free (q->e);
}

amcc_rmanp_relay *
amcc_rmanp_relay_new (const struct amcc_rmanp_params *p, uint32_t node, amcc_time now)
{
  if (amcc_rmanp_params_check (p) != AMCC_OK)
    return NULL;
  amcc_rmanp_relay *r = calloc (1, sizeof *r);
  if (!r)
    return NULL;
  uint32_t pay = amcc_rmanp_payload_max (p);
  r->memory = sizeof *r;
  r->p = *p;
  r->node = node;
  r->cache = take (r, p->cache_packets * sizeof *r->cache);
  uint8_t *mem = take (r, (size_t) p->cache_packets * pay);
  r->kids.c = take (r, p->max_children * sizeof *r->kids.c);
  r->kids.cap = p->max_children;
  if (!r->cache || !mem || !r->kids.c || !queue_init (r, &r->newq, p->queue_packets, pay)
      || !queue_init (r, &r->repairq, p->repair_packets, pay)) {
    free (mem);
    amcc_rmanp_relay_free (r);
    return NULL;
  }
  for (uint32_t i = 0; i < p->cache_packets; i++) {
    r->cache[i].data = mem + (size_t) i * pay;
    r->cache[i].seq = UINT32_MAX;     /* no packet: seq % cap != i */
  }
  r->out_rate = p->rm_bps;
  r->next_tx = now;
  r->ack_at = now;
  return r;
}

void
amcc_rmanp_relay_free (amcc_rmanp_relay *r)
{
  if (!r)
    return;
  if (r->cache)
    free (r->cache[0].data);
  free (r->cache);
  queue_free (&r->newq);
  queue_free (&r->repairq);
  free (r->kids.c);
  free (r);
}

size_t amcc_rmanp_relay_memory (const amcc_rmanp_relay *r) { return r->memory; }

static struct cslot *slot (amcc_rmanp_relay *r, uint32_t seq) { return &r->cache[seq % r->p.cache_packets]; }

/* The cache holds [lo, hi]: lo is the oldest seq it can hold. */
static uint32_t
cache_lo (const amcc_rmanp_relay *r)
{
  return r->hi >= r->p.cache_packets - 1 ? r->hi - (r->p.cache_packets - 1) : 0;
}

static int
in_cache_window (const amcc_rmanp_relay *r, uint32_t seq)
{
  return r->have_hi && seq >= cache_lo (r) && seq <= r->hi;
}

static int
cached (amcc_rmanp_relay *r, uint32_t seq)
{
  struct cslot *c = slot (r, seq);
  return in_cache_window (r, seq) && c->seq == seq && c->present;
}

static int
push (struct queue *q, uint32_t seq, uint32_t rate, uint8_t flags, const uint8_t *data,
    uint16_t len)
{
  if (q->n == q->cap)
    return 0;
  struct qent *e = &q->e[(q->head + q->n++) % q->cap];
  e->seq = seq;
  e->rate = rate;
  e->flags = flags;
  e->len = len;
  memcpy (e->data, data, len);
  return 1;
}

/* A CI to send up; of several pending only the lowest rate leaves (they are one incident). */
static void
want_ci (amcc_rmanp_relay *r, double rate, uint32_t seq)
{
  uint32_t w = rmanp_wire_rate (rate < r->p.rm_bps ? r->p.rm_bps : rate);
  if (!r->ci_pending || w < r->ci_rate) {
    r->ci_rate = w;
    r->ci_seq = seq;
  }
  r->ci_pending = 1;
}

static void
on_data (amcc_rmanp_relay *r, amcc_time now, const struct amcc_rmanp_pkt *k)
{
  int retx = k->flags & AMCC_RMANP_F_RETX;
  uint8_t flags = k->flags & (AMCC_RMANP_F_FIN | AMCC_RMANP_F_MARK);

  if (cached (r, k->seq)) {
    struct cslot *c = slot (r, k->seq);
    /* a repair of what we hold but a child has not ACKed (the source's probe of a lost tail,
     * which shows no gap below): down it goes too */
    if (retx && k->seq == r->hi && (!r->have_agg || k->seq >= r->agg) && !c->in_repairq
        && (c->repaired == AMCC_TIME_NONE || now - c->repaired >= r->p.repair_holdoff)
        && push (&r->repairq, k->seq, k->value, flags | AMCC_RMANP_F_RETX, c->data, c->len))
      c->in_repairq = 1;
    else
      r->st.duplicates++;
    return;
  }
  if (!retx && r->have_hi && (uint64_t) k->seq > (uint64_t) r->hi + 1) {
    r->st.gaps++;                     /* 2.1: congestion upstream, unless already reported */
    if (!(k->flags & AMCC_RMANP_F_MARK)) {
      want_ci (r, amcc_rmanp_adjusted_rate (&r->p, k->value), k->seq);
      flags |= AMCC_RMANP_F_MARK;
      r->st.marked++;
    }
  }
  if (!r->have_hi || k->seq > r->hi) {
    r->hi = k->seq;
    r->have_hi = 1;
  }
  if (in_cache_window (r, k->seq)) {
    struct cslot *c = slot (r, k->seq);
    if (c->seq != k->seq) {
      c->repaired = AMCC_TIME_NONE;
      c->in_repairq = 0;
    }
    c->seq = k->seq;
    c->rate = k->value;
    c->present = 1;
    c->len = k->len;
    c->fin = (k->flags & AMCC_RMANP_F_FIN) != 0;
    memcpy (c->data, k->payload, k->len);
  }
  if (retx) {                         /* a repair from upstream: down as a repair */
    if (!push (&r->repairq, k->seq, k->value, flags | AMCC_RMANP_F_RETX, k->payload, k->len))
      r->st.ignored++;
    return;
  }
  if (r->controlled && !r->newq.n && !r->repairq.n && now >= r->next_tx)
    r->controlled = 0;                /* 2.4: new_queue drained and the input no faster */
  if (r->mark_next) {
    flags |= AMCC_RMANP_F_MARK;       /* it reveals the gap our overflow left */
    r->mark_next = 0;
  }
  if (!push (&r->newq, k->seq, k->value, flags, k->payload, k->len)) {
    r->st.overflows++;                /* 2.1: overflow of new_queue is congestion too */
    want_ci (r, amcc_rmanp_adjusted_rate (&r->p, k->value), k->seq);
    r->mark_next = 1;
  } else if (r->newq.n > r->st.queue_peak) {
    r->st.queue_peak = r->newq.n;
  }
}

static void
forward_nack (amcc_rmanp_relay *r, uint32_t seq, uint32_t count)
{
  for (uint32_t i = 0; i < r->fwd_n; i++)
    if (r->fwd[i].seq == seq && r->fwd[i].count >= count)
      return;
  if (r->fwd_n < FWD_NACKS) {
    r->fwd[r->fwd_n].seq = seq;
    r->fwd[r->fwd_n++].count = count;
  } else {
    r->st.ignored++;                  /* the child asks again after its nack_interval */
  }
}

static void
on_nack (amcc_rmanp_relay *r, amcc_time now, const struct amcc_rmanp_pkt *k)
{
  uint64_t end = (uint64_t) k->seq + k->value, lo = r->have_hi ? cache_lo (r) : 0;
  r->st.nacks_received++;
  if (!r->have_hi || k->seq > r->hi) {          /* newer than anything we heard: upstream */
    r->st.cache_misses++;
    forward_nack (r, k->seq, k->value);
    return;
  }
  if (k->seq < lo) {                            /* older than the cache holds: that part up */
    r->st.cache_misses++;
    forward_nack (r, k->seq, (uint32_t) ((end < lo ? end : lo) - k->seq));
  }
  for (uint64_t q = k->seq < lo ? lo : k->seq; q < end && q <= r->hi; q++) {
    if (!cached (r, (uint32_t) q)) {
      r->st.cache_misses++;                     /* we miss it too: own_nack asks for it */
      continue;
    }
    struct cslot *c = slot (r, (uint32_t) q);
    r->st.cache_hits++;
    if (c->in_repairq || (c->repaired != AMCC_TIME_NONE
            && now - c->repaired < r->p.repair_holdoff))
      continue;                       /* queued, or sent a moment ago: another child asked */
    uint8_t f = AMCC_RMANP_F_RETX | (c->fin ? AMCC_RMANP_F_FIN : 0);
    if (push (&r->repairq, (uint32_t) q, c->rate, f, c->data, c->len))
      c->in_repairq = 1;
  }
  if (end > (uint64_t) r->hi + 1) {             /* the part past what we heard: up */
    r->st.cache_misses++;
    forward_nack (r, r->hi + 1, (uint32_t) (end - r->hi - 1));
  }
}

static void
on_ci (amcc_rmanp_relay *r, amcc_time now, const struct amcc_rmanp_pkt *k)
{
  double rate = k->value < r->p.rm_bps ? r->p.rm_bps : k->value;
  r->st.ci_received++;
  if (r->controlled && !(rate < r->out_rate)) {
    r->st.ci_filtered++;              /* 2.3: one reaction per incident, to the worst only */
    return;
  }
  if (!r->controlled) {
    r->next_tx = now + amcc_time_from_s (8.0 * r->p.packet_bytes / rate);
    r->controlled = 1;
  }
  r->out_rate = rate;
  r->st.reactions++;
  want_ci (r, amcc_rmanp_relayed_rate (&r->p, rate), k->seq);
}

static void
on_ack (amcc_rmanp_relay *r, amcc_time now, struct rmanp_child *c, uint32_t seq)
{
  uint32_t min;
  if (!c || c->excluded || (r->have_hi ? (uint64_t) seq > (uint64_t) r->hi + 1 : seq > 0)) {
    r->st.ignored++;                  /* table full, excluded, or ACKs what we never had */
    return;
  }
  if (seq > c->cum)
    c->cum = seq;
  if (!rmanp_children_min (&r->kids, &min))
    return;
  if (!r->have_agg || min > r->agg) {
    if (r->have_agg && r->controlled) /* 2.4 */
      r->out_rate = amcc_rmanp_relay_increase (&r->p, r->out_rate, min - r->agg);
    r->agg = min;
    r->have_agg = 1;
    r->ack_due = 1;
  }
  (void) now;
}

int
amcc_rmanp_relay_on_packet (amcc_rmanp_relay *r, amcc_time now, int from_parent,
    const uint8_t *buf, size_t len)
{
  struct amcc_rmanp_pkt k;
  int e;

  if (!r)
    return AMCC_ERR_PARAM;
  if ((e = amcc_rmanp_decode (&k, buf, len)) != AMCC_OK
      || (e = rmanp_fits (&r->p, &k)) != AMCC_OK) {
    r->st.malformed++;
    return e;
  }
  if (from_parent != (k.type == AMCC_RMANP_DATA)) {
    r->st.ignored++;                  /* data comes from the parent, control from children */
    return AMCC_OK;
  }
  if (k.type == AMCC_RMANP_DATA) {
    on_data (r, now, &k);
    return AMCC_OK;
  }
  struct rmanp_child *c = rmanp_children_get (&r->kids, k.node, now);
  if (c && c->excluded) {
    r->st.ignored++;
    return AMCC_OK;
  }
  if (k.type == AMCC_RMANP_CI)
    on_ci (r, now, &k);
  else if (k.type == AMCC_RMANP_NACK)
    on_nack (r, now, &k);
  else
    on_ack (r, now, c, k.seq);
  return AMCC_OK;
}

/* Our own NACK: the first run of missing packets in the cache window not asked for within
 * nack_interval. */
static int
own_nack (amcc_rmanp_relay *r, amcc_time now, uint8_t *buf, size_t cap)
{
  if (!r->have_hi)
    return 0;
  uint32_t first = 0, n = 0;
  for (uint32_t q = cache_lo (r); ; q++) {
    struct cslot *c = slot (r, q);
    int missing = !(c->seq == q && c->present);
    int due = missing && (c->seq != q || c->asked == AMCC_TIME_NONE
        || now - c->asked >= r->p.nack_interval);
    if (due) {
      if (c->seq != q)
        *c = (struct cslot) { .seq = q, .data = c->data, .repaired = AMCC_TIME_NONE };
      c->asked = now;
      if (!n)
        first = q;
      n++;
    }
    if ((!due && n) || q == r->hi || n == AMCC_RMANP_NACK_MAX)
      break;
  }
  if (!n)
    return 0;
  r->st.nacks_sent++;
  return rmanp_encode_ctl (AMCC_RMANP_NACK, r->node, first, n, buf, cap);
}

static int
send_down (amcc_rmanp_relay *r, amcc_time now, struct queue *q, uint8_t *buf, size_t cap)
{
  struct qent *e = &q->e[q->head];
  struct amcc_rmanp_pkt k = { .type = AMCC_RMANP_DATA, .seq = e->seq, .value = e->rate,
    .flags = e->flags, .payload = e->data, .len = e->len };
  int n = amcc_rmanp_encode (&k, buf, cap);
  if (n <= 0)
    return n;
  q->head = (q->head + 1) % q->cap;
  q->n--;
  if (e->flags & AMCC_RMANP_F_RETX && cached (r, e->seq)) {
    slot (r, e->seq)->in_repairq = 0;       /* the holdoff counts from when it left */
    slot (r, e->seq)->repaired = now;
  }
  if (r->controlled) {
    amcc_time gap = amcc_time_from_s (8.0 * n / r->out_rate);
    r->next_tx = (r->next_tx < now - gap ? now : r->next_tx) + gap;
  }
  if (e->flags & AMCC_RMANP_F_RETX)
    r->st.retransmitted++;
  else
    r->st.forwarded++;
  return n;
}

int
amcc_rmanp_relay_poll (amcc_rmanp_relay *r, amcc_time now, uint8_t *buf, size_t cap,
    amcc_rmanp_dir *dir)
{
  int n;
  if (!r || !buf || !dir)
    return AMCC_ERR_PARAM;
  *dir = AMCC_RMANP_UP;
  if (rmanp_children_check (&r->kids, &r->p, now, r->have_hi ? r->hi + 1 : 0)) {
    r->st.excluded = r->kids.excluded;
    uint32_t min;                     /* the minimum may move on without them */
    if (rmanp_children_min (&r->kids, &min) && (!r->have_agg || min > r->agg)) {
      r->agg = min;
      r->have_agg = r->ack_due = 1;
    }
  }
  if (r->ci_pending) {
    r->ci_pending = 0;
    r->st.ci_sent++;
    return rmanp_encode_ctl (AMCC_RMANP_CI, r->node, r->ci_seq, r->ci_rate, buf, cap);
  }
  if (r->have_agg && (r->ack_due || now - r->ack_at >= r->p.ack_repeat)) {
    r->ack_due = 0;
    r->ack_at = now;
    r->st.acks_sent++;
    return rmanp_encode_ctl (AMCC_RMANP_ACK, r->node, r->agg, 0, buf, cap);
  }
  if (r->fwd_n) {
    r->fwd_n--;
    r->st.nacks_sent++;
    return rmanp_encode_ctl (AMCC_RMANP_NACK, r->node, r->fwd[r->fwd_n].seq,
        r->fwd[r->fwd_n].count, buf, cap);
  }
  if ((n = own_nack (r, now, buf, cap)) != 0)
    return n;
  *dir = AMCC_RMANP_DOWN;
  if (r->controlled && now < r->next_tx)
    return 0;
  if (r->repairq.n)                   /* 2.3: repairs ahead of new_queue, at the same rate */
    return send_down (r, now, &r->repairq, buf, cap);
  if (r->newq.n)
    return send_down (r, now, &r->newq, buf, cap);
  return 0;
}

amcc_time
amcc_rmanp_relay_next_due (amcc_rmanp_relay *r, amcc_time now)
{
  amcc_time t = AMCC_TIME_NONE;
#define SOONER(x) do { amcc_time x_ = (x); if (t == AMCC_TIME_NONE || x_ < t) t = x_; } while (0)
  if (r->ci_pending || r->ack_due || r->fwd_n)
    SOONER (now);
  if (r->repairq.n || r->newq.n)
    SOONER (r->controlled && r->next_tx > now ? r->next_tx : now);
  if (r->have_agg)
    SOONER (r->ack_at + r->p.ack_repeat);
  if (r->have_hi)
    for (uint32_t q = cache_lo (r); ; q++) {
      struct cslot *c = slot (r, q);
      if (!(c->seq == q && c->present))
        SOONER (c->seq != q || c->asked == AMCC_TIME_NONE ? now : c->asked + r->p.nack_interval);
      if (q == r->hi)
        break;
    }
  if (rmanp_children_due (&r->kids, &r->p) != AMCC_TIME_NONE)
    SOONER (rmanp_children_due (&r->kids, &r->p));
#undef SOONER
  return t;
}

void
amcc_rmanp_relay_get_stats (const amcc_rmanp_relay *r, struct amcc_rmanp_stats *st)
{
  *st = r->st;
  st->rate_bps = r->controlled ? r->out_rate : 0;
  st->controlled = r->controlled;
  st->queued = r->newq.n;
  st->repair_queued = r->repairq.n;
  st->cached = 0;
  for (uint32_t i = 0; i < r->p.cache_packets; i++)
    st->cached += r->cache[i].present && in_cache_window (r, r->cache[i].seq);
  st->children = r->kids.n - r->kids.excluded;
  st->excluded = r->kids.excluded;
  st->acked = r->agg;
}
