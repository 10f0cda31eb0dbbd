/* asmp_sender.c - ASMP sender (spec/asmp.md "Sender", papers/000 3.1, eq. 1 and 9).
 * Receivers live in a slab indexed by an open-addressing hash table on SSRC. Three intrusive
 * structures keep every operation O(log n) or amortised O(1):
 *   - a binary min-heap (with back-indices) over the reported rates: eq. 1 is the heap top;
 *   - a list ordered by last sign of life (moved to the tail on each report): expiry pops
 *     from the head, so each expiry is O(1) and no report scans the table;
 *   - a FIFO of fresh RTTs waiting to be echoed (round robin when they do not all fit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amcc/asmp.h"

#define NIL (-1)

typedef struct entry {
  uint32_t ssrc;
  int32_t heap;              /* position in the heap, NIL when no rate */
  int32_t prev, next;        /* liveness list (next also links the free list) */
  int32_t eprev, enext;      /* echo queue */
  uint8_t used, queued;
  double rate_bps;
  amcc_time block_at;        /* its last report block, AMCC_TIME_NONE = none */
  amcc_time rate_at;         /* its last rate report, AMCC_TIME_NONE = none */
  amcc_time last_heard;
  amcc_time rtt;
} entry;

struct amcc_asmp_sender {
  amcc_asmp_params p;
  amcc_time timeout;
  entry *e;
  uint32_t cap, count;
  int32_t free_head;
  int32_t *hash;             /* slot -> entry index, NIL = empty */
  uint32_t hbits;
  int32_t *heap;
  uint32_t heap_n;
  int32_t head, tail;        /* liveness list, oldest first */
  int32_t ehead, etail;      /* echo queue */
  double rate_bps;
  amcc_asmp_sender_stats st;
};

/* ---- hash table: linear probing, backward-shift deletion ---- */
static uint32_t
home (const amcc_asmp_sender *tx, uint32_t ssrc)
{
  return (uint32_t) (ssrc * 2654435761u) >> (32 - tx->hbits);
}

static int32_t
lookup (const amcc_asmp_sender *tx, uint32_t ssrc)
{
  uint32_t mask = (1u << tx->hbits) - 1;
  for (uint32_t i = home (tx, ssrc);; i = (i + 1) & mask) {
    int32_t k = tx->hash[i];
    if (k == NIL || tx->e[k].ssrc == ssrc)
      return k;
  }
}

static void
hash_insert (amcc_asmp_sender *tx, int32_t k)
{
  uint32_t mask = (1u << tx->hbits) - 1, i = home (tx, tx->e[k].ssrc);
  while (tx->hash[i] != NIL)
    i = (i + 1) & mask;
  tx->hash[i] = k;
}

static void
hash_remove (amcc_asmp_sender *tx, uint32_t ssrc)
{
  uint32_t mask = (1u << tx->hbits) - 1, i = home (tx, ssrc);
  while (tx->e[tx->hash[i]].ssrc != ssrc)
    i = (i + 1) & mask;
  /* shift later members of the cluster back when their home allows it */
  for (uint32_t j = (i + 1) & mask; tx->hash[j] != NIL; j = (j + 1) & mask) {
    uint32_t h = home (tx, tx->e[tx->hash[j]].ssrc);
    if (((j - h) & mask) >= ((j - i) & mask)) {
      tx->hash[i] = tx->hash[j];
      i = j;
    }
  }
  tx->hash[i] = NIL;
}

/* ---- min-heap on rate ---- */
static void
heap_set (amcc_asmp_sender *tx, uint32_t pos, int32_t k)
{
  tx->heap[pos] = k;
  tx->e[k].heap = (int32_t) pos;
}

static void
sift_up (amcc_asmp_sender *tx, uint32_t pos)
{
  int32_t k = tx->heap[pos];
  while (pos > 0) {
    uint32_t parent = (pos - 1) / 2;
    if (tx->e[tx->heap[parent]].rate_bps <= tx->e[k].rate_bps)
      break;
    heap_set (tx, pos, tx->heap[parent]);
    pos = parent;
  }
  heap_set (tx, pos, k);
}

