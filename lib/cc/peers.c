/* peers.c - the sender's views of its receivers (amcc_peers, controller_impl.h): an open-
 * addressing hash table keyed by SSRC, grown by doubling, entries removed by backward shift. It
 * holds what the stats and the shared policy need (proofs, exclusion, the last report), not the
 * protocols' own state. */
#include <stdlib.h>
#include <string.h>
#include "controller_impl.h"

#define MAX_PEERS (1u << 16)       /* the ASMP sender's own table bound (max_receivers) */

static size_t
home (const amcc_peers *t, uint32_t ssrc)
{
  uint32_t h = ssrc * UINT32_C (0x9E3779B1);     /* SSRCs are random; this only spreads them */
  return (h ^ (h >> 16)) & (t->cap - 1);
}

/* Index of ssrc's slot, or t->cap when absent. */
static size_t
slot_of (const amcc_peers *t, uint32_t ssrc)
{
  if (!t->cap)
    return 0;
  for (size_t i = home (t, ssrc); t->slot[i].used; i = (i + 1) & (t->cap - 1))
    if (t->slot[i].p.ssrc == ssrc)
      return i;
  return t->cap;
}

amcc_peer *
amcc_peers_find (const amcc_peers *t, uint32_t ssrc)
{
  size_t i = slot_of (t, ssrc);
  return i < t->cap ? &t->slot[i].p : NULL;
}

static int
grow (amcc_peers *t)
{
  amcc_peers bigger = { calloc (t->cap ? 2 * t->cap : 16, sizeof (amcc_peer_slot)),
    t->cap ? 2 * t->cap : 16, t->n };
  if (!bigger.slot)
    return AMCC_ERR_NOMEM;
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slot[i].used)
      continue;
    size_t j = home (&bigger, t->slot[i].p.ssrc);
    while (bigger.slot[j].used)
      j = (j + 1) & (bigger.cap - 1);
    bigger.slot[j] = t->slot[i];
  }
  free (t->slot);
  *t = bigger;
  return AMCC_OK;
}

amcc_peer *
amcc_peers_get (amcc_peers *t, uint32_t ssrc)
{
  amcc_peer *p = amcc_peers_find (t, ssrc);
  if (p)
    return p;
  if (t->n >= MAX_PEERS || ((t->n + 1) * 2 > t->cap && grow (t) != AMCC_OK))
    return NULL;
  size_t i = home (t, ssrc);
  while (t->slot[i].used)
    i = (i + 1) & (t->cap - 1);
  t->slot[i].used = 1;
  t->n++;
  p = &t->slot[i].p;
  memset (p, 0, sizeof *p);
  p->ssrc = ssrc;
  p->heard = p->reported = p->proven = p->tokens_at = p->low_since = AMCC_TIME_NONE;
  p->elect_since = p->demoted_until = p->suspect_at = p->suspect_from = AMCC_TIME_NONE;
  return p;
}

void
amcc_peers_remove (amcc_peers *t, uint32_t ssrc)
{
  size_t mask = t->cap - 1, hole = slot_of (t, ssrc);
  if (hole >= t->cap)
    return;
  /* backward shift: an entry later in the run moves into the hole unless its home lies
   * after the hole (cyclically), so every entry stays reachable from its home */
  for (size_t j = (hole + 1) & mask; t->slot[j].used; j = (j + 1) & mask) {
    size_t h = home (t, t->slot[j].p.ssrc);
    if (((j - h) & mask) >= ((j - hole) & mask)) {
      t->slot[hole] = t->slot[j];
      hole = j;
    }
  }
  t->slot[hole].used = 0;
  t->n--;
}

uint32_t
amcc_peers_alive (const amcc_peers *t, amcc_time now, amcc_time timeout)
{
  uint32_t n = 0;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i].used && t->slot[i].p.heard != AMCC_TIME_NONE
        && now - t->slot[i].p.heard <= timeout)
      n++;
  return n;
}