static void
sift_down (amcc_asmp_sender *tx, uint32_t pos)
{
  int32_t k = tx->heap[pos];
  for (;;) {
    uint32_t c = 2 * pos + 1;
    if (c >= tx->heap_n)
      break;
    if (c + 1 < tx->heap_n && tx->e[tx->heap[c + 1]].rate_bps < tx->e[tx->heap[c]].rate_bps)
      c++;
    if (tx->e[tx->heap[c]].rate_bps >= tx->e[k].rate_bps)
      break;
    heap_set (tx, pos, tx->heap[c]);
    pos = c;
  }
  heap_set (tx, pos, k);
}

static void
heap_remove (amcc_asmp_sender *tx, int32_t k)
{
  uint32_t pos = (uint32_t) tx->e[k].heap;
  tx->e[k].heap = NIL;
  int32_t last = tx->heap[--tx->heap_n];
  if ((uint32_t) pos == tx->heap_n)
    return;
  heap_set (tx, pos, last);
  sift_up (tx, pos);
  sift_down (tx, (uint32_t) tx->e[last].heap);
}

/* ---- intrusive lists ---- */
static void
live_unlink (amcc_asmp_sender *tx, int32_t k)
{
  entry *x = &tx->e[k];
  if (x->prev != NIL) tx->e[x->prev].next = x->next; else tx->head = x->next;
  if (x->next != NIL) tx->e[x->next].prev = x->prev; else tx->tail = x->prev;
  x->prev = x->next = NIL;
}

static void
live_append (amcc_asmp_sender *tx, int32_t k)
{
  entry *x = &tx->e[k];
  x->prev = tx->tail;
  x->next = NIL;
  if (tx->tail != NIL) tx->e[tx->tail].next = k; else tx->head = k;
  tx->tail = k;
}

static void
echo_unlink (amcc_asmp_sender *tx, int32_t k)
{
  entry *x = &tx->e[k];
  if (!x->queued)
    return;
  if (x->eprev != NIL) tx->e[x->eprev].enext = x->enext; else tx->ehead = x->enext;
  if (x->enext != NIL) tx->e[x->enext].eprev = x->eprev; else tx->etail = x->eprev;
  x->eprev = x->enext = NIL;
  x->queued = 0;
}

static void
echo_append (amcc_asmp_sender *tx, int32_t k)
{
  entry *x = &tx->e[k];
  if (x->queued)
    return;               /* keeps its place; the newer RTT replaces the value */
  x->eprev = tx->etail;
  x->enext = NIL;
  if (tx->etail != NIL) tx->e[tx->etail].enext = k; else tx->ehead = k;
  tx->etail = k;
  x->queued = 1;
}

/* ---- table growth, entry life ---- */
static int
grow (amcc_asmp_sender *tx)
{
  uint32_t ncap = tx->cap ? tx->cap * 2 : 64;
  if (ncap > tx->p.max_receivers)
    ncap = tx->p.max_receivers;
  if (ncap <= tx->cap)
    return AMCC_ERR_FULL;
  uint32_t nbits = tx->hbits;
  while ((1u << nbits) < 2 * ncap)
    nbits++;
  entry *ne = realloc (tx->e, ncap * sizeof *ne);
  if (!ne)
    return AMCC_ERR_NOMEM;
  tx->e = ne;
  int32_t *nheap = realloc (tx->heap, ncap * sizeof *nheap);
  if (!nheap)
    return AMCC_ERR_NOMEM;
  tx->heap = nheap;
  int32_t *nhash = malloc (((size_t) 1 << nbits) * sizeof *nhash);
  if (!nhash)
    return AMCC_ERR_NOMEM;
  for (uint32_t i = tx->cap; i < ncap; i++) {      /* new slots onto the free list */
    memset (&tx->e[i], 0, sizeof tx->e[i]);
    tx->e[i].next = (i + 1 < ncap) ? (int32_t) (i + 1) : tx->free_head;
  }
  tx->free_head = (int32_t) tx->cap;
  tx->cap = ncap;
  free (tx->hash);
  tx->hash = nhash;
  tx->hbits = nbits;
  for (uint32_t i = 0; i < (1u << nbits); i++)
    tx->hash[i] = NIL;
  for (uint32_t i = 0; i < tx->cap; i++)
    if (tx->e[i].used)
      hash_insert (tx, (int32_t) i);
  return AMCC_OK;
}

static int32_t
find_or_add (amcc_asmp_sender *tx, uint32_t ssrc, int *status)
{
  int32_t k = lookup (tx, ssrc);
  if (k != NIL)
    return k;
  if (tx->free_head == NIL) {
    *status = grow (tx);
    if (*status != AMCC_OK)
      return NIL;
  }
  k = tx->free_head;
  entry *x = &tx->e[k];
  tx->free_head = x->next;
  memset (x, 0, sizeof *x);
  x->ssrc = ssrc;
  x->used = 1;
  x->heap = x->prev = x->next = x->eprev = x->enext = NIL;
  x->block_at = x->rate_at = AMCC_TIME_NONE;
  tx->count++;
  hash_insert (tx, k);
  live_append (tx, k);
  return k;
}

static void
remove_entry (amcc_asmp_sender *tx, int32_t k)
{
  entry *x = &tx->e[k];
  live_unlink (tx, k);
  echo_unlink (tx, k);
  if (x->heap != NIL)
    heap_remove (tx, k);
  hash_remove (tx, x->ssrc);
  x->used = 0;
  x->next = tx->free_head;
  tx->free_head = k;
  tx->count--;
}

/* Keep the liveness list sorted even if a caller's clock steps back. */
static void
touch (amcc_asmp_sender *tx, int32_t k, amcc_time now)
{
  if (tx->tail != NIL && tx->tail != k && tx->e[tx->tail].last_heard > now)
    now = tx->e[tx->tail].last_heard;
  tx->e[k].last_heard = now;
  live_unlink (tx, k);
  live_append (tx, k);
}

static void
expire (amcc_asmp_sender *tx, amcc_time now)
{
  while (tx->head != NIL && now - tx->e[tx->head].last_heard > tx->timeout) {
    remove_entry (tx, tx->head);
    tx->st.expired++;
  }
}

amcc_asmp_sender *
amcc_asmp_sender_new (const amcc_asmp_params *p, amcc_time now)
{
  amcc_asmp_params def;
  if (!p) {
    amcc_asmp_params_init (&def);
    p = &def;
  }
  if (amcc_asmp_params_validate (p) != AMCC_OK)
    return NULL;
  amcc_asmp_sender *tx = calloc (1, sizeof *tx);
  if (!tx)
    return NULL;
  tx->p = *p;
  tx->timeout = p->receiver_timeout;
  tx->free_head = tx->head = tx->tail = tx->ehead = tx->etail = NIL;
  tx->rate_bps = fmin (fmax (p->initial_rate_bps, p->min_rate_bps), p->max_rate_bps);
  if (grow (tx) != AMCC_OK) {
    amcc_asmp_sender_free (tx);
    return NULL;
  }
  (void) now;
  return tx;
}

void
amcc_asmp_sender_free (amcc_asmp_sender *tx)
{
  if (!tx)
    return;
  free (tx->e);
  free (tx->heap);
  free (tx->hash);
  free (tx);
}

int
amcc_asmp_sender_on_report (amcc_asmp_sender *tx, amcc_time now, uint32_t ssrc,
    const amcc_asmp_report *report)
{
  if (!tx || !report)
    return AMCC_ERR_PARAM;
  if (!(report->rate_bps > 0) || !isfinite (report->rate_bps)) {
    tx->st.rejected++;
    return AMCC_ERR_FIELD;
  }
  expire (tx, now);
  int st = AMCC_OK;
  int32_t k = find_or_add (tx, ssrc, &st);
  if (k == NIL) {
    tx->st.rejected++;
    return st;
  }
  entry *x = &tx->e[k];
  double old = x->rate_bps;
  x->rate_bps = report->rate_bps;
  x->rate_at = now;
  if (x->heap == NIL) {
    x->heap = (int32_t) tx->heap_n;
    tx->heap[tx->heap_n++] = k;
    sift_up (tx, (uint32_t) x->heap);
  } else if (x->rate_bps < old) {
    sift_up (tx, (uint32_t) x->heap);
  } else {
    sift_down (tx, (uint32_t) x->heap);
  }
  touch (tx, k, now);
  tx->st.reports++;
  return AMCC_OK;
}

int
amcc_asmp_sender_on_report_block (amcc_asmp_sender *tx, amcc_time now, uint32_t ssrc,
    amcc_time rtt)
{
  if (!tx)
    return AMCC_ERR_PARAM;
  if (rtt <= 0 || rtt > AMCC_ASMP_MAX_WIRE_RTT)
    return AMCC_ERR_FIELD;
  expire (tx, now);
  int st = AMCC_OK;
  int32_t k = find_or_add (tx, ssrc, &st);
  if (k == NIL)
    return st;
  entry *x = &tx->e[k];
  /* drop_suppressed: its previous RR carried no rate (a suppressed report, section 3.8): it
   * heard a peer report a rate at most 2 % below its own, so its older rate is out of date and
   * eq. 1 runs without it until it reports again. Kept, the oldest low rates of the group
   * held the sender down (dumbbell-45: half the reports suppressed). */
  if (tx->p.drop_suppressed && x->heap != NIL && x->block_at != AMCC_TIME_NONE
      && x->rate_at < x->block_at) {
    heap_remove (tx, k);
    tx->st.stale++;
  }
  x->block_at = now;
  x->rtt = rtt;
  echo_append (tx, k);
  touch (tx, k, now);
  return AMCC_OK;
}

void
amcc_asmp_sender_on_bye (amcc_asmp_sender *tx, amcc_time now, uint32_t ssrc)
{
  if (!tx)
    return;
  int32_t k = lookup (tx, ssrc);
  if (k != NIL) {
    remove_entry (tx, k);
    tx->st.byes++;
  }
  (void) now;
}

void
amcc_asmp_sender_set_timeout (amcc_asmp_sender *tx, amcc_time timeout)
{
  if (tx && timeout > 0)
    tx->timeout = timeout;
}

/* eq. 1: r_tx = min(r^1 .. r^n) over live receivers, clamped */
double
amcc_asmp_sender_rate (amcc_asmp_sender *tx, amcc_time now)
{
  if (!tx)
    return 0.0;
  expire (tx, now);
  if (tx->heap_n > 0) {
    double r = tx->e[tx->heap[0]].rate_bps;
    tx->rate_bps = fmin (fmax (r, tx->p.min_rate_bps), tx->p.max_rate_bps);
  }
  return tx->rate_bps;
}

size_t
amcc_asmp_sender_fill_echo (amcc_asmp_sender *tx, amcc_time now,
    amcc_asmp_echo_entry *entries, size_t max_entries)
{
  if (!tx || !entries)
    return 0;
  expire (tx, now);
  size_t n = 0;
  while (n < max_entries && tx->ehead != NIL) {
    int32_t k = tx->ehead;
    entries[n].ssrc = tx->e[k].ssrc;
    entries[n].rtt = tx->e[k].rtt;
    n++;
    echo_unlink (tx, k);
  }
  return n;
}

void
amcc_asmp_sender_get_stats (const amcc_asmp_sender *tx, amcc_asmp_sender_stats *st)
{
  if (!tx || !st)
    return;
  *st = tx->st;
  st->receivers = tx->count;
  st->rated = tx->heap_n;
  st->slowest_ssrc = tx->heap_n ? tx->e[tx->heap[0]].ssrc : 0;
  st->slowest_rate_bps = tx->heap_n ? tx->e[tx->heap[0]].rate_bps : 0.0;
}
